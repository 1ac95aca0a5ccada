"""The live layer under pressure: compare-and-set, idempotency, clocks fired once, and
history that survives a SQL outage."""
from __future__ import annotations

import asyncio
import json

import pytest

from app.db import history
from app.db.session import make_engine, sessionmaker
from app.errors import ApiError
from app.live import clocks
from app.live.outbox import OutboxWorker
from app.live.redis import make_redis
from app.live.store import Change, MatchStore
from games.registry import get_game
from games.replay import replay_record

ANN = {"id": "u_ann", "name": "Ann"}
BOB = {"id": "u_bob", "name": "Bob"}


@pytest.fixture
async def redis_pool(settings):
    """Several independent Redis clients on one server (separate connections, like separate
    processes). Embedded mode shares one fake server between them."""
    if settings.redis_url:
        clients = [make_redis(settings) for _ in range(4)]
    else:
        import fakeredis

        server = fakeredis.FakeServer()
        clients = [fakeredis.FakeAsyncRedis(server=server, decode_responses=True) for _ in range(4)]
    yield clients
    for c in clients:
        await c.aclose()


@pytest.fixture
def stores(redis_pool, settings):
    return [MatchStore(r, settings.redis_prefix) for r in redis_pool]


async def live_duell(store, options=None):
    doc = await store.create("duell", options or {}, ANN)
    return await store.join(doc["id"], BOB)


def mover_and_legal(doc):
    game = get_game("duell")
    seat = next(iter(game.pending(doc["state"])))
    return seat, game.legal(doc["state"], seat), {"A": ANN, "B": BOB}[seat]["id"]


class RecordingSocket:
    """Stands in for a websocket in hub tests: keeps what was sent; ``stuck``: a client that
    stopped reading (the send never completes)."""

    def __init__(self, stuck: bool = False):
        self.sent: list[str] = []
        self.stuck = stuck
        self.tries = 0

    async def send_text(self, text: str) -> None:
        self.tries += 1
        if self.stuck:
            await asyncio.Event().wait()
        self.sent.append(text)


async def test_concurrent_writers_never_lose_an_update(stores):
    doc = await live_duell(stores[0])
    mid = doc["id"]

    def bump(d):
        d["bumps"] = d.get("bumps", 0) + 1
        d["version"] += 1
        return Change(d)

    async def writer(store):
        for _ in range(25):
            await store.mutate(mid, bump)

    await asyncio.gather(*(writer(s) for s in stores))
    final = await stores[0].load(mid)
    assert final["bumps"] == 100
    assert final["version"] == doc["version"] + 100


async def test_racing_moves_apply_exactly_one(stores):
    doc = await live_duell(stores[0])
    seat, legal, uid = mover_and_legal(doc)
    assert len(legal) >= 2
    results = await asyncio.gather(
        *(s.act(doc["id"], uid, legal[i % len(legal)]) for i, s in enumerate(stores)),
        return_exceptions=True,
    )
    applied = [r for r in results if isinstance(r, Change)]
    refused = [r for r in results if isinstance(r, ApiError)]
    assert len(applied) == 1 and len(refused) == 3
    assert {e.code for e in refused} <= {"not_your_turn", "illegal_action"}
    assert (await stores[0].load(doc["id"]))["version"] == doc["version"] + 1


async def test_same_client_seq_from_many_connections_applies_once(stores):
    doc = await live_duell(stores[0])
    seat, legal, uid = mover_and_legal(doc)
    results = await asyncio.gather(*(s.act(doc["id"], uid, legal[0], client_seq=1) for s in stores))
    assert sum(not r.duplicate for r in results) == 1
    final = await stores[0].load(doc["id"])
    assert final["version"] == doc["version"] + 1 and final["cseq"][seat] == 1


async def test_a_stale_cached_document_never_decides(stores):
    """Each store keeps the raw document it last saw, for one-round-trip writes. When another
    process moved the match on, a move computed on the stale copy must be recomputed on the
    stored document (not lost, not refused for a turn that has passed)."""
    a, b = stores[0], stores[1]
    doc = await live_duell(a)
    mid = doc["id"]
    await b.load(mid)  # b now holds this version
    seat, legal, uid = mover_and_legal(doc)
    moved = await a.act(mid, uid, legal[0])  # b's copy is now stale
    seat2, legal2, uid2 = mover_and_legal(moved.doc)
    # On b's stale copy it would still be the first mover's turn: b must not refuse the
    # second mover as out of turn, and must not apply over a's move.
    change = await b.act(mid, uid2, legal2[0])
    assert change.doc["version"] == doc["version"] + 2
    # a's copy is stale now (its turn for the second mover): the second mover acting again
    # through a is recomputed on the stored document and refused there.
    if uid2 != uid:
        with pytest.raises(ApiError) as err:
            await a.act(mid, uid2, legal2[0])
        assert err.value.code in {"not_your_turn", "illegal_action"}
    final = await a.load(mid)
    assert final["version"] == doc["version"] + 2 and final["steps"] == 2


async def test_a_refusal_seen_on_a_stale_copy_is_checked_again(stores):
    a, b = stores[0], stores[1]
    doc = await live_duell(a)
    mid = doc["id"]
    await b.load(mid)
    seat, legal, uid = mover_and_legal(doc)
    after = await a.act(mid, uid, legal[0], client_seq=1)
    seat2, legal2, uid2 = mover_and_legal(after.doc)
    # The same client_seq again through b (stale copy: not yet used there) is a retry: it is
    # acknowledged as a duplicate, not applied a second time.
    again = await b.act(mid, uid, legal[0], client_seq=1)
    assert again.duplicate and (await b.load(mid))["version"] == doc["version"] + 1


@pytest.fixture
def fake_clock(monkeypatch):
    from app.live import store as store_mod

    clock = {"t": 1_800_000_000.0}
    monkeypatch.setattr(store_mod, "now", lambda: clock["t"])
    monkeypatch.setattr(clocks, "now", lambda: clock["t"])
    return clock


async def test_clock_fires_once_across_processes(stores, fake_clock):
    doc = await live_duell(stores[0], {"clock_seconds": 30})
    assert set(doc["deadlines"]) == set(get_game("duell").pending(doc["state"]))
    fake_clock["t"] += 29
    assert not any([(await s.fire_timeouts(doc["id"])).write for s in stores]), "not yet due"
    fake_clock["t"] += 2
    changes = await asyncio.gather(*(s.fire_timeouts(doc["id"]) for s in stores))
    assert sum(c.write for c in changes) == 1
    after = await stores[0].load(doc["id"])
    assert after["version"] == doc["version"] + 1
    assert after["state"]["timeouts"] != doc["state"]["timeouts"]
    # A fresh deadline for the next decision, later than the one that fired.
    assert after["deadlines"] and min(after["deadlines"].values()) > min(doc["deadlines"].values())


async def test_repeated_timeouts_forfeit(stores):
    doc = await live_duell(stores[0], {"clock_seconds": 5, "max_timeouts": 2})
    store = stores[0]
    absent = None
    for _ in range(10):
        d = await store.load(doc["id"])
        if d["status"] == "finished":
            break
        seat = next(iter(d["deadlines"]))
        absent = absent or seat
        if seat == absent:
            await store.fire_timeouts(doc["id"], at=d["deadlines"][seat] + 1)
        else:  # the other player answers in time
            _, legal, uid = mover_and_legal(d)
            await store.act(doc["id"], uid, legal[0])
    d = await store.load(doc["id"])
    assert d["status"] == "finished"
    assert d["result"]["winner"] != absent and d["result"]["reason"] == "timeouts"
    assert d["deadlines"] == {}


async def test_clock_loop_fires_due_deadlines_once(stores, fake_clock):
    doc = await live_duell(stores[0], {"clock_seconds": 5})
    assert await clocks.fire_due(stores[1]) == 0
    fake_clock["t"] += 6
    assert await clocks.fire_due(stores[1]) == 1
    assert await clocks.fire_due(stores[2]) == 0  # nothing due any more for anyone
    assert (await stores[0].load(doc["id"]))["version"] == doc["version"] + 1


async def _play_to_end(store, mid):
    game = get_game("duell")
    for _ in range(3000):
        d = await store.load(mid)
        if d["status"] == "finished":
            return d
        seat = next(iter(game.pending(d["state"])))
        uid = {"A": ANN, "B": BOB}[seat]["id"]
        await store.act(mid, uid, game.legal(d["state"], seat)[-1])
    raise AssertionError("no end")


async def test_history_survives_sql_outage_and_replays(stores, settings, tmp_path):
    store = stores[0]
    doc = await live_duell(store, {"duels_to_win": 1})
    final = await _play_to_end(store, doc["id"])

    # SQL is "down": a database that cannot be opened.
    down = sessionmaker(make_engine(settings.model_copy(update={
        "database_url": f"sqlite:///{tmp_path}/missing/dir/x.sqlite3"})))
    worker_down = OutboxWorker(store, down, name="w-down")
    backlog = await worker_down.lag()
    assert backlog >= final["steps"]
    with pytest.raises(Exception):  # noqa: B017  (whatever the driver raises for a missing file)
        await worker_down.drain_once()
    assert await worker_down.lag() == backlog, "nothing is dropped while SQL is down"

    # SQL is back: another worker takes over the entries the first one left pending.
    engine = make_engine(settings)
    up = sessionmaker(engine)
    from app.live import outbox as outbox_mod

    worker = OutboxWorker(store, up, name="w-up")
    outbox_mod.CLAIM_IDLE_MS, saved = 0, outbox_mod.CLAIM_IDLE_MS
    try:
        await worker.drain_all()
    finally:
        outbox_mod.CLAIM_IDLE_MS = saved
    assert await worker.lag() == 0
    record = await history.match_record(up, doc["id"])
    assert record["status"] == "finished" and len(record["actions"]) == final["steps"]
    assert [s["user"]["name"] for s in record["seats"]] == ["Ann", "Bob"]
    assert record["result"] == final["result"]
    replayed = replay_record(record)
    assert json.dumps(replayed, sort_keys=True) == json.dumps(final["state"], sort_keys=True)

    # Writing the same records again changes nothing (idempotent upserts).
    records = [{"kind": "action", "at": 0, "match": {**final, "version": v["version"]},
                "seat": v["seat"], "action": v["action"]} for v in record["actions"][:3]]
    await history.write_batch(up, records)
    again = await history.match_record(up, doc["id"])
    assert again["actions"] == record["actions"] and again["status"] == "finished"
    await engine.dispose()


async def test_history_written_in_any_order_is_the_same(stores, settings):
    """Several writers may commit batches out of order: whatever the order, SQL ends with the
    same match row, seats (with places) and actions. A live move's batch writes no seats, so
    this also checks that the seats come from the lobby records, or from a move's header
    when its batch happens to be the first to reach SQL."""
    store = stores[0]
    doc = await live_duell(store, {"duels_to_win": 1})
    final = await _play_to_end(store, doc["id"])
    entries = await store.r.xrange(store.k.outbox)
    records = [json.loads(f["data"]) for _, f in entries if json.loads(f["data"])["match"]["id"] == doc["id"]]
    lobby = [r for r in records if r["kind"] == "match"]
    moves = [r for r in records if r["kind"] != "match"]
    assert len(lobby) == 2 and len(moves) == final["steps"]  # created; joined and started
    assert lobby[1]["match"]["status"] == "live" and lobby[1]["match"]["started_at"]
    engine = make_engine(settings)
    maker = sessionmaker(engine)
    try:
        # Out of order: the middle moves first (no seats yet: they come from a move's header),
        # then the lobby records (older: ignored), then the rest, the finish last but one.
        mid_moves, last = moves[1:-1], moves[-1]
        await history.write_batch(maker, mid_moves[len(mid_moves) // 2:])
        early = await history.match_record(maker, doc["id"])
        assert [s["user"]["name"] for s in early["seats"]] == ["Ann", "Bob"]
        assert [s["place"] for s in early["seats"]] == [None, None]
        await history.write_batch(maker, lobby)
        await history.write_batch(maker, [last])
        await history.write_batch(maker, [moves[0]] + mid_moves[: len(mid_moves) // 2])
        record = await history.match_record(maker, doc["id"])
    finally:
        await engine.dispose()
    assert record["status"] == "finished" and record["version"] == final["version"]
    assert [a["version"] for a in record["actions"]] == sorted(r["match"]["version"] for r in moves)
    places = final["result"]["places"]
    assert {s["seat"]: s["place"] for s in record["seats"]} == places
    assert [s["user"]["id"] for s in record["seats"]] == [ANN["id"], BOB["id"]]
    assert json.dumps(replay_record(record), sort_keys=True) == json.dumps(final["state"], sort_keys=True)


async def test_combat_clock_plays_for_a_seat_that_left(stores, fake_clock):
    store = stores[0]
    cy = {"id": "u_cy", "name": "Cy"}
    doc = await store.create("combat", {"seats": 3}, ANN)
    await store.join(doc["id"], BOB)
    doc = await store.join(doc["id"], cy)
    assert doc["status"] == "live" and doc["options"]["clock_seconds"] == 30
    game = get_game("combat")
    # Ann and Bob fight; Cy has walked away.
    for user in (ANN, BOB):
        doc = (await store.act(doc["id"], user["id"], {"type": "fight"})).doc
    assert sorted(game.pending(doc["state"])) == ["C"]
    fake_clock["t"] += 31
    change = await store.fire_timeouts(doc["id"])
    assert change.write and any(e["type"] == "timeout" and e["seat"] == "C" for e in change.events)
    after = await store.load(doc["id"])
    assert after["version"] > doc["version"] and after["status"] == "live"
    assert "C" in game.pending(after["state"])  # the next battle waits for everyone again


async def test_hub_resync_sends_what_a_lost_notice_would_have(stores):
    """After the pub/sub link was down, notices sent meanwhile are gone; ``resync`` looks at
    every watched match again, so a socket behind gets its view without waiting for a move."""
    from app.live.hub import Conn, Hub

    doc = await live_duell(stores[0])
    hub = Hub(stores[1], stores[1].r)
    sock = RecordingSocket()
    conn = Conn(sock, doc["id"], ANN["id"])
    hub.conns[doc["id"]] = {conn}  # as hub.add would, without subscribing
    conn.last_seq = doc["version"]
    seat, legal, uid = mover_and_legal(doc)
    moved = await stores[0].act(doc["id"], uid, legal[0])  # its notice is "lost"
    hub.resync()
    await asyncio.gather(*hub._pushers.values())
    assert conn.last_seq == moved.doc["version"]
    assert json.loads(sock.sent[-1])["version"] == moved.doc["version"]


async def test_hub_holds_notices_during_its_own_write(stores):
    """A notice that beats the writer's own reply (both come from one script) is held while
    the write is under way: its own version costs no reload; a newer one from elsewhere is
    delivered once the write is done."""
    from app.live.hub import Conn, Hub

    store = stores[0]
    doc = await live_duell(store)
    hub = Hub(store, store.r)
    sock = RecordingSocket()
    conn = Conn(sock, doc["id"], ANN["id"])
    hub.conns[doc["id"]] = {conn}
    conn.last_seq = doc["version"]
    seat, legal, uid = mover_and_legal(doc)
    hub.begin_write(doc["id"])
    try:
        change = await store.act(doc["id"], uid, legal[0])
        hub.notify(doc["id"], change.doc["version"])  # the notice arrives first
        assert not hub._pushers, "held, not a reload of the match"
        await hub.push_doc(change.doc, change.events)
    finally:
        hub.end_write(doc["id"])
    assert not hub._pushers and conn.last_seq == change.doc["version"] and len(sock.sent) == 1

    # A newer change by another process arrives while this process writes (and fails).
    d = await store.load(doc["id"])
    seat, legal, uid = mover_and_legal(d)
    other = await stores[1].act(doc["id"], uid, legal[0])
    hub.begin_write(doc["id"])
    try:
        with pytest.raises(ApiError):  # noqa: PT012  (the steps before the refusal belong to it)
            hub.notify(doc["id"], other.doc["version"])
            assert not hub._pushers
            await store.act(doc["id"], "u_nobody", legal[0])  # refused: not seated
    finally:
        hub.end_write(doc["id"])
    assert hub._pushers, "looked at once the write is over"
    await asyncio.gather(*hub._pushers.values())
    assert conn.last_seq == other.doc["version"]
    assert json.loads(sock.sent[-1])["version"] == other.doc["version"]


async def test_a_fresh_sockets_first_view_is_the_same_whoever_sends_it(stores):
    """A socket added but not yet sent its opening view can be reached first by a fan-out (a
    notice, a resync). Its first message is then exactly the opening view, with the latest
    change's events only, not every kept batch: the no-leak tests compare messages byte for
    byte, and a client should not see a different first message depending on timing."""
    from app.live.hub import Conn, Hub

    store = stores[0]
    doc = await live_duell(store)
    seat, legal, uid = mover_and_legal(doc)
    doc = (await store.act(doc["id"], uid, legal[0])).doc
    assert len(await store.events_since(doc["id"], 0)) >= 3  # created, joined/started, the move

    hub = Hub(store, store.r)
    by_fan_out, by_opening = RecordingSocket(), RecordingSocket()
    first = Conn(by_fan_out, doc["id"], ANN["id"])
    hub.conns[doc["id"]] = {first}
    hub.resync()
    await asyncio.gather(*hub._pushers.values())
    second = Conn(by_opening, doc["id"], ANN["id"])
    await hub.send_view(second, doc["version"] - 1, doc, first=True)
    assert by_fan_out.sent == by_opening.sent and len(by_fan_out.sent) == 1
    events = json.loads(by_fan_out.sent[0])["events"]
    assert events and {e["version"] for e in events} == {doc["version"]}


async def test_a_client_that_stops_reading_is_dropped_and_delays_nobody_twice(stores, monkeypatch):
    """A spectator whose send never completes (a full buffer) costs the players one
    SEND_TIMEOUT at most: the players get their views first, the stuck socket is dropped."""
    from app.live import hub as hub_mod
    from app.live.hub import Conn, Hub

    monkeypatch.setattr(hub_mod, "SEND_TIMEOUT", 0.2)

    store = stores[0]
    doc = await live_duell(store)
    hub = Hub(store, store.r)
    stuck = Conn(RecordingSocket(stuck=True), doc["id"], None)
    ann = Conn(RecordingSocket(), doc["id"], ANN["id"])
    hub.conns[doc["id"]] = {stuck, ann}
    for c in (stuck, ann):
        c.last_seq = doc["version"]
    for _ in range(2):
        d = await store.load(doc["id"])
        seat, legal, uid = mover_and_legal(d)
        change = await store.act(doc["id"], uid, legal[0])
        await hub.push_doc(change.doc, change.events)
        assert ann.last_seq == change.doc["version"], "the player got the view"
        assert stuck.closed
    assert len(ann.ws.sent) == 2 and not stuck.ws.sent
    assert stuck.ws.tries == 1, "a dropped socket is not waited for again"


async def test_kept_events_are_the_newest_changes_contiguous(stores):
    """Resuming clients get the events of the newest EVENTS_KEPT changes, one batch per
    version, newest last (what docs/protocol.md promises under `resume`)."""
    from app.live.store import EVENTS_KEPT

    store = stores[0]
    doc = await live_duell(store)
    for _ in range(EVENTS_KEPT + 8):
        d = await store.load(doc["id"])
        seat, legal, uid = mover_and_legal(d)
        await store.act(doc["id"], uid, legal[0])
    d = await store.load(doc["id"])
    batches = await store.events_since(doc["id"], 0)
    assert [b["version"] for b in batches] == list(range(d["version"] - EVENTS_KEPT + 1, d["version"] + 1))
    assert [b["version"] for b in await store.events_since(doc["id"], d["version"] - 3)] == \
        [d["version"] - 2, d["version"] - 1, d["version"]]


async def test_a_refused_action_leaves_the_stored_match_byte_identical(stores):
    """The store applies moves in place on its own parse of the document; a refused move's
    half-changed copy is thrown away, from a fresh or a cached copy alike."""
    store, other = stores[0], stores[-1]
    doc = await live_duell(store)
    key = store.k.match(doc["id"])
    seat, legal, uid = mover_and_legal(doc)
    not_mover = BOB["id"] if uid == ANN["id"] else ANN["id"]
    bad = [{"type": "move", "card": 99, "dir": "forward"},
           {"type": "move", "card": legal[0].get("card"), "dir": "sideways"},
           {"type": "nonsense"}, {**legal[0], "extra": 1}]
    for action in bad:
        before = await store.r.get(key)
        with pytest.raises(ApiError):
            await store.act(doc["id"], uid, action)
        with pytest.raises(ApiError):
            await other.act(doc["id"], not_mover, legal[0])  # out of turn
        assert await store.r.get(key) == before
    change = await store.act(doc["id"], uid, legal[0])
    assert change.write and change.doc["version"] == doc["version"] + 1


async def test_a_change_is_published_only_when_another_process_listens(stores):
    """``listening=1``: the writer's own sockets get the change directly, so the notice goes
    out only if somebody else subscribes to the match too; ``listening=0`` always publishes."""
    store = stores[0]
    doc = await live_duell(store)
    channel = store.k.channel(doc["id"])
    mine = store.r.pubsub(ignore_subscribe_messages=True)
    await mine.subscribe(channel)

    async def notices(pubsub) -> list[int]:
        got = []
        while (msg := await pubsub.get_message(timeout=0.2)) is not None:
            got.append(int(msg["data"]))
        return got

    async def move(listening: int) -> int:
        d = await store.load(doc["id"])
        seat, legal, uid = mover_and_legal(d)
        return (await store.act(doc["id"], uid, legal[0], listening=listening)).doc["version"]

    await notices(mine)
    await move(1)
    assert await notices(mine) == [], "alone on the channel: nothing published"
    v = await move(0)
    assert await notices(mine) == [v]
    other = stores[-1].r.pubsub(ignore_subscribe_messages=True)
    await other.subscribe(channel)
    await notices(other)
    v = await move(1)
    assert await notices(other) == [v] and await notices(mine) == [v]
    await mine.aclose()
    await other.aclose()


async def test_hub_counts_a_subscription_once_redis_confirms_it(stores):
    from app.live.hub import Conn, Hub

    store = stores[0]
    doc = await live_duell(store)
    hub = Hub(store, store.r)
    await hub.start()
    try:
        conn = Conn(RecordingSocket(), doc["id"], ANN["id"])
        assert hub.listening(doc["id"]) == 0
        await hub.add(conn)
        for _ in range(100):
            if hub.listening(doc["id"]):
                break
            await asyncio.sleep(0.02)
        assert hub.listening(doc["id"]) == 1
        await hub.remove(conn)
        assert hub.listening(doc["id"]) == 0
    finally:
        await hub.stop()


async def test_lobby_and_clock_indexes_follow_the_match_through_its_life(stores, fake_clock):
    """The open/live lists and the clock's deadline set are written only when they change (a
    plain move leaves the lobby lists alone) and are right at every step."""
    store = stores[0]
    r, k = store.r, store.k

    async def where(mid):
        return (await r.zscore(k.open, mid) is not None, await r.zscore(k.live, mid) is not None,
                await r.zscore(k.deadlines, mid))

    doc = await store.create("duell", {"duels_to_win": 1, "clock_seconds": 60}, ANN)
    assert await where(doc["id"]) == (True, False, None)
    doc = await store.join(doc["id"], BOB)
    assert await where(doc["id"]) == (False, True, min(doc["deadlines"].values()))
    for _ in range(400):
        d = await store.load(doc["id"])
        if d["status"] != "live":
            break
        fake_clock["t"] += 1
        seat, legal, uid = mover_and_legal(d)
        d = (await store.act(doc["id"], uid, legal[-1])).doc
        expected = min(d["deadlines"].values()) if d["deadlines"] else None
        assert await where(doc["id"]) == (False, d["status"] == "live", expected)
    assert d["status"] == "finished"
    assert await where(doc["id"]) == (False, False, None)
