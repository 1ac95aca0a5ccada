"""Websocket fuzzing beyond tests/app/test_fuzz.py (which sends random JSON documents on one
socket): raw frames of any kind (text that is not JSON, binary, invalid UTF-8, oversized) mixed
with protocol-shaped messages, while the opponent and a spectator sit on the same match.

After every frame the fuzzing socket must still answer a ping (it never crashes), every reply
must be a protocol message with a known error code, and at the end the other two sockets must
still get the next view of the match: one hostile socket never hurts the others."""
from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from tests.app.support import duell_match, view
from tests.app.test_fuzz import messages

KNOWN_CODES = {"invalid_message", "illegal_action", "not_your_turn", "stale_version", "match_over",
               "too_large", "client_seq_reused", "forbidden"}
BIG = 70 * 1024  # over the 64 KiB limit

frames = st.one_of(
    messages.map(lambda m: ("text", json.dumps(m))),
    st.text(max_size=300).map(lambda t: ("text", t)),
    st.binary(max_size=300).map(lambda b: ("bytes", b)),
    messages.map(lambda m: ("bytes", json.dumps(m).encode())),  # JSON in a binary frame
    st.sampled_from([("text", "x" * BIG), ("bytes", b"\xff" * BIG),
                     ("text", json.dumps({"type": "ping", "pad": "y" * BIG})),
                     ("text", "[" * 5000 + "]" * 5000), ("text", "\x00"), ("bytes", b"")]),
)


@pytest.fixture
def roomy_client(settings):
    """The app with a rate limit too high to matter: this test is about content, and the
    rate limit has its own tests."""
    from fastapi.testclient import TestClient

    from app.main import create_app

    roomy = settings.model_copy(update={"ws_rate_per_second": 1e6, "ws_burst": 10 ** 6})
    with TestClient(create_app(roomy, run_migrations=False)) as c:
        yield c


def replies_until_pong(ws) -> list[dict]:
    out = []
    while True:
        m = ws.receive_json()
        if m["type"] == "pong":
            return out
        out.append(m)


@pytest.mark.slow
def test_hostile_frames_never_crash_a_socket_or_hurt_the_others(roomy_client):
    client = roomy_client
    mid, p = duell_match(client)
    mover = view(client, mid, p["A"])["pending"][0]
    other = "B" if mover == "A" else "A"
    seen = {"frames": 0, "codes": set()}

    with client.websocket_connect(f"/ws/matches/{mid}?token={p[mover]['token']}") as fuzz, \
            client.websocket_connect(f"/ws/matches/{mid}?token={p[other]['token']}") as opponent, \
            client.websocket_connect(f"/ws/matches/{mid}") as spectator:
        first = fuzz.receive_json()
        opponent.receive_json(), spectator.receive_json()

        @hsettings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
        @given(frames)
        def check(frame):
            kind, payload = frame
            (fuzz.send_text if kind == "text" else fuzz.send_bytes)(payload)
            fuzz.send_text('{"type": "ping"}')  # the sentinel: answered only by a live socket
            for reply in replies_until_pong(fuzz):
                assert reply["type"] in ("error", "ack", "view"), reply
                if reply["type"] == "error":
                    assert reply["code"] in KNOWN_CODES and reply["message"], reply
                    seen["codes"].add(reply["code"])
            seen["frames"] += 1

        check()
        assert seen["frames"] >= 300
        assert {"invalid_message", "too_large"} <= seen["codes"]  # the fuzz reached the checks

        # The others are unharmed: a real move reaches both of them as the next view.
        now = view(client, mid, p[mover])
        if now["status"] == "live" and now["pending"]:
            seat = now["pending"][0]
            legal = view(client, mid, p[seat])["legal"]
            r = client.post(f"/api/matches/{mid}/actions", headers=p[seat]["headers"],
                            json={"action": legal[0], "version": now["version"]})
            assert r.status_code == 200, r.text
            target = r.json()["version"]
        else:  # the fuzz happened to finish the match: its last view is the next one
            target = now["version"]
        for ws in (opponent, spectator):
            got = ws.receive_json()
            while got["version"] < target:
                got = ws.receive_json()
            assert got["type"] == "view" and got["version"] == target
        assert target > first["version"] or now["status"] != "live"
