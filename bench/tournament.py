"""Tournament core speed (app/tournaments): Swiss pairing for a large field, and a whole
Swiss + top cut event with instant random results. CPU time of this process
(``time.process_time``, as bench/engine.py), so the figures hold on a busy machine.

    .venv/bin/python bench/tournament.py                       # 1,024 pairing, 256 + top 8
    .venv/bin/python bench/tournament.py --pair-players 2048 --event-players 512

Pairing figures are per call of ``next_pairings`` (standings, the matching and building the
round), measured for every round of a full ceil(log2 n)-round Swiss so early (one big score
group) and late (many small groups, more rematch conflicts) rounds both count. Results are
random (45% / 45% / 10% drawn, best-of-3 game scores). The event figure is the whole run:
creation, every round, every report and the standings, with ``copy=False`` as a simulation
would (the service's default ``copy=True`` adds a state copy per call; shown separately).
"""
from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import app.tournaments as T


def random_result(rnd: random.Random, pairing: dict) -> dict:
    a, b = pairing["players"]
    draw_ok = pairing["stage"] in ("swiss", "round_robin")
    x = rnd.random()
    if draw_ok and x < 0.10:
        return {"winner": None, "games": [1, 1], "draws": 1}
    winner = a if x < 0.55 else b
    loser_games = rnd.choice([0, 1])
    return {"winner": winner, "games": [2, loser_games] if winner == a else [loser_games, 2]}


def players(n: int, rnd: random.Random) -> list[dict]:
    return [{"id": f"p{i:04d}", "rating": round(rnd.gauss(1500, 200))} for i in range(n)]


def run_event(n: int, options: dict, seed: int, copy: bool) -> dict:
    rnd = random.Random(seed)
    t0 = time.process_time()
    state = T.create("swiss", players(n, rnd), options)
    pair_times = []
    rounds = 0
    while not T.is_finished(state):
        t = time.process_time()
        state, pairings = T.next_pairings(state, copy=copy)
        pair_times.append((state["phase"], time.process_time() - t))
        rounds += 1
        for p in pairings:
            if p["status"] == "pending":
                state = T.report(state, p["id"], random_result(rnd, p), copy=copy)
    T.standings(state)
    total = time.process_time() - t0
    return {"rounds": rounds, "total": total, "pair_times": pair_times, "champion": T.champion(state)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pair-players", type=int, default=1024)
    ap.add_argument("--event-players", type=int, default=256)
    ap.add_argument("--top-cut", type=int, default=8)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()

    # Warm-up (imports are already done; importing networkx costs ~0.2 s once per process).
    run_event(16, {"best_of": 3}, 0, copy=False)

    res = run_event(args.pair_players, {"best_of": 3}, args.seed, copy=False)
    swiss = [t for phase, t in res["pair_times"] if phase == "swiss"]
    print(f"Swiss pairing, {args.pair_players} players, {len(swiss)} rounds (next_pairings per round):")
    print("  " + " ".join(f"R{i + 1}={t:.3f}s" for i, t in enumerate(swiss)))
    print(f"  max {max(swiss):.3f} s, mean {statistics.mean(swiss):.3f} s (target < 1 s)")

    opts = {"best_of": 3, "top_cut": args.top_cut}
    for copy in (False, True):
        res = run_event(args.event_players, opts, args.seed, copy=copy)
        swiss = [t for phase, t in res["pair_times"] if phase == "swiss"]
        print(
            f"Whole event, {args.event_players} players, Swiss + top {args.top_cut} "
            f"({res['rounds']} rounds, copy={copy}): {res['total']:.3f} s "
            f"(Swiss pairing max {max(swiss):.3f} s); champion {res['champion']}"
        )


if __name__ == "__main__":
    main()
