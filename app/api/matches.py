from __future__ import annotations

from typing import Literal

from fastapi import APIRouter, Depends, Query, Request

from app.api.schemas import ERRORS, ActionIn, CreateMatchIn, ReportIn, SeedIn
from app.auth import User, current_user, optional_user
from app.db import accounts, history
from app.errors import ApiError
from app.live import limits, service
from app.live.store import summary
from app.ratelimit import client_address
from app.secret_options import record_for, without_secrets
from app.services import Services, get_services
from games import fairness
from games.base import OMNISCIENT
from games.registry import get_game

router = APIRouter(prefix="/api/matches", tags=["matches"], responses=ERRORS)


@router.post("", summary="Create a match; the creator takes seat A")
async def create_match(body: CreateMatchIn, request: Request, user: User = Depends(current_user),
                       svc: Services = Depends(get_services)):
    await limits.count_match_creation(svc, user, client_address(request))
    doc = await svc.store.create(body.game, body.options, user.public(), body.seed)
    return summary(doc)


@router.get("", summary="List matches: open (joinable), live (to watch) or finished")
async def list_matches(status: Literal["open", "live", "finished"] = "open",
                       game: str | None = Query(None, max_length=20),
                       limit: int = Query(50, ge=1, le=200),
                       svc: Services = Depends(get_services)):
    if status == "finished":
        return await history.list_matches(svc.maker, game=game, status="finished", limit=limit)
    docs = await svc.store.list_status(status, limit)
    return [summary(d) for d in docs if game is None or d["game"] == game]


@router.get("/{match_id}", summary="A match's public summary (live or from history)")
async def get_match(match_id: str, svc: Services = Depends(get_services)):
    try:
        return summary(await svc.store.load(match_id))
    except ApiError:
        row = await history.match_summary(svc.maker, match_id)
        if row is None:
            raise
        return row


@router.post("/{match_id}/join", summary="Take a free seat; the match starts when full")
async def join_match(match_id: str, body: SeedIn | None = None, user: User = Depends(current_user),
                     svc: Services = Depends(get_services)):
    seed = body.seed if body else None
    return summary(await service.lobby_change(svc, await svc.store.join(match_id, user.public(), seed)))


@router.post("/{match_id}/leave", summary="Give up your seat before the match starts")
async def leave_match(match_id: str, user: User = Depends(current_user),
                      svc: Services = Depends(get_services)):
    return summary(await service.lobby_change(svc, await svc.store.leave(match_id, user.public())))


@router.post("/{match_id}/start", summary="Host starts a game with a player range early")
async def start_match(match_id: str, user: User = Depends(current_user),
                      svc: Services = Depends(get_services)):
    return summary(await service.lobby_change(svc, await svc.store.start(match_id, user.public())))


@router.get("/{match_id}/view", summary="Your view document (spectator view if you hold no seat)")
async def get_view(match_id: str, since: int | None = Query(None, ge=0),
                   user: User | None = Depends(optional_user),
                   svc: Services = Depends(get_services)):
    return await service.view_for(svc, match_id, user, since)


@router.post("/{match_id}/actions", summary="Act for your seat; returns your new view")
async def post_action(match_id: str, body: ActionIn, user: User = Depends(current_user),
                      svc: Services = Depends(get_services)):
    change = await service.perform(svc, match_id, user, body.action, body.client_seq, body.version)
    return await service.view_for(svc, match_id, user, change.doc["version"] - 1 if change.write else None)


@router.get("/{match_id}/record",
            summary="The full record of a finished match (replayable); for its players and admins")
async def get_record(match_id: str, user: User = Depends(current_user),
                     svc: Services = Depends(get_services)):
    record = await history.match_record(svc.maker, match_id)
    live = None
    try:
        live = await svc.store.load(match_id)
    except ApiError:
        pass
    if record is None and live is None:
        raise ApiError("not_found", "There is no match with that id.")
    if (live and live["status"] != "finished") or (record and record["status"] != "finished" and not live):
        raise ApiError("not_finished", "The record is available once the match has finished.")
    seats = {s["user"]["id"]: s["seat"] for s in (live or record)["seats"] if s["user"]}
    if user.id not in seats and user.role != "admin":
        raise ApiError("forbidden", "The full record is for the match's players and admins.")
    if record is None or (live and len(record["actions"]) < live["steps"]) or record["status"] != "finished":
        raise ApiError("unavailable", "The history of this match is still being written; try again shortly.", 503)
    # A player reads what the engine lets them after the end (not the opponent's closed deck),
    # and each step's events as their seat was shown them (an admin: everything).
    viewer = OMNISCIENT if user.role == "admin" else seats[user.id]
    return fairness.record_for(record_for(record, viewer), viewer)


@router.post("/{match_id}/report", summary="Report a match you played, with a reason")
async def report_match(match_id: str, body: ReportIn, user: User = Depends(current_user),
                       svc: Services = Depends(get_services)):
    seats = await _seats(svc, match_id)
    if user.id not in seats:
        raise ApiError("forbidden", "Only the match's players can report it.")
    return await accounts.add_report(svc.maker, match_id, user.id, body.reason)


@router.post("/{match_id}/rematch",
             summary="A new match of the same game and options; the other players are invited")
async def rematch(match_id: str, body: SeedIn | None = None, user: User = Depends(current_user),
                  svc: Services = Depends(get_services)):
    seed = body.seed if body else None  # the offering player's seed for the new match
    try:
        old, live = await svc.store.load(match_id), True
    except ApiError as e:
        if e.code != "not_found":
            raise
        # Gone from Redis (FINISHED_TTL): history has the game, seats and options.
        old, live = await history.match_summary(svc.maker, match_id), False
        if old is None:
            raise
    if old["status"] != "finished":
        raise ApiError("not_finished", "A rematch can be offered once the match has finished.")
    if user.id not in {s["user"]["id"] for s in old["seats"] if s["user"]}:
        raise ApiError("forbidden", "Only the match's players can offer a rematch.")
    if live:
        new = await svc.store.rematch(match_id, user.public(), seed)
        # The old match now points at the new one: observers react (bots take their seats again).
        await service.after_change(svc, await svc.store.load(match_id))
    else:
        # Nobody can be pointed at the new table from a match that is gone: it is a new open
        # match with the same game and options, its bots seated again; the player shares its
        # invitation link as for any new match.
        # Secret options (fixed decks) are not carried over: the seats choose again.
        options = without_secrets(get_game(old["game"]), old["options"])
        new = await svc.store.create(old["game"], options, user.public(), seed)
        bots = getattr(svc, "bots", None)
        if bots is not None and any((s["user"] or {}).get("bot") for s in old["seats"]):
            await bots.seat_rematch(old, new["id"])
    return summary(await svc.store.load(new["id"]))


async def _seats(svc: Services, match_id: str) -> set[str]:
    try:
        doc = await svc.store.load(match_id)
        seats = doc["seats"]
    except ApiError:
        row = await history.match_summary(svc.maker, match_id)
        if row is None:
            raise
        seats = row["seats"]
    return {s["user"]["id"] for s in seats if s["user"]}
