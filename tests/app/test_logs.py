"""Structured logs carry the match and user ids, and never a token."""
import json
import logging
import sys

import jwt
import pytest

from app import logs


def test_json_lines_with_context(capsys):
    logger = logging.getLogger("duelhall.test")
    handler = logging.StreamHandler()
    handler.setFormatter(logs.JsonFormatter())
    logger.addHandler(handler)
    logger.propagate = False
    try:
        token_m = logs.match_id_var.set("m123")
        token_u = logs.user_id_var.set("u_9")
        logger.warning("action refused", extra={"code": "not_your_turn"})
        logs.match_id_var.reset(token_m)
        logs.user_id_var.reset(token_u)
        logger.warning("plain")
    finally:
        logger.removeHandler(handler)
    first, second = [json.loads(line) for line in capsys.readouterr().err.strip().splitlines()]
    assert first["match_id"] == "m123" and first["user_id"] == "u_9"
    assert first["code"] == "not_your_turn" and first["level"] == "warning"
    assert first["msg"] == "action refused" and first["ts"].endswith("Z")
    assert "match_id" not in second and second["msg"] == "plain"


# ------------------------------------------------------------------ no token in any line
TOKEN = jwt.encode({"sub": "u_1", "name": "Ann", "exp": 2_000_000_000}, "k" * 32, algorithm="HS256")
SIGNATURE = TOKEN.rsplit(".", 1)[1]


def _record(msg, args=(), name="duelhall.test", exc_info=None, **extra):
    record = logging.LogRecord(name, logging.WARNING, __file__, 1, msg, args, exc_info)
    record.__dict__.update(extra)
    return record


def _failure():
    try:
        raise ValueError(f"could not decode {TOKEN}")
    except ValueError:
        return sys.exc_info()


@pytest.mark.parametrize("kind", ["json", "plain"])
def test_formatters_redact_tokens_however_they_came(kind):
    formatter = logs.JsonFormatter() if kind == "json" else logs.PlainFormatter("%(name)s %(message)s")
    lines = [
        formatter.format(_record('"WebSocket %s" [accepted]', (f"/ws/matches/m1?token={TOKEN}&ack=view",))),
        formatter.format(_record(f"< sec-websocket-protocol: duelhall.v1, bearer.{TOKEN}")),
        formatter.format(_record("headers %s", ({"authorization": f"Bearer {TOKEN}"},))),
        formatter.format(_record("refused", given=TOKEN, nested={"t": [TOKEN]})),
        formatter.format(_record("decode failed", exc_info=_failure())),
        formatter.format(_record("/ws/tournaments/t1?token=not-a-jwt-but-secret")),
    ]
    out = "\n".join(lines)
    assert TOKEN not in out and SIGNATURE not in out and "not-a-jwt-but-secret" not in out
    assert "/ws/matches/m1?token=[redacted]&ack=view" in lines[0]  # still says which socket
    assert "bearer.[redacted]" in lines[1] and "Bearer [redacted]" in lines[2]
    assert "ValueError: could not decode [redacted]" in lines[4]  # the traceback is kept
    if kind == "json":
        parsed = [json.loads(line) for line in lines]  # redacted in place, still JSON
        assert parsed[3]["given"] == "[redacted]" and parsed[3]["nested"] == {"t": ["[redacted]"]}


def test_setup_redacts_uvicorns_records_at_the_source(capsys):
    """uvicorn's loggers carry the filter itself, so even a handler that does not redact (one
    someone adds, uvicorn's own formatters) never sees the token; the access formatter, which
    unpacks the record's arguments, still works."""
    from uvicorn.logging import AccessFormatter

    root = logging.getLogger()
    saved_root = root.handlers[:], root.level
    loggers = {n: logging.getLogger(n) for n in ("uvicorn", "uvicorn.error", "uvicorn.access")}
    saved = {n: (lg.handlers[:], lg.propagate, lg.filters[:]) for n, lg in loggers.items()}
    plain = logging.StreamHandler(sys.stdout)  # no redaction of its own
    plain.setFormatter(AccessFormatter('%(client_addr)s - "%(request_line)s" %(status_code)s',
                                       use_colors=False))
    try:
        logs.setup("INFO", json_logs=True)
        access = loggers["uvicorn.access"]
        access.addHandler(plain)
        access.info('%s - "%s %s HTTP/%s" %d', "127.0.0.1:5", "GET", f"/api/me?token={TOKEN}", "1.1", 401)
        loggers["uvicorn.error"].warning('%s - "WebSocket %s" 403', "127.0.0.1:6",
                                         f"/ws/matches/m1?token={TOKEN}")
    finally:
        access.removeHandler(plain)
        root.handlers[:], level = saved_root
        root.setLevel(level)
        for n, lg in loggers.items():
            lg.handlers[:], lg.propagate, lg.filters[:] = saved[n]
    captured = capsys.readouterr()
    assert TOKEN not in captured.out + captured.err and SIGNATURE not in captured.out + captured.err
    assert captured.out.strip() == '127.0.0.1:5 - "GET /api/me?token=[redacted] HTTP/1.1" 401 Unauthorized'
    assert "/ws/matches/m1?token=[redacted]" in captured.err  # through our own (JSON) handler
