"""What a Combat viewer may not know, for the contract suite's differential no-leak check
(tests/games/test_contract.py): nobody sees the order of any draw pile, the face-down cards of
a war, the order of the prisoners, or the seed (future reshuffles)."""
from __future__ import annotations

import random

from games.base import OMNISCIENT, clone


def secret_variant(state: dict, viewer: str, rnd: random.Random) -> dict | None:
    """The unseen cards (every draw pile and every face-down card on the table) dealt back
    into the same places in another order, each prisoner pile reordered, another seed."""
    if viewer == OMNISCIENT or state["result"] is not None:
        return None
    other = clone(state)
    slots: list[tuple] = [("draw", s) for s in other["seats"]]
    slots += [("down", i, s) for i, r in enumerate(other["table"]) for s in r]
    pool = [c for slot in slots for c in _get(other, slot)]
    rnd.shuffle(pool)
    for slot in slots:
        k = len(_get(other, slot))
        _set(other, slot, "".join(pool[:k]))
        del pool[:k]
    for s in other["seats"]:
        p = list(other["prisoners"][s])
        rnd.shuffle(p)
        other["prisoners"][s] = "".join(p)
    other["seed"] = state["seed"] + 1_000_003
    return other


def _get(state: dict, slot: tuple) -> str:
    if slot[0] == "draw":
        return state["draw"][slot[1]]
    return state["table"][slot[1]][slot[2]][0]


def _set(state: dict, slot: tuple, value: str) -> None:
    if slot[0] == "draw":
        state["draw"][slot[1]] = value
    else:
        state["table"][slot[1]][slot[2]][0] = value


def reveals(event: dict, viewer: str) -> bool:
    """Cards are only ever seen when they are turned up to attack."""
    return event["type"] == "attack"
