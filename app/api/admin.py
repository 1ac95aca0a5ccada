"""Admins: users and roles, match search and review, flags, notes, reports, audit trail.
Every route needs the admin role; every change is written to the audit log in the change's own
transaction (``app/admin_actions.py``)."""
from __future__ import annotations

from datetime import datetime
from typing import Literal

from fastapi import APIRouter, Depends, Query
from fastapi.responses import PlainTextResponse

from app import admin_actions, review
from app.api.schemas import ERRORS, FlagIn, NoteIn, RoleIn, SuspendIn
from app.auth import User, require_role
from app.db import accounts, history
from app.errors import ApiError
from app.live.views import render
from app.secret_options import record_for
from app.services import Services, get_services
from games.base import OMNISCIENT

router = APIRouter(prefix="/api/admin", tags=["admin"], responses=ERRORS)
admin_only = require_role("admin")


async def _record(svc: Services, match_id: str) -> dict:
    record = await history.match_record(svc.maker, match_id)
    if record is None:
        raise ApiError("not_found", "There is no match with that id in the history.")
    return record_for(record, OMNISCIENT)  # admins read secret options too: every match replays


# ------------------------------------------------------------------ users
@router.get("/users")
async def list_users(q: str | None = Query(None, max_length=40), _: User = Depends(admin_only),
                     svc: Services = Depends(get_services)):
    return await accounts.search_users(svc.maker, q)


@router.post("/users/{user_id}/role")
async def grant_role(user_id: str, body: RoleIn, admin: User = Depends(admin_only),
                     svc: Services = Depends(get_services)):
    return await admin_actions.set_user_status(svc, admin, user_id, "grant_role", {"role": body.role},
                                               role=body.role)


@router.post("/users/{user_id}/suspend")
async def suspend(user_id: str, body: SuspendIn, admin: User = Depends(admin_only),
                  svc: Services = Depends(get_services)):
    if user_id == admin.id:
        raise ApiError("forbidden", "You cannot suspend yourself.")
    return await admin_actions.set_user_status(svc, admin, user_id, "suspend", {"reason": body.reason},
                                               suspended=True)


@router.post("/users/{user_id}/restore")
async def restore(user_id: str, admin: User = Depends(admin_only), svc: Services = Depends(get_services)):
    return await admin_actions.set_user_status(svc, admin, user_id, "restore", None, suspended=False)


# ------------------------------------------------------------------ matches
@router.get("/matches", summary="Search matches")
async def search(game: str | None = Query(None, max_length=20),
                 player: str | None = Query(None, max_length=40),
                 since: datetime | None = None, until: datetime | None = None,
                 status: Literal["open", "live", "finished", "aborted"] | None = None,
                 result: Literal["draw", "decisive"] | None = None,
                 min_duration: float | None = Query(None, ge=0),
                 max_duration: float | None = Query(None, ge=0),
                 reported: bool | None = None, flagged: bool | None = None,
                 limit: int = Query(100, ge=1, le=500),
                 _: User = Depends(admin_only), svc: Services = Depends(get_services)):
    return await accounts.search_matches(
        svc.maker, game=game, player=player, since=since, until=until, status=status,
        result=result, min_duration=min_duration, max_duration=max_duration,
        reported=reported, flagged=flagged, limit=limit)


@router.get("/matches/{match_id}", summary="A match's record, log, flags, notes and reports")
async def match_detail(match_id: str, _: User = Depends(admin_only), svc: Services = Depends(get_services)):
    record = await _record(svc, match_id)
    return {"record": record, "log": review.action_log(record),
            "flagged": (await accounts.match_flags(svc.maker, match_id))["flagged"],
            "notes": await accounts.notes(svc.maker, match_id),
            "reports": await accounts.reports(svc.maker, None, match_id)}


@router.get("/matches/{match_id}/steps/{step}", summary="The match at a step, as a viewer saw it")
async def step(match_id: str, step: int, as_: str = Query("omniscient", alias="as", max_length=12),
               _: User = Depends(admin_only), svc: Services = Depends(get_services)):
    return review.step_view(await _record(svc, match_id), step, as_)


@router.get("/matches/{match_id}/live", summary="The omniscient view of a live match")
async def live_view(match_id: str, _: User = Depends(admin_only), svc: Services = Depends(get_services)):
    doc = await svc.store.load(match_id)
    return render(doc, None, OMNISCIENT, await svc.store.events_since(match_id, doc["version"] - 1))


@router.post("/matches/{match_id}/flag")
async def flag(match_id: str, body: FlagIn, admin: User = Depends(admin_only),
               svc: Services = Depends(get_services)):
    await _record(svc, match_id)
    await admin_actions.flag_match(svc, admin, match_id, body.flagged, body.note)
    return {"flagged": body.flagged}


@router.post("/matches/{match_id}/notes")
async def annotate(match_id: str, body: NoteIn, admin: User = Depends(admin_only),
                   svc: Services = Depends(get_services)):
    await _record(svc, match_id)
    return await admin_actions.add_note(svc, admin, match_id, body.text)


@router.get("/matches/{match_id}/export.json", summary="Replayable JSON record")
async def export_json(match_id: str, admin: User = Depends(admin_only), svc: Services = Depends(get_services)):
    record = await _record(svc, match_id)
    await admin_actions.record_export(svc, admin, match_id, "json")
    return record


@router.get("/matches/{match_id}/export.txt", response_class=PlainTextResponse,
            summary="Readable text log")
async def export_text(match_id: str, admin: User = Depends(admin_only), svc: Services = Depends(get_services)):
    record = await _record(svc, match_id)
    await admin_actions.record_export(svc, admin, match_id, "text")
    return review.text_log(record)


# ------------------------------------------------------------------ reports and audit
@router.get("/reports", summary="The report queue")
async def report_queue(status: Literal["open", "resolved"] | None = "open",
                       _: User = Depends(admin_only), svc: Services = Depends(get_services)):
    return await accounts.reports(svc.maker, status)


@router.post("/reports/{report_id}/resolve")
async def resolve(report_id: int, admin: User = Depends(admin_only), svc: Services = Depends(get_services)):
    return await admin_actions.resolve_report(svc, admin, report_id)


@router.get("/audit", summary="Every admin action, newest first")
async def audit_trail(_: User = Depends(admin_only), svc: Services = Depends(get_services)):
    return await accounts.audit_log(svc.maker)
