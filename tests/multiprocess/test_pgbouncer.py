"""The app's SQL through PgBouncer in transaction pooling mode (DATABASE_POOLER=pgbouncer,
app/db/session.py; docs/operations.md, "PgBouncer"). A private Postgres and a private
pgbouncer with two server connections for many client connections, so every client's
statements land on server connections other clients use too: with the setting, concurrent
sign-ups, look-ups and history writes all succeed and read back; without it, asyncpg's cached,
numbered prepared statements collide on the shared server connections."""
from __future__ import annotations

import asyncio
import os
import subprocess
import time
import uuid
from contextlib import contextmanager

import fakeredis
import pytest

from app.config import Settings
from app.db import accounts, history
from app.db.session import make_engine, migrate, sessionmaker
from app.live.outbox import OutboxWorker
from app.live.store import MatchStore
from bench.faults import PrivatePostgres, Unavailable
from games.registry import get_game
from tests.multiprocess.servers import free_port, require_binary

pytestmark = pytest.mark.multiprocess

SERVER_CONNECTIONS = 2
CLIENTS = 8


@contextmanager
def postgres_behind_pgbouncer():
    """(direct URL, pgbouncer URL): a private cluster and a pgbouncer in transaction mode."""
    binary = ("/usr/sbin/pgbouncer" if os.access("/usr/sbin/pgbouncer", os.X_OK) else  # not on every PATH
              require_binary("pgbouncer", "the PgBouncer test runs a private pgbouncer "
                                          "(apt-get install pgbouncer)"))
    try:
        pg = PrivatePostgres()
        pg.init()
        pg.start()
    except Unavailable as e:
        pytest.fail(f"this test needs a private Postgres (initdb/pg_ctl): {e}")
    proc = None
    try:
        port = free_port()
        (pg.root / "userlist.txt").write_text('"postgres" ""\n')
        (pg.root / "pgbouncer.ini").write_text(f"""
[databases]
duelhall = host=127.0.0.1 port={pg.port} dbname=postgres user=postgres

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = {port}
unix_socket_dir =
auth_type = trust
auth_file = {pg.root}/userlist.txt
pool_mode = transaction
default_pool_size = {SERVER_CONNECTIONS}
max_client_conn = 200
logfile = {pg.root}/pgbouncer.log
""")
        if pg.as_user:  # pgbouncer, like Postgres, will not run as root
            for name in ("userlist.txt", "pgbouncer.ini"):
                os.chown(pg.root / name, *_ids())
        proc = subprocess.Popen([*pg.as_user, binary, str(pg.root / "pgbouncer.ini")],
                                stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
        _wait_port(port, proc, pg.root / "pgbouncer.log")
        yield pg.url, f"postgresql://postgres@127.0.0.1:{port}/duelhall"
    finally:
        if proc is not None:
            proc.terminate()
            proc.wait(10)
        pg.destroy()


def _ids() -> tuple[int, int]:
    import pwd

    entry = pwd.getpwnam("postgres")
    return entry.pw_uid, entry.pw_gid


def _wait_port(port: int, proc: subprocess.Popen, log) -> None:
    import socket

    end = time.time() + 20
    while time.time() < end:
        if proc.poll() is not None:
            raise RuntimeError(f"pgbouncer exited: {log.read_text() if log.exists() else ''}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError("pgbouncer did not listen")


async def played_matches(store: MatchStore, n: int) -> list[dict]:
    """``n`` finished Duell matches in a (fake) Redis, their history waiting in the outbox."""
    game = get_game("duell")
    done = []
    for i in range(n):
        doc = await store.create("duell", {"duels_to_win": 1}, {"id": f"u_a{i}", "name": f"A{i}"})
        doc = await store.join(doc["id"], {"id": f"u_b{i}", "name": f"B{i}"})
        while doc["status"] == "live":
            seat = next(iter(game.pending(doc["state"])))
            uid = {"A": f"u_a{i}", "B": f"u_b{i}"}[seat]
            doc = (await store.act(doc["id"], uid, game.legal(doc["state"], seat)[-1])).doc
        done.append(doc)
    return done


async def workload(settings: Settings) -> None:
    """What the web and worker processes do to SQL, from many client connections at once:
    sign-ups and look-ups, and history writers sharing the outbox."""
    engine = make_engine(settings)
    maker = sessionmaker(engine)
    tag = uuid.uuid4().hex[:6]
    try:
        async def sign_ups(i: int) -> None:
            for j in range(6):
                row = await accounts.create_account(maker, f"u_{tag}{i}_{j}", f"p{tag}{i}x{j}", "x")
                assert (await accounts.by_name(maker, row.name)).id == row.id

        store = MatchStore(fakeredis.FakeAsyncRedis(decode_responses=True), f"pgb{tag}:")
        matches = await played_matches(store, 4)
        writers = [OutboxWorker(store, maker, batch=5, name=f"w{k}") for k in range(3)]
        await writers[0].ensure_group()
        await asyncio.gather(*(sign_ups(i) for i in range(CLIENTS)),
                             *(w.drain_all() for w in writers))
        for doc in matches:
            record = await history.match_record(maker, doc["id"])
            assert record["status"] == "finished" and len(record["actions"]) == doc["steps"]
        assert engine.pool.checkedin() > SERVER_CONNECTIONS  # more clients than server connections
    finally:
        await engine.dispose()


def test_the_app_works_through_pgbouncer_in_transaction_mode_with_the_setting(tmp_path):
    with postgres_behind_pgbouncer() as (direct, bouncer):
        migrate(Settings(database_url=direct, data_dir=tmp_path))  # the migrate job: direct
        asyncio.run(workload(Settings(database_url=bouncer, database_pooler="pgbouncer",
                                      data_dir=tmp_path)))
        # The control: asyncpg's own statement handling does not survive the pooler.
        with pytest.raises(Exception, match="prepared statement"):
            asyncio.run(workload(Settings(database_url=bouncer, data_dir=tmp_path)))
