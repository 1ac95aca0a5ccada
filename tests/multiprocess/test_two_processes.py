"""Two app processes sharing one real Redis (and the suite's SQL database): the two players
of a match sit on different processes, play a whole match over websockets, and the history
that reaches SQL replays to the same end."""
from __future__ import annotations

import asyncio
import json
import random
import time

import httpx
import pytest
import websockets

from games.registry import get_game
from games.replay import replay_record
from tests.multiprocess.servers import app_processes, redis_url_for_tests

pytestmark = pytest.mark.multiprocess


async def player(base: str, token: str, mid: str, seed: int, log: list) -> dict:
    """Act with a random legal move whenever pending; return the final view."""
    rnd = random.Random(seed)
    url = base.replace("http", "ws") + f"/ws/matches/{mid}?token={token}"
    seq = 0
    async with websockets.connect(url) as ws:
        while True:
            msg = json.loads(await asyncio.wait_for(ws.recv(), 20))
            if msg["type"] == "error":
                raise AssertionError(msg)
            if msg["type"] != "view":
                continue
            log.append(msg["version"])
            if msg["status"] == "finished":
                return msg
            if msg["seat"] in msg["pending"]:
                seq += 1
                await ws.send(json.dumps({"type": "action", "client_seq": seq,
                                          "action": rnd.choice(msg["legal"])}))


def test_match_across_two_processes(db_url, tmp_path):
    with redis_url_for_tests(tmp_path) as redis_url, \
            app_processes(2, redis_url, db_url, tmp_path) as (p1, p2):
        with httpx.Client() as http:
            ann = http.post(p1 + "/api/auth/guest", json={"name": "Ann"}).json()
            bob = http.post(p2 + "/api/auth/guest", json={"name": "Bob"}).json()
            m = http.post(p1 + "/api/matches", json={"game": "duell", "options": {"duels_to_win": 2}},
                          headers={"Authorization": f"Bearer {ann['token']}"}).json()
            # Bob, on the other process, sees it in the lobby and joins there.
            assert m["id"] in [x["id"] for x in http.get(p2 + "/api/matches?status=open").json()]
            joined = http.post(p2 + f"/api/matches/{m['id']}/join",
                               headers={"Authorization": f"Bearer {bob['token']}"}).json()
            assert joined["status"] == "live"

        async def both():
            la, lb = [], []
            va, vb = await asyncio.gather(player(p1, ann["token"], m["id"], 1, la),
                                          player(p2, bob["token"], m["id"], 2, lb))
            return va, vb, la, lb

        va, vb, la, lb = asyncio.run(both())
        assert va["version"] == vb["version"] and va["result"] == vb["result"]
        # Each process pushed its own player every change, in order, none twice.
        assert la == sorted(set(la)) and lb == sorted(set(lb))
        assert len(la) > 4 and len(lb) > 4

        # History reaches SQL through the outbox; the record replays to the same end.
        with httpx.Client() as http:
            end = time.time() + 20
            while True:
                r = http.get(p2 + f"/api/matches/{m['id']}/record",
                             headers={"Authorization": f"Bearer {bob['token']}"})
                if r.status_code == 200 or time.time() > end:
                    break
                assert r.status_code == 503, r.text
                time.sleep(0.2)
            assert r.status_code == 200, r.text
            record = r.json()
        assert [s["user"]["name"] for s in record["seats"]] == ["Ann", "Bob"]
        final = replay_record(record)
        game = get_game("duell")
        assert game.result(final) == va["result"]
        assert json.dumps(game.view(final, "A"), sort_keys=True) == json.dumps(va["state"], sort_keys=True)
        assert json.dumps(game.view(final, "B"), sort_keys=True) == json.dumps(vb["state"], sort_keys=True)
