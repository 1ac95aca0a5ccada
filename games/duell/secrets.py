"""What a Duell viewer may not know, for the contract suite's differential no-leak check
(tests/games/test_contract.py): the order of the draw pile, the cards set aside, and every
hand but its own (all hands for a spectator) unless the Open hands rule is up."""
from __future__ import annotations

import random

from games.base import OMNISCIENT, clone


def secret_variant(state: dict, viewer: str, rnd: random.Random) -> dict | None:
    """The hidden cards dealt back into the same places in another order (hands sorted, as
    the engine keeps them)."""
    if viewer == OMNISCIENT or state["result"] is not None:
        return None
    hidden = [s for s in state["seats"] if s != viewer] if state["rule"] != "open_hands" else []
    pool = list(state["deck"]) + list(state["aside"])
    for s in hidden:
        pool += state["hands"][s]
    if len(set(pool)) < 2:
        return None
    other = clone(state)
    for _ in range(20):
        rnd.shuffle(pool)
        rest = list(pool)
        for s in hidden:
            n = len(state["hands"][s])
            other["hands"][s] = sorted(rest[:n])
            del rest[:n]
        other["deck"] = rest[: len(state["deck"])]
        other["aside"] = rest[len(state["deck"]):]
        if other != state:
            return other
    return None


def reveals(event: dict, viewer: str) -> bool:
    """Cards the rules show: the viewer's own deal or draw (anybody's under Open hands), the
    hands revealed when the deck runs out, and what follows from a hidden hand by rule: no
    legal play, an attack nobody can answer (the duel ends at once, "hit")."""
    t = event["type"]
    if t in ("deal", "draw"):
        return event["seat"] == viewer or "cards" in event
    if t == "duel_end":
        return event["reason"] == "hit"
    return t in ("reveal", "no_legal_play")
