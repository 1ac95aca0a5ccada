"""Engine speed on one core: random-vs-random full matches per second and the mean cost of
``view()``, per game.

Two figures per game: the simulation path (``apply(..., copy=False)``, what bots and the
balance lab use, since they own their state) and the server path (every apply copies the
state, so a refused action leaves it untouched).

The random players draw with ``game.sample_action(state, seat, rnd)`` when the game overrides
it (Duel: the same action from the same draws as its random bot over ``legal``, without
building ``legal``), else with the game's ``bots.random_action(game.legal(state, seat), rnd)``,
as a client would. ``--legal`` forces the second way for every game.

    .venv/bin/python bench/engine.py                        # all games, 300 matches each
    .venv/bin/python bench/engine.py duel --matches 300 --repeat 5
    .venv/bin/python bench/engine.py duel --legal           # bots pick from legal()
    .venv/bin/python bench/engine.py combat --seats 6 --options '{"variant": "advanced"}'

With ``--repeat N`` every figure is the median of N runs (the machine is shared; medians are
steadier than a single run). CPU time is process time, pinned to one core.
"""
from __future__ import annotations

import argparse
import importlib
import itertools
import json
import os
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games.base import SPECTATOR, Game, clone
from games.registry import all_games, get_game


def legal_bot(game, random_action):
    """The plain random player: the game's bot over ``legal``."""
    return lambda state, seat, rnd: random_action(game.legal(state, seat), rnd)


def play(game, pick, seed: int, options: dict, n_seats: int, copy: bool) -> int:
    """One full match; returns the number of decisions. ``pick(state, seat, rnd)`` chooses."""
    rnd = random.Random(seed)
    state = game.setup(options, [chr(65 + i) for i in range(n_seats)], seed)
    apply = game.apply
    pending = game.pending
    steps = 0
    while True:
        for seat in pending(state):  # noqa: B007  the first seat pending: the lowest, in every engine here
            break
        else:
            return steps  # nobody pending: the match is over
        state, _ = apply(state, seat, pick(state, seat, rnd), copy=copy)
        steps += 1


def sample_states(game, pick, seed: int, options: dict, n_seats: int, every: int = 20) -> list:
    """Every ``every``-th state of one match played as ``play`` plays it (for timing view())."""
    rnd = random.Random(seed)
    state = game.setup(options, [chr(65 + i) for i in range(n_seats)], seed)
    out = []
    for steps in itertools.count():
        for seat in game.pending(state):  # noqa: B007  (used after the loop)
            break
        else:
            return out
        if steps % every == 0:
            out.append(clone(state))
        state, _ = game.apply(state, seat, pick(state, seat, rnd), copy=False)


def bench_game(game_id: str, matches: int, options: dict, seats: int, force_legal: bool) -> dict:
    game = get_game(game_id)
    random_action = importlib.import_module(f"games.{game_id}.bots").random_action
    sampled = type(game).sample_action is not Game.sample_action and not force_legal
    pick = game.sample_action if sampled else legal_bot(game, random_action)
    out = {"game": game_id, "matches": matches, "bot": "sample_action" if sampled else "legal"}
    for copy in (False, True):
        t0 = time.process_time()
        steps = sum(play(game, pick, i, options, seats, copy) for i in range(matches))
        cpu = time.process_time() - t0
        key = "server" if copy else "sim"
        out[f"{key}_s"], out[f"{key}_per_s"] = cpu, matches / cpu
        out["decisions"] = steps / matches
    samples = [s for i in range(20) for s in sample_states(game, pick, 10_000 + i, options, seats)]
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
    p.add_argument("--options", type=json.loads, default={},
                   help="match options as JSON, over the defaults (e.g. '{\"mode\": \"prologo\"}')")
    p.add_argument("--repeat", type=int, default=1, help="runs per game; figures are medians")
    p.add_argument("--legal", action="store_true",
                   help="bots pick from legal() even where the game has a sample_action")
    args = p.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # one core, as the targets say
    ids = args.games or [g.id for g in all_games()]
    print(f"load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"{'game':8} {'bot':>13} {'matches':>8} {'decisions':>10} {'sim matches/s':>14} "
          f"{'server matches/s':>17} {'view() µs':>10}")
    for gid in ids:
        options = {**({"max_rounds": 40} if gid == "parbaj" else {}), **args.options}
        runs = [bench_game(gid, args.matches, options, args.seats, args.legal)
                for _ in range(args.repeat)]
        r = {k: statistics.median(x[k] for x in runs) if isinstance(v, float) else v
             for k, v in runs[0].items()}
        spread = ""
        if args.repeat > 1:
            sims = sorted(x["sim_per_s"] for x in runs)
            servers = sorted(x["server_per_s"] for x in runs)
            spread = (f"   (sim {sims[0]:.0f}–{sims[-1]:.0f}, "
                      f"server {servers[0]:.0f}–{servers[-1]:.0f} over {args.repeat} runs)")
        print(f"{r['game']:8} {r['bot']:>13} {r['matches']:>8} {r['decisions']:>10.1f} "
              f"{r['sim_per_s']:>14.1f} {r['server_per_s']:>17.1f} {r['view_us']:>10.1f}{spread}")
    print(f"load average at end:   {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
