"""Decision clocks. Deadlines live in one Redis sorted set (score = earliest deadline of a
match). Every process polls it; firing goes through the store's compare-and-set, so when two
processes see the same expired deadline, one fires and the other finds nothing due."""
from __future__ import annotations

import asyncio
import logging
from typing import Any

from app.errors import ApiError
from app.live import metrics
from app.live.loops import pause
from app.live.store import MatchStore, now

log = logging.getLogger("duelhall.clocks")


async def fire_due(store: MatchStore, hub=None, limit: int = 100, on_change=None) -> int:
    """Fire every expired deadline once; returns how many matches changed. ``on_change(doc)``
    is awaited after each change this call made (the process's match observers)."""
    due: Any = await store.r.zrangebyscore(store.k.deadlines, "-inf", now(), start=0, num=limit)
    fired = 0
    for mid in due:
        try:
            change = await store.fire_timeouts(mid)
        except ApiError:  # the match vanished (expired); forget its deadline
            await store.r.zrem(store.k.deadlines, mid)
            continue
        if change.write:
            fired += 1
            metrics.TIMEOUTS.inc()
            if hub is not None:
                await hub.push_doc(change.doc, change.events)
            if on_change is not None:
                await on_change(change.doc)
    return fired


async def run(store: MatchStore, hub, poll_seconds: float, stop: asyncio.Event | None = None,
              on_change=None) -> None:
    stop = stop or asyncio.Event()
    failing = False
    while not stop.is_set():
        try:
            await fire_due(store, hub, on_change=on_change)
            if failing:
                log.info("clock loop working again")
            failing = False
        except asyncio.CancelledError:
            raise
        except Exception:
            # Once per outage, not every poll (Redis down would log 10 tracebacks a second).
            if not failing:
                log.exception("clock loop error; retrying quietly until it works again")
            failing = True
        await pause(stop, poll_seconds)
