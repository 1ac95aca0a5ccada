"""Computer players in live matches: how fast a bot answers a person's move, and how many bot
moves one process makes, through the whole live path (store, engine, runner, executor).

One embedded process (fakeredis + a fresh SQLite file), no think pause (``BOT_THINK_MS=0``).
``--matches`` "people" play random legal moves at once, each against one bot of ``--level``;
a reply is timed from the person's move being stored to the bot's move being stored.

    .venv/bin/python bench/bots_live.py                                # duell, random, 20 matches
    .venv/bin/python bench/bots_live.py --game duel --level strong --matches 10 --workers 2

The first move of a level that runs in the process pool also pays for starting the pool
(about a second), which shows in the maximum.
"""
from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import games.bots as game_bots
from app.auth import User
from app.config import Settings
from app.db.session import migrate
from app.live import bots as live_bots
from app.live import service
from app.services import Services

OPTIONS = {"duell": {"duels_to_win": 2}, "duel": {"max_slots": 20}, "parbaj": {"max_rounds": 20},
           "combat": {}}


async def bot_done(svc, mid: str) -> None:
    task = svc.bots.active.get(mid)
    if task is not None:
        await asyncio.gather(task, return_exceptions=True)


async def one_match(svc, person: User, game: str, level: str, rnd: random.Random,
                    replies: list[float]) -> None:
    doc = await live_bots.play_computer(svc, person, game, OPTIONS[game], level, 1)
    mid = doc["id"]
    await bot_done(svc, mid)
    while True:
        doc = await svc.store.load(mid)
        if doc["status"] != "live":
            return
        view = live_bots.bot_input(doc, "A")
        if "A" not in view["pending"]:
            await bot_done(svc, mid)
            await asyncio.sleep(0)
            continue
        action = game_bots.get_bot(game, "random")({k: view[k] for k in game_bots.VIEW_KEYS}, rnd)
        await service.perform(svc, mid, person, action, None, doc["version"])
        t0 = time.perf_counter()
        if mid in svc.bots.active:
            await bot_done(svc, mid)
            replies.append(time.perf_counter() - t0)


async def main(args) -> None:
    data = Path(tempfile.mkdtemp(prefix="bots-bench-"))
    settings = Settings(database_url=f"sqlite:///{data / 'bench.sqlite3'}", data_dir=data,
                        secret_key="bench-" + "x" * 40, bot_think_ms=0,
                        bot_executor=args.executor, bot_workers=args.workers,
                        log_level="WARNING", run_workers=False)
    migrate(settings)
    svc = Services.build(settings)
    await svc.start()
    replies: list[float] = []
    t0 = time.perf_counter()
    await asyncio.gather(*(one_match(svc, User(f"u_bench{i}", f"P{i}"), args.game, args.level,
                                     random.Random(i), replies) for i in range(args.matches)))
    wall = time.perf_counter() - t0
    stats = svc.bots.stats
    await svc.stop()
    replies.sort()
    ms = lambda x: f"{x * 1000:.1f} ms"  # noqa: E731
    print(f"{args.game} {args.level} ({args.executor}, {args.workers} worker(s)), "
          f"{args.matches} matches at once: {stats['moves']} bot moves in {wall:.2f} s "
          f"= {stats['moves'] / wall:.0f}/s; reply p50 {ms(statistics.median(replies))}, "
          f"p95 {ms(replies[int(len(replies) * 0.95)])}, max {ms(replies[-1])}; "
          f"fallbacks {sum(v for k, v in stats.items() if k.startswith('fallback'))}, "
          f"refused {stats['refused']}")


if __name__ == "__main__":  # required: the process pool's spawned workers import this module
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--game", default="duell", choices=sorted(OPTIONS))
    p.add_argument("--level", default="random")
    p.add_argument("--matches", type=int, default=20)
    p.add_argument("--executor", default="process", choices=("process", "thread"))
    p.add_argument("--workers", type=int, default=1)
    asyncio.run(main(p.parse_args()))
