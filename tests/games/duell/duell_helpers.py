"""Helpers for the Duell tests: build targeted states, play through the real apply path."""
from __future__ import annotations

import json
import random

from games.base import SPECTATOR, clone
from games.duell import GAME
from games.duell.bots import random_action

SEATS = ["A", "B"]


def make_state(
    mode: str = "tenzone",
    hands: dict | None = None,
    pos: dict | None = None,
    deck: list | None = None,
    active: str = "A",
    rule: str | None = None,
    special: str | None = None,
    phase: str = "play",
    attack: dict | None = None,
    score: dict | None = None,
    starter: str = "A",
    seed: int = 1,
    **options,
) -> dict:
    """A state in the middle of a duel. ``deck`` is listed top first (the next card drawn is
    ``deck[0]``); the engine keeps the top at the end of its list."""
    opts = {"mode": mode, "special_cards": False, **options}
    state = GAME.setup(opts, SEATS, seed)
    L = state["options"]["track_length"]
    state["hands"] = {s: sorted(h) for s, h in (hands or {"A": [1, 2, 3, 4, 5],
                                                         "B": [1, 2, 3, 4, 5]}).items()}
    state["pos"] = dict(pos or {"A": 1, "B": L})
    state["deck"] = list(reversed(deck if deck is not None else [1, 2, 3, 4, 5] * 2))
    state["aside"] = []
    state["discard"] = []
    state["rule"] = rule
    state["special"] = special if special is not None else rule
    state["hand_size"] = 3 if rule == "three_cards" else 5
    state["phase"] = phase
    state["active"] = active
    state["attack"] = attack
    state["deck_out"] = False
    state["starter"] = starter
    state["duel"] = 1
    if score:
        state["score"] = dict(score)
    return state


def act(state: dict, seat: str, action: dict):
    """Apply and check the action was listed as legal (the real path, plus the contract)."""
    assert action in GAME.legal(state, seat), (action, GAME.legal(state, seat))
    return GAME.apply(state, seat, action)


def types(events: list) -> list[str]:
    return [e["type"] for e in events]


def of_type(events: list, kind: str) -> list[dict]:
    return [e for e in events if e["type"] == kind]


def dumps(x) -> str:
    return json.dumps(x, sort_keys=True)


def playout(options: dict, seed: int, max_steps: int = 20000, timeout_p: float = 0.0):
    """A random match. Returns (final state, [(seat, action or None for a timeout)])."""
    rnd = random.Random(seed * 7919 + 1)
    state = GAME.setup(options, SEATS, seed)
    record = []
    for _ in range(max_steps):
        if state["result"] is not None:
            break
        pend = GAME.pending(state)
        assert len(pend) == 1
        (seat,) = pend
        legal = GAME.legal(state, seat)
        assert legal, "a pending seat always has a legal action"
        if timeout_p and rnd.random() < timeout_p:
            state, _ = GAME.timeout(state, seat)
            record.append((seat, None))
        else:
            a = random_action(legal, rnd)
            state, _ = GAME.apply(state, seat, a)
            record.append((seat, a))
    return state, record


def visible_hands(state: dict, viewer: str) -> dict:
    open_hands = state["rule"] == "open_hands"
    return {s: h for s, h in state["hands"].items() if open_hands or s == viewer}


def redeal_hidden(state: dict, viewer: str, rnd: random.Random, include_hands: bool) -> dict:
    """A copy of ``state`` that differs only in what ``viewer`` may not know: the deck order and
    the set-aside cards, and with ``include_hands`` the contents of the hands hidden from it."""
    new = clone(state)
    hidden_hands = []
    if include_hands and new["rule"] != "open_hands":
        hidden_hands = [s for s in new["seats"] if s != viewer]
    pool = list(new["deck"]) + list(new["aside"])
    for s in hidden_hands:
        pool += new["hands"][s]
    rnd.shuffle(pool)
    for s in hidden_hands:
        n = len(new["hands"][s])
        new["hands"][s] = sorted(pool[:n])
        del pool[:n]
    n = len(new["deck"])
    new["deck"] = pool[:n]
    new["aside"] = pool[n:]
    return new


__all__ = [
    "GAME", "SEATS", "SPECTATOR", "make_state", "act", "types", "of_type", "dumps", "playout",
    "visible_hands", "redeal_hidden",
]
