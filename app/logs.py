"""Structured logs: one JSON object per line, with the match and user in context.

No token is ever written to a log, however it got into a line (an access log's
``?token=`` query, a header, an exception's message, an ``extra`` field): see
:func:`redact`, applied at two depths. uvicorn's loggers get :class:`RedactTokens`, which
cleans each record's message and arguments where it is made, whichever handler prints it; and
both of our formatters redact the whole line they produce, tracebacks included.
"""
from __future__ import annotations

import contextvars
import json
import logging
import re
import time

match_id_var: contextvars.ContextVar[str | None] = contextvars.ContextVar("match_id", default=None)
user_id_var: contextvars.ContextVar[str | None] = contextvars.ContextVar("user_id", default=None)

_STANDARD = set(logging.LogRecord("", 0, "", 0, "", None, None).__dict__) | {"message", "asctime"}

REDACTED = "[redacted]"
# What a token looks like wherever it turns up. Each pattern stops at a quote or a backslash,
# so redacting a JSON line in place keeps it valid JSON.
_SECRETS = [
    # Our tokens are JWTs: base64url parts joined by dots, the first one a JSON header ('{"').
    (re.compile(r"eyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)?"), REDACTED),
    # A query parameter (?token=..., &access_token=...): keep the name, so the path stays useful.
    (re.compile(r"(token=)[^&\s\"'#\\]+", re.IGNORECASE), r"\1" + REDACTED),
    # A websocket's token subprotocol (Sec-WebSocket-Protocol: duelhall.v1, bearer.<token>).
    (re.compile(r"(\bbearer\.)[^,\s\"'\\]+", re.IGNORECASE), r"\1" + REDACTED),
    # An Authorization header.
    (re.compile(r"(\bauthorization['\"]?\s*[:=,]\s*['\"]?\s*bearer\s+)[^\s\"'\\]+", re.IGNORECASE),
     r"\1" + REDACTED),
]


def redact(text: str) -> str:
    """``text`` with anything that looks like a token replaced by ``[redacted]``."""
    for pattern, replacement in _SECRETS:
        text = pattern.sub(replacement, text)
    return text


class RedactTokens(logging.Filter):
    """Redacts a record's message and string arguments in place (keeping the arguments'
    shape: uvicorn's access formatter unpacks them)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.msg, str):
            record.msg = redact(record.msg)
        if isinstance(record.args, tuple):
            record.args = tuple(redact(a) if isinstance(a, str) else a for a in record.args)
        elif isinstance(record.args, dict):
            record.args = {k: redact(v) if isinstance(v, str) else v for k, v in record.args.items()}
        return True


class PlainFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        return redact(super().format(record))


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        out = {
            "ts": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
            + f".{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
        }
        if (m := match_id_var.get()) is not None:
            out["match_id"] = m
        if (u := user_id_var.get()) is not None:
            out["user_id"] = u
        for key, value in record.__dict__.items():  # extra={...} fields
            if key not in _STANDARD and not key.startswith("_"):
                out[key] = value
        if record.exc_info:
            out["exc"] = self.formatException(record.exc_info)
        return redact(json.dumps(out, default=str))


_REDACT_TOKENS = RedactTokens()


def setup(level: str = "INFO", json_logs: bool = True) -> None:
    handler = logging.StreamHandler()
    handler.setFormatter(JsonFormatter() if json_logs else
                         PlainFormatter("%(asctime)s %(levelname)s %(name)s %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access"):
        lg = logging.getLogger(name)
        lg.handlers[:] = []
        lg.propagate = True
        # "uvicorn.error" prints websocket handshakes (path and query; the headers at DEBUG),
        # "uvicorn.access" every HTTP request's path and query.
        lg.addFilter(_REDACT_TOKENS)
