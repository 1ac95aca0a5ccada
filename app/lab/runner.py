"""Play a lab run over worker processes and build its report.

Matches are split into chunks of consecutive indices and handed to a process pool (spawned
workers: safe from a server with threads and an event loop). Each match depends only on the
spec and its index (see app/lab/spec.py), and the records are put back in index order before
counting, so the report does not depend on the number of workers or on which finished first.
With ``workers=1`` the matches run in this process (no pool), which is what the one-core
figures in docs/performance.md measure.
"""
from __future__ import annotations

import math
import multiprocessing
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, as_completed

from app.lab import stats
from app.lab.play import play_chunk
from app.lab.spec import LabSpec, check
from games import registry
from games.registry import get_game

Progress = Callable[[int, int], None]


def _chunks(n: int, workers: int) -> list[list[int]]:
    # Small enough to keep every worker busy and the progress moving, big enough that the
    # per-chunk overhead (pickling the spec, the records) stays negligible.
    size = max(1, min(50, math.ceil(n / (workers * 8))))
    return [list(range(a, min(n, a + size))) for a in range(0, n, size)]


def spawn_pool(workers: int) -> ProcessPoolExecutor:
    """Worker processes for lab matches (spawned: safe from a server with threads and an
    event loop), knowing the games registered at run time here too."""
    return ProcessPoolExecutor(max_workers=workers,
                               mp_context=multiprocessing.get_context("spawn"),
                               initializer=registry.restore, initargs=(registry.added(),))


def play_records(spec: LabSpec, workers: int = 1, progress: Progress | None = None,
                 pool: ProcessPoolExecutor | None = None) -> list[list[dict]]:
    """The match records of the run: one list per rule set (two with ``compare``)."""
    rule_sets = [None] + ([spec.compare] if spec.compare is not None else [])
    total = spec.games * len(rule_sets)
    done = 0
    out: list[list[dict]] = [[] for _ in rule_sets]
    spec_dict = spec.to_dict()
    chunks = _chunks(spec.games, max(1, workers))
    if workers <= 1 and pool is None:
        for k, opts in enumerate(rule_sets):
            for idx in chunks:
                out[k] += play_chunk(spec_dict, idx, opts)
                done += len(idx)
                if progress:
                    progress(done, total)
        return out
    own = pool is None
    if own:
        pool = spawn_pool(workers)
    try:
        futures = {pool.submit(play_chunk, spec_dict, idx, opts): k
                   for k, opts in enumerate(rule_sets) for idx in chunks}
        for fut in as_completed(futures):
            recs = fut.result()
            out[futures[fut]] += recs
            done += len(recs)
            if progress:
                progress(done, total)
    finally:
        if own:
            pool.shutdown(cancel_futures=True)
    for recs in out:
        recs.sort(key=lambda r: r["i"])
    return out


def build_report(spec: LabSpec, records: list[list[dict]]) -> dict:
    """The report (JSON-able) from the records of ``play_records``."""
    game = get_game(spec.game)
    seats = spec.seat_list()
    sets = []
    for k, recs in enumerate(records):
        opts = spec.options if k == 0 else spec.compare
        sets.append({"label": "A" if k == 0 else "B", "options": opts,
                     "report": stats.aggregate(recs, spec.game, seats)})
    return {
        "game": spec.game,
        "game_name": game.name,
        "spec": spec.to_dict(),
        "seats": seats,
        "rule_sets": sets,
        "compare": stats.compare(sets[0]["report"], sets[1]["report"]) if len(sets) == 2 else None,
        "thresholds": {"rare_share": stats.RARE_SHARE, "dominant_margin": stats.DOMINANT_MARGIN,
                       "confidence": 0.95},
    }


def run(spec: LabSpec, workers: int = 1, progress: Progress | None = None) -> dict:
    """Check, play and report. ``report["timing"]`` (wall time) is the one part that differs
    between two runs of the same spec."""
    check(spec)
    t0 = time.perf_counter()
    records = play_records(spec, workers, progress)
    report = build_report(spec, records)
    report["timing"] = {"seconds": time.perf_counter() - t0, "workers": workers}
    return report
