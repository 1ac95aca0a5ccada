"""Admins review a match exactly as it happened and as each viewer saw it; players report,
rate, rematch; every admin action is audited."""
from __future__ import annotations

import json
import uuid
from datetime import UTC

from games.base import filter_events
from games.registry import get_game
from tests.app.support import play_out, view
from tests.conftest import account, drain


def finished_account_match(client, options=None, seed=1):
    sfx = uuid.uuid4().hex[:6]
    a, b = account(client, "Aki" + sfx), account(client, "Ben" + sfx)
    mid = client.post("/api/matches", json={"game": "duell", "options": options or {"duels_to_win": 1}},
                      headers=a["headers"]).json()["id"]
    client.post(f"/api/matches/{mid}/join", headers=b["headers"])
    last = play_out(client, mid, {"A": a, "B": b}, seed=seed)
    drain(client)
    return mid, {"A": a, "B": b}, last


def test_step_through_as_each_viewer(client):
    admin = account(client, "Rev" + uuid.uuid4().hex[:6], role="admin")
    mid, p, last = finished_account_match(client)
    h = admin["headers"]
    detail = client.get(f"/api/admin/matches/{mid}", headers=h).json()
    n = len(detail["record"]["actions"])
    assert n > 3 and len(detail["log"]["steps"]) == n
    assert set(detail["log"]["seconds_per_seat"]) == {"A", "B"}
    game = get_game("duell")
    # Recompute independently what A saw after each step, and compare with the review API.
    rec = detail["record"]
    state = game.setup(rec["options"], ["A", "B"], rec["seed"])
    for i, a in enumerate(rec["actions"], 1):
        state, events = game.apply(state, a["seat"], a["action"])
        if i in (1, n // 2, n):
            as_a = client.get(f"/api/admin/matches/{mid}/steps/{i}?as=A", headers=h).json()
            assert as_a["state"] == json.loads(json.dumps(game.view(state, "A")))
            assert as_a["events"] == json.loads(json.dumps(filter_events(events, "A")))
            assert as_a["state"]["hands"]["B"] is None
            omni = client.get(f"/api/admin/matches/{mid}/steps/{i}", headers=h).json()
            assert omni["state"]["hands"]["B"] is not None and omni["action"]["action"] == a["action"]
            spec = client.get(f"/api/admin/matches/{mid}/steps/{i}?as=spectator", headers=h).json()
            assert spec["state"]["hands"] == {"A": None, "B": None} and spec["action"]["action"] is None
    final = client.get(f"/api/admin/matches/{mid}/steps/{n}?as=B", headers=h).json()
    assert final["result"] == last["result"]
    assert final["state"] == view(client, mid, p["B"])["state"]
    assert client.get(f"/api/admin/matches/{mid}/steps/{n + 1}", headers=h).status_code == 404
    assert client.get(f"/api/admin/matches/{mid}/steps/1?as=Z", headers=h).status_code == 422


def test_exports_flags_notes_and_audit(client):
    admin = account(client, "Aud" + uuid.uuid4().hex[:6], role="admin")
    h = admin["headers"]
    mid, p, last = finished_account_match(client, seed=2)
    record = client.get(f"/api/admin/matches/{mid}/export.json", headers=h).json()
    from games.replay import replay_record

    assert get_game("duell").result(replay_record(record)) == last["result"]
    text = client.get(f"/api/admin/matches/{mid}/export.txt", headers=h)
    assert text.headers["content-type"].startswith("text/plain")
    body = text.text
    assert p["A"]["user"]["name"] in body and "Result:" in body
    assert body.count("\n") >= len(record["actions"]) + 5
    assert client.post(f"/api/admin/matches/{mid}/flag", json={"flagged": True, "note": "odd timing"},
                       headers=h).json() == {"flagged": True}
    client.post(f"/api/admin/matches/{mid}/notes", json={"text": "looked fine"}, headers=h)
    detail = client.get(f"/api/admin/matches/{mid}", headers=h).json()
    assert detail["flagged"] is True
    assert [n["text"] for n in detail["notes"]] == ["odd timing", "looked fine"]
    flagged = client.get("/api/admin/matches?flagged=true", headers=h).json()
    assert mid in [m["id"] for m in flagged]
    actions = [(a["action"], a["target"]) for a in client.get("/api/admin/audit", headers=h).json()]
    assert ("flag", f"match:{mid}") in actions and ("note", f"match:{mid}") in actions
    assert ("export", f"match:{mid}") in actions


def test_reports_queue(client):
    admin = account(client, "Que" + uuid.uuid4().hex[:6], role="admin")
    mid, p, _ = finished_account_match(client, seed=3)
    outsider = account(client, "Out" + uuid.uuid4().hex[:6])
    assert client.post(f"/api/matches/{mid}/report", json={"reason": "he stalled"},
                       headers=outsider["headers"]).status_code == 403
    assert client.post(f"/api/matches/{mid}/report", json={"reason": "x"},
                       headers=p["A"]["headers"]).status_code == 422
    rep = client.post(f"/api/matches/{mid}/report", json={"reason": "he stalled every turn"},
                      headers=p["A"]["headers"]).json()
    queue = client.get("/api/admin/reports", headers=admin["headers"]).json()
    assert rep["id"] in [r["id"] for r in queue]
    reported = client.get("/api/admin/matches?reported=true", headers=admin["headers"]).json()
    assert mid in [m["id"] for m in reported]
    client.post(f"/api/admin/reports/{rep['id']}/resolve", headers=admin["headers"])
    assert rep["id"] not in [r["id"] for r in client.get("/api/admin/reports", headers=admin["headers"]).json()]


def test_search_filters(client):
    admin = account(client, "Sea" + uuid.uuid4().hex[:6], role="admin")
    h = admin["headers"]
    mid, p, _ = finished_account_match(client, seed=4)
    name = p["A"]["user"]["name"]
    by_player = client.get(f"/api/admin/matches?player={name}", headers=h).json()
    assert [m["id"] for m in by_player] == [mid]
    assert mid in [m["id"] for m in client.get("/api/admin/matches?game=duell&status=finished", headers=h).json()]
    assert mid not in [m["id"] for m in client.get("/api/admin/matches?game=combat", headers=h).json()]
    assert mid not in [m["id"] for m in client.get("/api/admin/matches?min_duration=100000", headers=h).json()]
    assert mid in [m["id"] for m in client.get(f"/api/admin/matches?player={name}&max_duration=100000",
                                               headers=h).json()]
    assert client.get("/api/admin/matches?since=not-a-date", headers=h).status_code == 422


def test_ratings_history_and_leaderboard(client):
    mid, p, last = finished_account_match(client, seed=5)
    winner = last["result"]["winner"]
    assert winner in ("A", "B")  # a Duell match always ends with a winner (drawn duels replay)
    loser = "B" if winner == "A" else "A"
    pw, pl = p[winner]["user"]["id"], p[loser]["user"]["id"]
    rw = client.get(f"/api/users/{pw}").json()["ratings"]
    rl = client.get(f"/api/users/{pl}").json()["ratings"]
    assert rw[0]["game"] == "duell" and rw[0]["matches"] == 1 and rw[0]["wins"] == 1
    assert rw[0]["mu"] > 25 > rl[0]["mu"] and rl[0]["wins"] == 0
    # The whole board (the session's database holds other tests' players too).
    board = client.get("/api/leaderboard/duell?limit=200").json()
    ids = [row["user"]["id"] for row in board]
    assert ids.index(pw) < ids.index(pl)
    wins = client.get(f"/api/users/{pw}/matches?result=win").json()
    assert [m["id"] for m in wins] == [mid]
    assert client.get(f"/api/users/{pl}/matches?result=win").json() == []
    opp = p[loser]["user"]["name"]
    assert [m["id"] for m in client.get(f"/api/users/{pw}/matches?opponent={opp}").json()] == [mid]
    assert client.get(f"/api/users/{pw}/matches?game=combat").json() == []
    # Replaying the same history again does not rate twice.
    svc = client.app.state.services
    from app.db import history

    record = client.portal.call(history.match_record, svc.maker, mid)
    again = {"kind": "match", "at": 0, "match": {**record, "host": None, "steps": 0,
             "created_at": 0, "started_at": 0, "finished_at": 0, "version": record["version"] + 1}}
    client.portal.call(history.write_batch, svc.maker, [again])
    assert client.get(f"/api/users/{pw}").json()["ratings"][0]["matches"] == 1


def test_guests_are_not_rated(client):
    from tests.app.support import duell_match

    mid, p = duell_match(client, {"duels_to_win": 1})
    play_out(client, mid, p, seed=6)
    drain(client)
    assert client.get(f"/api/users/{p['A']['user']['id']}").json()["ratings"] == []


def test_rematch_invites_the_other_player(client):
    mid, p, _ = finished_account_match(client, seed=7)
    with client.websocket_connect(f"/ws/matches/{mid}?token={p['B']['token']}") as wb:
        wb.receive_json()
        new = client.post(f"/api/matches/{mid}/rematch", headers=p["A"]["headers"]).json()
        offer = wb.receive_json()
        assert offer["type"] == "view" and offer["rematch"] == new["id"]
        assert any(e["type"] == "rematch" for e in offer["events"])
    assert new["status"] == "open" and new["seats"][0]["user"]["id"] == p["A"]["user"]["id"]
    # Offered twice (by the other player too): the same new match.
    assert client.post(f"/api/matches/{mid}/rematch", headers=p["B"]["headers"]).json()["id"] == new["id"]
    joined = client.post(f"/api/matches/{new['id']}/join", headers=p["B"]["headers"]).json()
    assert joined["status"] == "live"


def forget_live(client, mid):
    """As if FINISHED_TTL had passed: the match is only in SQL history now."""
    svc = client.app.state.services
    client.portal.call(svc.redis.delete, svc.store.k.match(mid), svc.store.k.events(mid))
    assert client.get(f"/api/matches/{mid}").json()["status"] == "finished"  # from history


def test_rematch_after_the_match_left_redis(client):
    mid, p, _ = finished_account_match(client, options={"duels_to_win": 2, "mode": "tenzone"}, seed=9)
    forget_live(client, mid)
    outsider = account(client, "Out" + uuid.uuid4().hex[:6])
    r = client.post(f"/api/matches/{mid}/rematch", headers=outsider["headers"])
    assert r.status_code == 403 and r.json()["error"]["code"] == "forbidden"
    r = client.post(f"/api/matches/{mid}/rematch", headers=p["B"]["headers"])
    assert r.status_code == 200, r.text
    new = r.json()
    assert new["id"] != mid and new["status"] == "open" and new["game"] == "duell"
    assert new["options"]["mode"] == "tenzone" and new["options"]["duels_to_win"] == 2
    assert [s["user"]["id"] for s in new["seats"]] == [p["B"]["user"]["id"]]
    joined = client.post(f"/api/matches/{new['id']}/join", headers=p["A"]["headers"]).json()
    assert joined["status"] == "live"
    r = client.post("/api/matches/nosuchmatch/rematch", headers=p["A"]["headers"])
    assert r.status_code == 404 and r.json()["error"]["code"] == "not_found"


def test_rematch_from_history_leaves_secret_options_out(client):
    """Párbaj's fixed decks are a secret option: the rebuilt rematch does not carry them (the
    player who offers takes seat A, whose deck was someone else's), so every seat chooses again.
    tests/app/test_secret_decks.py has the tournament case."""
    from games.parbaj.cardpool import POOL

    svc = client.app.state.services
    decks = {"A": list(POOL.decks[next(iter(POOL.decks))]["cards"])}
    sfx = uuid.uuid4().hex[:6]
    a, b = account(client, "Pa" + sfx), account(client, "Pb" + sfx)
    mid = client.post("/api/matches", json={"game": "parbaj", "options": {"decks": decks}},
                      headers=a["headers"]).json()["id"]
    assert client.post(f"/api/matches/{mid}/join", headers=b["headers"]).json()["status"] == "live"
    r = client.post(f"/api/matches/{mid}/actions", json={"action": {"type": "resign"}}, headers=a["headers"])
    assert r.status_code == 200 and r.json()["status"] == "finished", r.text
    drain(client)
    forget_live(client, mid)
    new = client.post(f"/api/matches/{mid}/rematch", headers=b["headers"]).json()
    assert new["options"]["decks"] is None
    stored = client.portal.call(svc.store.load, new["id"])
    assert stored["options"]["decks"] is None and stored["options"]["max_rounds"] == 40


def test_rematch_of_an_unfinished_match_from_history_is_refused(client):
    a = account(client, "Lef" + uuid.uuid4().hex[:6])
    mid = client.post("/api/matches", json={"game": "duell", "options": {}}, headers=a["headers"]).json()["id"]
    assert client.post(f"/api/matches/{mid}/leave", headers=a["headers"]).json()["status"] == "aborted"
    drain(client)
    svc = client.app.state.services
    client.portal.call(svc.redis.delete, svc.store.k.match(mid), svc.store.k.events(mid))
    r = client.post(f"/api/matches/{mid}/rematch", headers=a["headers"])
    assert r.status_code == 409 and r.json()["error"]["code"] == "not_finished"


def test_search_dates_in_any_offset_and_literal_names(client):
    from datetime import datetime, timedelta, timezone

    admin = account(client, "Tz" + uuid.uuid4().hex[:6], role="admin")
    h = admin["headers"]
    mid, p, _ = finished_account_match(client, seed=8)
    plus2 = timezone(timedelta(hours=2))
    before = (datetime.now(UTC) - timedelta(hours=1)).astimezone(plus2).isoformat()
    after = (datetime.now(UTC) + timedelta(hours=1)).astimezone(plus2).isoformat()
    q = lambda **kw: [m["id"] for m in client.get("/api/admin/matches", params=kw, headers=h).json()]  # noqa: E731
    assert mid in q(since=before) and mid not in q(since=after)
    assert mid in q(until=after) and mid not in q(until=before)
    name = p["A"]["user"]["name"]
    assert mid in q(player=name)
    assert mid not in q(player="_" * len(name)), "underscores are literal, not wildcards"


def test_time_taken_counts_from_when_the_seat_was_asked(client):
    from app.review import action_log

    record = {"game": "duel", "options": {}, "seed": 1, "started_at": "2026-01-01T00:00:00Z",
              "seats": [{"seat": "A", "user": None}, {"seat": "B", "user": None}],
              "actions": [
                  {"version": 2, "seat": "A", "kind": "action", "at": "2026-01-01T00:00:10Z",
                   "action": {"type": "duellist", "duellist": "ronin"}},
                  {"version": 3, "seat": "B", "kind": "action", "at": "2026-01-01T00:00:12Z",
                   "action": {"type": "duellist", "duellist": "brute"}},
              ]}
    log = action_log(record)
    # Both were asked at the start of this simultaneous choice: B took 12 s, not 2.
    assert [r["seconds"] for r in log["steps"]] == [10.0, 12.0]
    assert log["seconds_per_seat"] == {"A": 10.0, "B": 12.0}


def test_search_filters_apply_before_the_limit(client):
    """Duration and result filters run in SQL: with newer matches that fail them, a page still
    holds ``limit`` matches that pass, newest first, with their seats and report counts."""
    from datetime import datetime, timedelta

    from app.db.models import Match, MatchSeat, Report, User

    svc = client.app.state.services
    admin = account(client, "Lim" + uuid.uuid4().hex[:6], role="admin")
    tag = uuid.uuid4().hex[:8]
    base = datetime(2031, 1, 1, tzinfo=UTC)

    def row(i, seconds, result):
        return Match(id=f"{tag}{i:02d}", game="duell", status="finished" if result else "aborted",
                     version=9, options={"duels_to_win": 1}, seed=i, host_id=f"u{tag}",
                     result=result, created_at=base + timedelta(minutes=i),
                     started_at=base + timedelta(minutes=i),
                     finished_at=base + timedelta(minutes=i, seconds=seconds))

    decisive = {"places": {"A": 1, "B": 2}, "winner": "A", "draw": False, "reason": "score"}
    draw = {"places": {"A": 1, "B": 1}, "winner": None, "draw": True, "reason": "score"}
    # Oldest first: 0-2 long and decisive (pass), then ten newer ones that fail a filter.
    rows = [row(i, 600 + i, decisive) for i in range(3)]
    rows += [row(3 + i, 30, decisive) for i in range(4)]           # too short
    rows += [row(7 + i, 900, draw) for i in range(4)]              # a draw
    rows += [row(11 + i, 900, None) for i in range(2)]             # aborted: no result

    async def insert():
        async with svc.maker() as session, session.begin():
            session.add(User(id=f"u{tag}", name=f"Lim{tag}", role="player", is_guest=True,
                             created_at=base))
            await session.flush()
            session.add_all(rows)
            await session.flush()
            session.add_all([MatchSeat(match_id=r.id, seat=s, user_id=f"u{tag}" if s == "A" else None,
                                       place=None) for r in rows for s in ("A", "B")])
            session.add(Report(match_id=rows[2].id, user_id=f"u{tag}", reason="test",
                               created_at=base))

    client.portal.call(insert)
    h = admin["headers"]
    since = "2031-01-01T00:00:00Z"

    def ids(query):
        r = client.get(f"/api/admin/matches?since={since}&{query}", headers=h)
        assert r.status_code == 200, r.text
        return [m["id"] for m in r.json() if m["id"].startswith(tag)]

    page = client.get(f"/api/admin/matches?since={since}&min_duration=500&result=decisive&limit=2",
                      headers=h).json()
    assert [m["id"] for m in page] == [rows[2].id, rows[1].id]
    assert page[0]["duration_seconds"] == 602 and page[0]["reports"] == 1 and page[1]["reports"] == 0
    assert [s["seat"] for s in page[0]["seats"]] == ["A", "B"]
    assert page[0]["seats"][0]["user"]["name"] == f"Lim{tag}" and page[0]["seats"][1]["user"] is None
    assert ids("result=draw&limit=3") == [rows[10].id, rows[9].id, rows[8].id]
    assert ids("max_duration=60&limit=50") == [r.id for r in reversed(rows[3:7])]
    assert ids("min_duration=601&max_duration=601.5") == [rows[1].id]
    assert ids("result=decisive&limit=50") == [r.id for r in reversed(rows[:7])]
    assert ids("status=aborted&limit=50") == [rows[12].id, rows[11].id]
