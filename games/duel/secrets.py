"""What a Duel viewer may not know, for the contract suite's differential no-leak check
(tests/games/test_contract.py): the other side's locked choice of the current decision, the
unrevealed rest of its plan, its misplay flag and its stance while unrevealed.

The seed, the salt pool, the held-back openings and what the sun hides are secret too, but
they come out without an event of their own (later public draws and commitments; positions
shown when the sun is gone): tests/games/duel/test_duel_noleak.py varies those for the
view of the moment."""
from __future__ import annotations

import random

from games.base import OMNISCIENT, clone

from . import engine as E

_POOLS = {
    "duellist": ["brute", "samurai", "ronin", "master"],
    "stance": ["high", "middle", "low"],
    "footwork": ["toward", "stay", "away", "toward2", "away2"],
    "dodge": ["0", "1"],
}


def _pair(rnd: random.Random) -> str:
    t = rnd.choice(list(E.TECH_STANCE))
    s = E.TECH_STANCE[t] or rnd.choice(["high", "middle", "low"])
    return f"{s}/{t}"


def _other_choice(kind: str, value: str, rnd: random.Random) -> str:
    if kind == "plan":
        first = value.split(",")[0]
        return ",".join([first] + [_pair(rnd) for _ in range(2)])
    return rnd.choice([v for v in _POOLS[kind] if v != value])


def secret_variant(state: dict, viewer: str, rnd: random.Random) -> dict | None:
    if viewer == OMNISCIENT or state["result"] is not None:
        return None
    s2 = clone(state)
    P = s2["P"]
    for x in (s for s in ("A", "B") if s != viewer):
        p = P[x]
        rec = s2["buf"].get(x)
        if rec:  # the locked choice: its commitment (the first 96 characters) stays
            s2["buf"][x] = rec[:96] + _other_choice(state["phase"], rec[96:], rnd)
        if p["plan"]:
            xs = s2["xs"]
            pairs = p["plan"][96:].split(",")
            for i in range(xs - 1, 3):
                if i == xs - 1:  # this slot's stance is revealed, its technique is not
                    stance = pairs[i].split("/")[0]
                    techs = [t for t, s in E.TECH_STANCE.items() if s in (stance, None)]
                    pairs[i] = f"{stance}/{rnd.choice(techs)}"
                else:
                    pairs[i] = _pair(rnd)
            p["plan"] = p["plan"][:96] + ",".join(pairs)
        p["f"] ^= E.F_MISPLAY
        if not p["f"] & E.F_SV:
            p["stance"] = rnd.choice([s for s in ("high", "middle", "low") if s != p["stance"]])
    return s2 if s2 != state else None


def reveals(event: dict, viewer: str) -> bool:
    """Every choice stays secret until the resolution it takes part in, which shows all of
    them at once and everything that follows from them. Before that a lock shows only that
    the seat locked and its commitment (``commit``): that must never differ."""
    return event["type"] != "commit"
