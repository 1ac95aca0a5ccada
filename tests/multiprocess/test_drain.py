"""Deploys that drain (app/drain.py, docs/operations.md): a real server process gets SIGTERM
with two sockets open, one of them with a move in flight. Its readiness turns 503 at once while
it goes on serving; after DRAIN_SECONDS the idle socket closes with 1012; the move in flight
is applied and its view sent before that socket closes with 1012 too; the process exits. The
players reconnect to a second process (same Redis and SQL), find the match where the move left
it, play it to the end, and the history holds every move exactly once.

The move is held in flight by pausing Redis's writes (CLIENT PAUSE ... WRITE): the move's
script waits inside Redis until the pause ends, past the end of the drain window."""
from __future__ import annotations

import asyncio
import json
import random
import signal
import time

import httpx
import pytest
import redis
import websockets
from websockets.exceptions import ConnectionClosed

from games.registry import get_game
from games.replay import replay_record
from tests.multiprocess.servers import app_process_handles, redis_url_for_tests
from tests.support import async_wait_for

pytestmark = pytest.mark.multiprocess

DRAIN_SECONDS = 1.0
PAUSE_MS = 3000  # longer than the drain window: the move is still in Redis when it ends
MARGIN = 10.0  # the process's own shutdown (lifespan, pools) after its last socket closed


def socket_url(base: str, mid: str) -> str:
    return base.replace("http", "ws", 1) + f"/ws/matches/{mid}"


async def connect(base: str, mid: str, token: str):
    return await websockets.connect(socket_url(base, mid),
                                    subprotocols=["duelhall.v1", f"bearer.{token}"])


async def next_view(ws) -> dict:
    while True:
        msg = json.loads(await asyncio.wait_for(ws.recv(), 20))
        assert msg["type"] != "error", msg
        if msg["type"] == "view":
            return msg


async def until_closed(ws, within: float) -> tuple[list[dict], int]:
    """Every message the socket gets until the server closes it, and the close code."""
    got = []
    try:
        async with asyncio.timeout(within):
            while True:
                got.append(json.loads(await ws.recv()))
    except ConnectionClosed as closed:
        return got, closed.rcvd.code if closed.rcvd else None


def script_waiting_in_redis(r: redis.Redis) -> bool:
    """A client is held by the pause in the middle of a script: a move is in flight."""
    return any("eval" in c.get("cmd", "") and "b" in c.get("flags", "") for c in r.client_list())


async def play_to_the_end(base: str, mid: str, players: dict, since: dict) -> dict:
    """Both seats reconnect to ``base``, resume from the last version they saw, and play random
    legal moves until the match ends (client_seq going on from the seat's last applied one)."""
    rnd = random.Random(7)

    async def seat(name: str) -> dict:
        ws = await connect(base, mid, players[name]["token"])
        try:
            v = await next_view(ws)
            await ws.send(json.dumps({"type": "resume", "since": since[name]}))
            acted_on = -1  # one move per version seen (the resume answers with a view too)
            while True:
                if v["status"] == "finished":
                    return v
                if v["seat"] in v["pending"] and v["version"] > acted_on:
                    acted_on = v["version"]
                    await ws.send(json.dumps({"type": "action", "client_seq": v["client_seq"] + 1,
                                              "action": rnd.choice(v["legal"])}))
                nxt = await next_view(ws)
                v = nxt if nxt["version"] >= v["version"] else v
        finally:
            await ws.close()

    ends = await asyncio.gather(seat("Ann"), seat("Bob"))
    return ends[0]


def test_sigterm_drains_sockets_after_the_move_in_flight_and_play_goes_on_elsewhere(db_url, tmp_path):
    env = [{"DRAIN_SECONDS": str(DRAIN_SECONDS), "RUN_WORKERS": "false"}, {}]
    with redis_url_for_tests(tmp_path) as redis_url, \
            app_process_handles(2, redis_url, db_url, tmp_path, env) as [(p1, proc1), (p2, _)]:
        r = redis.Redis.from_url(redis_url, decode_responses=True)
        try:
            asyncio.run(scenario(p1, proc1, p2, r))
        finally:
            r.client_unpause()
            r.close()


async def scenario(p1: str, proc1, p2: str, r: redis.Redis) -> None:
    async with httpx.AsyncClient(timeout=10) as http:
        players = {}
        for name in ("Ann", "Bob"):
            players[name] = (await http.post(p1 + "/api/auth/guest", json={"name": name})).json()
        auth = {n: {"Authorization": f"Bearer {p['token']}"} for n, p in players.items()}
        mid = (await http.post(p1 + "/api/matches", json={"game": "duell",
                                                          "options": {"duels_to_win": 1}},
                               headers=auth["Ann"])).json()["id"]
        assert (await http.post(p1 + f"/api/matches/{mid}/join",
                                headers=auth["Bob"])).json()["status"] == "live"

        sockets = {n: await connect(p1, mid, p["token"]) for n, p in players.items()}
        views = {n: await next_view(ws) for n, ws in sockets.items()}
        mover = next(n for n, v in views.items() if v["seat"] in v["pending"])
        idle = "Bob" if mover == "Ann" else "Ann"
        before = views[mover]
        assert before["client_seq"] == 0

        # The move goes in while Redis holds every write: it waits there, in flight.
        await asyncio.to_thread(r.client_pause, PAUSE_MS, False)  # all=False: writes only
        await sockets[mover].send(json.dumps({"type": "action", "client_seq": 1,
                                              "action": before["legal"][0]}))
        await async_wait_for(lambda: asyncio.to_thread(script_waiting_in_redis, r),
                             message="the move never reached Redis")

        proc1.send_signal(signal.SIGTERM)
        term_at = time.monotonic()
        # Out of rotation at once, while everything else is still served.
        while (ready := await http.get(p1 + "/readyz")).status_code == 200:
            assert time.monotonic() - term_at < DRAIN_SECONDS, "readiness still 200 after the window"
            await asyncio.sleep(0.02)
        assert ready.status_code == 503 and ready.json()["error"]["code"] == "unavailable"
        assert (await http.get(p1 + "/healthz")).status_code == 200
        # (Nothing that reads the match: the paused script holds the store's connection.)
        assert (await http.get(p1 + "/api/games")).status_code == 200

        # After the window the idle socket is closed with 1012, the move still in Redis.
        got, code = await until_closed(sockets[idle], DRAIN_SECONDS + PAUSE_MS / 1000 + MARGIN)
        assert code == 1012, (code, got)
        assert await asyncio.to_thread(script_waiting_in_redis, r), "the move was not in flight"

        # The mover's socket: the view of its move, and only then 1012.
        got, code = await until_closed(sockets[mover], PAUSE_MS / 1000 + MARGIN)
        assert code == 1012, (code, got)
        applied = [m for m in got if m["type"] == "view" and m["client_seq"] == 1]
        assert applied and applied[0]["version"] == before["version"] + 1, got

        # The process stops by itself, soon after its last socket.
        exit_code = await asyncio.to_thread(proc1.wait, DRAIN_SECONDS + PAUSE_MS / 1000 + MARGIN)
        assert exit_code in (0, -signal.SIGTERM), exit_code
        assert time.monotonic() - term_at < DRAIN_SECONDS + PAUSE_MS / 1000 + MARGIN

        # Both reconnect to the other process: the match is where the move left it (applied
        # once: sending it again is acknowledged as a duplicate), and play goes on to the end.
        async with await connect(p2, mid, players[mover]["token"]) as ws:
            v = await next_view(ws)
            assert v["version"] == before["version"] + 1 and v["client_seq"] == 1
            await ws.send(json.dumps({"type": "action", "client_seq": 1,
                                      "action": before["legal"][0]}))
            while (ack := json.loads(await asyncio.wait_for(ws.recv(), 20)))["type"] != "ack":
                pass
            assert ack["duplicate"] is True and ack["version"] == before["version"] + 1
        since = {mover: before["version"] + 1, idle: before["version"]}
        final = await play_to_the_end(p2, mid, players, since)

        # Nothing lost, nothing doubled: the history replays to the same end, move by move.
        end = time.monotonic() + 30
        while (rec := await http.get(p2 + f"/api/matches/{mid}/record",
                                     headers=auth["Ann"])).status_code != 200:
            assert rec.status_code == 503 and time.monotonic() < end, rec.text
            await asyncio.sleep(0.2)
        record = rec.json()
        versions = [a["version"] for a in record["actions"]]
        assert versions == sorted(set(versions)) and record["version"] == final["version"]
        in_flight = [a for a in record["actions"] if a["version"] == before["version"] + 1]
        assert [(a["seat"], a["action"]) for a in in_flight] == [(before["seat"], before["legal"][0])]
        replayed = replay_record(record)
        game = get_game("duell")
        assert game.result(replayed) == final["result"]
        seat = final["seat"]
        assert json.dumps(game.view(replayed, seat), sort_keys=True) == \
            json.dumps(final["state"], sort_keys=True)
