"""The live-match operations routers and sockets call: store change, then local fan-out,
then this process's match observers.

Remote processes learn of the change through the pub/sub notice the store publishes.

Observers (``svc.observers``: ``async def observer(svc, doc)``) are how features that react to
matches (bots taking their turn, tournaments recording a finished match) hear of a change without
the store knowing about them. They run in the process that made the change, right after it, so
they must be idempotent and quick (start a task for slow work), and, because a process can die
between the write and the call, each feature also sweeps for what it missed.
"""
from __future__ import annotations

import logging
import time

from app import logs
from app.auth import User
from app.errors import ApiError
from app.live import metrics
from app.live.store import Change, Guard
from app.live.views import render, viewer_for

log = logging.getLogger("duelhall.actions")


async def perform(svc, match_id: str, user: User, action, client_seq: int | None = None,
                  version: int | None = None, guard: Guard | None = None) -> Change:
    """``guard``: check the user's standing inside the write (see ``app.auth.standing_guard``);
    raises ``StandingChanged`` when that check refuses."""
    t0 = time.perf_counter()
    logs.match_id_var.set(match_id)
    logs.user_id_var.set(user.id)
    hub = svc.hub
    hub.begin_write(match_id)
    try:
        change = await svc.store.act(match_id, user.id, action, client_seq, version, guard,
                                     hub.listening(match_id))
        if change.write:
            metrics.action_applied(change.doc["game"], time.perf_counter() - t0)
            await hub.push_doc(change.doc, change.events)
    except ApiError as e:
        # Counted in metrics.ERRORS where it reaches the client (app/errors.py, app/ws.py).
        log.info("action refused", extra={"code": e.code})
        raise
    finally:
        hub.end_write(match_id)
    if change.write:
        await after_change(svc, change.doc)
    return change


async def lobby_change(svc, doc: dict) -> dict:
    """After create/join/leave/start: refresh this process's sockets of that match."""
    batches = await svc.store.events_since(doc["id"], doc["version"] - 1)
    await svc.hub.push_doc(doc, batches[-1]["events"] if batches else [])
    await after_change(svc, doc)
    return doc


async def after_change(svc, doc: dict) -> None:
    """Tell this process's observers about a change it just made. An observer's failure is
    logged and never undoes or blocks the change (it is already stored)."""
    for observer in getattr(svc, "observers", ()):
        try:
            await observer(svc, doc)
        except Exception:
            log.exception("match observer failed", extra={"observer": getattr(observer, "__name__", "?")})


async def view_for(svc, match_id: str, user: User | None, since: int | None = None) -> dict:
    doc = await svc.store.load(match_id)
    seat, viewer = viewer_for(doc, user.id if user else None)
    start = doc["version"] - 1 if since is None else since
    batches = await svc.store.events_since(match_id, start) if start < doc["version"] else []
    return render(doc, seat, viewer, batches)
