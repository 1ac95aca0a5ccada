"""A change and its audit entry commit together or not at all (issue #16): when the audit entry
cannot be written, the change it records is rolled back with it.

Each test replaces ``app.db.accounts.audit`` with one that first reads, in the transaction it
was handed, the change it is about to record (so the patch ran, and ran after the change was
issued), then fails; afterwards nothing of the change is left, and what follows works as if
it had never been tried."""
from __future__ import annotations

import uuid

import pytest
from sqlalchemy import select

from app.db import accounts
from app.db import tournaments as tdb
from app.db.models import Tournament, User
from tests.conftest import account


class AuditDown(Exception):
    pass


@pytest.fixture
def server(settings):
    """A client that answers a server error with a 500 instead of raising it into the test."""
    from fastapi.testclient import TestClient

    from app.main import create_app

    settings.tournament_sweep_seconds = 0
    with TestClient(create_app(settings, run_migrations=False), raise_server_exceptions=False) as c:
        yield c


def sfx() -> str:
    return uuid.uuid4().hex[:6]


def ok(r, status=200):
    assert r.status_code == status, r.text
    return r.json()


def audit_actions(client, admin) -> list[tuple[str, str]]:
    return [(a["action"], a["target"]) for a in ok(client.get("/api/admin/audit", headers=admin["headers"]))]


def failing_audit(seen: list, probe):
    """An ``accounts.audit`` that records what ``probe(session)`` reads in the caller's
    transaction, then fails."""
    async def audit(session, actor_id, action, target, details=None):
        seen.append((action, target, await probe(session)))
        raise AuditDown("the audit log cannot be written")
    return audit


def test_a_role_change_is_rolled_back_when_its_audit_entry_fails(server, monkeypatch):
    client = server
    admin = account(client, "Adm" + sfx(), role="admin")
    bob = account(client, "Bob" + sfx())
    uid = bob["user"]["id"]

    async def role_in_transaction(session):
        return (await session.execute(select(User.role).where(User.id == uid))).scalar_one()

    seen: list = []
    monkeypatch.setattr(accounts, "audit", failing_audit(seen, role_in_transaction))
    r = client.post(f"/api/admin/users/{uid}/role", json={"role": "organiser"}, headers=admin["headers"])
    assert r.status_code == 500, r.text
    # The patch ran, inside the transaction that had already changed the role...
    assert seen == [("grant_role", f"user:{uid}", "organiser")]
    monkeypatch.undo()
    # ...and the role change went with the failed entry: in SQL, in the status cache (Bob still
    # may not organise) and in the audit log.
    row = client.portal.call(accounts.by_id, client.app.state.services.maker, uid)
    assert row.role == "player"
    assert ("grant_role", f"user:{uid}") not in audit_actions(client, admin)
    new_event = {"name": "Cup", "game": "duell", "format": "swiss"}
    assert client.post("/api/tournaments", json=new_event, headers=bob["headers"]).status_code == 403
    # Without the failure the same change lands with its entry.
    assert ok(client.post(f"/api/admin/users/{uid}/role", json={"role": "organiser"},
                          headers=admin["headers"]))["role"] == "organiser"
    assert ("grant_role", f"user:{uid}") in audit_actions(client, admin)
    assert client.post("/api/tournaments", json=new_event, headers=bob["headers"]).status_code == 201


def test_a_tournament_override_is_rolled_back_when_its_audit_entry_fails(server, monkeypatch):
    client = server
    svc = client.app.state.services
    admin = account(client, "Adm" + sfx(), role="admin")
    org = account(client, "Org" + sfx(), role="organiser")
    tid = ok(client.post("/api/tournaments", json={"name": "Cup", "game": "duell", "format": "swiss",
                                                   "settings": {"rounds": 1}},
                         headers=org["headers"]), 201)["id"]
    ok(client.post(f"/api/tournaments/{tid}/open-registration", headers=org["headers"]))
    ps = [account(client, f"P{i}" + sfx()) for i in range(2)]
    for p in ps:
        ok(client.post(f"/api/tournaments/{tid}/register", headers=p["headers"]))
    ok(client.post(f"/api/tournaments/{tid}/open-check-in", headers=org["headers"]))
    for p in ps:
        ok(client.post(f"/api/tournaments/{tid}/check-in", headers=p["headers"]))
    before = ok(client.post(f"/api/tournaments/{tid}/start", headers=org["headers"]))
    (pairing,) = before["current_round"]["pairings"]
    mid = pairing["matches"][0]["id"]
    override = {"result": {"winner": pairing["players"][0]}, "reason": "judge call"}

    async def revision_in_transaction(session):
        return (await session.execute(select(Tournament.revision).where(Tournament.id == tid))).scalar_one()

    seen: list = []
    monkeypatch.setattr(accounts, "audit", failing_audit(seen, revision_in_transaction))
    r = client.post(f"/api/tournaments/{tid}/pairings/{pairing['id']}/override", json=override,
                    headers=org["headers"])
    assert r.status_code == 500, r.text
    # The patch ran, inside the transaction that had already stored the overridden event...
    assert seen == [("tournament_override", f"tournament:{tid}", before["revision"] + 1)]
    monkeypatch.undo()
    # ...and the override went with the failed entry: the event is as it was, its match was not
    # ended, and there is no audit entry.
    ev = client.portal.call(tdb.get, svc.maker, tid)
    assert ev["revision"] == before["revision"]
    assert ev["state"]["matches"][pairing["id"]]["status"] == "pending"
    assert ev["meta"]["pairings"][pairing["id"]]["how"] is None
    assert client.portal.call(svc.store.load, mid)["status"] == "live"
    assert ("tournament_override", f"tournament:{tid}") not in audit_actions(client, admin)
    # The event goes on from where it was: the match is played out and reports itself. (No
    # second override here: the tournament tests count every tournament_override entry.)
    loser = next(p for p in ps if p["user"]["id"] == pairing["players"][1])
    ok(client.post(f"/api/matches/{mid}/actions", json={"action": {"type": "resign"}},
                   headers=loser["headers"]))
    after = ok(client.get(f"/api/tournaments/{tid}"))
    assert after["status"] == "finished" and after["champion"] == pairing["players"][0]
    assert after["current_round"]["pairings"][0]["how"] == "played"
