"""The docker-compose topology with plain processes: three app processes on one Redis and one
SQL database, behind the round-robin balancer of bench/proxy.py. Players connect only through
the balancer, so their sockets spread over the processes (the two seats of a match usually on
different ones); every match is played to the end and its history in SQL is complete and
replays to what the players saw.

With the suite's SQLite file only the first process runs the background workers (outbox writer,
clocks): a SQLite file takes one writer process well, not three (docs/operations.md). With
DATABASE_URL (Postgres) all three write history, as in production."""
from __future__ import annotations

import asyncio
import re
import time

import httpx
import pytest

from bench.faults import Play, check_history, fetch_records, http_client, lane
from bench.proxy import spawn_proxy
from tests.multiprocess.servers import app_processes, redis_url_for_tests

pytestmark = pytest.mark.multiprocess

MATCHES = 6


async def play_matches(proxy_url: str) -> tuple[Play, dict]:
    t0 = time.monotonic()
    play = Play([proxy_url], proxy_url, {"duels_to_win": 1}, think=(0, 0), deadline=t0 + 60)
    async with http_client(proxy_url) as http:
        # stop_at = now: each lane plays exactly one match, all at the same time.
        await asyncio.gather(*(lane(play, http, i, stop_at=t0) for i in range(MATCHES)))
        records = await fetch_records(http, play.matches, timeout=30)
    return play, records


def actions_applied(base: str) -> float:
    text = httpx.get(base + "/metrics", timeout=5, trust_env=False).text
    found = re.search(r'^duelhall_actions_total\{game="duell"\} ([0-9.e+]+)$', text, re.M)
    return float(found.group(1)) if found else 0.0


def test_matches_through_a_balancer_over_three_processes(db_url, tmp_path):
    one_writer = db_url.startswith("sqlite")
    per_process = [{}, {"RUN_WORKERS": "false"}, {"RUN_WORKERS": "false"}] if one_writer else None
    with redis_url_for_tests(tmp_path) as redis_url, \
            app_processes(3, redis_url, db_url, tmp_path, per_process) as urls:
        proxy, proxy_url = spawn_proxy(urls, tmp_path / "proxy.log")
        try:
            play, records = asyncio.run(play_matches(proxy_url))
            applied = [actions_applied(u) for u in urls]
        finally:
            proxy.terminate()
            proxy.wait(10)
    carried = re.findall(r"^127\.0\.0\.1:\d+ carried (\d+) refused (\d+)$",
                         (tmp_path / "proxy.log").read_text(), re.M)

    assert len(play.matches) == MATCHES and all(m.finished for m in play.matches)
    assert check_history(play.matches, records) == []
    assert sum(len(r["actions"]) for r in records.values()) == \
        sum(s.confirmed for m in play.matches for s in m.seats.values()) > MATCHES * 8
    # The balancer spread the connections, and every process applied moves of its players.
    assert len(carried) == 3 and all(int(c) > 0 for c, _ in carried), carried
    assert all(n > 0 for n in applied), applied
    # Nobody had to reconnect or resend: a healthy cluster loses nothing on the way.
    seats = [s for m in play.matches for s in m.seats.values()]
    assert sum(s.reconnects + s.resent for s in seats) == 0
    assert not any(s.errors for s in seats), [dict(s.errors) for s in seats if s.errors]


def test_history_writer_in_its_own_worker_process(db_url, tmp_path):
    """The production split (docker-compose.yml): web processes with RUN_OUTBOX=false and
    RUN_CLOCKS=false and one `duelhall worker` writing history. The web processes write nothing
    to SQL themselves, yet every match's history is complete."""
    import os
    import subprocess
    import sys
    import uuid

    from tests.multiprocess.servers import ROOT

    prefix = f"mpw{uuid.uuid4().hex[:8]}:"
    no_outbox = [{"RUN_OUTBOX": "false", "RUN_CLOCKS": "false", "REDIS_PREFIX": prefix},
                 {"RUN_OUTBOX": "false", "RUN_WORKERS": "false", "REDIS_PREFIX": prefix}]
    with redis_url_for_tests(tmp_path) as redis_url, \
            app_processes(2, redis_url, db_url, tmp_path, no_outbox) as urls:
        # The worker shares the web processes' Redis prefix and key (read from their env).
        env = dict(os.environ, REDIS_URL=redis_url, DATABASE_URL=db_url, DATA_DIR=str(tmp_path),
                   MIGRATE_ON_START="false", INSTANCE_NAME="worker",
                   SECRET_KEY="multi-process-test-key-0123456789abcdef",
                   REDIS_PREFIX=prefix)
        worker_log = tmp_path / "worker.log"
        proxy, proxy_url = spawn_proxy(urls, tmp_path / "proxy.log")
        try:
            # Played before the worker starts: the outbox waits for it, nothing is lost.
            play = asyncio.run(play_only(proxy_url))
            assert outbox_length(redis_url, prefix) > 0
            worker = subprocess.Popen([sys.executable, "-m", "app.cli", "worker"], cwd=ROOT,
                                      env=env, stdout=worker_log.open("w"), stderr=subprocess.STDOUT)
            try:
                records = asyncio.run(records_of(proxy_url, play))
            finally:
                worker.terminate()
                worker.wait(10)
        finally:
            proxy.terminate()
            proxy.wait(10)
    assert all(m.finished for m in play.matches)
    assert check_history(play.matches, records) == []
    assert "history writer and clocks running" in worker_log.read_text()


async def play_only(proxy_url: str) -> Play:
    t0 = time.monotonic()
    play = Play([proxy_url], proxy_url, {"duels_to_win": 1}, think=(0, 0), deadline=t0 + 60)
    async with http_client(proxy_url) as http:
        await asyncio.gather(*(lane(play, http, i, stop_at=t0) for i in range(3)))
    return play


async def records_of(proxy_url: str, play: Play) -> dict:
    async with http_client(proxy_url) as http:
        return await fetch_records(http, play.matches, timeout=30)


def outbox_length(redis_url: str, prefix: str) -> int:
    import redis

    r = redis.Redis.from_url(redis_url)
    try:
        return int(r.xlen(prefix + "outbox"))
    finally:
        r.close()
