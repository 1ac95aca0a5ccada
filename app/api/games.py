from __future__ import annotations

from fastapi import APIRouter

from app.api.schemas import GameOut
from games.registry import all_games

router = APIRouter(prefix="/api", tags=["games"])


@router.get("/games", response_model=list[GameOut])
async def list_games():
    return [
        {"id": g.id, "name": g.name, "min_players": g.min_players,
         "max_players": g.max_players, "options_schema": g.options_schema()}
        for g in all_games()
    ]
