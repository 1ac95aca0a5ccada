"""/metrics after a played match: live matches, sockets, actions (a counter, for actions/s),
the action latency histogram, the outbox lag (entries and age of the oldest) and errors by code
(each error counted once, over HTTP and over the websocket alike)."""
from __future__ import annotations

from prometheus_client.parser import text_string_to_metric_families

from tests.app.support import duell_match, play_out, view
from tests.support import wait_for


def scrape(client) -> dict:
    """{(sample name, frozenset(labels)): value}."""
    r = client.get("/metrics")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/plain")
    out = {}
    for family in text_string_to_metric_families(r.text):
        for s in family.samples:
            out[(s.name, frozenset(s.labels.items()))] = s.value
    return out


def value(samples: dict, name: str, **labels) -> float:
    return samples.get((name, frozenset(labels.items())), 0.0)


def test_metrics_after_a_played_match(settings):
    from fastapi.testclient import TestClient

    from app.main import create_app

    # No background writer: the outbox keeps what the match wrote until we drain it here.
    quiet = settings.model_copy(update={"run_workers": False})
    with TestClient(create_app(quiet, run_migrations=False)) as client:
        svc = client.app.state.services
        before = scrape(client)
        finished_id, p = duell_match(client)
        live_id, q = duell_match(client, names=("Cid", "Dan"))
        mover = view(client, live_id, q["A"])["pending"][0]
        other = "B" if mover == "A" else "A"
        legal = view(client, live_id, q[mover])["legal"]

        # Errors: one over HTTP, one over the websocket, each counted once.
        r = client.post(f"/api/matches/{live_id}/actions", json={"action": legal[0]},
                        headers=q[other]["headers"])
        assert r.json()["error"]["code"] == "not_your_turn"
        with client.websocket_connect(f"/ws/matches/{live_id}?token={q[other]['token']}") as ws:
            ws.receive_json()
            ws.send_json({"type": "action", "action": legal[0], "client_seq": 1})
            while ws.receive_json()["type"] != "error":
                pass
            last = play_out(client, finished_id, p, seed=3)
            assert last["status"] == "finished"

            def aged():  # one socket open, one match live, the outbox's oldest entry > 1 s old
                metrics = scrape(client)
                return metrics if value(metrics, "duelhall_outbox_oldest_seconds") >= 1.0 else None

            during = wait_for(aged)
        client.portal.call(svc.outbox.drain_all)
        after = scrape(client)
        steps = client.portal.call(svc.store.load, finished_id)["steps"]  # engine steps applied

    assert value(during, "duelhall_sockets") == 1 and value(after, "duelhall_sockets") == 0
    assert value(during, "duelhall_live_matches") == 1  # this test's key space: one still live
    moved = value(after, "duelhall_actions_total", game="duell") - value(before, "duelhall_actions_total", game="duell")
    assert moved == steps > 5
    timed = value(after, "duelhall_action_seconds_count") - value(before, "duelhall_action_seconds_count")
    assert timed == steps
    assert value(after, "duelhall_action_seconds_sum") > value(before, "duelhall_action_seconds_sum")
    assert value(after, "duelhall_action_seconds_bucket", le="+Inf") - \
        value(before, "duelhall_action_seconds_bucket", le="+Inf") == steps
    errors = value(after, "duelhall_client_errors_total", code="not_your_turn") - \
        value(before, "duelhall_client_errors_total", code="not_your_turn")
    assert errors == 2
    # Outbox: every change of both matches waited as a history record, the oldest > 1 s old.
    assert value(during, "duelhall_outbox_lag") >= steps
    assert value(during, "duelhall_outbox_oldest_seconds") >= 1.0
    assert value(after, "duelhall_outbox_lag") == 0 and value(after, "duelhall_outbox_oldest_seconds") == 0

