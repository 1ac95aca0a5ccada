"""The websocket side of the protocol: views on connect and after every change, acks,
idempotent client_seq, resume, and every error code (the socket survives all but two)."""
from __future__ import annotations

import json

import pytest
from starlette.websockets import WebSocketDisconnect

from tests.app.support import duell_match, view
from tests.conftest import guest


def connect(client, mid, player=None):
    """The token in the subprotocols, as static/ws.js sends it (old clients' ``?token=`` is
    tested below and in test_ws_token.py)."""
    protocols = ["duelhall.v1"] + ([f"bearer.{player['token']}"] if player else [])
    return client.websocket_connect(f"/ws/matches/{mid}", subprotocols=protocols)


def recv_until(ws, kind):
    """Read messages until one of ``kind``; returns (it, the messages before it)."""
    seen = []
    while True:
        m = ws.receive_json()
        if m["type"] == kind:
            return m, seen
        seen.append(m)


def test_view_on_connect_then_action_ack_and_both_views(client):
    mid, p = duell_match(client)
    with connect(client, mid, p["A"]) as wa, connect(client, mid, p["B"]) as wb:
        va, vb = wa.receive_json(), wb.receive_json()
        assert va["type"] == vb["type"] == "view" and va["seq"] == va["version"]
        mover = va["pending"][0]
        ws_m, v_m = (wa, va) if mover == "A" else (wb, vb)
        ws_o = wb if mover == "A" else wa
        ws_m.send_json({"type": "action", "action": v_m["legal"][0], "client_seq": 1})
        ack, before = recv_until(ws_m, "ack")
        assert ack["client_seq"] == 1 and ack["duplicate"] is False
        pushed = [m for m in before if m["type"] == "view"]
        assert pushed and pushed[-1]["version"] == ack["version"] == va["version"] + 1
        other_view, _ = recv_until(ws_o, "view")
        assert other_view["version"] == ack["version"]
        assert other_view["events"], "the change's events reach the opponent"
        assert other_view["client_seq"] == 0 and pushed[-1]["client_seq"] == 1


def test_ack_by_view_sends_no_separate_ack_for_a_move_but_still_for_a_repeat(client):
    """``?ack=view``: the view caused by the action (its ``client_seq``) is the acknowledgment;
    a repeat (nothing new to view) still gets an ``ack``."""
    mid, p = duell_match(client)
    mover = view(client, mid, p["A"])["pending"][0]
    with client.websocket_connect(f"/ws/matches/{mid}?token={p[mover]['token']}&ack=view") as ws:
        v = ws.receive_json()
        action = v["legal"][0]
        ws.send_json({"type": "action", "action": action, "client_seq": 1})
        after = ws.receive_json()
        assert after["type"] == "view" and after["version"] == v["version"] + 1
        assert after["client_seq"] == 1
        ws.send_json({"type": "action", "action": action, "client_seq": 1})  # a retry
        again = ws.receive_json()  # no ack frame came between: the next frame answers the retry
        assert again == {"type": "ack", "client_seq": 1, "version": after["version"], "duplicate": True}
        ws.send_json({"type": "ping"})
        assert ws.receive_json()["type"] == "pong"


def test_repeated_client_seq_is_not_applied_twice(client):
    mid, p = duell_match(client)
    mover = view(client, mid, p["A"])["pending"][0]
    with connect(client, mid, p[mover]) as ws:
        v = ws.receive_json()
        action = v["legal"][0]
        ws.send_json({"type": "action", "action": action, "client_seq": 7})
        first, _ = recv_until(ws, "ack")
        ws.send_json({"type": "action", "action": action, "client_seq": 7})
        again, _ = recv_until(ws, "ack")
        assert again["duplicate"] is True and again["version"] == first["version"]
        ws.send_json({"type": "action", "action": action, "client_seq": 3})
        older, _ = recv_until(ws, "ack")
        assert older["duplicate"] is True
    assert view(client, mid, p["A"])["version"] == first["version"]


def test_resume_returns_missed_events(client):
    mid, p = duell_match(client)
    with connect(client, mid, p["A"]) as wa:
        start = wa.receive_json()["version"]
    # A is away while two moves are made over HTTP.
    for _ in range(2):
        v = view(client, mid, p["A"])
        mover = v["pending"][0]
        act = view(client, mid, p[mover])["legal"][0]
        assert client.post(f"/api/matches/{mid}/actions", json={"action": act},
                           headers=p[mover]["headers"]).status_code == 200
    with connect(client, mid, p["A"]) as wa:
        wa.receive_json()
        wa.send_json({"type": "resume", "since": start})
        resumed, _ = recv_until(wa, "view")
        assert resumed["version"] == start + 2
        assert {e["version"] for e in resumed["events"]} == {start + 1, start + 2}


def test_spectator_sees_no_hand_and_cannot_act(client):
    mid, p = duell_match(client)
    eve = guest(client, "Eve")
    for who in (eve, None):
        with connect(client, mid, who) as ws:
            v = ws.receive_json()
            assert v["seat"] is None and v["legal"] == []
            assert v["state"]["hands"] == {"A": None, "B": None}
            ws.send_json({"type": "action", "action": {"type": "resign"}, "client_seq": 1})
            err, _ = recv_until(ws, "error")
            assert err["code"] == "forbidden" and err["client_seq"] == 1


@pytest.mark.parametrize("raw,code", [
    ("{not json", "invalid_message"),
    (json.dumps([1, 2]), "invalid_message"),
    (json.dumps({"type": "dance"}), "invalid_message"),
    (json.dumps({"type": "action"}), "invalid_message"),
    (json.dumps({"type": "action", "action": {"type": "resign"}, "seat": "B"}), "invalid_message"),
    (json.dumps({"type": "resume", "since": -1}), "invalid_message"),
    (json.dumps({"type": "action", "action": {"type": "x", "pad": "y" * 70000}}), "too_large"),
])
def test_bad_messages_get_errors_and_the_socket_stays_open(client, raw, code):
    mid, p = duell_match(client)
    with connect(client, mid, p["A"]) as ws:
        ws.receive_json()
        ws.send_text(raw)
        err, _ = recv_until(ws, "error")
        assert err["code"] == code and err["message"]
        ws.send_json({"type": "ping"})
        recv_until(ws, "pong")


def test_game_errors_over_the_socket(client):
    mid, p = duell_match(client)
    v = view(client, mid, p["A"])
    mover = v["pending"][0]
    other = "B" if mover == "A" else "A"
    legal = view(client, mid, p[mover])["legal"]
    with connect(client, mid, p[other]) as wo, connect(client, mid, p[mover]) as wm:
        wo.receive_json(), wm.receive_json()
        wo.send_json({"type": "action", "action": legal[0], "client_seq": 1})
        assert recv_until(wo, "error")[0]["code"] == "not_your_turn"
        wm.send_json({"type": "action", "action": {"type": "move", "card": 0, "dir": "up"}, "client_seq": 1})
        assert recv_until(wm, "error")[0]["code"] == "illegal_action"
        wm.send_json({"type": "action", "action": legal[0], "client_seq": 2, "version": v["version"] - 1})
        assert recv_until(wm, "error")[0]["code"] == "stale_version"
        wm.send_json({"type": "action", "action": {"type": "resign"}, "client_seq": 3})
        recv_until(wm, "ack")
        wm.send_json({"type": "action", "action": {"type": "resign"}, "client_seq": 4})
        assert recv_until(wm, "error")[0]["code"] == "match_over"


def test_rate_limit(client, settings):
    mid, p = duell_match(client)
    with connect(client, mid, p["A"]) as ws:
        ws.receive_json()
        for _ in range(settings.ws_burst + 10):
            ws.send_json({"type": "ping"})
        codes = set()
        for _ in range(settings.ws_burst + 10):
            m = ws.receive_json()
            codes.add(m.get("code") or m["type"])
        assert "rate_limited" in codes and "pong" in codes


@pytest.mark.parametrize("token", ["garbage", None])
def test_fatal_errors_close_the_socket(client, token):
    mid, _ = duell_match(client)
    target = f"/ws/matches/{mid}?token={token}" if token else "/ws/matches/unknown"
    with client.websocket_connect(target) as ws:
        err = ws.receive_json()
        assert err["type"] == "error" and err["code"] == ("unauthorized" if token else "not_found")
        with pytest.raises(WebSocketDisconnect):
            ws.receive_json()


def test_a_reused_client_seq_with_another_action_is_refused_not_dropped(client):
    mid, p = duell_match(client)
    mover = view(client, mid, p["A"])["pending"][0]
    with connect(client, mid, p[mover]) as tab1, connect(client, mid, p[mover]) as tab2:
        v = tab1.receive_json()
        tab2.receive_json()
        legal = v["legal"]
        tab1.send_json({"type": "action", "action": legal[0], "client_seq": 1})
        recv_until(tab1, "ack")
        # The second tab has not seen that move and numbers its own move 1 too.
        tab2.send_json({"type": "action", "action": legal[1], "client_seq": 1})
        err, _ = recv_until(tab2, "error")
        assert err["code"] == "client_seq_reused" and err["client_seq"] == 1
        # The first tab's retry of its own move is still a harmless duplicate.
        tab1.send_json({"type": "action", "action": legal[0], "client_seq": 1})
        assert recv_until(tab1, "ack")[0]["duplicate"] is True
