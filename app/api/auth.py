from __future__ import annotations

import uuid

from fastapi import APIRouter, Depends, Request

from app.api.schemas import ERRORS, CredentialsIn, GuestIn, PasswordChangeIn, TokenOut, UserOut
from app.auth import (
    User,
    current_user,
    hash_password,
    issue_token,
    new_guest,
    revoke,
    verify_password,
    write_status,
)
from app.db import accounts
from app.errors import ApiError
from app.services import Services, get_services

router = APIRouter(prefix="/api", tags=["identity"], responses=ERRORS)

# Failed logins: per name and per client address, within a window.
FAILS_PER_NAME = 5
FAILS_PER_ADDRESS = 30
FAIL_WINDOW = 900


def _token_out(user: User, svc: Services) -> dict:
    return {"token": issue_token(user, svc.settings), "user": user.public()}


@router.post("/auth/guest", response_model=TokenOut)
async def guest(body: GuestIn, svc: Services = Depends(get_services)):
    """Play as a guest: a name is enough. The token identifies you on every call."""
    return _token_out(new_guest(body.name), svc)


@router.post("/auth/register", response_model=TokenOut)
async def register(body: CredentialsIn, svc: Services = Depends(get_services)):
    """Create an account (names are unique, ignoring case)."""
    if await accounts.by_name(svc.maker, body.name):
        raise ApiError("name_taken", "That name is taken; choose another.")
    try:
        row = await accounts.create_account(svc.maker, "u_" + uuid.uuid4().hex[:20], body.name,
                                            await hash_password(body.password))
    except accounts.NameTaken:
        raise ApiError("name_taken", "That name is taken; choose another.") from None
    return _token_out(User(row.id, row.name, row.role, guest=False, gen=row.token_gen), svc)


async def _count_failure(svc: Services, key: str) -> int:
    n = await svc.redis.incr(key)
    if n == 1:
        await svc.redis.expire(key, FAIL_WINDOW)
    return n


@router.post("/auth/login", response_model=TokenOut)
async def login(body: CredentialsIn, request: Request, svc: Services = Depends(get_services)):
    p = svc.store.k.p
    name_key = f"{p}loginfail:n:{body.name.casefold()}"
    addr_key = f"{p}loginfail:a:{request.client.host if request.client else '-'}"
    fails_name, fails_addr = await svc.redis.mget(name_key, addr_key)
    if int(fails_name or 0) >= FAILS_PER_NAME or int(fails_addr or 0) >= FAILS_PER_ADDRESS:
        raise ApiError("rate_limited", "Too many failed sign-ins; wait a few minutes and try again.")
    row = await accounts.by_name(svc.maker, body.name)
    ok = await verify_password(body.password, row.password_hash if row else None)
    if not ok or row is None:
        await _count_failure(svc, name_key)
        await _count_failure(svc, addr_key)
        raise ApiError("unauthorized", "Wrong name or password.")
    if row.suspended:
        raise ApiError("suspended", "Your account is suspended.")
    await svc.redis.delete(name_key)
    return _token_out(User(row.id, row.name, row.role, guest=False, gen=row.token_gen), svc)


@router.post("/auth/logout", status_code=204)
async def logout(user: User = Depends(current_user), svc: Services = Depends(get_services)):
    """Sign this token out."""
    await revoke(svc, user)


@router.post("/auth/password", response_model=TokenOut)
async def change_password(body: PasswordChangeIn, user: User = Depends(current_user),
                          svc: Services = Depends(get_services)):
    """Change your password; every other session is signed out, you get a fresh token."""
    if user.guest:
        raise ApiError("forbidden", "Guests have no password; register an account first.")
    row = await accounts.by_id(svc.maker, user.id)
    if row is None or not await verify_password(body.old_password, row.password_hash):
        # Not 401: the caller's session is fine, only the password they typed is not.
        raise ApiError("wrong_password", "Your current password is wrong.")
    gen = row.token_gen + 1
    await accounts.update_user(svc.maker, user.id, password_hash=await hash_password(body.new_password),
                               token_gen=gen)
    await write_status(svc, row.id, row.role, row.suspended, gen, False)
    return _token_out(User(row.id, row.name, row.role, guest=False, gen=gen), svc)


@router.get("/me", response_model=UserOut)
async def me(user: User = Depends(current_user)):
    return {**user.public(), "guest": user.guest}
