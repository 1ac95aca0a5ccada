"""The process-wide services, built once by the app factory and reached from routers."""
from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
from dataclasses import dataclass, field

from fastapi import Request, WebSocket
from sqlalchemy.ext.asyncio import AsyncEngine, async_sessionmaker

from app.config import Settings
from app.db.session import make_engine, sessionmaker
from app.live import clocks
from app.live.hub import Hub
from app.live.multiplex import MultiplexedRedis
from app.live.outbox import OutboxWorker
from app.live.redis import make_redis
from app.live.store import MatchStore
from app.password_gate import PasswordGates

log = logging.getLogger("duelhall")
# Close code of a socket closed by a drain: "service restart", the client reconnects at once.
SERVICE_RESTART = 1012
# Longest a drain waits for the sockets' handlers to finish what they are doing and close.
CLOSE_TIMEOUT = 10.0


@dataclass
class Services:
    settings: Settings
    redis: object
    store: MatchStore
    hub: Hub
    engine: AsyncEngine
    maker: async_sessionmaker
    outbox: OutboxWorker
    tasks: list[asyncio.Task] = field(default_factory=list)
    # ``async def observer(svc, doc)`` called after each match change this process makes
    # (see app/live/service.py); features register theirs in ``start``.
    observers: list = field(default_factory=list)
    stopping: asyncio.Event = field(default_factory=asyncio.Event)
    # Computer players' runner (app/live/bots.py), made in ``start``.
    bots: object = None
    # The bound on argon2 work for passwords (app/password_gate.py), made in ``build``.
    passwords: PasswordGates | None = None
    # Set by ``drain`` (SIGTERM): /readyz answers 503 so the balancer stops sending.
    draining: bool = False

    @classmethod
    def build(cls, settings: Settings) -> Services:
        redis = make_redis(settings)
        line = MultiplexedRedis(settings.redis_url) if settings.redis_url else None
        store = MatchStore(redis, settings.redis_prefix, settings.finished_ttl_seconds, line,
                           open_ttl=settings.open_match_ttl_seconds,
                           max_open_per_host=settings.max_open_matches_per_user)
        engine = make_engine(settings)
        maker = sessionmaker(engine)
        return cls(
            settings=settings, redis=redis, store=store, hub=Hub(store, redis),
            engine=engine, maker=maker,
            outbox=OutboxWorker(store, maker, settings.outbox_batch,
                                # Unique per process even when replicas share INSTANCE_NAME.
                                name=f"{settings.instance_name}-{socket.gethostname()}-"
                                     f"{os.getpid()}-{id(store)}"),
            passwords=PasswordGates.from_settings(settings),
        )

    async def start(self) -> None:
        await self.outbox.ensure_group()
        await self.hub.start()
        from app.live.bots import BotRunner  # imports the service layer; keep this module light

        self.bots = BotRunner(self)
        self.observers.append(self.bots.observe)
        if self.settings.run_workers:
            self.tasks.append(asyncio.create_task(self.bots.sweep_loop(self.stopping), name="bots"))
        from app.tournaments import results, sweep  # import the SQL layer; keep this module light

        # Tournament matches report themselves: the observer here, the sweep for what it missed.
        self.observers.append(results.on_match_change)
        if self.settings.run_workers and self.settings.tournament_sweep_seconds > 0:
            self.tasks.append(asyncio.create_task(
                sweep.run_sweep(self, self.settings.tournament_sweep_seconds, self.stopping),
                name="tournaments"))
        if self.settings.run_workers and self.settings.run_outbox:
            self.tasks.append(asyncio.create_task(self.outbox.run(self.stopping), name="outbox"))
        if self.settings.run_workers and self.settings.run_clocks:
            self.tasks.append(asyncio.create_task(
                clocks.run(self.store, self.hub, self.settings.clock_poll_seconds, self.stopping,
                           on_change=self._after_change),
                name="clocks"))

    async def _after_change(self, doc: dict) -> None:
        from app.live import service  # service imports views/store; keep this module light

        await service.after_change(self, doc)

    async def drain(self) -> None:
        """Leave the deployment gently (SIGTERM, see app/drain.py): out of the balancer's
        rotation at once (/readyz answers 503), everything served as usual for
        ``DRAIN_SECONDS`` while the balancer notices, then every match socket closed with 1012
        (each once the message it is handling is done: a move being applied is applied and its
        view sent), then the background loops stopped, handing over what they hold. The
        server's own shutdown follows."""
        if self.draining:
            return
        self.draining = True
        log.info("draining: out of rotation; sockets close in %.1fs", self.settings.drain_seconds)
        await asyncio.sleep(self.settings.drain_seconds)
        await self.hub.close_all(SERVICE_RESTART, CLOSE_TIMEOUT)
        await self.stop_loops()
        log.info("drained: sockets closed, background loops stopped")

    async def stop_loops(self) -> None:
        """End the background loops (clocks, history writer, bot and tournament sweeps) and the
        bots' turns, handing over what they hold: the bots' turn leases are released (another
        process's sweep plays those turns at once instead of after the lease runs out), the
        outbox is written out and this consumer leaves the group (or, holding entries SQL
        refused, stays for another worker to claim them). Clocks hold nothing: firing is a
        compare-and-set that any process may do. Safe to call twice."""
        self.stopping.set()
        # The loops end by themselves on the stop flag, after the step they are in. Cancelling
        # one inside a SQL transaction (the history writer mid-batch) can leave its connection,
        # and on SQLite the write lock, behind until the garbage collector finds it; so cancel
        # only what has not finished after a grace period.
        if self.tasks:
            _, late = await asyncio.wait(self.tasks, timeout=5)
            for t in late:
                t.cancel()
            if late:
                await asyncio.wait(late, timeout=3)
        if self.bots is not None:
            await self.bots.close()
        # Last chance to get history out before going away (best effort: it stays in Redis).
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.outbox.drain_all(), 5)
            await self.outbox.leave()

    async def stop(self) -> None:
        await self.stop_loops()
        await self.hub.stop()
        await self.engine.dispose()
        with contextlib.suppress(Exception):
            await self.store.close()
        with contextlib.suppress(Exception):
            await self.redis.aclose()


def get_services(request: Request) -> Services:
    return request.app.state.services


def ws_services(ws: WebSocket) -> Services:
    return ws.app.state.services
