"""The app factory: ``uvicorn app.main:app`` or ``create_app(settings)`` in tests."""
from __future__ import annotations

import asyncio
import json
import logging
from contextlib import asynccontextmanager

from fastapi import FastAPI
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles

from app import errors, logs
from app.api import admin, auth, decks, games, health, matches, players
from app.config import ROOT, Settings, get_settings
from app.db.session import migrate
from app.services import Services
from app import ws

STATIC = ROOT / "static"


class BodyLimit:
    """Refuse request bodies over the limit with 413 too_large, before reading them whole."""

    def __init__(self, app, limit: int):
        self.app, self.limit = app, limit

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.limit:
            return await self._refuse(send)
        seen = 0
        too_big = False

        async def limited_receive():
            nonlocal seen, too_big
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.limit:
                    too_big = True
                    raise _TooLarge()
            return message

        try:
            await self.app(scope, limited_receive, send)
        except _TooLarge:
            await self._refuse(send)

    async def _refuse(self, send):
        body = json.dumps({"error": {"code": "too_large",
                                     "message": f"Request bodies are limited to {self.limit} bytes."}}).encode()
        await send({"type": "http.response.start", "status": 413,
                    "headers": [(b"content-type", b"application/json"),
                                (b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body", "body": body})


class _TooLarge(Exception):
    pass


class SecurityHeaders:
    HEADERS = [
        (b"x-content-type-options", b"nosniff"),
        (b"x-frame-options", b"DENY"),
        (b"referrer-policy", b"same-origin"),
    ]

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)

        async def send_with_headers(message):
            if message["type"] == "http.response.start":
                message["headers"] = list(message.get("headers", [])) + self.HEADERS
            await send(message)

        await self.app(scope, receive, send_with_headers)


def create_app(settings: Settings | None = None, *, run_migrations: bool | None = None) -> FastAPI:
    settings = settings or get_settings()
    if run_migrations is None:
        run_migrations = settings.migrate_on_start

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        if run_migrations:
            await asyncio.to_thread(migrate, settings)
        svc = Services.build(settings)
        app.state.services = svc
        await svc.start()
        try:
            yield
        finally:
            await svc.stop()

    app = FastAPI(
        title="Duelhall",
        version="0.1.0",
        description="Online server for secret-information duel card games. "
                    "See docs/protocol.md for the websocket protocol.",
        lifespan=lifespan,
    )
    app.dependency_overrides[get_settings] = lambda: settings
    errors.install(app)
    for router in (auth.router, games.router, matches.router, players.router, admin.router,
                   decks.router, health.router, ws.router):
        app.include_router(router)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    @app.get("/", include_in_schema=False)
    async def index():
        return FileResponse(STATIC / "index.html")

    app.add_middleware(BodyLimit, limit=settings.max_message_bytes)
    app.add_middleware(SecurityHeaders)
    return app


_settings = get_settings()
logs.setup(_settings.log_level, _settings.log_json)
app = create_app(_settings)
