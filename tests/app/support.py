"""Helpers for API tests: sign in, open a Duell match, play it out with legal moves."""
from __future__ import annotations

import random

from tests.conftest import guest


def duell_match(client, options: dict | None = None, names=("Ann", "Bob")):
    """A live Duell match; returns (match_id, {seat: player})."""
    a, b = guest(client, names[0]), guest(client, names[1])
    r = client.post("/api/matches", json={"game": "duell", "options": options or {}}, headers=a["headers"])
    assert r.status_code == 200, r.text
    mid = r.json()["id"]
    r = client.post(f"/api/matches/{mid}/join", headers=b["headers"])
    assert r.status_code == 200 and r.json()["status"] == "live", r.text
    return mid, {"A": a, "B": b}


def view(client, mid, player):
    r = client.get(f"/api/matches/{mid}/view", headers=player["headers"])
    assert r.status_code == 200, r.text
    return r.json()


def pending_player(client, mid, players):
    v = view(client, mid, players["A"])
    if not v["pending"]:
        return None, v
    seat = v["pending"][0]
    return seat, view(client, mid, players[seat])


def play_out(client, mid, players, seed=0, max_steps=2000) -> dict:
    """Play random legal actions over HTTP until the match ends; returns the last view."""
    rnd = random.Random(seed)
    for _ in range(max_steps):
        seat, v = pending_player(client, mid, players)
        if seat is None:
            return v
        action = rnd.choice(v["legal"])
        r = client.post(f"/api/matches/{mid}/actions", json={"action": action, "version": v["version"]},
                        headers=players[seat]["headers"])
        assert r.status_code == 200, r.text
    raise AssertionError("match did not end")
