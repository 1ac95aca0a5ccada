from __future__ import annotations

from fastapi import APIRouter, Depends

from app.api.schemas import ERRORS, GuestIn, TokenOut, UserOut
from app.auth import User, current_user, issue_token, new_guest
from app.config import Settings, get_settings

router = APIRouter(prefix="/api", tags=["identity"], responses=ERRORS)


@router.post("/auth/guest", response_model=TokenOut)
async def guest(body: GuestIn, settings: Settings = Depends(get_settings)):
    """Play as a guest: a name is enough. The token identifies you on every call."""
    user = new_guest(body.name)
    return {"token": issue_token(user, settings), "user": user.public()}


@router.get("/me", response_model=UserOut)
async def me(user: User = Depends(current_user)):
    return user.public()
