"""Tournaments over HTTP: the life cycle, matches that report themselves, and every rule the
service adds to the core (docs/tournaments.md, "The service").

The big one runs a whole 8-player Swiss + top-4 Párbaj event: registered accounts, starter
decks, check-in, start, every match played through the real match API (random legal moves,
then a resignation), results reporting themselves, rounds pairing themselves, and the final
standings and champion checked against the tournament core fed the same results.

Tests that need time use a fake clock (``app.clock.now`` and the store's ``now``) and drive the
sweep by hand (``tournament_sweep_seconds=0``)."""
from __future__ import annotations

import asyncio
import csv
import io
import json
import random
import uuid

import pytest

import app.tournaments as T
from app import clock as clock_mod
from app.db import accounts
from app.db import tournaments as tdb
from app.live import store as store_mod
from app.tournaments import corrections, lifecycle_changes, results, writes
from app.tournaments import matchplay as MP
from app.tournaments import sweep as tour_sweep
from games.bots import choose
from tests.conftest import account, guest
from tests.support import async_wait_for

# ------------------------------------------------------------------------------ helpers


def err(r, status, code):
    assert r.status_code == status, r.text
    assert r.json()["error"]["code"] == code, r.text
    return r.json()["error"]


def ok(r, status=200):
    assert r.status_code == status, r.text
    return r.json()


def sfx() -> str:
    return uuid.uuid4().hex[:6]


@pytest.fixture
def org(client):
    return account(client, "Org" + sfx(), role="organiser")


@pytest.fixture
def manual_client(settings):
    """A client whose tournament sweep is off: tests call ``sweep.sweep_once`` themselves."""
    from fastapi.testclient import TestClient

    from app.main import create_app

    settings.tournament_sweep_seconds = 0
    with TestClient(create_app(settings, run_migrations=False)) as c:
        yield c


@pytest.fixture
def clock(monkeypatch):
    """A controllable time for the tournament service and the match store."""
    t = {"now": 1_900_000_000.0}
    monkeypatch.setattr(clock_mod, "now", lambda: t["now"])
    monkeypatch.setattr(store_mod, "now", lambda: t["now"])
    return t


def sweep(client):
    client.portal.call(tour_sweep.sweep_once, client.app.state.services)


def make_event(client, org, game="duell", fmt="swiss", name="Cup", **settings) -> str:
    settings.setdefault("round_break_seconds", 0)
    body = ok(client.post("/api/tournaments", json={"name": name, "game": game, "format": fmt,
                                                     "settings": settings}, headers=org["headers"]), 201)
    return body["id"]


def step(client, org, tid, what):
    return ok(client.post(f"/api/tournaments/{tid}/{what}", headers=org["headers"]))


def starter_decks(client) -> list[list[str]]:
    return [d["cards"] for d in ok(client.get("/api/parbaj/starter-decks"))]


def players(client, n, prefix="P") -> list[dict]:
    return [account(client, f"{prefix}{i}{sfx()}") for i in range(n)]


def enter(client, tid, p, cards=None):
    body = {"deck": {"cards": cards}} if cards is not None else None
    return client.post(f"/api/tournaments/{tid}/register", json=body, headers=p["headers"])


def running_event(client, org, n, game="duell", fmt="swiss", **settings):
    """An event started with ``n`` checked-in players; returns (tid, players, detail)."""
    tid = make_event(client, org, game=game, fmt=fmt, **settings)
    step(client, org, tid, "open-registration")
    ps = players(client, n)
    decks = starter_decks(client) if game == "parbaj" else None
    for i, p in enumerate(ps):
        ok(enter(client, tid, p, decks[i % len(decks)] if decks else None))
    step(client, org, tid, "open-check-in")
    for p in ps:
        ok(client.post(f"/api/tournaments/{tid}/check-in", headers=p["headers"]))
    return tid, ps, step(client, org, tid, "start")


def detail(client, tid, who=None):
    return ok(client.get(f"/api/tournaments/{tid}", headers=who["headers"] if who else None))


def by_id(ps) -> dict:
    return {p["user"]["id"]: p for p in ps}


def live_match(client, tid, pairing_id):
    d = detail(client, tid)
    p = next(p for p in d["current_round"]["pairings"] if p["id"] == pairing_id)
    return p["matches"][-1]["id"]


def view(client, mid, p):
    return ok(client.get(f"/api/matches/{mid}/view", headers=p["headers"]))


def act(client, mid, p, action):
    return client.post(f"/api/matches/{mid}/actions", json={"action": action}, headers=p["headers"])


def play(client, mid, people: dict, rnd: random.Random, resign_after: int | None = None) -> dict:
    """Play random legal moves through the match API; after ``resign_after`` moves the seat to
    move resigns. Returns the last view."""
    for n in range(5000):
        anyone = next(iter(people.values()))
        v = view(client, mid, anyone)
        if v["status"] != "live":
            return v
        seat = v["pending"][0]
        uid = next(s["user"]["id"] for s in v["players"] if s["seat"] == seat)
        me = view(client, mid, people[uid])
        if resign_after is not None and n >= resign_after:
            action = {"type": "resign"}
        else:
            action = choose(me["game"], "random", me, rnd)
        r = act(client, mid, people[uid], action)
        assert r.status_code in (200, 409), r.text  # 409: the match ended meanwhile
    raise AssertionError("match did not end")


def resign(client, mid, p):
    ok(act(client, mid, p, {"type": "resign"}))


def pairing(d, pid):
    rnd = d["current_round"]
    return next(p for p in rnd["pairings"] if p["id"] == pid)


def audit_entries(client, action):
    svc = client.app.state.services
    return [a for a in client.portal.call(accounts.audit_log, svc.maker) if a["action"] == action]


# ------------------------------------------------------------------------------ the whole event


@pytest.mark.slow
def test_swiss_with_top_cut_parbaj_event_runs_itself_to_the_end(client, org):
    """8 players, 3 Swiss rounds (best of 1) and a top 4 (best of 3), every match played through
    the match API; results and pairings happen by themselves."""
    rnd = random.Random(7)
    tid, ps, d = running_event(client, org, 8, game="parbaj", fmt="swiss", top_cut=4,
                               top_cut_best_of=3, game_options={"max_rounds": 6})
    people = by_id(ps)
    assert d["status"] == "running" and d["round"] == 1 and len(d["current_round"]["pairings"]) == 4
    played_rounds = set()
    for _ in range(40):
        d = detail(client, tid)
        if d["status"] == "finished":
            break
        open_ = [p for p in d["current_round"]["pairings"] if p["status"] == "pending"]
        assert open_, "a round with nothing to play must pair the next one by itself"
        played_rounds.add(d["round"])
        for p in open_:
            mid = p["matches"][-1]["id"]
            seats = {u: people[u] for u in p["players"]}
            # A cut match plays the best of 3 in one Párbaj match; when it ends level, a best-of-1
            # decider follows (sudden death).
            v = view(client, mid, seats[p["players"][0]])
            decider = len(p["matches"]) > 1
            assert p["stage"] == "cut" or not decider
            assert v["status"] == "live" and v["options"].get("best_of") == (
                3 if p["stage"] == "cut" and not decider else 1)
            play(client, mid, seats, rnd, resign_after=rnd.choice([6, 20, 60, None]))
    assert d["status"] == "finished", d["status"]
    assert played_rounds == {1, 2, 3, 4, 5}  # 3 Swiss rounds, semi-finals, final

    # The same results fed to the core give the same pairings, standings and champion.
    state = client.portal.call(tdb.get, client.app.state.services.maker, tid)["state"]
    again = T.create("swiss", [{"id": p["id"], "rating": p["rating"]} for p in
                               sorted(state["players"], key=lambda p: p["seed"])],
                     {**state["options"], "seeding": "manual"})
    export = ok(client.get(f"/api/tournaments/{tid}/export.json"))
    assert [r["round"] for r in export["rounds"]] == [1, 2, 3, 4, 5]
    for rnd_view in export["rounds"]:
        again, opened = T.next_pairings(again)
        assert [(p["id"], p["players"]) for p in opened] == \
               [(p["id"], p["players"]) for p in rnd_view["pairings"]]
        for p in rnd_view["pairings"]:
            if p["status"] == "done" and not p["bye"]:
                assert p["how"] in ("played", "time", "no_show")
                again = T.report(again, p["id"], p["result"])
    assert T.is_finished(again)
    assert T.standings(again) == export["standings"]
    assert T.champion(again) == export["champion"] == d["champion"]
    final = next(p for p in export["rounds"][-1]["pairings"] if p["stage"] == "cut")
    assert final["winner"] == d["champion"]
    # Every cut match went to a Párbaj best-of-3 match (or more, when a match ended level).
    for r in export["rounds"][3:]:
        for p in r["pairings"]:
            assert p["matches"] and all(m["recorded"] for m in p["matches"])


# ------------------------------------------------------------------------------ registration


def test_guests_cannot_enter_and_only_the_organiser_runs_the_event(client, org):
    tid = make_event(client, org)
    other_org = account(client, "Other" + sfx(), role="organiser")
    err(client.post(f"/api/tournaments/{tid}/open-registration", headers=other_org["headers"]), 403, "forbidden")
    plain = account(client, "Plain" + sfx())
    err(client.post("/api/tournaments", json={"name": "x", "game": "duell", "format": "swiss"},
                    headers=plain["headers"]), 403, "forbidden")
    # Drafts are invisible to everybody but their organiser (and admins).
    err(client.get(f"/api/tournaments/{tid}"), 404, "not_found")
    assert tid not in [t["id"] for t in ok(client.get("/api/tournaments"))]
    assert tid in [t["id"] for t in ok(client.get("/api/tournaments", headers=org["headers"]))]
    err(enter(client, tid, plain), 404, "not_found")
    step(client, org, tid, "open-registration")
    g = guest(client, "Visitor")
    err(enter(client, tid, g), 403, "account_required")
    assert ok(client.get("/api/tournaments?status=registration&game=duell"))[0]["id"] == tid
    assert tid not in [t["id"] for t in ok(client.get("/api/tournaments?game=parbaj"))]


def test_bad_settings_are_refused(client, org):
    def create(**body):
        return client.post("/api/tournaments", json={"name": "x", "game": "duell", "format": "swiss", **body},
                           headers=org["headers"])
    err(create(game="combat"), 422, "unsupported_game")
    err(create(game="chess"), 422, "unsupported_game")
    err(create(format="ladder"), 422, "invalid_message")
    err(create(settings={"best_of": 2}), 422, "invalid_options")
    err(create(settings={"top_cut": 3}), 422, "invalid_options")
    err(create(format="round_robin", settings={"top_cut": 4}), 422, "invalid_options")
    err(create(game="parbaj", settings={"best_of": 7}), 422, "invalid_options")
    err(create(game="parbaj", settings={"game_options": {"decks": None}}), 422, "invalid_options")
    err(create(settings={"game_options": {"duels_to_win": 99}}), 422, "invalid_options")
    err(create(settings={"cap": 1}), 422, "invalid_options")
    err(create(settings={"colour": "red"}), 422, "invalid_message")
    tid = make_event(client, org)
    r = client.patch(f"/api/tournaments/{tid}", json={"settings": {"cap": 16, "round_minutes": 50}},
                     headers=org["headers"])
    assert ok(r)["settings"]["cap"] == 16 and r.json()["settings"]["round_minutes"] == 50
    step(client, org, tid, "open-registration")
    err(client.patch(f"/api/tournaments/{tid}", json={"name": "late"}, headers=org["headers"]), 409, "wrong_status")
    err(client.post(f"/api/tournaments/{tid}/start", headers=org["headers"]), 409, "wrong_status")


def test_cap_waitlist_promotion_and_check_in_at_the_start(client, org):
    tid = make_event(client, org, cap=2)
    step(client, org, tid, "open-registration")
    a, b, c, d = players(client, 4)
    assert ok(enter(client, tid, a))["entrant"]["status"] == "registered"
    assert ok(enter(client, tid, b))["entrant"]["status"] == "registered"
    me_c = ok(enter(client, tid, c))["entrant"]
    assert me_c["status"] == "waitlisted" and me_c["waitlist_position"] == 1
    assert ok(enter(client, tid, d))["entrant"]["waitlist_position"] == 2
    err(enter(client, tid, a), 409, "already_registered")
    # A withdrawal frees a place for the first on the waitlist.
    ok(client.post(f"/api/tournaments/{tid}/withdraw", headers=a["headers"]))
    assert ok(client.get(f"/api/tournaments/{tid}/me", headers=c["headers"]))["entrant"]["status"] == "registered"
    assert ok(client.get(f"/api/tournaments/{tid}/me", headers=d["headers"]))["entrant"]["waitlist_position"] == 1
    err(client.post(f"/api/tournaments/{tid}/withdraw", headers=a["headers"]), 409, "not_registered")
    err(client.post(f"/api/tournaments/{tid}/check-in", headers=b["headers"]), 409, "check_in_closed")
    step(client, org, tid, "open-check-in")
    # b checks in, c (registered) does not, d (waitlisted) checks in to fill a place.
    ok(client.post(f"/api/tournaments/{tid}/check-in", headers=b["headers"]))
    ok(client.post(f"/api/tournaments/{tid}/check-in", headers=d["headers"]))
    started = step(client, org, tid, "start")
    status = {e["user"]["id"]: e["status"] for e in started["entrants"]}
    assert status[b["user"]["id"]] == "playing" and status[d["user"]["id"]] == "playing"
    assert status[c["user"]["id"]] == "not_checked_in" and status[a["user"]["id"]] == "withdrawn"
    assert sorted(started["current_round"]["pairings"][0]["players"]) == sorted([b["user"]["id"], d["user"]["id"]])
    err(client.post(f"/api/tournaments/{tid}/withdraw", headers=b["headers"]), 409, "registration_closed")


def test_deck_validation_and_lock_at_check_in(client, org):
    tid = make_event(client, org, game="parbaj")
    step(client, org, tid, "open-registration")
    a, b = players(client, 2)
    bad = err(enter(client, tid, a, ["no-such-card"] * 20), 422, "invalid_deck")
    assert {p["code"] for p in bad["problems"]} >= {"unknown_card", "too_many_cards"}
    # Someone else's saved deck is answered like a missing one.
    good = starter_decks(client)[0]
    saved = ok(client.post("/api/decks", json={"name": "Mine", "cards": good}, headers=b["headers"]), 201)
    err(client.post(f"/api/tournaments/{tid}/register", json={"deck": {"deck_id": saved["id"]}},
                    headers=a["headers"]), 404, "not_found")
    ok(enter(client, tid, a))  # no deck yet: allowed until check-in
    c = account(client, "Starter" + sfx())
    err(client.post(f"/api/tournaments/{tid}/register", json={"deck": {"starter": "nope"}}, headers=c["headers"]),
        404, "not_found")
    starter = ok(client.get("/api/parbaj/starter-decks"))[2]
    me_c = ok(client.post(f"/api/tournaments/{tid}/register", json={"deck": {"starter": starter["id"]}},
                          headers=c["headers"]))
    assert me_c["entrant"]["deck_name"] == starter["name"] and sorted(me_c["entrant"]["deck"]) == sorted(
        starter["cards"])
    err(client.post(f"/api/tournaments/{tid}/register", json={"deck": {"starter": starter["id"], "cards": good}},
                    headers=account(client, "Both" + sfx())["headers"]), 422, "invalid_message")
    ok(client.post(f"/api/tournaments/{tid}/withdraw", headers=c["headers"]))
    ok(client.post(f"/api/tournaments/{tid}/register", json={"deck": {"deck_id": saved["id"]}}, headers=b["headers"]))
    step(client, org, tid, "open-check-in")
    err(client.post(f"/api/tournaments/{tid}/check-in", headers=a["headers"]), 409, "deck_required")
    err(client.put(f"/api/tournaments/{tid}/deck", json={"cards": good[:-1] + ["nope"]}, headers=a["headers"]),
        422, "invalid_deck")
    me = ok(client.put(f"/api/tournaments/{tid}/deck", json={"cards": good}, headers=a["headers"]))
    assert me["entrant"]["deck"] == good and me["can"]["change_deck"]
    me = ok(client.post(f"/api/tournaments/{tid}/check-in", headers=a["headers"]))
    assert me["entrant"]["deck_locked"] and not me["can"]["change_deck"]
    err(client.put(f"/api/tournaments/{tid}/deck", json={"cards": starter_decks(client)[1]}, headers=a["headers"]),
        409, "deck_locked")
    ok(client.post(f"/api/tournaments/{tid}/check-in", headers=b["headers"]))
    # Lists: the organiser sees both, a player their own only (closed lists).
    assert len(ok(client.get(f"/api/tournaments/{tid}/decks", headers=org["headers"]))) == 2
    mine = ok(client.get(f"/api/tournaments/{tid}/decks", headers=a["headers"]))
    assert [d["user"]["id"] for d in mine] == [a["user"]["id"]]
    assert "deck" not in json.dumps(detail(client, tid)["entrants"]).replace('"has_deck"', "").replace(
        '"deck_locked"', "")
    d = step(client, org, tid, "start")
    mid = d["current_round"]["pairings"][0]["matches"][0]["id"]
    # The match plays the registered decks: no deck choice left to make.
    v = view(client, mid, a)
    assert v["state"]["phase"] == "first" and v["state"]["players"][v["seat"]]["deck"] == sorted(good)


# ------------------------------------------------------------------------------ running


def test_late_entry_only_until_half_the_swiss_rounds_have_started(client, org):
    tid, ps, d = running_event(client, org, 3, rounds=4)
    late = account(client, "Late" + sfx())
    me = ok(enter(client, tid, late))
    assert me["entrant"]["status"] == "playing" and me["entrant"]["late"]
    standing = next(r for r in detail(client, tid)["standings"] if r["player"] == late["user"]["id"])
    assert standing["losses"] == 1 and standing["rounds"] == 1  # the round already started counts as lost
    people = by_id(ps + [late])
    for p in detail(client, tid)["current_round"]["pairings"]:
        if p["status"] == "pending":
            resign(client, p["matches"][-1]["id"], people[p["players"][1]])
    d = detail(client, tid)
    assert d["round"] == 2 and late["user"]["id"] in {x for p in d["current_round"]["pairings"] for x in p["players"]}
    too_late = account(client, "TooLate" + sfx())
    e = err(enter(client, tid, too_late), 409, "late_entry_closed")
    assert "half" in e["message"]
    # Other formats take no late entries.
    tid2, _, _ = running_event(client, org, 2, fmt="single_elimination")
    err(enter(client, tid2, too_late), 409, "registration_closed")


def test_drop_mid_round_forfeits_the_open_match_and_ends_it(client, org):
    tid, ps, d = running_event(client, org, 4, rounds=2)
    people = by_id(ps)
    p1 = d["current_round"]["pairings"][0]
    quitter, stayer = p1["players"]
    mid = p1["matches"][0]["id"]
    me = ok(client.post(f"/api/tournaments/{tid}/drop", headers=people[quitter]["headers"]))
    assert me["can"]["drop"] is False
    d = detail(client, tid)
    assert pairing(d, p1["id"])["winner"] == stayer and pairing(d, p1["id"])["forfeit"]
    assert pairing(d, p1["id"])["how"] == "drop"
    v = view(client, mid, people[stayer])
    assert v["status"] == "finished" and v["result"]["reason"] == "decided"
    err(client.post(f"/api/tournaments/{tid}/drop", headers=people[quitter]["headers"]), 409, "already_dropped")
    other = d["current_round"]["pairings"][1]
    resign(client, other["matches"][0]["id"], people[other["players"][0]])
    d = detail(client, tid)
    assert d["round"] == 2
    paired = {x for p in d["current_round"]["pairings"] for x in p["players"]}
    assert quitter not in paired and len(paired - {None}) == 3  # three players: one bye
    assert any(p["bye"] for p in d["current_round"]["pairings"])


def test_best_of_three_in_separate_matches_alternates_seat_a(client, org):
    tid, ps, d = running_event(client, org, 2, best_of=3)
    people = by_id(ps)
    p = d["current_round"]["pairings"][0]
    first = p["matches"][0]
    assert first["seat_a"] == p["starts"][0]
    v = view(client, first["id"], people[first["seat_a"]])
    assert v["seat"] == "A"
    resign(client, first["id"], people[p["players"][1]])          # game 1 to players[0]
    p = pairing(detail(client, tid), p["id"])
    assert p["status"] == "pending" and len(p["matches"]) == 2
    second = p["matches"][1]
    assert second["seat_a"] == p["starts"][1] != first["seat_a"]
    resign(client, second["id"], people[p["players"][1]])         # game 2 too: 2-0
    d = detail(client, tid)
    assert d["status"] == "finished"
    final = d["standings"][0]
    assert final["player"] == p["players"][0] and final["game_wins"] == 2


def test_reporting_someone_elses_match_is_forbidden_and_reports_are_idempotent(manual_client, org):
    client = manual_client
    tid, ps, d = running_event(client, org, 4, rounds=1)
    people = by_id(ps)
    p1, p2 = d["current_round"]["pairings"]
    mid = p1["matches"][0]["id"]
    outsider = people[p2["players"][0]]
    err(client.post(f"/api/tournaments/{tid}/matches/{mid}/report", headers=outsider["headers"]), 403, "forbidden")
    err(client.post(f"/api/tournaments/{tid}/matches/{mid}/report", headers=people[p1["players"][0]]["headers"]),
        409, "not_finished")
    svc = client.app.state.services
    # Observer off: the match ends and nothing reports it...
    svc.observers.remove(results.on_match_change)
    try:
        resign(client, mid, people[p1["players"][1]])
        assert pairing(detail(client, tid), p1["id"])["status"] == "pending"
        sweep(client)  # ...until the sweep finds it
        rev = detail(client, tid)["revision"]
        assert pairing(detail(client, tid), p1["id"])["winner"] == p1["players"][0]
        # The observer firing late, the sweep again, a player's nudge: nothing changes.
        doc = client.portal.call(svc.store.load, mid)
        client.portal.call(results.on_match_change, svc, doc)
        sweep(client)
        r = ok(client.post(f"/api/tournaments/{tid}/matches/{mid}/report", headers=people[p1["players"][0]]["headers"]))
        assert r["winner"] == p1["players"][0]
        assert detail(client, tid)["revision"] == rev
    finally:
        svc.observers.append(results.on_match_change)
    # With the observer back, the other match reports itself at once.
    resign(client, p2["matches"][0]["id"], people[p2["players"][0]])
    assert detail(client, tid)["status"] == "finished"


def test_no_show_loses_after_the_configured_time(manual_client, org, clock):
    client = manual_client
    tid, ps, d = running_event(client, org, 4, rounds=1, noshow_seconds=120)
    people = by_id(ps)
    absent_pairing, present_pairing = d["current_round"]["pairings"]
    # In the second match both players make a move in time; in the first nobody moves.
    mid2 = present_pairing["matches"][0]["id"]
    rnd = random.Random(1)
    for _ in range(10):
        if len(_moved(client, mid2)) == 2:
            break
        v = view(client, mid2, people[present_pairing["players"][0]])
        uid = next(s["user"]["id"] for s in v["players"] if s["seat"] == v["pending"][0])
        ok(act(client, mid2, people[uid], choose("duell", "random", view(client, mid2, people[uid]), rnd)))
    assert len(_moved(client, mid2)) == 2
    clock["now"] += 119
    sweep(client)
    assert pairing(detail(client, tid), absent_pairing["id"])["status"] == "pending"
    clock["now"] += 2
    sweep(client)
    d = detail(client, tid)
    p = pairing(d, absent_pairing["id"])
    mid1 = p["matches"][0]["id"]
    v = view(client, mid1, people[p["players"][0]])
    # Only the seat the match waited for was absent; the other had nothing to do yet.
    absent_seat = v["result"]["absent"]
    assert v["status"] == "finished" and v["result"]["reason"] == "no_show" and len(absent_seat) == 1
    absent_user = next(s["user"]["id"] for s in v["players"] if s["seat"] == absent_seat[0])
    assert p["how"] == "no_show" and p["forfeit"] and p["loser"] == absent_user
    # Both players of the other match moved: no no-show, the match goes on.
    assert pairing(d, present_pairing["id"])["status"] == "pending"
    assert view(client, mid2, people[present_pairing["players"][0]])["status"] == "live"
    clock["now"] += 1000
    sweep(client)
    assert pairing(detail(client, tid), present_pairing["id"])["status"] == "pending"


def _moved(client, mid) -> dict:
    svc = client.app.state.services
    return client.portal.call(svc.store.load, mid).get("moved", {})


def test_round_timer_ends_open_matches_by_the_game_score(manual_client, org, clock):
    """Time called: the game in progress does not count; more game wins takes the match; level
    is a draw in Swiss, and the higher seed advances in elimination."""
    client = manual_client
    tid, ps, d = running_event(client, org, 4, rounds=1, best_of=3, round_minutes=30, noshow_seconds=None)
    people = by_id(ps)
    ahead, level = d["current_round"]["pairings"]
    resign(client, ahead["matches"][0]["id"], people[ahead["players"][1]])  # 1-0, game 2 under way
    clock["now"] += 30 * 60 - 1
    sweep(client)
    assert detail(client, tid)["status"] == "running"
    clock["now"] += 2
    sweep(client)
    d = detail(client, tid)
    a, lv = pairing(d, ahead["id"]), pairing(d, level["id"])
    assert a["how"] == "time" and a["winner"] == ahead["players"][0] and a["result"]["games"] == [1, 0]
    assert lv["how"] == "time" and lv["winner"] is None and lv["result"]["games"] == [0, 0]
    for m in (a["matches"][1]["id"], lv["matches"][0]["id"]):
        v = view(client, m, ps[0])
        assert v["status"] == "finished" and v["result"]["reason"] == "time"
    assert d["status"] == "finished"

    tid, ps, d = running_event(client, org, 2, fmt="single_elimination", round_minutes=10, noshow_seconds=None)
    clock["now"] += 601
    sweep(client)
    d = detail(client, tid)
    final = d["current_round"]["pairings"][0]
    assert final["winner"] == final["players"][0] and final["seeds"][0] == 1 and final["result"]["games"] == [1, 0]
    assert d["status"] == "finished" and d["champion"] == final["players"][0]


def test_override_with_reason_is_audited_and_disputes_hold_pairing(manual_client, org, clock):
    client = manual_client
    tid, ps, d = running_event(client, org, 4, rounds=2, round_break_seconds=60)
    people = by_id(ps)
    p1, p2 = d["current_round"]["pairings"]
    resign(client, p1["matches"][0]["id"], people[p1["players"][1]])
    resign(client, p2["matches"][0]["id"], people[p2["players"][1]])
    d = detail(client, tid)
    assert d["round"] == 1 and d["timers"]["next_round_at"] is not None  # the break before round 2
    loser = people[p1["players"][1]]
    outsider = people[p2["players"][0]]
    err(client.post(f"/api/tournaments/{tid}/pairings/{p1['id']}/dispute", json={"reason": "not mine"},
                    headers=outsider["headers"]), 403, "forbidden")
    me = ok(client.post(f"/api/tournaments/{tid}/pairings/{p1['id']}/dispute",
                        json={"reason": "my opponent's connection dropped, I resigned by mistake"},
                        headers=loser["headers"]))
    assert me["disputes"][0]["status"] == "open" and me["can"]["dispute"] is None
    err(client.post(f"/api/tournaments/{tid}/pairings/{p1['id']}/dispute", json={"reason": "again"},
                    headers=loser["headers"]), 409, "dispute_open")
    clock["now"] += 120
    sweep(client)
    assert detail(client, tid)["round"] == 1  # held by the open dispute
    err(client.post(f"/api/tournaments/{tid}/next-round", headers=org["headers"]), 409, "dispute_open")
    # The organiser overrides the disputed result: a draw, with a reason; audited.
    resolved = ok(client.post(f"/api/tournaments/{tid}/disputes/1/resolve", json={
        "decision": "override", "result": {"winner": None, "games": [0, 0], "draws": 1},
        "reason": "replay impossible; both agreed to a draw"}, headers=org["headers"]))
    assert resolved["round"] == 2  # the break is over and nothing is open: round 2 paired
    r1 = ok(client.get(f"/api/tournaments/{tid}/rounds/1"))
    fixed = next(p for p in r1["pairings"] if p["id"] == p1["id"])
    assert fixed["winner"] is None and fixed["how"] == "override" and fixed["result"]["draws"] == 1
    assert r1["final"] and {r["points"] for r in r1["standings"]} == {3, 1, 0}
    entry = audit_entries(client, "tournament_override")[0]
    assert entry["target"] == f"tournament:{tid}" and entry["details"]["pairing"] == p1["id"]
    assert entry["details"]["old"]["winner"] == p1["players"][0] and entry["details"]["new"]["winner"] is None
    assert "both agreed" in entry["details"]["reason"] and entry["details"]["dispute"] == 1
    # Round 1 is closed now: no more disputes or overrides of it.
    err(client.post(f"/api/tournaments/{tid}/pairings/{p2['id']}/dispute", json={"reason": "too late"},
                    headers=people[p2["players"][1]]["headers"]), 409, "dispute_closed")
    err(client.post(f"/api/tournaments/{tid}/pairings/{p2['id']}/override", json={
        "result": {"winner": p2["players"][1]}, "reason": "too late"}, headers=org["headers"]),
        409, "correction_closed")
    # An override of an open pairing reports it and ends its live match.
    q = detail(client, tid)["current_round"]["pairings"][0]
    err(client.post(f"/api/tournaments/{tid}/pairings/{q['id']}/override", json={
        "result": {"winner": q["players"][1]}, "reason": "x"}, headers=org["headers"]), 422, "invalid_message")
    err(client.post(f"/api/tournaments/{tid}/pairings/{q['id']}/override", json={
        "result": {"winner": "nobody-here"}, "reason": "typo"}, headers=org["headers"]), 422, "invalid_result")
    ok(client.post(f"/api/tournaments/{tid}/pairings/{q['id']}/override", json={
        "result": {"winner": q["players"][1]}, "reason": "judge call"}, headers=org["headers"]))
    assert view(client, q["matches"][0]["id"], ps[0])["result"]["reason"] == "decided"
    assert len(audit_entries(client, "tournament_override")) == 2


def test_manual_pairing_waits_for_the_organiser(client, org):
    tid, ps, d = running_event(client, org, 2, rounds=2, pairing="manual")
    people = by_id(ps)
    p = d["current_round"]["pairings"][0]
    err(client.post(f"/api/tournaments/{tid}/next-round", headers=org["headers"]), 409, "round_incomplete")
    resign(client, p["matches"][0]["id"], people[p["players"][0]])
    assert detail(client, tid)["round"] == 1
    assert step(client, org, tid, "next-round")["round"] == 2


def test_concurrent_changes_are_never_lost(manual_client, org, monkeypatch):
    client = manual_client
    tid = make_event(client, org)
    step(client, org, tid, "open-registration")
    ps = players(client, 2)
    svc = client.app.state.services
    # The store refuses a stale revision...
    ev = client.portal.call(tdb.get, svc.maker, tid)

    async def save(ev, read):
        async with svc.maker.begin() as session:
            return await tdb.save(session, ev, read)

    assert client.portal.call(save, dict(ev), ev["revision"])
    assert not client.portal.call(save, dict(ev), ev["revision"])
    # ...and two changes that both read the same revision both land (one retries).
    real_get = tdb.get
    reads = []

    async def slow_get(maker, tournament_id):
        ev = await real_get(maker, tournament_id)
        reads.append(ev["revision"])
        # Both read before either writes: the first reader waits for the second.
        await async_wait_for(lambda: len(reads) >= 2, message="the second change never read")
        return ev

    monkeypatch.setattr(tdb, "get", slow_get)

    async def both():
        from app.auth import User

        users = [User(p["user"]["id"], p["user"]["name"], guest=False) for p in ps]
        await asyncio.gather(*(writes.change(svc, tid, lifecycle_changes.register_fn(u, None, None)) for u in users))

    client.portal.call(both)
    monkeypatch.setattr(tdb, "get", real_get)
    assert reads[0] == reads[1]  # a real conflict happened
    d = detail(client, tid)
    assert {e["user"]["id"] for e in d["entrants"]} == {p["user"]["id"] for p in ps}
    assert d["revision"] == ev["revision"] + 3


def test_exports(client, org):
    tid, ps, d = running_event(client, org, 4, rounds=2)
    people = by_id(ps)
    for _ in range(2):
        for p in detail(client, tid)["current_round"]["pairings"]:
            if p["status"] == "pending":
                resign(client, p["matches"][-1]["id"], people[p["players"][1]])
    d = detail(client, tid)
    assert d["status"] == "finished"
    js = ok(client.get(f"/api/tournaments/{tid}/export.json"))
    assert [r["round"] for r in js["rounds"]] == [1, 2] and all(r["final"] for r in js["rounds"])
    assert len(js["players"]) == 4 and js["champion"] == d["champion"]
    assert all(p["result"] for r in js["rounds"] for p in r["pairings"])
    r = client.get(f"/api/tournaments/{tid}/export.csv")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(r.text)))
    standings = [x for x in rows if x["kind"] == "standing"]
    pairings = [x for x in rows if x["kind"] == "pairing"]
    assert [x["rank"] for x in standings] == ["1", "2", "3", "4"] and len(pairings) == 4
    names = {p["user"]["id"]: p["user"]["name"] for p in ps}
    assert standings[0]["player"] == names[d["champion"]] and standings[0]["points"] == "6"
    assert {x["omw"] for x in standings} and all(x["winner"] for x in pairings)


@pytest.mark.slow
@pytest.mark.parametrize("n,fmt,rounds_played", [
    (2, "swiss", 1), (2, "single_elimination", 1), (2, "double_elimination", 3),
    (3, "swiss", 2), (3, "round_robin", 3), (3, "single_elimination", 2),
])
def test_tiny_fields(client, org, n, fmt, rounds_played):
    """2 and 3 players in every format: byes and walkovers where needed, one champion. In double
    elimination the lower seed wins the first grand final, so the reset is played."""
    tid, ps, d = running_event(client, org, n, fmt=fmt)
    people = by_id(ps)
    seen = set()
    for _ in range(10):
        d = detail(client, tid)
        if d["status"] == "finished":
            break
        seen.add(d["round"])
        for p in d["current_round"]["pairings"]:
            if p["status"] == "pending":
                loser = p["players"][0] if fmt == "double_elimination" else p["players"][1]
                resign(client, p["matches"][-1]["id"], people[loser])
    assert d["status"] == "finished" and d["champion"] in people
    assert len(seen) == rounds_played
    if n == 3 and fmt != "round_robin":
        assert any(p["bye"] for p in ok(client.get(f"/api/tournaments/{tid}/rounds/1"))["pairings"])


def test_too_few_players_and_cancel(client, org):
    tid = make_event(client, org)
    step(client, org, tid, "open-registration")
    (a,) = players(client, 1)
    ok(enter(client, tid, a))
    step(client, org, tid, "open-check-in")
    ok(client.post(f"/api/tournaments/{tid}/check-in", headers=a["headers"]))
    e = err(client.post(f"/api/tournaments/{tid}/start", headers=org["headers"]), 409, "too_few_players")
    assert "1 checked in" in e["message"]
    assert detail(client, tid)["status"] == "check_in"  # nothing half-done
    d = ok(client.post(f"/api/tournaments/{tid}/cancel", json={"reason": "nobody came"}, headers=org["headers"]))
    assert d["status"] == "cancelled"
    err(enter(client, tid, account(client, "Q" + sfx())), 409, "registration_closed")
    assert audit_entries(client, "tournament_cancel")[0]["details"]["reason"] == "nobody came"


def test_top_cut_larger_than_the_field_is_lowered(client, org):
    tid, ps, d = running_event(client, org, 5, top_cut=8)
    assert d["notes"][0] == {"code": "top_cut_lowered", "from": 8, "to": 4, "players": 5}


def test_live_notices_on_the_tournament_socket(client, org):
    tid = make_event(client, org)
    step(client, org, tid, "open-registration")
    with client.websocket_connect(f"/ws/tournaments/{tid}") as ws:
        first = ws.receive_json()
        assert first["type"] == "tournament" and first["revision"] == detail(client, tid)["revision"]
        ok(enter(client, tid, account(client, "Sock" + sfx())))
        assert ws.receive_json()["revision"] == first["revision"] + 1
    with client.websocket_connect("/ws/tournaments/t_nope") as ws:
        assert ws.receive_json()["code"] == "not_found"


# ------------------------------------------------------------------------------ the pure rules
# (app/tournaments/matchplay.py and corrections.py: no server needed)


def _pairing(stage="swiss", best_of=3, seeds=(1, 2)):
    return {"players": ["a", "b"], "best_of": best_of, "stage": stage, "seeds": list(seeds),
            "starts": ["a", "b", "a"][:best_of]}


def test_games_to_a_result():
    p = _pairing()
    assert MP.outcome(p, ["a"]) is None                                  # 1-0: play on
    assert MP.outcome(p, ["a", "a"]) == {"winner": "a", "games": [2, 0], "draws": 0, "forfeit": False}
    assert MP.outcome(p, ["a", "b", None]) == {"winner": None, "games": [1, 1], "draws": 1, "forfeit": False}
    assert MP.outcome(p, [None, None, "b"])["winner"] == "b"             # 0-1 with two draws
    # In elimination a level match goes to sudden death; the drawn game then does not fit.
    e = _pairing("cut")
    assert MP.outcome(e, ["a", "b", None]) is None
    assert MP.outcome(e, ["a", "b", None, "b"]) == {"winner": "b", "games": [1, 2], "draws": 0, "forfeit": False}
    assert MP.outcome(_pairing("bracket", 1), [None, None, "a"])["games"] == [1, 0]
    # A concession gives the winner the games needed, keeping the loser's.
    assert MP.outcome(p, ["b"], conceded_to="a") == {"winner": "a", "games": [2, 1], "draws": 0, "forfeit": False}
    # Every result fits the core's rules for its pairing.
    for games in (["a"], ["b", None], [None, None, None]):
        for stage in ("swiss", "cut"):
            res = MP.outcome(_pairing(stage), games, conceded_to="b")
            assert sum(res["games"]) + res["draws"] <= 3 and res["games"][1] == 2


def test_parbaj_concession_and_time_called():
    seats = {"A": "a", "B": "b"}
    resigned = {"winner": "A", "places": {"A": 1, "B": 2}, "draw": False, "reason": "resigned"}
    state = {"games": [{"winner": "B"}], "options": {"best_of": 3}}
    games = MP.match_games("parbaj", resigned, state, seats)
    assert games == ["b"] and MP.conceded("parbaj", resigned, games, seats, 3) == "a"
    ledger, res = MP.after_match("parbaj", _pairing(), [], resigned, state, seats, 3)
    assert res == {"winner": "a", "games": [2, 1], "draws": 0, "forfeit": False}
    played = {"winner": "B", "draw": False, "reason": "match", "games": [{"winner": "B"}, {"winner": "B"}]}
    assert MP.after_match("parbaj", _pairing(), [], played, None, seats, 3)[1]["winner"] == "b"
    # A resignation in another game loses that game only.
    assert MP.after_match("duell", _pairing(), [], resigned, None, seats, 1) == (["a"], None)
    # Time called: game wins decide; level is a draw, or the higher seed in elimination.
    assert MP.time_called(_pairing(), ["b"])["winner"] == "b"
    assert MP.time_called(_pairing(), [None])["winner"] is None
    high = MP.time_called(_pairing("cut", seeds=(5, 2)), ["a", "b"])
    assert high == {"winner": "b", "games": [1, 2], "draws": 0, "forfeit": False}
    assert MP.no_show(_pairing(), ["a"]) == {"winner": "b", "games": [0, 2], "draws": 0, "forfeit": True}
    assert MP.no_show(_pairing(), ["a", "b"])["winner"] is None
    assert MP.no_show(_pairing("bracket", seeds=(3, 1)), ["a", "b"])["winner"] == "b"
    assert [MP.starter_of_game(_pairing(), g) for g in range(1, 6)] == ["a", "b", "a", "b", "a"]


def test_corrections_only_in_the_current_round():
    s = T.create("swiss", [{"id": x} for x in "abcd"], {"rounds": 2})
    s, ps = T.next_pairings(s)
    for p in ps:
        s = T.report(s, p["id"], {"winner": p["players"][0]})
    top = T.standings(s)[0]["player"]
    p1 = ps[0]
    fixed = corrections.correct(s, p1["id"], {"winner": p1["players"][1]})
    assert T.get_pairing(fixed, p1["id"])["winner"] == p1["players"][1] and T.standings(fixed)[0]["player"] != top
    assert T.get_pairing(s, p1["id"])["winner"] == p1["players"][0]          # the original is untouched
    s, _ = T.next_pairings(fixed)
    with pytest.raises(T.TournamentError) as e:
        corrections.correct(s, p1["id"], {"winner": p1["players"][0]})
    assert e.value.code == "correction_closed"


def test_correcting_a_grand_final_brings_back_the_reset():
    s = T.create("double_elimination", [{"id": "a"}, {"id": "b"}])
    s, (w1,) = T.next_pairings(s)
    s = T.report(s, w1["id"], {"winner": "a"})
    s, (gf,) = T.next_pairings(s)
    s = T.report(s, gf["id"], {"winner": "a"})               # the WB champion wins: no reset
    assert T.is_finished(s) and T.champion(s) == "a"
    s = corrections.correct(s, gf["id"], {"winner": "b"})    # it was the LB champion after all
    assert not T.is_finished(s)
    s, (reset,) = T.next_pairings(s)
    assert reset["id"] == "GF2"
    s = T.report(s, "GF2", {"winner": "b"})
    assert T.champion(s) == "b"


async def test_one_process_sweeps_per_interval():
    """Every process runs the sweep loop; one lease key lets only one of them sweep per tick,
    and a lease that has run out (its process gone) goes to the next process that asks."""
    from types import SimpleNamespace

    import fakeredis

    server = fakeredis.FakeServer()

    def process(name):
        return SimpleNamespace(redis=fakeredis.FakeAsyncRedis(server=server, decode_responses=True),
                               store=SimpleNamespace(k=SimpleNamespace(p="t:")),
                               settings=SimpleNamespace(instance_name=name))

    one, two = process("one"), process("two")
    turns = await asyncio.gather(tour_sweep.take_sweep_turn(one, 1.0), tour_sweep.take_sweep_turn(two, 1.0))
    assert sorted(turns) == [False, True]
    holder = "one" if turns[0] else "two"
    assert await one.redis.get("t:tour:sweep-lease") == holder
    assert 0 < await one.redis.pttl("t:tour:sweep-lease") <= 900  # shorter than the tick
    assert not await tour_sweep.take_sweep_turn(two, 1.0) and not await tour_sweep.take_sweep_turn(one, 1.0)
    await one.redis.delete("t:tour:sweep-lease")  # as when it expires
    assert await tour_sweep.take_sweep_turn(two, 1.0)


def test_cancel_stops_the_events_live_matches(client, org):
    """Cancelling a running event aborts its open matches: no result, nobody rated, and the
    players are told why (a player who walks away must not lose on the clock for it)."""
    from tests.conftest import drain

    tid, ps, d = running_event(client, org, 4, rounds=2, game_options={"clock_seconds": 30})
    people = by_id(ps)
    live = [(p["matches"][0]["id"], people[p["players"][0]]) for p in d["current_round"]["pairings"]]
    assert len(live) == 2
    first_mid, first_player = live[0]
    assert view(client, first_mid, first_player)["status"] == "live"
    with client.websocket_connect(f"/ws/matches/{first_mid}?token={first_player['token']}") as ws:
        assert ws.receive_json()["status"] == "live"
        d = ok(client.post(f"/api/tournaments/{tid}/cancel", json={"reason": "venue closed"},
                           headers=org["headers"]))
        assert d["status"] == "cancelled"
        pushed = ws.receive_json()
        assert pushed["status"] == "aborted" and pushed["abort_reason"] == "tournament_cancelled"
        assert any(e["type"] == "aborted" for e in pushed["events"])
    for mid, p in live:
        v = view(client, mid, p)
        assert v["status"] == "aborted" and v["result"] is None and v["deadlines"] == {}
        assert v["abort_reason"] == "tournament_cancelled"
        r = act(client, mid, p, {"type": "resign"})
        assert r.status_code == 409, r.text
    drain(client)
    for mid, _p in live:
        row = ok(client.get(f"/api/matches/{mid}"))
        assert row["status"] == "aborted"
    profile = ok(client.get(f"/api/users/{first_player['user']['id']}"))
    assert profile["ratings"] == [], profile
