"""The one write path of tournaments: :func:`change`.

Where things live:

* the event row in SQL (``app/db/tournaments.py``): settings, entrants, the core's JSON state
  (``app/tournaments/core.py``) and ``meta``, the bookkeeping per pairing;
* the rules as pure functions: ``lifecycle`` (registration, waitlist, check-in), ``matchplay``
  (games to results, no-show, time called), ``corrections`` (overrides);
* the changes, as functions ``fn(event, effects, t)`` for :func:`change`: ``lifecycle_changes``
  (create, edit, sign-ups, start, rounds, finish), ``results`` (a finished match, overrides,
  disputes) and ``sweep`` (no-shows, time called, the round break);
* live matches in Redis (``matches``), tagged ``{"tournament": {"id", "pairing", "game"}}``.

**Every change** is :func:`change`: read the row, apply one pure function to it, write it back
with ``UPDATE ... WHERE revision = :read`` and retry on a conflict, so two organiser clicks or two
reports never lose an update, on one process or many. The change, its audit entries and the
standings it closed are written in one transaction: all of them or none. After the write it
publishes the new revision on ``<prefix>tour:<id>`` (live pages) and carries out the change's
*effects*: create the matches of new pairings, end live matches whose pairing was decided
otherwise, abort those of a cancelled event. Effects are idempotent (match ids are derived from
tournament, pairing and game number, and creating an existing match returns it) and the sweep
redoes any that a crash skipped.

The time of a change is ``app.clock.now()`` (tests replace it).
"""
from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from app import clock
from app.db import accounts
from app.db import tournaments as db
from app.errors import STATUS, ApiError
from app.tournaments import matches
from app.tournaments.errors import TournamentError

log = logging.getLogger("duelhall.tournaments")

MAX_CAS_RETRIES = 40


@dataclass
class Effects:
    """What a change asks for: written with it (``audits``, ``standings``) or done once it is
    stored (the matches to create, end and abort)."""

    create: list[tuple[str, int]] = field(default_factory=list)   # (pairing, game number)
    end: list[str] = field(default_factory=list)                  # matches whose pairing is decided
    abort: list[str] = field(default_factory=list)                # matches of a cancelled event
    audits: list[dict] = field(default_factory=list)              # written with the change
    standings: dict[int, list] = field(default_factory=dict)      # round -> standings after it


def api_error(e: TournamentError) -> ApiError:
    return ApiError(e.code, e.message, STATUS.get(e.code, 409))


def audit_entry(actor, action: str, ev: dict, details: dict) -> dict:
    """An audit entry for ``Effects.audits``: written in the change's transaction."""
    return {"actor_id": actor.id, "action": action, "target": f"tournament:{ev['id']}", "details": details}


def channel(svc, tournament_id: str) -> str:
    return f"{svc.store.k.p}tour:{tournament_id}"


async def change(svc, tournament_id: str, fn: Callable[[dict, Effects, float], Any]) -> dict:
    """Apply ``fn(event, effects, t)`` to the stored event and store it with compare-and-set on
    the revision, retrying on a conflict. ``fn`` changes the event in place (it gets a fresh copy
    on every try) and returns False to write nothing. Returns the event as stored."""
    for attempt in range(MAX_CAS_RETRIES):
        ev = await db.get(svc.maker, tournament_id)
        if ev is None:
            raise ApiError("not_found", "There is no tournament with that id.")
        read = ev["revision"]
        fx = Effects()
        try:
            wrote = fn(ev, fx, clock.now())
        except TournamentError as e:
            raise api_error(e) from None
        if wrote is False:
            return ev
        if await _store(svc, ev, read, fx):
            await _after_write(svc, ev, fx)
            return ev
        await asyncio.sleep(random.uniform(0, 0.005 * (attempt + 1)))  # let the winner finish
    raise ApiError("unavailable", "The tournament is too busy right now; try again.", 503)


async def _store(svc, ev: dict, read: int, fx: Effects) -> bool:
    """The event if its revision is still ``read``, with the change's audit entries and the
    standings it closed, in one transaction: an audit entry that cannot be written takes the
    change back with it. False when another writer got there first (nothing written)."""
    async with svc.maker.begin() as session:
        if not await db.save(session, ev, read):
            return False
        for a in fx.audits:
            await accounts.audit(session, a["actor_id"], a["action"], a["target"], a.get("details"))
        if fx.standings:
            await db.put_standings(session, ev["id"], fx.standings)
    return True


async def _after_write(svc, ev: dict, fx: Effects) -> None:
    try:
        await svc.redis.publish(channel(svc, ev["id"]), str(ev["revision"]))
    except Exception:  # live pages also poll; a lost notice only delays them
        log.exception("tournament notice failed", extra={"tournament": ev["id"]})
    for pid, game in fx.create:
        await matches.create_match(svc, ev, pid, game)
    for mid in fx.end:
        await matches.end_decided(svc, ev, mid)
    for mid in fx.abort:
        await matches.abort_cancelled(svc, ev, mid)
