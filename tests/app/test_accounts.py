"""Accounts: register, log in, log out, change password, roles, suspension, bad input."""
from __future__ import annotations

import time

import jwt
import pytest

from tests.app.support import duell_match
from tests.conftest import account, drain, guest


def err(r, status, code):
    assert r.status_code == status, r.text
    assert r.json()["error"]["code"] == code
    return r.json()["error"]["message"]


def test_register_login_me(client):
    acc = account(client, "Hana")
    me = client.get("/api/me", headers=acc["headers"]).json()
    assert me["name"] == "Hana" and me["guest"] is False and me["role"] == "player"
    r = client.post("/api/auth/login", json={"name": "hana", "password": acc["password"]})
    assert r.status_code == 200 and r.json()["user"]["id"] == acc["user"]["id"]


@pytest.mark.parametrize("body", [
    {"name": "Ann", "password": "short"},
    {"name": "Ann", "password": "x" * 129},
    {"name": "", "password": "long enough"},
    {"name": "A" * 25, "password": "long enough"},
    {"name": "<b>", "password": "long enough"},
    {"name": "Ann", "password": "long enough", "role": "admin"},
    {"name": "Ann"},
])
def test_register_rejects_bad_input_and_stores_nothing(client, body):
    err(client.post("/api/auth/register", json=body), 422, "invalid_message")
    if body.get("name") == "Ann":
        r = client.post("/api/auth/login", json={"name": "Ann", "password": "long enough"})
        assert r.status_code == 401


def test_duplicate_names_ignore_case(client):
    account(client, "Kenji")
    err(client.post("/api/auth/register", json={"name": "KENJI", "password": "another pass"}),
        409, "name_taken")


def test_wrong_password_and_unknown_name_look_the_same(client):
    account(client, "Mei")
    a = err(client.post("/api/auth/login", json={"name": "Mei", "password": "wrong password"}),
            401, "unauthorized")
    b = err(client.post("/api/auth/login", json={"name": "Nobody", "password": "wrong password"}),
            401, "unauthorized")
    assert a == b


def test_login_is_rate_limited_per_name(client):
    acc = account(client, "Ravi")
    for _ in range(5):
        client.post("/api/auth/login", json={"name": "Ravi", "password": "wrong password"})
    # Even the right password is refused while the limit holds.
    err(client.post("/api/auth/login", json={"name": "Ravi", "password": acc["password"]}),
        429, "rate_limited")


def test_logout_revokes_only_that_token(client):
    acc = account(client, "Lea")
    other = client.post("/api/auth/login", json={"name": "Lea", "password": acc["password"]}).json()
    assert client.post("/api/auth/logout", headers=acc["headers"]).status_code == 204
    err(client.get("/api/me", headers=acc["headers"]), 401, "unauthorized")
    assert client.get("/api/me", headers={"Authorization": f"Bearer {other['token']}"}).status_code == 200


def test_change_password_signs_out_other_sessions(client):
    acc = account(client, "Ola")
    err(client.post("/api/auth/password", json={"old_password": "not it at all", "new_password": "new password 1"},
                    headers=acc["headers"]), 403, "wrong_password")
    assert client.get("/api/me", headers=acc["headers"]).status_code == 200  # still signed in
    r = client.post("/api/auth/password", json={"old_password": acc["password"], "new_password": "new password 1"},
                    headers=acc["headers"])
    assert r.status_code == 200
    fresh = {"Authorization": f"Bearer {r.json()['token']}"}
    err(client.get("/api/me", headers=acc["headers"]), 401, "unauthorized")
    assert client.get("/api/me", headers=fresh).status_code == 200
    assert client.post("/api/auth/login", json={"name": "Ola", "password": "new password 1"}).status_code == 200
    err(client.post("/api/auth/login", json={"name": "Ola", "password": acc["password"]}), 401, "unauthorized")
    g = guest(client, "Gus")
    err(client.post("/api/auth/password", json={"old_password": "whatever1", "new_password": "whatever2"},
                    headers=g["headers"]), 403, "forbidden")


def test_expired_and_forged_tokens(client, settings):
    acc = account(client, "Tomas")
    claims = jwt.decode(acc["token"], settings.signing_key(), algorithms=["HS256"])
    expired = jwt.encode({**claims, "exp": int(time.time()) - 1}, settings.signing_key(), algorithm="HS256")
    assert "expired" in err(client.get("/api/me", headers={"Authorization": f"Bearer {expired}"}),
                            401, "unauthorized")
    forged = jwt.encode({**claims, "role": "admin"}, "not-the-key-0123456789abcdef0123456789", algorithm="HS256")
    err(client.get("/api/me", headers={"Authorization": f"Bearer {forged}"}), 401, "unauthorized")
    # A self-made "admin" claim signed with the right key is still overruled by the stored role.
    promoted = jwt.encode({**claims, "role": "admin"}, settings.signing_key(), algorithm="HS256")
    assert client.get("/api/me", headers={"Authorization": f"Bearer {promoted}"}).json()["role"] == "player"


def test_roles_and_suspension(client):
    # Not "Root" (reserved) nor "Bob" (other tests' guests may not take an account's name).
    admin = account(client, "Overseer", role="admin")
    bob = account(client, "Bobbie")
    err(client.get("/api/admin/users", headers=bob["headers"]), 403, "forbidden")
    r = client.post(f"/api/admin/users/{bob['user']['id']}/role", json={"role": "organiser"},
                    headers=admin["headers"])
    assert r.status_code == 200 and r.json()["role"] == "organiser"
    assert client.get("/api/me", headers=bob["headers"]).json()["role"] == "organiser"
    err(client.post(f"/api/admin/users/{bob['user']['id']}/role", json={"role": "king"},
                    headers=admin["headers"]), 422, "invalid_message")

    mid, p = duell_match(client)
    drain(client)  # the guests are in SQL once history has their match
    # Suspend a player in the middle of a match: no more acting, no logging in.
    ann = p["A"]
    r = client.post(f"/api/admin/users/{ann['user']['id']}/suspend", json={"reason": "abuse"},
                    headers=admin["headers"])
    assert r.status_code == 200 and r.json()["suspended"] is True
    err(client.post(f"/api/matches/{mid}/actions", json={"action": {"type": "resign"}},
                    headers=ann["headers"]), 403, "suspended")
    with client.websocket_connect(f"/ws/matches/{mid}?token={ann['token']}") as ws:
        assert ws.receive_json()["code"] == "suspended"
    client.post(f"/api/admin/users/{bob['user']['id']}/suspend", json={"reason": "test"}, headers=admin["headers"])
    err(client.post("/api/auth/login", json={"name": "Bobbie", "password": bob["password"]}), 403, "suspended")
    client.post(f"/api/admin/users/{bob['user']['id']}/restore", headers=admin["headers"])
    assert client.post("/api/auth/login", json={"name": "Bobbie", "password": bob["password"]}).status_code == 200
    err(client.post(f"/api/admin/users/{admin['user']['id']}/suspend", json={"reason": "oops"},
                    headers=admin["headers"]), 403, "forbidden")
    audit = [a for a in client.get("/api/admin/audit", headers=admin["headers"]).json()
             if a["actor_id"] == admin["user"]["id"]]
    assert [a["action"] for a in audit] == ["restore", "suspend", "suspend", "grant_role"]
    assert audit[-1]["target"] == f"user:{bob['user']['id']}" and audit[-1]["details"] == {"role": "organiser"}


def test_create_admin_cli(settings):
    import asyncio

    from app.cli import create_admin

    out = asyncio.run(create_admin(settings, "Chief", "a long password"))
    assert out.startswith("created admin Chief")
    assert "now an admin" in asyncio.run(create_admin(settings, "chief", "a long password"))
    with pytest.raises(ValueError):
        asyncio.run(create_admin(settings, "Chief2", "short"))


def test_standing_is_checked_on_every_socket_action(client):
    """A socket's actions are checked inside the store's write (app.auth.standing_guard): an
    account whose cached status has expired still plays (the status is reloaded from SQL);
    a suspension, a password change elsewhere, or signing out stops the next action, and
    nothing is written."""
    from app.auth import status_key

    admin = account(client, "Warden", role="admin")
    ann, bob = account(client, "Ines"), account(client, "Joao")
    svc = client.app.state.services
    r = client.post("/api/matches", json={"game": "duell", "options": {}}, headers=ann["headers"])
    mid = r.json()["id"]
    assert client.post(f"/api/matches/{mid}/join", headers=bob["headers"]).json()["status"] == "live"
    players = {"A": ann, "B": bob}

    def mover():
        v = client.get(f"/api/matches/{mid}/view", headers=ann["headers"]).json()
        seat = v["pending"][0]
        w = client.get(f"/api/matches/{mid}/view", headers=players[seat]["headers"]).json()
        return players[seat], w

    def act_on_socket(player, view, seq):
        with client.websocket_connect(f"/ws/matches/{mid}?token={player['token']}") as ws:
            assert ws.receive_json()["type"] == "view"
            ws.send_json({"type": "action", "action": view["legal"][0], "client_seq": seq})
            while True:
                msg = ws.receive_json()
                if msg["type"] in ("ack", "error"):
                    return msg

    # The status cache of the mover is gone (expired): the action still goes through.
    p, v = mover()
    client.portal.call(svc.redis.delete, status_key(svc, p["user"]["id"]))
    msg = act_on_socket(p, v, 1)
    assert msg["type"] == "ack" and msg["version"] == v["version"] + 1
    assert client.portal.call(svc.redis.get, status_key(svc, p["user"]["id"])) is not None

    # Suspended between two actions: refused with the reason, nothing written.
    p, v = mover()
    with client.websocket_connect(f"/ws/matches/{mid}?token={p['token']}") as ws:
        assert ws.receive_json()["type"] == "view"
        client.post(f"/api/admin/users/{p['user']['id']}/suspend", json={"reason": "abuse"},
                    headers=admin["headers"])
        ws.send_json({"type": "action", "action": v["legal"][0], "client_seq": 2})
        msg = ws.receive_json()
        assert msg["type"] == "error" and msg["code"] == "suspended"
    assert client.get(f"/api/matches/{mid}/view", headers=admin["headers"]).json()["version"] == v["version"]
    client.post(f"/api/admin/users/{p['user']['id']}/restore", headers=admin["headers"])

    # Signed out on another device (this token revoked): the open socket's next action is refused.
    p, v = mover()
    with client.websocket_connect(f"/ws/matches/{mid}?token={p['token']}") as ws:
        assert ws.receive_json()["type"] == "view"
        assert client.post("/api/auth/logout", headers=p["headers"]).status_code == 204
        ws.send_json({"type": "action", "action": v["legal"][0], "client_seq": 3})
        msg = ws.receive_json()
        assert msg["type"] == "error" and msg["code"] == "unauthorized"
    assert client.get(f"/api/matches/{mid}/view", headers=admin["headers"]).json()["version"] == v["version"]
