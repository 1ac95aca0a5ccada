"""The shared Redis connection of the live store's hot path (app/live/multiplex.py), against a
real Redis (REDIS_URL, else a throwaway redis-server): replies reach the right callers under
concurrency, scripts load themselves, errors and lost connections surface as redis-py's
exceptions and the next call reconnects, a server that stops answering times out."""
from __future__ import annotations

import asyncio
import uuid

import pytest
import redis.asyncio as aioredis
from redis.exceptions import ConnectionError, ResponseError, TimeoutError

from app.live.multiplex import MultiplexedRedis
from app.live.store import MatchStore
from tests.multiprocess.servers import redis_url_for_tests
from tests.support import async_wait_for


@pytest.fixture
def redis_url(tmp_path):
    with redis_url_for_tests(tmp_path) as url:
        yield url


async def delete_prefixed(r, prefix: str) -> None:
    keys = [k async for k in r.scan_iter(f"{prefix}*")]
    if keys:
        await r.delete(*keys)


async def test_concurrent_calls_get_their_own_replies_and_scripts_load_themselves(redis_url):
    line = MultiplexedRedis(redis_url)
    plain = aioredis.Redis.from_url(redis_url, decode_responses=True)
    prefix = f"mx{uuid.uuid4().hex[:8]}:"
    try:
        await plain.mset({f"{prefix}{i}": f"v{i}" for i in range(300)})
        assert await line.execute("SET", f"{prefix}name", "Párbaj: Ödön és Zsófi") == "OK"
        assert await plain.get(f"{prefix}name") == "Párbaj: Ödön és Zsófi"  # UTF-8 both ways
        assert await line.get(f"{prefix}name") == "Párbaj: Ödön és Zsófi"
        got = await asyncio.gather(*(line.get(f"{prefix}{i}") for i in range(300)))
        assert got == [f"v{i}" for i in range(300)]
        assert await line.get(f"{prefix}missing") is None

        await plain.script_flush()  # a server that has never seen the script: EVAL, then EVALSHA
        source = "return {tonumber(ARGV[1]) + 1, redis.call('GET', KEYS[1]) or false}"
        results = await asyncio.gather(*(line.run_script(source, [f"{prefix}{i}"], [i]) for i in range(50)))
        assert results == [[i + 1, f"v{i}"] for i in range(50)]
        assert (await plain.script_exists(line._shas[source]))[0]

        # An error reply fails its own call only; the connection goes on.
        await plain.set(f"{prefix}text", "not a number")
        ok, bad, ok2 = await asyncio.gather(line.get(f"{prefix}1"), line.execute("INCR", f"{prefix}text"),
                                            line.get(f"{prefix}2"), return_exceptions=True)
        assert (ok, ok2) == ("v1", "v2") and isinstance(bad, ResponseError)
    finally:
        await line.aclose()
        await delete_prefixed(plain, prefix)
        await plain.aclose()


async def test_a_killed_connection_fails_its_calls_and_the_next_call_reconnects(redis_url):
    line = MultiplexedRedis(redis_url)
    plain = aioredis.Redis.from_url(redis_url, decode_responses=True)
    key = f"mx{uuid.uuid4().hex[:8]}"
    try:
        await plain.set(key, "here")
        my_id = await line.execute("CLIENT", "ID")
        blocked = asyncio.ensure_future(line.execute("BLPOP", f"{key}:never", 5))

        async def blocking() -> bool:  # the server has the BLPOP: it is in flight
            return any(c.get("cmd") == "blpop" for c in await plain.client_list(client_id=[my_id]))

        await async_wait_for(blocking, message="the BLPOP never reached the server")
        assert await plain.client_kill_filter(_id=my_id) == 1
        with pytest.raises(ConnectionError):
            await blocked
        assert await line.get(key) == "here"  # a new connection
        assert await line.execute("CLIENT", "ID") != my_id
    finally:
        await line.aclose()
        await plain.delete(key)
        await plain.aclose()


async def test_a_database_number_in_the_url_is_selected(redis_url):
    base = redis_url.rsplit("/", 1)[0]
    line = MultiplexedRedis(f"{base}/5")
    other_db = aioredis.Redis.from_url(f"{base}/5", decode_responses=True)
    key = f"mx{uuid.uuid4().hex[:8]}"
    try:
        await other_db.set(key, "in five")
        assert await line.get(key) == "in five"
    finally:
        await line.aclose()
        await other_db.delete(key)
        await other_db.aclose()


async def test_a_server_that_stops_answering_times_out():
    async def silent(reader, writer):
        await reader.read(1 << 16)  # takes the command, never answers
        await asyncio.sleep(10)

    server = await asyncio.start_server(silent, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    line = MultiplexedRedis(f"redis://127.0.0.1:{port}/0", timeout=0.3)
    try:
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(line.get("k"), 5)  # the outer bound only guards the test
        with pytest.raises(TimeoutError):  # and again, on a new connection
            await asyncio.wait_for(line.get("k"), 5)
    finally:
        await line.aclose()
        server.close()


async def test_the_store_plays_through_the_shared_connection(redis_url):
    """The compare-and-set, its retry on a stale copy, and refusals, over the shared line."""
    plain = aioredis.Redis.from_url(redis_url, decode_responses=True)
    prefix = f"mx{uuid.uuid4().hex[:8]}:"
    fast = MatchStore(plain, prefix, line=MultiplexedRedis(redis_url))
    slow = MatchStore(plain, prefix)
    ann, bob = {"id": "u_ann", "name": "Ann"}, {"id": "u_bob", "name": "Bob"}
    try:
        doc = await fast.create("duell", {}, ann)
        doc = await fast.join(doc["id"], bob)
        from games.registry import get_game

        game = get_game("duell")
        for turn in range(6):
            store = (fast, slow)[turn % 2]  # the other store's writes make fast's copy stale
            d = await slow.load(doc["id"])  # fast's own copy is left stale
            seat = next(iter(game.pending(d["state"])))
            uid = {"A": ann, "B": bob}[seat]["id"]
            change = await store.act(doc["id"], uid, game.legal(d["state"], seat)[0], turn + 1)
            assert change.write and change.doc["version"] == d["version"] + 1
        final = await slow.load(doc["id"])
        assert final["version"] == doc["version"] + 6 and final["steps"] == 6
    finally:
        await fast.close()
        await delete_prefixed(plain, prefix)
        await plain.aclose()
