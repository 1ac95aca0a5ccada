"""Seeding, bracket placement, Berger tables and who starts each game. Pure functions."""
from __future__ import annotations

import random
from typing import Any

SEEDINGS = ("rating", "manual", "random")


def rng(seed: int, *purpose: Any) -> random.Random:
    """A generator derived from the tournament seed and a purpose. String seeds are hashed
    with SHA-512 by ``random.Random``, so this is stable across processes and Python runs
    (no PYTHONHASHSEED dependence) and never touches the global generator."""
    return random.Random(":".join(str(p) for p in (seed, *purpose)))


def seed_order(players: list[dict], method: str, seed: int) -> list[dict]:
    """Players in seed order (seed 1 first).

    * ``rating``: highest rating first; players without a rating after all rated ones; equal
      ratings keep the order they were given in.
    * ``manual``: the order given.
    * ``random``: a shuffle from the tournament seed.
    """
    if method == "manual":
        return list(players)
    if method == "random":
        out = list(players)
        rng(seed, "seeding").shuffle(out)
        return out
    if method == "rating":
        indexed = list(enumerate(players))
        indexed.sort(key=lambda ip: (ip[1].get("rating") is None, -(ip[1].get("rating") or 0), ip[0]))
        return [p for _, p in indexed]
    raise ValueError(method)


def next_power_of_two(n: int) -> int:
    size = 1
    while size < n:
        size *= 2
    return size


def bracket_positions(size: int) -> list[int]:
    """Seed numbers in bracket order (top to bottom) for a power-of-two ``size``: adjacent
    entries meet in round 1. Built recursively: each seed ``s`` of the half-size order is
    followed by its round-1 opponent ``2*half + 1 - s``, so seeds 1 and 2 can only meet in
    the final, 1-4 in the semi-finals and so on. For 16: 1 16 8 9 4 13 5 12 2 15 7 10 3 14 6 11.
    When players are fewer than ``size``, the missing seeds are byes, which therefore go to
    the top seeds."""
    if size < 1 or size & (size - 1):
        raise ValueError("size must be a power of two")
    order = [1]
    while len(order) < size:
        m = 2 * len(order)
        order = [x for s in order for x in (s, m + 1 - s)]
    return order


def berger_rounds(n: int) -> list[list[tuple[int, int]]]:
    """Berger tables (as published by FIDE) for ``n`` players numbered 1..n: ``n-1`` rounds
    for even ``n``, ``n`` rounds for odd ``n``, where the partner of the missing number n+1
    has the bye (pairs then contain ``n + 1``). The first number of each pair is "white"
    (plays first in the table listing). Round 1 is 1-n, 2-(n-1), ...; from one round to the
    next every number except the last moves on by n/2 (mod n-1), and the last number
    alternates colours."""
    if n < 2:
        return []
    m = n if n % 2 == 0 else n + 1
    half = m // 2
    rows = [(i, m + 1 - i) for i in range(1, half + 1)]  # round 1: (1, m), (2, m-1), ...
    rounds = []
    for r in range(m - 1):
        out = []
        for k, (a, b) in enumerate(rows):
            if k == 0:  # the pair holding the fixed number m
                other = a if b == m else b
                out.append((other, m) if r % 2 == 0 else (m, other))
            else:
                out.append((a, b))
        rounds.append(out)
        rows = [(_berger_shift(a, m, half), _berger_shift(b, m, half)) for a, b in rows]
    return rounds


def _berger_shift(x: int, m: int, half: int) -> int:
    if x == m:
        return m
    return (x - 1 + half) % (m - 1) + 1


def starts(first: Any, other: Any, best_of: int) -> list:
    """Who starts each game of a best-of match: ``first`` starts game 1, then they alternate."""
    return [first if g % 2 == 0 else other for g in range(best_of)]


def first_player(method: str, seed: int, match_id: str, a: Any, b: Any) -> Any:
    """Game-1 starter between ``a`` (the higher seed) and ``b``: the higher seed, or a coin
    flip derived from the tournament seed and the match id."""
    if method == "coin":
        return a if rng(seed, "coin", match_id).random() < 0.5 else b
    return a
