"""Computer players: their levels, a match against them, and a bot for an open table.
The work is in app/live/bots.py; see docs/bots.md."""
from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends, Request
from pydantic import Field

from app.api.schemas import ERRORS, SeedIn, Strict
from app.auth import User, current_user
from app.live import bots, limits
from app.live.store import summary
from app.ratelimit import client_address
from app.services import Services, get_services

router = APIRouter(prefix="/api", tags=["bots"], responses=ERRORS)


class PlayComputerIn(SeedIn):
    game: str = Field(max_length=20)
    options: dict[str, Any] = Field(default_factory=dict)
    level: str = Field(max_length=20, description="One of GET /api/bots levels for the game")
    bots: int = Field(default=1, ge=1, le=5, description="Computer players besides you")


class AddComputerIn(Strict):
    level: str = Field(max_length=20)


@router.get("/bots", summary="The computer players' levels per game, weakest first")
async def bot_levels():
    return {"levels": bots.levels_by_game()}


@router.post("/bots/matches",
             summary="Play the computer: a match with you at seat A and computer players")
async def play_computer(body: PlayComputerIn, request: Request, user: User = Depends(current_user),
                        svc: Services = Depends(get_services)):
    await limits.count_match_creation(svc, user, client_address(request))
    doc = await bots.play_computer(svc, user, body.game, body.options, body.level, body.bots,
                                   body.seed)
    return summary(doc)


@router.post("/matches/{match_id}/bots", summary="The host seats a computer player at an open table")
async def add_computer(match_id: str, body: AddComputerIn, user: User = Depends(current_user),
                       svc: Services = Depends(get_services)):
    return summary(await bots.add_computer(svc, match_id, user, body.level))
