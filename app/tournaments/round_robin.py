"""Round robin: the schedule (FIDE Berger tables, see ``seeding.berger_rounds``) and the
pairs of one round. Seeds are the players' numbers in the tables; with an odd count the
partner of the phantom number n+1 has the bye (which scores nothing: everyone gets one)."""
from __future__ import annotations

from typing import Any

from .seeding import berger_rounds


def schedule(n: int) -> list[list[list[int]]]:
    """Seed pairs per round, as JSON lists: ``n-1`` rounds (even ``n``) or ``n`` (odd)."""
    return [[list(pair) for pair in rnd] for rnd in berger_rounds(n)]


def round_pairs(sched: list, round_number: int, by_seed: dict[int, Any]) -> list[tuple]:
    """``(a, seed_a, b, seed_b)`` for every table of the round, in Berger order (the first
    player is "white"); for the bye, the missing side is ``(None, None)`` and comes second."""
    out = []
    for sa, sb in sched[round_number - 1]:
        a, b = by_seed.get(sa), by_seed.get(sb)
        if a is None:
            out.append((b, sb, None, None))
        elif b is None:
            out.append((a, sa, None, None))
        else:
            out.append((a, sa, b, sb))
    return out
