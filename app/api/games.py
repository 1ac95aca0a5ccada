"""``GET /api/games``: every registered game as the clients need it (docs/protocol.md)."""
from __future__ import annotations

from fastapi import APIRouter

from app.api.schemas import GameOut
from games.info import GameInfo
from games.registry import all_infos

router = APIRouter(prefix="/api", tags=["games"])


def describe(info: GameInfo) -> dict:
    """What a client is told of a game: its engine's facts and its self-description."""
    return {
        "id": info.id, "name": info.name, "min_players": info.min_players,
        "max_players": info.max_players, "options_schema": info.game.options_schema(),
        "simultaneous": info.simultaneous, "board": info.board, "rules": info.rules,
        "bot_levels": list(info.levels),
        "lab": {"length_unit": info.lab.length_unit, "moves": info.lab.moves,
                "lineup": info.lab.lineup},
    }


@router.get("/games", response_model=list[GameOut])
async def list_games():
    return [describe(info) for info in all_infos()]
