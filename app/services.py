"""The process-wide services, built once by the app factory and reached from routers."""
from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass, field

from fastapi import Request, WebSocket
from sqlalchemy.ext.asyncio import AsyncEngine, async_sessionmaker

from app.config import Settings
from app.db.session import make_engine, sessionmaker
from app.live import clocks
from app.live.hub import Hub
from app.live.outbox import OutboxWorker
from app.live.redis import make_redis
from app.live.store import MatchStore


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

    @classmethod
    def build(cls, settings: Settings) -> "Services":
        redis = make_redis(settings)
        store = MatchStore(redis, settings.redis_prefix, settings.finished_ttl_seconds)
        engine = make_engine(settings)
        maker = sessionmaker(engine)
        return cls(
            settings=settings, redis=redis, store=store, hub=Hub(store, redis),
            engine=engine, maker=maker,
            outbox=OutboxWorker(store, maker, settings.outbox_batch,
                                name=f"{settings.instance_name}-{id(store)}"),
        )

    async def start(self) -> None:
        await self.outbox.ensure_group()
        await self.hub.start()
        if self.settings.run_workers:
            self.tasks.append(asyncio.create_task(self.outbox.run(self.stopping), name="outbox"))
            self.tasks.append(asyncio.create_task(
                clocks.run(self.store, self.hub, self.settings.clock_poll_seconds, self.stopping,
                           on_change=self._after_change),
                name="clocks"))

    async def _after_change(self, doc: dict) -> None:
        from app.live import service  # service imports views/store; keep this module light

        await service.after_change(self, doc)

    async def stop(self) -> None:
        self.stopping.set()
        for t in self.tasks:
            t.cancel()
        if self.tasks:
            await asyncio.wait(self.tasks, timeout=3)
        # Last chance to get history out before going away (best effort: it stays in Redis).
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.outbox.drain_all(), 5)
        await self.hub.stop()
        await self.engine.dispose()
        with contextlib.suppress(Exception):
            await self.redis.aclose()


def get_services(request: Request) -> Services:
    return request.app.state.services


def ws_services(ws: WebSocket) -> Services:
    return ws.app.state.services
