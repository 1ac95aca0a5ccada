"""The lab over HTTP (app/api/lab.py): an organiser starts a run, follows it, reads the JSON
and HTML reports; the limits and the one-run rule; who may see a run. Runs play in the server's
spawned worker pool, as in production."""
from __future__ import annotations

import time
import uuid

import pytest

from tests.conftest import account


def _wait_done(client, run_id: str, headers: dict, timeout: float = 120) -> dict:
    end = time.time() + timeout
    while True:
        r = client.get(f"/api/lab/runs/{run_id}", headers=headers)
        assert r.status_code == 200, r.text
        run = r.json()
        assert run["status"] != "failed", run
        if run["status"] == "done":
            return run
        assert time.time() < end, run
        time.sleep(0.2)


@pytest.mark.slow
def test_organiser_runs_the_lab_and_reads_the_report(client):
    sfx = uuid.uuid4().hex[:6]
    org = account(client, "Org" + sfx, role="organiser")
    body = {"game": "duell", "games": 40, "bots": ["strong", "random"], "seed": 5,
            "options": {"duels_to_win": 1}, "compare": {"duels_to_win": 2}}
    r = client.post("/api/lab/runs", json=body, headers=org["headers"])
    assert r.status_code == 202, r.text
    run = r.json()
    assert run["status"] in ("queued", "running") and run["progress"] == {"done": 0, "total": 80}
    # One unfinished run per user: the second is refused while the first plays.
    again = client.post("/api/lab/runs", json=body, headers=org["headers"])
    assert again.status_code == 409 and again.json()["error"]["code"] == "lab_busy"
    early = client.get(f"/api/lab/runs/{run['id']}/report.html", headers=org["headers"])
    assert early.status_code in (200, 409)
    if early.status_code == 409:
        assert early.json()["error"]["code"] == "lab_not_finished"
    done = _wait_done(client, run["id"], org["headers"])
    assert done["progress"] == {"done": 80, "total": 80}
    report = done["report"]
    a = report["rule_sets"][0]["report"]
    assert a["games"] == 40 and a["bots"]["strong"]["wins"] >= 30
    assert report["compare"]["length"]["diff"] > 0
    page = client.get(f"/api/lab/runs/{run['id']}/report.html", headers=org["headers"])
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert "<svg" in page.text and "/static/lab.css" in page.text
    mine = client.get("/api/lab/runs", headers=org["headers"]).json()["runs"]
    assert [x["id"] for x in mine][:1] == [run["id"]]
    # Finished: a new run may start.
    small = client.post("/api/lab/runs", json={"game": "combat", "games": 2, "bots": ["random"]},
                        headers=org["headers"])
    assert small.status_code == 202, small.text
    _wait_done(client, small.json()["id"], org["headers"])
    # Another organiser does not see it; an admin does.
    other = account(client, "Org2" + sfx, role="organiser")
    assert client.get(f"/api/lab/runs/{run['id']}", headers=other["headers"]).status_code == 404
    admin = account(client, "Adm" + sfx, role="admin")
    assert client.get(f"/api/lab/runs/{run['id']}", headers=admin["headers"]).status_code == 200


def test_lab_limits_and_roles(client, settings):
    sfx = uuid.uuid4().hex[:6]
    org = account(client, "Lim" + sfx, role="organiser")
    player = account(client, "Pl" + sfx)
    r = client.post("/api/lab/runs", json={"game": "duel", "games": settings.lab_max_games + 1},
                    headers=org["headers"])
    assert r.status_code == 422 and r.json()["error"]["code"] == "invalid_lab_run"
    assert str(settings.lab_max_games) in r.json()["error"]["message"]
    r = client.post("/api/lab/runs", json={"game": "duel", "options": {"health": "lots"}},
                    headers=org["headers"])
    assert r.status_code == 422 and "health" in r.json()["error"]["message"]
    r = client.post("/api/lab/runs", json={"game": "duel", "games": 2, "colour": "red"},
                    headers=org["headers"])
    assert r.status_code == 422 and r.json()["error"]["code"] == "invalid_message"
    r = client.post("/api/lab/runs", json={"game": "duel"}, headers=player["headers"])
    assert r.status_code == 403
    meta = client.get("/api/lab/meta", headers=org["headers"]).json()
    assert meta["max_games"] == settings.lab_max_games and meta["levels"] == ["random", "strong"]
    duel = next(g for g in meta["games"] if g["id"] == "duel")
    assert duel["lineup"] == "duellist" and "brute" in duel["lineups"]


@pytest.mark.slow
def test_a_run_whose_process_died_is_marked_failed_and_frees_the_slot(client):
    """kill -9 leaves no chance to say so: a queued or running run without a heartbeat is
    failed by the next read, and its user may start another at once."""
    import json

    from app.lab import service

    svc = client.app.state.services
    org = account(client, "Dead" + uuid.uuid4().hex[:6], role="organiser")
    uid = org["user"]["id"]
    put = lambda key, value: client.portal.call(svc.redis.set, key, value)  # noqa: E731

    def orphan(run_id: str, status: str, beating: bool) -> None:
        k = service._keys(svc, run_id, uid)
        put(k["run"], json.dumps({"id": run_id, "user": uid, "status": status, "spec": {},
                                  "progress": {"done": 3, "total": 10}, "error": None,
                                  "created": "2026-11-30T00:00:00+00:00", "started": None,
                                  "finished": None, "seconds": None}))
        put(k["active"], run_id)
        client.portal.call(svc.redis.lpush, k["runs"], run_id)
        if beating:
            put(k["alive"], "1")

    small = {"game": "combat", "games": 2, "bots": ["random"]}
    # Still beating: the run stands and the slot stays taken.
    orphan("alive0000000001", "running", beating=True)
    assert client.get("/api/lab/runs/alive0000000001", headers=org["headers"]).json()["status"] == "running"
    r = client.post("/api/lab/runs", json=small, headers=org["headers"])
    assert r.status_code == 409 and "alive0000000001" in r.json()["error"]["message"]
    client.portal.call(svc.redis.delete, service._keys(svc, "alive0000000001")["alive"])
    # Its process is gone: the first read fails it, with a message for the page.
    run = client.get("/api/lab/runs/alive0000000001", headers=org["headers"]).json()
    assert run["status"] == "failed" and run["error"] == service.ORPHANED and run["finished"]
    r = client.post("/api/lab/runs", json=small, headers=org["headers"])
    assert r.status_code == 202, r.text
    _wait_done(client, r.json()["id"], org["headers"])
    # A queued run left behind is found by starting the next one (no read needed first).
    orphan("queued000000001", "queued", beating=False)
    r = client.post("/api/lab/runs", json=small, headers=org["headers"])
    assert r.status_code == 202, r.text
    _wait_done(client, r.json()["id"], org["headers"])
    listed = {x["id"]: x["status"] for x in client.get("/api/lab/runs", headers=org["headers"]).json()["runs"]}
    assert listed["queued000000001"] == "failed" and listed["alive0000000001"] == "failed"
