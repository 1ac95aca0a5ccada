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
    def from_game(cls, err: GameError) -> "ApiError":
        return cls(err.code, err.message)


def _json(status: int, code: str, message: str) -> JSONResponse:
    return JSONResponse({"error": {"code": code, "message": message}}, status_code=status)


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


def install(app: FastAPI) -> None:
    @app.exception_handler(ApiError)
    async def _api_error(_: Request, exc: ApiError):
        return JSONResponse(exc.body(), status_code=exc.status)

    @app.exception_handler(GameError)
    async def _game_error(_: Request, exc: GameError):
        e = ApiError.from_game(exc)
        return JSONResponse(e.body(), status_code=e.status)

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

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception):
        # A bug of ours, not the client's: log it and say so plainly (still a 500).
        import logging

        logging.getLogger("duelhall").exception("unhandled error on %s", request.url.path)
        return _json(500, "internal_error", "Something went wrong on our side.")
