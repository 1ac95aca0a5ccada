"""Duel engine speed: random-vs-random full matches and view() cost.

    .venv/bin/python tests/games/duel/bench_duel.py [matches]

Prints matches/s, decisions per match, µs per decision (legal + bot + apply), view µs, and a
reference loop so figures from a busy machine can be compared. ``--fast-copy`` also shows what a
structure-aware copy in place of ``games.base.clone`` inside ``Game.apply`` would give (the
engine does not depend on it; see the report / docs).
"""
from __future__ import annotations

import random
import sys
import time
import timeit
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

import games.base as base  # noqa: E402
from games.duel import GAME  # noqa: E402
from games.duel.bots import random_action  # noqa: E402


def run(n: int, options: dict | None = None) -> tuple[float, float]:
    t = time.process_time()
    decisions = 0
    for seed in range(n):
        rnd = random.Random(seed)
        st = GAME.setup(options or {}, ["A", "B"], seed)
        while st["result"] is None:
            seat = rnd.choice(sorted(GAME.pending(st)))
            st, _ = GAME.apply(st, seat, random_action(GAME.legal(st, seat), rnd))
            decisions += 1
    dt = time.process_time() - t
    return n / dt, decisions / n


def view_cost() -> float:
    rnd = random.Random(1)
    st = GAME.setup({"health": 40}, ["A", "B"], 1)
    while not (st["slot"] >= 12 and st["phase"] == "footwork"):
        seat = rnd.choice(sorted(GAME.pending(st)))
        st, _ = GAME.apply(st, seat, random_action(GAME.legal(st, seat), rnd))
    return min(timeit.repeat(lambda: GAME.view(st, "A"), number=5000, repeat=5, timer=time.process_time)) / 5000


def fast_copy(st):
    new = dict(st)
    new["timeouts"] = dict(st["timeouts"])
    new["buf"] = dict(st["buf"])
    new["P"] = {s: {**p, "rev": list(p["rev"])} for s, p in st["P"].items()}
    return new


def main() -> None:
    n = int(next((a for a in sys.argv[1:] if a.isdigit()), 200))
    ref = min(timeit.repeat("sum(range(1000))", number=2000, repeat=7, timer=time.process_time)) / 2000
    rate, per = run(n)
    print(f"reference loop sum(range(1000)): {ref * 1e6:.1f} us")
    print(f"random-vs-random, default options: {rate:.0f} matches/s, {per:.0f} decisions/match, "
          f"{1e6 / (rate * per):.1f} us/decision")
    rate2, per2 = run(n, {"max_slots": 20})
    print(f"random-vs-random, max_slots 20: {rate2:.0f} matches/s, {per2:.0f} decisions/match")
    print(f"view(): {view_cost() * 1e6:.1f} us")
    if "--fast-copy" in sys.argv:
        base.clone = fast_copy  # what-if only, for this process
        rate3, _ = run(n)
        print(f"with a structure-aware copy in Game.apply: {rate3:.0f} matches/s")


if __name__ == "__main__":
    main()
