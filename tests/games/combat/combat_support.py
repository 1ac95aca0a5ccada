"""Helpers shared by the Combat tests (imported by name; the test folder is on sys.path)."""
from __future__ import annotations

import json
import random

from games.base import seat_names
from games.combat import GAME
from games.combat import rules as R
from games.combat.bots import random_action

VARIANTS = tuple(R.VARIANTS)
ENDINGS = R.ENDINGS


def rig(piles: list[list[int]], **options) -> dict:
    """A fresh match whose draw piles are exactly ``piles``; each list is in play order (its
    first card is the first one turned up). Everything after this goes through ``apply``."""
    seats = seat_names(len(piles))
    st = GAME.setup(options, seats, 0)
    for s, pile in zip(seats, piles):
        st["draw"][s] = R.encode(list(reversed(pile)))  # the top of a pile is its last char
    st["size"] = sum(len(p) for p in piles)
    st["clash"] = {"kind": "battle", "seats": [s for s in seats if st["draw"][s]], "ready": []}
    return st


def fight(st: dict, seats=None) -> tuple[dict, list]:
    """Every pending seat (or just ``seats``) confirms "fight"; returns the state and events."""
    events: list = []
    for s in sorted(GAME.pending(st)) if seats is None else seats:
        st, ev = GAME.apply(st, s, {"type": "fight"})
        events += ev
    return st, events


def fight_to_end(st: dict, limit: int = 10_000) -> tuple[dict, list]:
    events: list = []
    for _ in range(limit):
        if GAME.result(st) is not None:
            return st, events
        st, ev = fight(st)
        events += ev
    raise AssertionError("the match did not end")


def of_type(events: list, kind: str) -> list:
    return [e for e in events if e["type"] == kind]


def cards_in_play(st: dict) -> int:
    """Draw piles + prisoners + table + set aside: always the size of the deck."""
    table = sum(len(e[0]) + len(e[1]) for r in st["table"] for e in r.values())
    return (
        sum(map(len, st["draw"].values()))
        + sum(map(len, st["prisoners"].values()))
        + table
        + len(st["set_aside"])
    )


def dumps(x) -> str:
    return json.dumps(x, sort_keys=True)


def random_step(st: dict, rnd: random.Random, concede_p: float = 0.0, timeout_p: float = 0.0):
    """One random move by a random pending seat: fight, a timeout, or (rarely) a concede by
    any seat still in. Returns (state, events, move) where move replays the step."""
    pending = sorted(GAME.pending(st))
    if concede_p and rnd.random() < concede_p:
        still_in = [s for s in st["seats"] if s not in st["out"]]
        seat = rnd.choice(still_in)
        move = ("act", seat, {"type": "concede"})
    elif timeout_p and rnd.random() < timeout_p:
        move = ("timeout", rnd.choice(pending), None)
    else:
        seat = rnd.choice(pending)
        move = ("act", seat, random_action(GAME.legal(st, seat), rnd))
    return (*do(st, move), move)


def do(st: dict, move) -> tuple[dict, list]:
    kind, seat, action = move
    if kind == "timeout":
        return GAME.timeout(st, seat)
    return GAME.apply(st, seat, action)


def random_options(rnd: random.Random) -> tuple[dict, int]:
    n = rnd.randint(2, 6)
    opts = {
        "variant": rnd.choice(VARIANTS),
        "ending": rnd.choice(ENDINGS),
        "decks": rnd.choice([None, 1, 2]),
        "advanced_cards": rnd.choice([3, 4]),
        "max_battles": rnd.choice([5, 40, 500]),
        "max_timeouts": rnd.choice([1, 3, 20]),
    }
    return opts, n


def playout(opts: dict, n: int, seed: int, rnd: random.Random, concede_p=0.0, timeout_p=0.0,
            check=None, limit: int = 100_000):
    st = GAME.setup(opts, seat_names(n), seed)
    moves = []
    for _ in range(limit):
        if GAME.result(st) is not None:
            return st, moves
        st, ev, move = random_step(st, rnd, concede_p, timeout_p)
        moves.append(move)
        if check:
            check(st, ev)
    raise AssertionError("the playout did not end")

