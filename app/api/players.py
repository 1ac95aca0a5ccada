"""Players' homes: profiles with history and ratings, leaderboards."""
from __future__ import annotations

from typing import Literal

from fastapi import APIRouter, Depends, Query

from app.api.schemas import ERRORS
from app.db import accounts
from app.errors import ApiError
from app.services import Services, get_services
from games.registry import get_game

router = APIRouter(prefix="/api", tags=["players"], responses=ERRORS)


@router.get("/users/{user_id}", summary="A player's public profile with ratings")
async def profile(user_id: str, svc: Services = Depends(get_services)):
    row = await accounts.by_id(svc.maker, user_id)
    if row is None:
        raise ApiError("not_found", "There is no player with that id.")
    user = accounts.user_dict(row)
    return {"user": {k: user[k] for k in ("id", "name", "role", "guest", "bot", "created_at")},
            "ratings": await accounts.ratings_for(svc.maker, user_id)}


@router.get("/users/{user_id}/matches", summary="A player's match history")
async def user_history(user_id: str, game: str | None = Query(None, max_length=20),
                       result: Literal["win", "loss", "draw"] | None = None,
                       opponent: str | None = Query(None, max_length=24),
                       limit: int = Query(50, ge=1, le=200),
                       svc: Services = Depends(get_services)):
    return await accounts.user_matches(svc.maker, user_id, game, result, opponent, limit)


@router.get("/leaderboard/{game}", summary="Best rated players of a game (openskill ordinal)")
async def leaderboard(game: str, limit: int = Query(50, ge=1, le=200),
                      svc: Services = Depends(get_services)):
    if get_game(game) is None:
        raise ApiError("not_found", f"There is no game called '{game}'.")
    return await accounts.leaderboard(svc.maker, game, limit)
