"""The app factory: ``uvicorn app.main:app`` or ``create_app(settings)`` in tests."""
from __future__ import annotations

import asyncio
import gc
import json
import logging
from contextlib import asynccontextmanager

from fastapi import FastAPI
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles

from app import drain, errors, logs, ws, ws_tournaments
from app.api import admin, auth, bots, decks, games, health, matches, players, tournaments
from app.api import lab as lab_api
from app.config import ROOT, Settings, get_settings
from app.db.session import migrate
from app.services import Services
from app.ws_limits import SocketsPerAddress
from games import registry as game_registry

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
                    raise _TooLarge
            return message

        try:
            await self.app(scope, limited_receive, send)
        except _TooLarge:
            await self._refuse(send)

    async def _refuse(self, send):
        from app.live import metrics

        metrics.ERRORS.labels("too_large").inc()
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
    # The client is plain ES modules and stylesheets from /static, SVG drawn by script, icons
    # as data: URLs, and fetch/websocket to this origin: no inline script, nothing from
    # elsewhere. Boards size bars with style="" attributes (not <style> elements): allowed.
    CSP = (b"default-src 'self'; script-src 'self'; style-src 'self'; "
           b"style-src-attr 'unsafe-inline'; img-src 'self' data:; font-src 'self'; "
           b"connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
           b"frame-ancestors 'none'")
    # FastAPI's /docs and /redoc pages load their viewer from a CDN with an inline bootstrap.
    DOCS_CSP = (b"default-src 'self'; script-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net; "
                b"style-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net https://fonts.googleapis.com; "
                b"font-src 'self' https://fonts.gstatic.com; img-src 'self' data: https:; "
                b"worker-src 'self' blob:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'")
    DOCS_PATHS = ("/docs", "/redoc")

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        docs = scope["path"].startswith(self.DOCS_PATHS)
        headers = self.HEADERS + [(b"content-security-policy", self.DOCS_CSP if docs else self.CSP)]

        async def send_with_headers(message):
            if message["type"] == "http.response.start":
                message["headers"] = list(message.get("headers", [])) + headers
            await send(message)

        await self.app(scope, receive, send_with_headers)


def create_app(settings: Settings | None = None, *, run_migrations: bool | None = None) -> FastAPI:
    settings = settings or get_settings()
    game_registry.register_all(settings.extra_games)
    if problem := settings.secret_problem():
        raise RuntimeError(f"refusing to start: {problem}")
    if settings.redis_url and not settings.secret_key:
        logging.getLogger("duelhall").warning(
            "REDIS_URL is set but SECRET_KEY is not: tokens are signed with the key generated in "
            "DATA_DIR, so processes with another DATA_DIR will not accept them")
    if run_migrations is None:
        run_migrations = settings.migrate_on_start

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        if run_migrations:
            await asyncio.to_thread(migrate, settings)
        svc = Services.build(settings)
        app.state.services = svc
        await svc.start()
        if settings.gc_freeze:
            # Everything loaded so far (modules, tables, card pools) lives as long as the
            # process: keep it out of the collector's way. With a higher first threshold,
            # full collections (pauses of many ms under load) become rare.
            gc.collect()
            gc.freeze()
            gc.set_threshold(settings.gc_threshold, 20, 20)
        undo_drain = drain.install(svc)  # SIGTERM drains first (app/drain.py)
        try:
            yield
        finally:
            undo_drain()
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
                   decks.router, bots.router, health.router, ws.router, tournaments.router,
                   ws_tournaments.router, lab_api.router):
        app.include_router(router)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    @app.get("/", include_in_schema=False)
    async def index():
        return FileResponse(STATIC / "index.html")

    app.add_middleware(BodyLimit, limit=settings.max_message_bytes)
    app.add_middleware(SocketsPerAddress)
    app.add_middleware(SecurityHeaders)
    if settings.trusted_proxies:
        # Outermost: everything inside sees the client's address. The client is the rightmost
        # X-Forwarded-For entry that is not a trusted proxy; what a client writes to the left
        # of it is ignored (uvicorn's middleware with an explicit list, never "*").
        from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

        app.add_middleware(ProxyHeadersMiddleware, trusted_hosts=list(settings.trusted_proxies))
    _document_errors_as_json(app)
    return app


def _document_errors_as_json(app: FastAPI) -> None:
    """Errors are always JSON (app/errors.py), but FastAPI documents a route's error responses
    in the route's own media type: text/plain for a text export. Say application/json."""
    build = app.openapi

    def openapi() -> dict:
        if app.openapi_schema is None:
            spec = build()
            for ops in spec.get("paths", {}).values():
                for op in ops.values():
                    for status, resp in op.get("responses", {}).items():
                        content = resp.get("content", {})
                        if status[:1] in "45" and content and "application/json" not in content:
                            resp["content"] = {"application/json": next(iter(content.values()))}
        return app.openapi_schema

    app.openapi = openapi


_settings = get_settings()
logs.setup(_settings.log_level, _settings.log_json)
app = create_app(_settings)
