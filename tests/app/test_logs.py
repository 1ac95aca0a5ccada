"""Structured logs carry the match and user ids."""
import json
import logging

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
