"""History over HTTP: a finished match's record comes from SQL and replays to the same end."""
from __future__ import annotations

import json
import time

from games.registry import get_game
from games.replay import replay_record
from tests.app.support import duell_match, play_out, view


def fetch_record(client, mid, player, timeout=15.0):
    end = time.time() + timeout
    while True:
        r = client.get(f"/api/matches/{mid}/record", headers=player["headers"])
        if r.status_code != 503 or time.time() > end:
            return r
        time.sleep(0.05)


def test_record_needs_a_finished_match(client):
    mid, p = duell_match(client)
    r = client.get(f"/api/matches/{mid}/record", headers=p["A"]["headers"])
    assert r.status_code == 409 and r.json()["error"]["code"] == "not_finished"
    r = client.get("/api/matches/nope/record", headers=p["A"]["headers"])
    assert r.json()["error"]["code"] == "not_found"
    assert client.get(f"/api/matches/{mid}/record").status_code == 401


def test_finished_match_record_replays(client):
    mid, p = duell_match(client, {"mode": "tenzone", "duels_to_win": 2})
    last = play_out(client, mid, p, seed=3)
    assert last["status"] == "finished" and last["result"]
    r = fetch_record(client, mid, p["B"])
    assert r.status_code == 200, r.text
    record = r.json()
    assert record["game"] == "duell" and record["status"] == "finished"
    assert record["options"]["mode"] == "tenzone"
    assert [s["user"]["name"] for s in record["seats"]] == ["Ann", "Bob"]
    assert {s["place"] for s in record["seats"]} <= {1, 2}
    versions = [a["version"] for a in record["actions"]]
    assert versions == sorted(set(versions)) and all(a["at"] for a in record["actions"])
    final = replay_record(record)
    game = get_game("duell")
    assert game.result(final) == last["result"] == record["result"]
    for seat in ("A", "B"):
        assert json.dumps(game.view(final, seat), sort_keys=True) == \
            json.dumps(view(client, mid, p[seat])["state"], sort_keys=True)
    # The summary is served from history too, and finished matches are listed.
    assert client.get(f"/api/matches/{mid}").json()["status"] == "finished"
    finished = client.get("/api/matches?status=finished").json()
    assert mid in [m["id"] for m in finished]


def test_tampered_record_does_not_replay_to_the_same_end(client):
    mid, p = duell_match(client, {"duels_to_win": 1})
    last = play_out(client, mid, p, seed=5)
    record = fetch_record(client, mid, p["A"]).json()
    game = get_game("duell")
    honest = replay_record(record)
    assert game.result(honest) == last["result"]
    record["seed"] += 1  # another shuffle: the same actions no longer fit
    try:
        forged = replay_record(record)
    except Exception as e:  # an action that is illegal under the other deal
        assert type(e).__name__ in {"IllegalAction", "NotYourTurn", "MatchOver"}  # noqa: PT017
    else:
        assert json.dumps(forged, sort_keys=True) != json.dumps(honest, sort_keys=True)
