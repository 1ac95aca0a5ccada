"""One error shape for every client-facing failure: {"error": {"code", "message"}}."""
from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from games.base import GameError

# HTTP status per protocol error code.
STATUS = {
    "unauthorized": 401,
    "forbidden": 403,
    "suspended": 403,
    "name_taken": 409,
    "not_found": 404,
    "not_your_turn": 409,
    "illegal_action": 422,
    "invalid_message": 422,
    "invalid_options": 422,
    "stale_version": 409,
    "match_over": 409,
    "match_not_open": 409,
    "match_full": 409,
    "too_many_open_matches": 409,
    "table_not_full": 409,
    "client_seq_reused": 409,
    "wrong_password": 403,
    "already_seated": 409,
    "not_finished": 409,
    "too_large": 413,
    "rate_limited": 429,
    "unavailable": 503,
    # Párbaj decks (app/api/decks.py)
    "invalid_deck": 422,
    "deck_name_taken": 409,
    "too_many_decks": 409,
    # Balance lab (app/api/lab.py)
    "invalid_lab_run": 422,
    "lab_busy": 409,
    "lab_not_finished": 409,
    # Computer players (app/api/bots.py)
    "unknown_bot_level": 422,
    "not_host": 403,
    # Tournaments (app/api/tournaments.py; the core's codes are in app/tournaments/errors.py)
    "account_required": 403,
    "unsupported_game": 422,
    "invalid_format": 422,
    "invalid_player": 422,
    "invalid_result": 422,
    "invalid_game": 422,
    "draw_not_allowed": 422,
    "wrong_status": 409,
    "registration_closed": 409,
    "check_in_closed": 409,
    "already_registered": 409,
    "not_registered": 409,
    "event_full": 409,
    "deck_required": 409,
    "deck_locked": 409,
    "too_few_players": 409,
    "duplicate_player": 409,
    "unknown_player": 404,
    "unknown_pairing": 404,
    "not_pending": 409,
    "already_reported": 409,
    "round_incomplete": 409,
    "tournament_finished": 409,
    "already_dropped": 409,
    "late_entry_closed": 409,
    "late_entry_not_allowed": 409,
    "correction_closed": 409,
    "dispute_open": 409,
    "dispute_closed": 409,
}

# Codes after which the websocket is closed.
FATAL_WS_CODES = {"unauthorized", "not_found"}


class ApiError(Exception):
    def __init__(self, code: str, message: str, status: int | None = None):
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status or STATUS.get(code, 400)

    def body(self) -> dict:
        return {"error": {"code": self.code, "message": self.message}}

    @classmethod
    def from_game(cls, err: GameError) -> ApiError:
        return cls(err.code, err.message)


def _json(status: int, code: str, message: str, body: dict | None = None) -> JSONResponse:
    """The error response; ``body`` when the error carries more than code and message (e.g.
    ``invalid_deck``'s ``problems``)."""
    from app.live import metrics  # every HTTP error is counted here, once (websocket: app/ws.py)

    metrics.ERRORS.labels(code).inc()
    return JSONResponse(body or {"error": {"code": code, "message": message}}, status_code=status)


def _describe_validation(exc: RequestValidationError) -> str:
    parts = []
    for err in exc.errors()[:3]:
        where = ".".join(str(p) for p in err.get("loc", ()) if p != "body")
        kind = err.get("type", "")
        if kind == "extra_forbidden":
            parts.append(f"unknown field '{where}'")
        elif kind == "missing":
            parts.append(f"missing field '{where}'")
        elif kind == "json_invalid":
            parts.append("the body is not valid JSON")
        else:
            parts.append(f"'{where}': {err.get('msg', 'invalid')}" if where else err.get("msg", ""))
    return ("Invalid request: " + "; ".join(parts) + ".") if parts else "Invalid request."


# SQLSTATEs of a database that cannot serve right now: class 08 (connection exception), and
# admin/crash shutdown, "cannot connect now" (starting up, shutting down, in recovery), and
# too many connections.
_UNAVAILABLE_SQLSTATES = ("57P01", "57P02", "57P03", "53300")
# Where an OSError counts as "the backend is unreachable": raised inside a database or Redis
# client (connection refused, no route, a unix socket that is not there, a name that does not
# resolve), not by our own code (a missing file there is a bug: 500).
_CLIENT_PACKAGES = frozenset({"asyncpg", "aiosqlite", "sqlite3", "sqlalchemy", "redis"})


def _raised_in_client(exc: BaseException) -> bool:
    tb = exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_globals.get("__name__", "").partition(".")[0] in _CLIENT_PACKAGES:
            return True
        tb = tb.tb_next
    return False


def backend_unreachable(exc: BaseException) -> bool:
    """Whether ``exc`` says Redis or SQL cannot be reached or cannot serve right now (answered
    503 ``unavailable``), rather than a bug (500)."""
    from redis.exceptions import ConnectionError as RedisConnectionError
    from redis.exceptions import TimeoutError as RedisTimeoutError
    from sqlalchemy import exc as sa

    if isinstance(exc, (RedisConnectionError, RedisTimeoutError, ConnectionError, TimeoutError)):
        return True
    if isinstance(exc, (sa.OperationalError, sa.InterfaceError, sa.DisconnectionError,
                        sa.TimeoutError)):
        return True
    if isinstance(exc, sa.DBAPIError):
        if exc.connection_invalidated:
            return True
        state = getattr(exc.orig, "sqlstate", None) or getattr(exc.orig, "pgcode", None) or ""
        return state.startswith("08") or state in _UNAVAILABLE_SQLSTATES
    if isinstance(exc, OSError):
        return _raised_in_client(exc)
    return False


def install(app: FastAPI) -> None:
    @app.exception_handler(ApiError)
    async def _api_error(_: Request, exc: ApiError):
        return _json(exc.status, exc.code, exc.message, exc.body())

    @app.exception_handler(GameError)
    async def _game_error(_: Request, exc: GameError):
        e = ApiError.from_game(exc)
        return _json(e.status, e.code, e.message, e.body())

    @app.exception_handler(RequestValidationError)
    async def _validation(_: Request, exc: RequestValidationError):
        return _json(422, "invalid_message", _describe_validation(exc))

    @app.exception_handler(StarletteHTTPException)
    async def _http(_: Request, exc: StarletteHTTPException):
        code = {401: "unauthorized", 403: "forbidden", 404: "not_found", 405: "method_not_allowed",
                413: "too_large", 429: "rate_limited"}.get(exc.status_code, "bad_request")
        message = exc.detail if isinstance(exc.detail, str) else "Request failed."
        if exc.status_code == 404 and message == "Not Found":
            message = "There is nothing at this address."
        return _json(exc.status_code, code, message)

    # Redis or SQL unreachable (restart, failover, outage): not a bug and not the client's
    # fault; 503 tells clients and load balancers to retry. Other errors stay 500s (bugs).
    async def _backend_down(request: Request, exc: Exception):
        import logging

        if not backend_unreachable(exc):
            return await _unexpected(request, exc)
        logging.getLogger("duelhall").warning("backend unavailable on %s: %s", request.url.path,
                                              type(exc).__name__)
        return _json(503, "unavailable", "The service is unavailable for a moment; try again shortly.")

    from redis.exceptions import ConnectionError as RedisConnectionError
    from redis.exceptions import TimeoutError as RedisTimeoutError
    from sqlalchemy.exc import SQLAlchemyError

    for kind in (RedisConnectionError, RedisTimeoutError, SQLAlchemyError, OSError):
        app.add_exception_handler(kind, _backend_down)

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception):
        # A bug of ours, not the client's: log it and say so plainly (still a 500).
        import logging

        # Starlette calls this handler inside its own `except`, so the traceback is there.
        logging.getLogger("duelhall").exception("unhandled error on %s", request.url.path)  # noqa: LOG004
        return _json(500, "internal_error", "Something went wrong on our side.")
