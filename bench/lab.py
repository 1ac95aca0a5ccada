"""The balance lab's figures: how long 2,000 full matches between random bots take on one core
(through the lab: bots given their view documents, every event read for the report), and how
often the strong level beats the random one.

    .venv/bin/python bench/lab.py                      # all games: timing, then strength
    .venv/bin/python bench/lab.py duel --matches 2000 --strong-matches 200
    .venv/bin/python bench/lab.py --no-strength

Timing runs in this process pinned to one core (``workers=1``, as the target says) and prints
CPU seconds (wall seconds too: other work on the machine shows as the difference). Strength
plays ``--strong-matches`` matches of strong vs random per game over ``--workers`` processes,
the bots taking turns on both seats, and prints the strong bot's wins, draws and losses with
95% Wilson intervals (app/lab/stats.py) and its mean time per move.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.lab import stats
from app.lab.runner import play_records
from app.lab.spec import LabSpec, check
from games.bots import get_bot, play_match
from games.registry import get_game
from games.registry import ids as game_ids

TARGET_SECONDS = {"duel": 10.0}


def timing(game_id: str, matches: int) -> dict:
    spec = check(LabSpec(game=game_id, games=matches, bots=["random", "random"], seed=1))
    c0, w0 = time.process_time(), time.perf_counter()
    records = play_records(spec, workers=1)[0]
    cpu, wall = time.process_time() - c0, time.perf_counter() - w0
    return {"cpu": cpu, "wall": wall, "decisions": sum(r["decisions"] for r in records) / matches}


def move_time(game_id: str, budget: int | None, matches: int = 4) -> float:
    """Mean seconds per strong move against random (a few matches in this process)."""
    game = get_game(game_id)
    strong = get_bot(game_id, "strong", budget)
    spent, moves = 0.0, 0

    def timed(doc, rnd):
        nonlocal spent, moves
        t = time.perf_counter()
        action = strong(doc, rnd)
        spent += time.perf_counter() - t
        moves += 1
        return action

    for seed in range(matches):
        play_match(game, {"A": timed, "B": get_bot(game_id, "random")}, 10_000 + seed)
    return spent / max(1, moves)


def strength(game_id: str, matches: int, workers: int, budget: int | None) -> dict:
    spec = check(LabSpec(game=game_id, games=matches, bots=["strong", "random"], seed=1,
                         budget=budget))
    w0 = time.perf_counter()
    records = play_records(spec, workers=workers)[0]
    wall = time.perf_counter() - w0
    rep = stats.aggregate(records, game_id, spec.seat_list())
    return {"strong": rep["bots"]["strong"], "wall": wall}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("games", nargs="*", help="game ids (default: all)")
    p.add_argument("--matches", type=int, default=2000, help="random-vs-random matches to time")
    p.add_argument("--strong-matches", type=int, default=200, help="strong-vs-random matches")
    p.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    p.add_argument("--budget", type=int, default=None, help="strong bots' budget (default: own)")
    p.add_argument("--no-timing", action="store_true")
    p.add_argument("--no-strength", action="store_true")
    args = p.parse_args()
    ids = args.games or game_ids()
    if not args.no_timing:
        affinity = None
        if hasattr(os, "sched_getaffinity"):
            affinity = os.sched_getaffinity(0)
            os.sched_setaffinity(0, {min(affinity)})  # one core, as the target says
        print(f"{args.matches} random-vs-random matches through the lab, one core (workers=1)")
        print(f"{'game':8} {'cpu s':>8} {'wall s':>8} {'matches/s':>10} {'decisions':>10}  target")
        for gid in ids:
            r = timing(gid, args.matches)
            target = TARGET_SECONDS.get(gid)
            verdict = "" if target is None else (
                f"<= {target:.0f} s: {'met' if r['cpu'] <= target else 'NOT met'}")
            print(f"{gid:8} {r['cpu']:>8.2f} {r['wall']:>8.2f} {args.matches / r['cpu']:>10.1f} "
                  f"{r['decisions']:>10.1f}  {verdict}", flush=True)
        if affinity:
            os.sched_setaffinity(0, affinity)
    if not args.no_strength:
        print(f"\nstrong vs random, {args.strong_matches} matches per game, both seat orders, "
              f"{args.workers} worker(s), strong budget {args.budget or 'default'}")
        print(f"{'game':8} {'wins':>6} {'draws':>6} {'losses':>7} {'win %':>7}  95% CI        "
              f"{'ms/move':>8} {'wall s':>8}")
        for gid in ids:
            r = strength(gid, args.strong_matches, args.workers, args.budget)
            s = r["strong"]
            wr = s["win_rate"]
            ms = 1000 * move_time(gid, args.budget)
            print(f"{gid:8} {s['wins']:>6} {s['draws']:>6} {s['losses']:>7} {100 * wr['rate']:>7.1f}  "
                  f"[{100 * wr['lo']:.1f}, {100 * wr['hi']:.1f}]  {ms:>8.1f} {r['wall']:>8.1f}",
                  flush=True)


if __name__ == "__main__":
    main()
