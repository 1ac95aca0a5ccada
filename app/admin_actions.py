"""Admins' changes, each in one SQL transaction with its audit entry: a change is never stored
without its entry, nor an entry without its change (a failure takes both back). The account
status cached in Redis (``app/auth.py``) is written after the commit, from the committed row.
"""
from __future__ import annotations

from app.auth import User, write_status
from app.db import accounts
from app.errors import ApiError


async def set_user_status(svc, admin: User, user_id: str, action: str, details: dict | None,
                          **values) -> dict:
    """Set ``values`` (role, suspended) on a user, audited as ``action``."""
    async with svc.maker.begin() as session:
        row = await accounts.update_user(session, user_id, **values)
        if row is None:
            raise ApiError("not_found", "There is no user with that id.")
        await accounts.audit(session, admin.id, action, f"user:{user_id}", details)
    await write_status(svc, row.id, row.role, row.suspended, row.token_gen, row.is_guest)
    return accounts.user_dict(row)


async def flag_match(svc, admin: User, match_id: str, flagged: bool, note: str | None) -> None:
    async with svc.maker.begin() as session:
        await accounts.set_flag(session, match_id, flagged)
        if note:
            await accounts.add_note(session, match_id, admin.id, note)
        await accounts.audit(session, admin.id, "flag" if flagged else "unflag", f"match:{match_id}",
                             {"note": note})


async def add_note(svc, admin: User, match_id: str, text: str) -> dict:
    async with svc.maker.begin() as session:
        note = await accounts.add_note(session, match_id, admin.id, text)
        await accounts.audit(session, admin.id, "note", f"match:{match_id}", {"note_id": note["id"]})
    return note


async def record_export(svc, admin: User, match_id: str, fmt: str) -> None:
    async with svc.maker.begin() as session:
        await accounts.audit(session, admin.id, "export", f"match:{match_id}", {"format": fmt})


async def resolve_report(svc, admin: User, report_id: int) -> dict:
    async with svc.maker.begin() as session:
        out = await accounts.resolve_report(session, report_id, admin.id)
        if out is None:
            raise ApiError("not_found", "There is no report with that id.")
        await accounts.audit(session, admin.id, "resolve_report", f"report:{report_id}")
    return out
