"""Differential no-leak test at the wire: two live matches whose stored states differ only in
what seat A may not know (B's hand, the draw-pile order) must give A, and a spectator,
byte-identical HTTP views and websocket messages - before and after the same public move."""
from __future__ import annotations

import json
import random

import pytest

from games.registry import get_game
from tests.app.support import duell_match

GAME = get_game("duell")


def secret_variant(state: dict, rnd: random.Random) -> dict:
    """Same public position, different hidden cards: reshuffle B's hand with the deck, except
    the top card, which A is about to draw (A may know its own draw)."""
    s = json.loads(json.dumps(state))
    top = s["deck"][-1]
    pool = s["hands"]["B"] + s["deck"][:-1]
    for _ in range(50):
        rnd.shuffle(pool)
        hand, deck = sorted(pool[: len(s["hands"]["B"])]), pool[len(s["hands"]["B"]):]
        if hand != sorted(s["hands"]["B"]):
            break
    s["hands"]["B"], s["deck"] = hand, deck + [top]
    return s


def put_state(client, mid, state):
    svc = client.app.state.services

    async def write():
        raw = await svc.redis.get(svc.store.k.match(mid))
        doc = json.loads(raw)
        doc["state"] = state
        await svc.redis.set(svc.store.k.match(mid), json.dumps(doc))

    client.portal.call(write)


def a_moves_first(client, options):
    """A live match where A is to move (re-roll until the random starter is A)."""
    for _ in range(30):
        mid, p = duell_match(client, options)
        v = client.get(f"/api/matches/{mid}/view", headers=p["A"]["headers"]).json()
        if v["pending"] == ["A"]:
            return mid, p, v
    raise AssertionError("A never started")


@pytest.mark.parametrize("mode", ["prologo", "tenzone"])
def test_a_cannot_tell_b_hands_apart(client, mode):
    rnd = random.Random(7)
    mid, p, v = a_moves_first(client, {"mode": mode, "special_cards": False})
    svc = client.app.state.services
    original = json.loads(client.portal.call(svc.redis.get, svc.store.k.match(mid)))["state"]
    variant = secret_variant(original, rnd)
    assert variant["hands"]["B"] != original["hands"]["B"] or variant["deck"] != original["deck"]
    # A public move by A: the smallest legal move, identical in both worlds.
    move = next(a for a in v["legal"] if a["type"] == "move")

    def observe(state):
        put_state(client, mid, state)
        out = []
        out.append(client.get(f"/api/matches/{mid}/view", headers=p["A"]["headers"]).content)
        out.append(client.get(f"/api/matches/{mid}/view").content)
        with client.websocket_connect(f"/ws/matches/{mid}?token={p['A']['token']}") as wa, \
                client.websocket_connect(f"/ws/matches/{mid}") as spec:
            out += [wa.receive_text(), spec.receive_text()]
            wa.send_json({"type": "action", "action": move, "client_seq": 1})
            msgs = []
            while True:
                m = wa.receive_text()
                msgs.append(m)
                if json.loads(m)["type"] == "ack":
                    break
            out += msgs
            out.append(spec.receive_text())
        # Undo the move so the second world starts from the same public position.
        return out

    first = observe(original)
    # Rewind: same version and public position, B's secret cards reshuffled.
    svc_doc = json.loads(client.portal.call(svc.redis.get, svc.store.k.match(mid)))
    svc_doc["version"] -= 1
    svc_doc["steps"] -= 1
    svc_doc["cseq"] = {"A": 0, "B": 0}
    client.portal.call(svc.redis.set, svc.store.k.match(mid), json.dumps(svc_doc))
    client.portal.call(svc.redis.rpop, svc.store.k.events(mid))
    second = observe(variant)
    assert len(first) == len(second) >= 6
    for x, y in zip(first, second):
        x = x if isinstance(x, str) else x.decode()
        y = y if isinstance(y, str) else y.decode()
        assert x == y
    # And the test can fail: B's own view does tell the worlds apart.
    put_state(client, mid, original)
    b1 = client.get(f"/api/matches/{mid}/view", headers=p["B"]["headers"]).content
    put_state(client, mid, variant)
    b2 = client.get(f"/api/matches/{mid}/view", headers=p["B"]["headers"]).content
    assert b1 != b2
