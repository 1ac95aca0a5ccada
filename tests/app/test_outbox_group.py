"""The history writer's consumer group (app/live/outbox.py): made once, not on every drain;
made again when Redis has lost it (NOGROUP), with nothing of the stream left unwritten; and
a worker that stops leaves the group only when it holds no entries."""
from __future__ import annotations

import pytest
from sqlalchemy.exc import DBAPIError

from app.db import history
from app.db.session import make_engine, sessionmaker
from app.live.outbox import GROUP, OutboxWorker
from app.live.redis import make_redis
from app.live.store import MatchStore
from tests.app.test_live_store import live_duell, mover_and_legal


@pytest.fixture
async def store(settings):
    r = make_redis(settings)
    yield MatchStore(r, settings.redis_prefix)
    await r.aclose()


@pytest.fixture
async def maker(settings):
    engine = make_engine(settings)
    yield sessionmaker(engine)
    await engine.dispose()


def count_group_creations(worker: OutboxWorker, monkeypatch) -> list:
    calls = []
    real = worker.r.xgroup_create

    async def counting(*args, **kwargs):
        calls.append(args)
        return await real(*args, **kwargs)

    monkeypatch.setattr(worker.r, "xgroup_create", counting)
    return calls


async def play(store, doc, moves: int) -> dict:
    for _ in range(moves):
        seat, legal, uid = mover_and_legal(doc)
        doc = (await store.act(doc["id"], uid, legal[0])).doc
    return doc


async def test_the_group_is_made_once_not_on_every_drain(store, maker, monkeypatch):
    worker = OutboxWorker(store, maker, name="w-once")
    created = count_group_creations(worker, monkeypatch)
    doc = await play(store, await live_duell(store), 2)
    assert await worker.drain_once() > 0
    assert len(created) == 1  # the counter sees the call: the first drain made the group
    doc = await play(store, doc, 2)
    for _ in range(3):
        await worker.drain_once()
    await worker.drain_all()
    assert len(created) == 1, "ensure_group ran again on a later drain"
    assert await worker.lag() == 0


async def test_the_writer_recovers_when_redis_lost_the_stream_and_its_group(store, maker, monkeypatch):
    """A Redis restarted without its data: the next change makes the stream again, without the
    group. The writer gets NOGROUP, makes the group (from the stream's start) and writes on."""
    worker = OutboxWorker(store, maker, name="w-lost")
    created = count_group_creations(worker, monkeypatch)
    doc = await play(store, await live_duell(store), 1)
    await worker.drain_all()
    assert len(created) == 1

    await store.r.delete(store.k.outbox)  # the stream and its group are gone
    doc = await play(store, doc, 3)
    assert await worker.lag() > 0
    assert await worker.drain_all() > 0
    assert len(created) == 2  # made again, once
    assert await worker.lag() == 0
    record = await history.match_record(maker, doc["id"])
    assert len(record["actions"]) == doc["steps"]


async def test_the_writer_recovers_when_the_group_alone_is_destroyed(store, maker, monkeypatch):
    worker = OutboxWorker(store, maker, name="w-destroyed")
    created = count_group_creations(worker, monkeypatch)
    doc = await play(store, await live_duell(store), 1)
    await worker.drain_all()
    doc = await play(store, doc, 2)  # entries the group never saw
    await store.r.xgroup_destroy(store.k.outbox, GROUP)
    assert await worker.drain_all() > 0
    assert len(created) == 2
    record = await history.match_record(maker, doc["id"])
    assert len(record["actions"]) == doc["steps"]


async def test_a_stopping_worker_leaves_the_group_only_when_it_holds_nothing(store, maker, settings, tmp_path):
    doc = await play(store, await live_duell(store), 1)
    # SQL down: the entries this worker read stay pending with it.
    down = sessionmaker(make_engine(settings.model_copy(update={
        "database_url": f"sqlite:///{tmp_path}/missing/dir/x.sqlite3"})))
    stuck = OutboxWorker(store, down, name="w-stuck")
    with pytest.raises(DBAPIError):
        await stuck.drain_once()
    assert await stuck.leave() is False  # leaving would orphan its entries
    consumers = {c["name"] for c in await store.r.xinfo_consumers(store.k.outbox, GROUP)}
    assert "w-stuck" in consumers

    ok = OutboxWorker(store, maker, name="w-ok")
    await play(store, doc, 1)
    await ok.drain_all()  # writes the new entry; the stuck worker's are not idle long enough
    assert await ok.leave() is True
    consumers = {c["name"] for c in await store.r.xinfo_consumers(store.k.outbox, GROUP)}
    assert "w-ok" not in consumers and "w-stuck" in consumers
