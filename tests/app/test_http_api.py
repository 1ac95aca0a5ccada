"""The HTTP side of the protocol: identity, lobby, playing, every error code, never a 500."""
from __future__ import annotations

import json
import time

import jwt
import pytest

from tests.app.support import duell_match, view
from tests.conftest import guest


def error(r, status, code):
    assert r.status_code == status, r.text
    body = r.json()
    assert body["error"]["code"] == code, body
    assert body["error"]["message"]
    return body["error"]["message"]


# ---------------------------------------------------------------- identity
def test_guest_and_me(client):
    g = guest(client, "  Ann   Lee ")
    assert g["user"]["name"] == "Ann Lee" and g["user"]["role"] == "player"
    me = client.get("/api/me", headers=g["headers"]).json()
    assert me == {**g["user"], "guest": True}


@pytest.mark.parametrize("body", [{}, {"name": ""}, {"name": "x" * 25}, {"name": "<script>"},
                                  {"name": "Ann", "admin": True}, {"name": 5}])
def test_guest_bad_names(client, body):
    error(client.post("/api/auth/guest", json=body), 422, "invalid_message")


def test_guest_malformed_json(client):
    r = client.post("/api/auth/guest", content=b"{name:", headers={"content-type": "application/json"})
    error(r, 422, "invalid_message")


def test_me_needs_a_valid_token(client, settings):
    error(client.get("/api/me"), 401, "unauthorized")
    error(client.get("/api/me", headers={"Authorization": "Bearer nonsense"}), 401, "unauthorized")
    forged = jwt.encode({"sub": "u_x", "name": "Eve", "exp": time.time() + 60}, "wrong-key", algorithm="HS256")
    error(client.get("/api/me", headers={"Authorization": f"Bearer {forged}"}), 401, "unauthorized")
    expired = jwt.encode({"sub": "u_x", "name": "Eve", "exp": time.time() - 5},
                         settings.signing_key(), algorithm="HS256")
    msg = error(client.get("/api/me", headers={"Authorization": f"Bearer {expired}"}), 401, "unauthorized")
    assert "expired" in msg


# ---------------------------------------------------------------- games and lobby
def test_games_list_has_schemas(client):
    games = {g["id"]: g for g in client.get("/api/games").json()}
    duell = games["duell"]
    assert duell["min_players"] == duell["max_players"] == 2
    props = duell["options_schema"]["properties"]
    assert props["mode"]["enum"] == ["prologo", "tenzone"]
    assert props["duels_to_win"]["default"] == 5


def test_create_list_join_start(client):
    a, b, c = guest(client, "Ann"), guest(client, "Bob"), guest(client, "Cy")
    m = client.post("/api/matches", json={"game": "duell", "options": {"mode": "tenzone"}},
                    headers=a["headers"]).json()
    assert m["status"] == "open" and m["seats"][0]["user"]["id"] == a["user"]["id"]
    assert "seed" not in m and "state" not in m
    open_ids = [x["id"] for x in client.get("/api/matches?status=open").json()]
    assert m["id"] in open_ids
    error(client.post(f"/api/matches/{m['id']}/join", headers=a["headers"]), 409, "already_seated")
    error(client.post(f"/api/matches/{m['id']}/start", headers=b["headers"]), 403, "forbidden")
    joined = client.post(f"/api/matches/{m['id']}/join", headers=b["headers"]).json()
    assert joined["status"] == "live" and [s["seat"] for s in joined["seats"]] == ["A", "B"]
    error(client.post(f"/api/matches/{m['id']}/join", headers=c["headers"]), 409, "match_not_open")
    assert m["id"] not in [x["id"] for x in client.get("/api/matches?status=open").json()]
    assert m["id"] in [x["id"] for x in client.get("/api/matches?status=live").json()]


def test_leave_before_start(client):
    a, b = guest(client, "Ann"), guest(client, "Bob")
    m = client.post("/api/matches", json={"game": "duell"}, headers=a["headers"]).json()
    left = client.post(f"/api/matches/{m['id']}/leave", headers=a["headers"]).json()
    assert left["status"] == "aborted"
    error(client.post(f"/api/matches/{m['id']}/join", headers=b["headers"]), 409, "match_not_open")


@pytest.mark.parametrize("body,status,code", [
    ({"game": "chess"}, 404, "not_found"),
    ({"game": "duell", "options": {"mode": "blitz"}}, 422, "invalid_options"),
    ({"game": "duell", "options": {"duels_to_win": 0}}, 422, "invalid_options"),
    ({"game": "duell", "options": {"colour": "red"}}, 422, "invalid_options"),
    ({"game": "duell", "extra": 1}, 422, "invalid_message"),
    ({"options": {}}, 422, "invalid_message"),
])
def test_create_rejects_bad_input(client, body, status, code):
    a = guest(client, "Ann")
    error(client.post("/api/matches", json=body, headers=a["headers"]), status, code)


def test_create_needs_identity(client):
    error(client.post("/api/matches", json={"game": "duell"}), 401, "unauthorized")


def test_unknown_match(client):
    a = guest(client, "Ann")
    error(client.get("/api/matches/nope"), 404, "not_found")
    error(client.get("/api/matches/nope/view", headers=a["headers"]), 404, "not_found")
    error(client.post("/api/matches/nope/actions", json={"action": {"type": "parry"}},
                      headers=a["headers"]), 404, "not_found")


# ---------------------------------------------------------------- playing
def test_views_hide_the_other_hand(client):
    mid, p = duell_match(client)
    va, vb = view(client, mid, p["A"]), view(client, mid, p["B"])
    assert va["seat"] == "A" and vb["seat"] == "B"
    assert va["state"]["hand"] and va["state"]["hands"]["B"] is None
    spectator = client.get(f"/api/matches/{mid}/view").json()
    assert spectator["seat"] is None and spectator["legal"] == []
    assert spectator["state"]["hands"] == {"A": None, "B": None}
    # No seed while the match is live: no "seed" key, neither the engine's seed nor the
    # server's secret seed anywhere in the text; the fairness block (docs/fairness.md) shows
    # only the commitment and the players' seeds.
    svc = client.app.state.services
    doc = json.loads(client.portal.call(svc.redis.get, svc.store.k.match(mid)))
    for v in (spectator, va):
        text = json.dumps(v)
        assert '"seed"' not in text
        assert str(doc["seed"]) not in text and doc["fairness"]["server_seed"] not in text
        assert v["fairness"]["server_seed"] is None and v["fairness"]["match_seed"] is None


def test_action_errors(client):
    mid, p = duell_match(client)
    v = view(client, mid, p["A"])
    mover = v["pending"][0]
    other = "B" if mover == "A" else "A"
    legal = view(client, mid, p[mover])["legal"]
    url = f"/api/matches/{mid}/actions"
    outsider = guest(client, "Eve")
    # Someone without a seat cannot act for one.
    error(client.post(url, json={"action": legal[0]}, headers=outsider["headers"]), 403, "forbidden")
    # There is no way to name another seat: unknown field.
    error(client.post(url, json={"action": legal[0], "seat": other}, headers=p[other]["headers"]),
          422, "invalid_message")
    error(client.post(url, json={"action": legal[0]}, headers=p[other]["headers"]), 409, "not_your_turn")
    error(client.post(url, json={"action": {"type": "move", "card": 9, "dir": "forward"}},
                      headers=p[mover]["headers"]), 422, "illegal_action")
    error(client.post(url, json={"action": {"type": "fly"}}, headers=p[mover]["headers"]), 422, "illegal_action")
    error(client.post(url, json={"action": "move"}, headers=p[mover]["headers"]), 422, "invalid_message")
    error(client.post(url, content=b'{"action": ', headers={**p[mover]["headers"], "content-type": "application/json"}),
          422, "invalid_message")
    error(client.post(url, json={"action": legal[0], "version": v["version"] - 1},
                      headers=p[mover]["headers"]), 409, "stale_version")
    big = {"action": {"type": "move", "pad": "x" * (70 * 1024)}}
    error(client.post(url, json=big, headers=p[mover]["headers"]), 413, "too_large")
    # Nothing above changed the match.
    assert view(client, mid, p["A"])["version"] == v["version"]
    ok = client.post(url, json={"action": legal[0], "version": v["version"]}, headers=p[mover]["headers"])
    assert ok.status_code == 200 and ok.json()["version"] == v["version"] + 1


def test_client_seq_makes_http_retries_safe(client):
    mid, p = duell_match(client)
    v = view(client, mid, p["A"])
    mover = v["pending"][0]
    action = view(client, mid, p[mover])["legal"][0]
    url = f"/api/matches/{mid}/actions"
    first = client.post(url, json={"action": action, "client_seq": 1}, headers=p[mover]["headers"])
    again = client.post(url, json={"action": action, "client_seq": 1}, headers=p[mover]["headers"])
    assert first.status_code == again.status_code == 200
    assert first.json()["version"] == again.json()["version"] == v["version"] + 1


def test_resign_ends_the_match_and_match_over(client):
    mid, p = duell_match(client)
    url = f"/api/matches/{mid}/actions"
    r = client.post(url, json={"action": {"type": "resign"}}, headers=p["B"]["headers"])
    assert r.status_code == 200
    v = r.json()
    assert v["status"] == "finished" and v["result"]["winner"] == "A"
    error(client.post(url, json={"action": {"type": "resign"}}, headers=p["A"]["headers"]), 409, "match_over")


def test_openapi_and_health(client):
    assert client.get("/healthz").json() == {"status": "ok"}
    ready = client.get("/readyz").json()
    assert ready["redis"] is True and ready["sql"] is True
    spec = client.get("/openapi.json").json()
    assert "/api/matches/{match_id}/actions" in spec["paths"]
    assert client.get("/docs").status_code == 200
    assert "duelhall_sockets" in client.get("/metrics").text


def test_unknown_path_and_method_are_json_errors(client):
    error(client.get("/api/nowhere"), 404, "not_found")
    r = client.delete("/api/games")
    assert r.status_code == 405 and r.json()["error"]["code"] == "method_not_allowed"


def test_group_tables_for_combat(client):
    host, b, c = guest(client, "Host"), guest(client, "Bea"), guest(client, "Cid")
    fixed = client.post("/api/matches", json={"game": "combat", "options": {"seats": 3}},
                        headers=host["headers"]).json()
    assert fixed["max_players"] == 3
    client.post(f"/api/matches/{fixed['id']}/join", headers=b["headers"])
    error(client.post(f"/api/matches/{fixed['id']}/start", headers=host["headers"]), 409, "table_not_full")
    assert client.post(f"/api/matches/{fixed['id']}/join", headers=c["headers"]).json()["status"] == "live"

    open_table = client.post("/api/matches", json={"game": "combat"}, headers=host["headers"]).json()
    assert open_table["max_players"] == 6
    error(client.post(f"/api/matches/{open_table['id']}/start", headers=host["headers"]), 422, "illegal_action")
    client.post(f"/api/matches/{open_table['id']}/join", headers=b["headers"])
    client.post(f"/api/matches/{open_table['id']}/join", headers=c["headers"])
    left = client.post(f"/api/matches/{open_table['id']}/leave", headers=b["headers"]).json()
    assert [s["user"]["name"] for s in left["seats"]] == ["Host", "Cid"]
    assert [s["seat"] for s in left["seats"]] == ["A", "B"]
    started = client.post(f"/api/matches/{open_table['id']}/start", headers=host["headers"]).json()
    assert started["status"] == "live" and started["options"]["decks"] == 1
    v = client.get(f"/api/matches/{open_table['id']}/view", headers=c["headers"]).json()
    assert v["seat"] == "B" and sorted(v["pending"]) == ["A", "B"]
