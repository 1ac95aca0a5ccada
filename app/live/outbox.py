"""The history outbox: a Redis stream that every match change appends to in the same
transaction as the change itself, drained into SQL by a consumer group.

An entry is acknowledged (and deleted) only after its SQL transaction commits. While SQL is
down the worker keeps its entries pending and retries with backoff; entries claimed by a
process that died are taken over after ``CLAIM_IDLE_MS``. So history is delayed, never lost.
"""
from __future__ import annotations

import asyncio
import logging
import os
import socket
import time
from typing import Any

from redis.exceptions import ResponseError

from app.db import history
from app.live import metrics
from app.live.loops import pause
from app.live.store import MatchStore, loads

log = logging.getLogger("duelhall.outbox")
GROUP = "history"
CLAIM_IDLE_MS = 30_000
# Under load, wait this long after a part-full batch before the next one: fewer, larger
# transactions (each costs a round trip or five whatever its size). History only trails play.
GATHER_SECONDS = 0.2
LAG_EVERY_SECONDS = 1.0


class OutboxWorker:
    def __init__(self, store: MatchStore, maker, batch: int = 200, name: str | None = None):
        self.store = store
        self.r = store.r
        self.stream = store.k.outbox
        self.maker = maker
        self.batch = batch
        self.consumer = name or f"{socket.gethostname()}-{os.getpid()}"
        self.failures = 0
        # Own pending entries (read but not acknowledged: a failed write, or a restart under
        # the same name) are looked for first; after a clean drain there are none.
        self._pending_possible = True
        self._lag_at = 0.0
        # The consumer group exists as far as this worker knows: made once (``Services.start``
        # or the first drain), and again only when Redis says it is gone (NOGROUP: a Redis
        # that restarted without the stream, or a stream deleted by hand).
        self._group_ready = False

    async def ensure_group(self) -> None:
        try:
            await self.r.xgroup_create(self.stream, GROUP, id="0", mkstream=True)
        except ResponseError as e:
            if "BUSYGROUP" not in str(e):
                raise
        self._group_ready = True

    async def drain_once(self, block_ms: int | None = None) -> int:
        """Write one batch (own pending entries first, then new ones). Returns entries written.
        Raises if SQL fails; the entries stay pending for the next try."""
        if not self._group_ready:
            await self.ensure_group()
        try:
            return await self._drain_batch(block_ms)
        except ResponseError as e:
            if not _no_group(e):
                raise
        # The group went away under us: make it again (from the start of the stream, so
        # whatever the stream still holds is written) and go on at once.
        log.warning("history consumer group missing (Redis lost it?); creating it again")
        self._group_ready = False
        self._pending_possible = True
        await self.ensure_group()
        return await self._drain_batch(block_ms)

    async def _drain_batch(self, block_ms: int | None) -> int:
        entries = []
        if self._pending_possible:
            entries = await self._read("0", None)
            self._pending_possible = bool(entries)
        if not entries:
            entries = await self._read(">", block_ms)
        if not entries:
            entries = await self._claim_stale()
        if not entries:
            return 0
        self._pending_possible = True  # until this batch is acknowledged
        records = [loads(fields["data"]) for _, fields in entries]
        await history.write_batch(self.maker, records)
        ids = [i for i, _ in entries]
        async with self.r.pipeline(transaction=False) as pipe:
            pipe.xack(self.stream, GROUP, *ids)
            pipe.xdel(self.stream, *ids)
            await pipe.execute()
        self._pending_possible = False
        metrics.OUTBOX_WRITTEN.inc(len(ids))
        return len(ids)

    async def _read(self, start: str, block_ms: int | None):
        resp: Any = await self.r.xreadgroup(GROUP, self.consumer, {self.stream: start},
                                       count=self.batch, block=block_ms)
        if not resp:
            return []
        _, entries = resp[0]
        return [(i, f) for i, f in entries if f]  # deleted entries come back with no fields

    async def _claim_stale(self):
        try:
            resp = await self.r.xautoclaim(self.stream, GROUP, self.consumer,
                                           min_idle_time=CLAIM_IDLE_MS, start_id="0-0",
                                           count=self.batch)
        except ResponseError as e:
            if _no_group(e):
                raise
            return []
        return [(i, f) for i, f in resp[1] if f]

    async def leave(self) -> bool:
        """At shutdown, after the last drain: remove this consumer from the group when it holds
        no entries (names are per process, so they would pile up in XINFO CONSUMERS). Entries
        it still holds (SQL was down) stay with it, and another worker claims them after
        ``CLAIM_IDLE_MS``: deleting the consumer would orphan them. Returns whether it left."""
        info = await self.r.xpending_range(self.stream, GROUP, min="-", max="+", count=1,
                                           consumername=self.consumer)
        if info:
            return False
        await self.r.xgroup_delconsumer(self.stream, GROUP, self.consumer)
        return True

    async def drain_all(self) -> int:
        """Write everything currently in the outbox (used by tests and at shutdown)."""
        total = 0
        while True:
            n = await self.drain_once()
            total += n
            if n == 0:
                return total

    async def lag(self) -> int:
        return int(await self.r.xlen(self.stream))

    async def run(self, stop: asyncio.Event | None = None) -> None:
        """Drain until ``stop`` is set. The flag, not only cancellation, ends the loop: a
        cancellation that lands inside a client library's own timeout can be swallowed."""
        stop = stop or asyncio.Event()
        backoff = 0.5
        while not stop.is_set():
            try:
                n = await self.drain_once()
                if time.monotonic() - self._lag_at >= LAG_EVERY_SECONDS:
                    self._lag_at = time.monotonic()
                    metrics.OUTBOX_LAG.set(await self.lag())
                backoff = 0.5
                self.failures = 0
                if n == 0:
                    await pause(stop, 0.1)
                elif n < self.batch:
                    await pause(stop, GATHER_SECONDS)
            except asyncio.CancelledError:
                raise
            except Exception as e:  # SQL (or Redis) unavailable: keep the entries, retry
                self.failures += 1
                log.warning("history write failed (%s); retrying in %.1fs", type(e).__name__, backoff)
                await pause(stop, backoff)
                backoff = min(backoff * 2, 5.0)


def _no_group(e: ResponseError) -> bool:
    return str(e).startswith("NOGROUP")
