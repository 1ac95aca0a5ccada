"""Hostile input never crashes anything: random JSON at the websocket and the action endpoint
gets a clear error (or is applied, when by chance legal), never a 500 or a dead socket."""
from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from tests.app.support import duell_match

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-2**40, 2**40)
    | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=20),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=12,
)
action_like = st.fixed_dictionaries(
    {"type": st.sampled_from(["move", "attack", "advance_attack", "parry", "retreat", "choose_special", "x"])},
    optional={"card": json_values, "cards": json_values, "dir": json_values, "move": json_values},
)
messages = st.one_of(
    json_values,
    st.fixed_dictionaries({"type": st.sampled_from(["action", "resume", "ping", "view"])},
                          optional={"action": action_like | json_values, "client_seq": json_values,
                                    "since": json_values, "version": json_values}),
)
FUZZ = hsettings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))


def test_websocket_survives_random_messages(client):
    mid, p = duell_match(client)
    mover = client.get(f"/api/matches/{mid}/view", headers=p["A"]["headers"]).json()["pending"][0]

    with client.websocket_connect(f"/ws/matches/{mid}?token={p[mover]['token']}") as ws:
        ws.receive_json()

        @FUZZ
        @given(messages)
        def check(msg):
            ws.send_text(json.dumps(msg))
            while True:
                reply = ws.receive_json()
                assert reply["type"] in ("error", "ack", "view", "pong")
                if reply["type"] == "error":
                    assert reply["code"] in {"invalid_message", "illegal_action", "not_your_turn",
                                             "stale_version", "match_over", "rate_limited"}
                    assert reply["message"]
                if reply["type"] != "view":
                    break

        check()
        # The socket is still alive and well.
        ws.send_json({"type": "ping"})
        while ws.receive_json()["type"] != "pong":
            pass


@pytest.mark.slow
def test_action_endpoint_never_500(client):
    mid, p = duell_match(client)

    @FUZZ
    @given(json_values, action_like)
    def check(body, action):
        for payload in (body, {"action": action}, {"action": action, "version": body}):
            for who in ("A", "B"):
                r = client.post(f"/api/matches/{mid}/actions", json=payload, headers=p[who]["headers"])
                assert r.status_code < 500, r.text
                if r.status_code >= 400:
                    assert r.json()["error"]["code"] and r.json()["error"]["message"]

    check()
