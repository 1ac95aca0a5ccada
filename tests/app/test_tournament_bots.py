"""Computer players in tournaments (POST /api/tournaments/{id}/bots; docs/tournaments.md,
"Computer players (test events)").

A whole single-elimination Duell event with two people and two random bots runs to a champion:
the people play through the match API, the bot runner plays the bots' seats, and every result
reports itself. Plus who may add bots, the cap, and the Párbaj starter decks they get.
"""
from __future__ import annotations

import random

import pytest

from app.db import tournaments as tdb
from games.bots import choose
from games.parbaj.cardpool import POOL
from tests.app.test_tournaments_api import detail, enter, err, make_event, ok, players, sfx, step
from tests.conftest import account


@pytest.fixture
def settings(settings):
    """Bots answer at once (no think pause), as in tests/app/test_bots_live.py."""
    return settings.model_copy(update={"bot_think_ms": 0})


@pytest.fixture
def org(client):
    return account(client, "BotOrg" + sfx(), role="organiser")


def add_bots(client, who, tid, level="random", count=1):
    return client.post(f"/api/tournaments/{tid}/bots", json={"level": level, "count": count},
                       headers=who["headers"])


def settle(client) -> None:
    client.portal.call(client.app.state.services.bots.settle)


def stored(client, tid) -> dict:
    return client.portal.call(tdb.get, client.app.state.services.maker, tid)


def match_doc(client, mid) -> dict:
    return client.portal.call(client.app.state.services.store.load, mid)


def play_people_in(client, mid, people: dict, rnd: random.Random) -> None:
    """The people of a match play random legal moves until it ends; the bots answer between
    moves. ``people``: user id -> account."""
    idle = 0
    for _ in range(5000):
        settle(client)
        doc = match_doc(client, mid)
        if doc["status"] != "live":
            return
        movers = []
        for s in doc["seats"]:
            p = people.get(s["user"]["id"])
            if p is not None:
                v = ok(client.get(f"/api/matches/{mid}/view", headers=p["headers"]))
                if v["status"] == "live" and v["seat"] in v["pending"]:
                    movers.append((p, v))
        if not movers:
            # A bot's turn: the runner takes it (settle waits for it); not forever.
            idle += 1
            assert idle < 20, f"the bot seats of {mid} are not being played: {doc['seats']}"
            continue
        idle = 0
        p, v = movers[0]
        r = client.post(f"/api/matches/{mid}/actions", headers=p["headers"],
                        json={"action": choose(v["game"], "random", v, rnd), "version": v["version"]})
        assert r.status_code == 200 or r.json()["error"]["code"] in ("stale_version", "match_over"), r.text
    raise AssertionError("the match did not end")


def test_two_people_and_two_bots_play_a_knockout_to_a_champion(client, org):
    tid = make_event(client, org, game="duell", fmt="single_elimination", seeding="random",
                     game_options={"duels_to_win": 1})
    step(client, org, tid, "open-registration")
    ps = players(client, 2, prefix="Human")
    for p in ps:
        ok(enter(client, tid, p))
    d = ok(add_bots(client, org, tid, count=2))
    bots = [e for e in d["entrants"] if e["user"].get("bot")]
    assert [e["user"]["id"] for e in bots] == ["bot-random-1", "bot-random-2"]
    assert all(e["user"]["bot"] == "random" and e["status"] == "checked_in" for e in bots)
    assert d["test"] is True and d["players"] == 4
    listed = ok(client.get("/api/tournaments", params={"status": "registration"}))
    assert next(e for e in listed if e["id"] == tid)["test"] is True

    step(client, org, tid, "open-check-in")
    for p in ps:
        ok(client.post(f"/api/tournaments/{tid}/check-in", headers=p["headers"]))
    d = step(client, org, tid, "start")
    assert d["status"] == "running" and len(d["current_round"]["pairings"]) == 2

    people = {p["user"]["id"]: p for p in ps}
    bot_ids = {e["user"]["id"] for e in bots}
    rnd = random.Random(3)
    seen_bot_seat = False
    for _ in range(20):
        settle(client)
        d = detail(client, tid)
        if d["status"] == "finished":
            break
        for p in d["current_round"]["pairings"]:
            if p["status"] != "pending" or not p["matches"]:
                continue
            mid = p["matches"][-1]["id"]
            doc = match_doc(client, mid)
            for s in doc["seats"]:
                if s["user"]["id"] in bot_ids:  # the bot sits as its bot user dict
                    assert s["user"]["bot"] == "random", s
                    seen_bot_seat = True
            play_people_in(client, mid, people, rnd)
    assert d["status"] == "finished", d
    assert seen_bot_seat
    assert d["champion"] in people.keys() | bot_ids
    # Every pairing was played out by its match (people and bots alike), none decided otherwise.
    export = ok(client.get(f"/api/tournaments/{tid}/export.json"))
    played = [p for r in export["rounds"] for p in r["pairings"] if not p["bye"]]
    assert len(played) == 3
    assert all(p["how"] == "played" and all(m["recorded"] for m in p["matches"]) for p in played)
    assert any(set(p["players"]) & bot_ids for p in played)


def test_only_the_events_organiser_or_an_admin_adds_bots(client, org):
    tid = make_event(client, org)
    err(add_bots(client, org, tid), 409, "registration_closed")  # a draft: not yet
    step(client, org, tid, "open-registration")
    player = account(client, "NotOrg" + sfx())
    err(add_bots(client, player, tid), 403, "forbidden")
    other_org = account(client, "OtherOrg" + sfx(), role="organiser")
    err(add_bots(client, other_org, tid), 403, "forbidden")
    err(add_bots(client, org, tid, level="genius"), 422, "unknown_bot_level")
    assert detail(client, tid)["entrants"] == []
    assert detail(client, tid)["test"] is False
    admin = account(client, "BotAdmin" + sfx(), role="admin")
    d = ok(add_bots(client, admin, tid, level="strong"))
    assert [e["user"]["id"] for e in d["entrants"]] == ["bot-strong-1"]


def test_bots_respect_the_cap_and_a_bot_left_off_ends_the_test_mark(client, org):
    tid = make_event(client, org, cap=3)
    step(client, org, tid, "open-registration")
    ps = players(client, 2)
    for p in ps:
        ok(enter(client, tid, p))
    err(add_bots(client, org, tid, count=2), 409, "event_full")
    assert detail(client, tid)["players"] == 2
    d = ok(add_bots(client, org, tid, count=1))
    assert d["players"] == 3
    err(add_bots(client, org, tid, count=1), 409, "event_full")
    late = account(client, "Late" + sfx())
    assert ok(enter(client, tid, late))["entrant"]["status"] == "waitlisted"
    # The organiser takes the bot off: its place goes to the waitlist, no longer a test event.
    d = ok(client.post(f"/api/tournaments/{tid}/players/bot-random-1/drop", headers=org["headers"]))
    assert d["test"] is False
    assert next(e for e in d["entrants"] if e["user"]["id"] == late["user"]["id"])["status"] == "registered"


def test_parbaj_bots_get_the_starter_decks_in_turn(client, org):
    tid = make_event(client, org, game="parbaj")
    step(client, org, tid, "open-registration")
    starters = list(POOL.decks.values())
    ok(add_bots(client, org, tid, count=2))
    step(client, org, tid, "open-check-in")  # bots can join during check-in too
    ok(add_bots(client, org, tid, level="strong", count=len(starters)))
    entrants = stored(client, tid)["entrants"]
    assert [e["deck_name"] for e in entrants] == [s["name"] for s in starters[:2] + starters[2:] + starters[:2]]
    assert all(e["deck"] == list(starters[i % len(starters)]["cards"]) and e["deck_locked"]
               for i, e in enumerate(entrants))
