"""Match observers (app/live/service.py): every change a process makes, by a player's move, a
lobby step or a clock, reaches the observers registered in ``Services.observers``; a failing
observer never breaks or undoes the change."""
from __future__ import annotations

import time

from tests.app.support import duell_match, pending_player
from tests.support import wait_for


def _observe(client):
    seen: list[tuple[str, int, str]] = []

    async def observer(svc, doc):
        seen.append((doc["id"], doc["version"], doc["status"]))

    async def broken(svc, doc):
        raise RuntimeError("observer bug")

    svc = client.app.state.services
    svc.observers[:0] = [broken, observer]  # the broken one first: the next still runs
    return seen


def test_moves_and_lobby_changes_reach_observers(client):
    seen = _observe(client)
    mid, players = duell_match(client)
    # The join that started the match was observed.
    assert any(m == mid and status == "live" for m, _, status in seen)
    seat, v = pending_player(client, mid, players)
    r = client.post(f"/api/matches/{mid}/actions", json={"action": v["legal"][0]},
                    headers=players[seat]["headers"])
    assert r.status_code == 200, r.text  # the broken observer did not turn it into an error
    assert (mid, r.json()["version"], "live") in seen
    # The change is stored whatever the observers did.
    assert client.get(f"/api/matches/{mid}").json()["version"] == r.json()["version"]


def test_clock_timeouts_reach_observers(client, monkeypatch):
    from app.live import clocks
    from app.live import store as store_module

    seen = _observe(client)
    mid, players = duell_match(client, {"clock_seconds": 5})
    start = client.get(f"/api/matches/{mid}").json()["version"]
    # The clock loop now sees the deadline as an hour gone. Both names of the clock move: the
    # loop finds due matches with clocks.now, the store fires them with store.now (the same
    # function, imported; patching one name alone waited the real 5 s).
    later = []

    def an_hour_on():
        later.append(time.time() + 3600)
        return later[-1]

    monkeypatch.setattr(clocks, "now", an_hour_on)
    monkeypatch.setattr(store_module, "now", an_hour_on)
    fired = wait_for(lambda: [ver for m, ver, _ in seen if m == mid and ver > start], timeout=20,
                     message="the clock's move was not observed")
    assert client.get(f"/api/matches/{mid}").json()["version"] >= fired[0]
    # The patched clock did it: the next decision's deadline is counted from an hour on.
    doc = client.portal.call(client.app.state.services.store.load, mid)
    assert later and min(doc["deadlines"].values()) > time.time() + 3000
