"""The strong Combat bot.

Combat leaves a player nothing to decide: every battle each seat confirms "fight" (or
concedes), and the cards decide. So the best play is simply to fight every time and never
concede, which is also what the random level does (``games/combat/bots.py`` never concedes).
The strong level exists so every game offers the same levels; against ``random`` it wins
about as often as a fair coin (measured in docs/lab.md), and no bot could do better.
"""
from __future__ import annotations

import random


def strong_action(doc: dict, rnd: random.Random) -> dict:
    for a in doc["legal"]:
        if a.get("type") == "fight":
            return dict(a)
    raise ValueError("No action to choose from (the seat is not pending).")


def make_bot(budget: int | None = None):
    """``budget`` is accepted for a uniform interface and has nothing to spend on."""
    return strong_action
