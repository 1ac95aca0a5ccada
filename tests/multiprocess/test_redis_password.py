"""Redis with a password, as docker-compose.yml runs it (`--requirepass`, the password in
REDIS_URL): every client of the app (the connection pool, the multiplexed line the store's
scripts use, pub/sub between processes) signs in with it, and a move made on one process
reaches the other player's socket on another."""
from __future__ import annotations

import asyncio
import json
import subprocess
import time

import httpx
import pytest
import redis
import websockets

from tests.multiprocess.servers import app_processes, free_port, require_binary

pytestmark = pytest.mark.multiprocess

PASSWORD = "0f3a9c5e7b21d4486a0c"


@pytest.fixture
def redis_with_password(tmp_path):
    binary = require_binary("redis-server", "the test starts a private Redis with a password")
    port = free_port()
    proc = subprocess.Popen([binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                             "--appendonly", "no", "--dir", str(tmp_path),
                             "--requirepass", PASSWORD],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        r = redis.Redis(port=port, password=PASSWORD)
        for _ in range(200):
            try:
                r.ping()
                break
            except redis.ConnectionError:
                time.sleep(0.05)
        yield port
    finally:
        proc.terminate()
        proc.wait(10)


def test_the_app_signs_in_to_redis_with_the_password_in_its_url(redis_with_password, db_url, tmp_path):
    port = redis_with_password
    with pytest.raises(redis.AuthenticationError):  # the server really wants it
        redis.Redis(port=port).ping()
    url = f"redis://:{PASSWORD}@127.0.0.1:{port}/0"
    with app_processes(2, url, db_url, tmp_path, [{}, {"RUN_WORKERS": "false"}]) as bases:
        for base in bases:
            assert httpx.get(base + "/readyz").status_code == 200
        asyncio.run(play_one_move(*bases))


async def play_one_move(base: str, other_base: str) -> None:
    """Ann's socket on one process, Bob's on the other: a move reaches the other player through
    the store (scripts on the multiplexed line) and a pub/sub notice between the processes."""
    async with httpx.AsyncClient(base_url=base) as http:
        ann = (await http.post("/api/auth/guest", json={"name": "Ann"})).json()
        bob = (await http.post("/api/auth/guest", json={"name": "Bob"})).json()
        mid = (await http.post("/api/matches", json={"game": "duell", "options": {}},
                               headers={"Authorization": f"Bearer {ann['token']}"})).json()["id"]
        await http.post(f"/api/matches/{mid}/join", headers={"Authorization": f"Bearer {bob['token']}"})
    sockets = [await websockets.connect(b.replace("http", "ws", 1) + f"/ws/matches/{mid}",
                                        subprotocols=["duelhall.v1", f"bearer.{p['token']}"])
               for b, p in ((base, ann), (other_base, bob))]
    try:
        views = [json.loads(await asyncio.wait_for(ws.recv(), 10)) for ws in sockets]
        mover = next(i for i, v in enumerate(views) if v["seat"] in v["pending"])
        await sockets[mover].send(json.dumps({"type": "action", "client_seq": 1,
                                              "action": views[mover]["legal"][0]}))
        other = sockets[1 - mover]
        while (msg := json.loads(await asyncio.wait_for(other.recv(), 10)))["type"] != "view":
            pass
        assert msg["version"] == views[mover]["version"] + 1  # the other player saw the move
    finally:
        for ws in sockets:
            await ws.close()
