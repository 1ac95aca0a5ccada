"""Engine speed on one core: random-vs-random full matches per second and the mean cost of
``view()``, per game. Bots pick from ``legal`` (templates expanded), as a client would.

Two figures per game: the simulation path (``apply(..., copy=False)``, what bots and the
balance lab use, since they own their state) and the server path (every apply copies the
state, so a refused action leaves it untouched).

    .venv/bin/python bench/engine.py                 # all games, 300 matches each
    .venv/bin/python bench/engine.py duel --matches 2000
"""
from __future__ import annotations

import argparse
import importlib
import os
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games.base import SPECTATOR, clone  # noqa: E402
from games.registry import all_games, get_game  # noqa: E402


def play(game, bot, seed: int, options: dict, n_seats: int, copy: bool, samples=None) -> int:
    """One full match; returns the number of decisions."""
    rnd = random.Random(seed)
    state = game.setup(options, [chr(65 + i) for i in range(n_seats)], seed)
    steps = 0
    while True:
        pending = game.pending(state)
        if not pending:
            return steps
        seat = min(pending)
        if samples is not None and steps % 20 == 0:
            samples.append(clone(state))
        state, _ = game.apply(state, seat, bot(game.legal(state, seat), rnd), copy=copy)
        steps += 1


def bench_game(game_id: str, matches: int, options: dict, seats: int) -> dict:
    game = get_game(game_id)
    bot = importlib.import_module(f"games.{game_id}.bots").random_action
    out = {"game": game_id, "matches": matches}
    for copy in (False, True):
        t0 = time.process_time()
        steps = sum(play(game, bot, i, options, seats, copy) for i in range(matches))
        cpu = time.process_time() - t0
        key = "server" if copy else "sim"
        out[f"{key}_s"], out[f"{key}_per_s"] = cpu, matches / cpu
        out["decisions"] = steps / matches
    samples: list = []
    for i in range(20):
        play(game, bot, 10_000 + i, options, seats, False, samples)
    viewers = [seats and "A", "B", SPECTATOR]
    reps = 10
    t1 = time.process_time()
    for _ in range(reps):
        for s in samples:
            for v in viewers:
                game.view(s, v)
    out["view_us"] = (time.process_time() - t1) / (reps * len(samples) * len(viewers)) * 1e6
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("games", nargs="*", help="game ids (default: all)")
    p.add_argument("--matches", type=int, default=300)
    p.add_argument("--seats", type=int, default=2)
    args = p.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # one core, as the targets say
    ids = args.games or [g.id for g in all_games()]
    print(f"{'game':8} {'matches':>8} {'decisions':>10} {'sim matches/s':>14} "
          f"{'server matches/s':>17} {'view() µs':>10}")
    for gid in ids:
        options = {"max_rounds": 40} if gid == "parbaj" else {}
        r = bench_game(gid, args.matches, options, args.seats)
        print(f"{r['game']:8} {r['matches']:>8} {r['decisions']:>10.1f} {r['sim_per_s']:>14.1f} "
              f"{r['server_per_s']:>17.1f} {r['view_us']:>10.1f}")


if __name__ == "__main__":
    main()
