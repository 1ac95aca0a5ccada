"""Tournament service speed (app/tournaments: writes, lifecycle_changes, results, sweep) in
embedded mode (SQLite file + in-process fakeredis), no HTTP: what an organiser's click and a
finished match cost.

    .venv/bin/python bench/tournament_service.py               # 256-player Swiss Párbaj event
    .venv/bin/python bench/tournament_service.py --players 64 --writers 16

Figures are CPU time of this process (``time.process_time``: the event loop and SQLite's
thread both run here, so it is the whole cost of a change, and it holds on a busy machine);
the contention figure is wall clock.

* start: check-in -> running, pairing round 1 and creating its live matches (one per pairing);
* report: one finished match recorded (read the row, the core's report, the compare-and-set
  write; includes pairing the next round for the last report of a round);
* sweep: one pass over the running event (reads every open pairing's match);
* contention: ``--writers`` sign-ups started at once on one event, each a compare-and-set that
  retries when another wins; every one must land.
"""
from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.auth import User
from app.config import Settings
from app.db.session import migrate
from app.services import Services
from app.tournaments import lifecycle_changes as changes
from app.tournaments import results
from app.tournaments import sweep as tour_sweep
from app.tournaments.writes import change
from games.parbaj.cardpool import POOL


async def bench(players: int, writers: int) -> None:
    data = Path(tempfile.mkdtemp(prefix="tourbench"))
    settings = Settings(data_dir=data, run_workers=False, tournament_sweep_seconds=0,
                        redis_prefix=f"b{uuid.uuid4().hex[:6]}:", log_json=False)
    await asyncio.to_thread(migrate, settings)
    svc = Services.build(settings)
    await svc.start()
    try:
        org = User("u_org", "Organiser", role="organiser", guest=False)
        decks = [d["cards"] for d in POOL.decks.values()]
        ev = await changes.create_event(svc, org, "Bench", "parbaj", "swiss",
                                        {"seeding": "manual", "round_break_seconds": 0, "noshow_seconds": None})
        tid = ev["id"]
        await change(svc, tid, changes.transition_fn("registration"))
        users = [User(f"u_{i:04d}", f"P{i}", guest=False) for i in range(players)]
        for i, u in enumerate(users):
            await change(svc, tid, changes.register_fn(u, {"cards": decks[i % len(decks)], "name": "d"}, None))
        await change(svc, tid, changes.transition_fn("check_in"))
        for u in users:
            await change(svc, tid, changes.check_in_fn(u.id))

        t = time.process_time()
        ev = await change(svc, tid, changes.start_fn({}, 1))
        start = time.process_time() - t
        tables = sum(1 for p in ev["state"]["matches"].values() if p["status"] == "pending")

        t = time.process_time()
        await tour_sweep.sweep_once(svc)
        sweep = time.process_time() - t

        rnd = random.Random(1)
        reports, rounds = [], 0
        while ev["status"] == "running":
            rounds += 1
            current = [ev["state"]["matches"][pid] for pid in ev["state"]["rounds"][-1]]
            for p in current:
                if p["status"] != "pending":
                    continue
                mid = ev["meta"]["pairings"][p["id"]]["matches"][-1]["id"]
                doc = await svc.store.load(mid)
                seat = rnd.choice(["A", "B"])
                doc = (await svc.store.act(mid, doc["seats"]["AB".index(seat)]["user"]["id"], {"type": "resign"})).doc
                t = time.process_time()
                ev = await results.record_match(svc, doc)
                reports.append(time.process_time() - t)

        fresh = await changes.create_event(svc, org, "Contention", "duell", "swiss", {})
        await change(svc, fresh["id"], changes.transition_fn("registration"))
        crowd = [User(f"u_c{i:03d}", f"C{i}", guest=False) for i in range(writers)]
        t = time.perf_counter()
        await asyncio.gather(*(change(svc, fresh["id"], changes.register_fn(u, None, None)) for u in crowd))
        contention = time.perf_counter() - t
        done = await change(svc, fresh["id"], lambda ev, fx, t: False)
        landed = len(done["entrants"])
    finally:
        await svc.stop()

    print(f"players {players}, {tables} tables in round 1, {rounds} rounds, {len(reports)} reports")
    print(f"start (round 1 paired, {tables} matches created)   {start * 1000:8.1f} ms")
    print(f"sweep, one pass over {tables} live matches        {sweep * 1000:8.1f} ms")
    print(f"report, one finished match: mean {statistics.mean(reports) * 1000:.1f} ms, "
          f"median {statistics.median(reports) * 1000:.1f} ms, max {max(reports) * 1000:.1f} ms "
          f"(the max includes pairing a round)")
    print(f"{writers} sign-ups at once (wall clock): {contention * 1000:.1f} ms in all, {landed} of {writers} landed")
    assert landed == writers, "a concurrent change was lost"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--players", type=int, default=256)
    ap.add_argument("--writers", type=int, default=32)
    args = ap.parse_args()
    asyncio.run(bench(args.players, args.writers))


if __name__ == "__main__":
    main()
