"""Who may read a fixed Párbaj deck (issue #15, "Trust"): one test per line of the table in
docs/security.md, "Secret options (Párbaj decks)", named after the line.

A deck is fixed for a seat by a tournament (every seat: the registered lists) or by a lobby
creator for their own seat only. It must reach nobody else: not the opponent, a spectator, a
stranger who takes the open seat of a rematch, an organiser who plays in the event or lost the
role; admins read everything, and every stored match replays for them."""
from __future__ import annotations

import csv
import io
import json
import random

import pytest
from sqlalchemy import update

from app.db.models import Tournament
from games.bots import choose
from games.parbaj.cardpool import POOL
from games.replay import replay_record
from tests.app.test_tournaments_api import (  # noqa: F401
    enter,
    make_event,
    ok,
    org,
    players,
    running_event,
    sfx,
    starter_decks,
    step,
)
from tests.app.test_websocket import connect
from tests.conftest import account, drain, guest

STARTERS = sorted(POOL.decks)


def err(r, status, code):
    assert r.status_code == status, r.text
    assert r.json()["error"]["code"] == code, r.text
    return r.json()["error"]


def view(client, mid, p):
    return ok(client.get(f"/api/matches/{mid}/view", headers=p["headers"]))


def act(client, mid, p, action):
    return ok(client.post(f"/api/matches/{mid}/actions", json={"action": action},
                          headers=p["headers"]))


def forget_live(client, mid):
    """As if FINISHED_TTL had passed: the match is only in SQL history now."""
    svc = client.app.state.services
    client.portal.call(svc.redis.delete, svc.store.k.match(mid), svc.store.k.events(mid))
    assert client.get(f"/api/matches/{mid}").json()["status"] == "finished"  # from history


def tournament_match(client, org, moves=0, **settings):  # noqa: F811
    """A finished Párbaj match of a two-player event: ``moves`` random legal moves, then seat A
    resigns. Returns (match id, {seat: player}, {seat: registered deck})."""
    tid, ps, d = running_event(client, org, 2, game="parbaj", fmt="single_elimination",
                               **settings)
    decks = starter_decks(client)
    registered = {p["user"]["id"]: decks[i % len(decks)] for i, p in enumerate(ps)}
    mid = d["current_round"]["pairings"][0]["matches"][0]["id"]
    seats = {view(client, mid, p)["seat"]: p for p in ps}
    rnd = random.Random(5)
    for _ in range(moves):
        v = view(client, mid, seats["A"])
        if v["status"] != "live":
            break
        mover = seats[v["pending"][0]]
        act(client, mid, mover, choose("parbaj", "random", view(client, mid, mover), rnd))
    if view(client, mid, seats["A"])["status"] == "live":
        act(client, mid, seats["A"], {"type": "resign"})
    drain(client)
    by_seat = {s: registered[p["user"]["id"]] for s, p in seats.items()}
    assert registered[seats["A"]["user"]["id"]] != registered[seats["B"]["user"]["id"]]
    return mid, seats, by_seat


def record_of(client, mid, who):
    return ok(client.get(f"/api/matches/{mid}/record", headers=who["headers"]))


# ------------------------------------------------------------------------------ lobby
def test_host_cannot_fix_another_seats_deck(client):
    ann = guest(client, "Ann")
    a, b = POOL.decks[STARTERS[0]]["cards"], POOL.decks[STARTERS[1]]["cards"]
    for decks in ({"B": b}, {"A": a, "B": b}):
        e = err(client.post("/api/matches", json={"game": "parbaj", "options": {"decks": decks}},
                            headers=ann["headers"]), 422, "invalid_options")
        assert "your own seat (A) only" in e["message"] and "B" in e["message"]
        # Play the computer goes through the same lobby creation.
        err(client.post("/api/bots/matches", json={"game": "parbaj", "level": "random",
                                                   "options": {"decks": decks}},
                        headers=ann["headers"]), 422, "invalid_options")
    assert client.get("/api/matches?status=open").json() == []


def test_host_may_fix_own_deck_and_the_joiner_chooses(client):
    ann, bob = guest(client, "Ann"), guest(client, "Bob")
    mine = list(POOL.decks[STARTERS[0]]["cards"])
    r = client.post("/api/matches", json={"game": "parbaj", "options": {"decks": {"A": mine}}},
                    headers=ann["headers"])
    assert r.status_code == 200 and r.json()["options"]["decks"] == {"A": "hidden"}, r.text
    mid = r.json()["id"]
    assert ok(client.post(f"/api/matches/{mid}/join", headers=bob["headers"]))["status"] == "live"
    va, vb = view(client, mid, ann), view(client, mid, bob)
    assert va["state"]["players"]["A"]["deck"] == sorted(mine)
    assert vb["pending"] == ["B"] and vb["state"]["players"]["B"]["deck"] is None
    assert {a["type"] for a in vb["legal"]} == {"choose_deck"}
    assert "deck" not in vb["state"]["players"]["A"]
    # The joiner's own choice still works: a starter deck of theirs.
    after = act(client, mid, bob, {"type": "choose_deck", "deck": STARTERS[1]})
    assert after["state"]["phase"] == "first"
    assert after["state"]["players"]["B"]["deck"] == sorted(POOL.decks[STARTERS[1]]["cards"])


# ------------------------------------------------------------------------------ rematches
def _offer_and_join(client, mid, offerer, joiner):
    new = ok(client.post(f"/api/matches/{mid}/rematch", headers=offerer["headers"]))
    assert new["options"]["decks"] is None, new["options"]
    assert ok(client.post(f"/api/matches/{new['id']}/join", headers=joiner["headers"]))["status"] == "live"
    stored = client.portal.call(client.app.state.services.store.load, new["id"])
    assert stored["options"]["decks"] is None and stored["requested_options"]["decks"] is None
    return new["id"]


def _nobody_was_dealt_a_deck(client, new_id, people):
    """Both seats face the deck choice, over HTTP and on the socket, and the registered lists
    appear nowhere in what they receive."""
    for p in people:
        v = view(client, new_id, p)
        assert v["state"]["phase"] == "deck" and v["seat"] in v["pending"]
        assert v["state"]["players"][v["seat"]]["deck"] is None
        with connect(client, new_id, p) as ws:
            first = ws.receive_json()
        assert first["type"] == "view" and first["state"]["players"][v["seat"]]["deck"] is None
        assert first["options"]["decks"] is None


@pytest.mark.parametrize("joiner", ["opponent", "stranger"])
def test_rematch_does_not_carry_tournament_decks(client, org, joiner):  # noqa: F811
    mid, seats, _ = tournament_match(client, org)
    other = seats["A"] if joiner == "opponent" else account(client, "Str" + sfx())
    new_id = _offer_and_join(client, mid, seats["B"], other)
    _nobody_was_dealt_a_deck(client, new_id, [seats["B"], other])


@pytest.mark.parametrize("joiner", ["opponent", "stranger"])
def test_rematch_from_history_does_not_carry_tournament_decks(client, org, joiner):  # noqa: F811
    mid, seats, _ = tournament_match(client, org)
    forget_live(client, mid)
    other = seats["B"] if joiner == "opponent" else account(client, "Str" + sfx())
    new_id = _offer_and_join(client, mid, seats["A"], other)
    _nobody_was_dealt_a_deck(client, new_id, [seats["A"], other])


# ------------------------------------------------------------------------------ history
def test_admin_reviews_a_parbaj_tournament_match(client, org):  # noqa: F811
    mid, seats, decks = tournament_match(client, org, moves=12)
    admin = account(client, "Adm" + sfx(), role="admin")
    h = admin["headers"]
    detail = ok(client.get(f"/api/admin/matches/{mid}", headers=h))
    assert detail["record"]["options"]["decks"] == decks
    n = len(detail["record"]["actions"])
    assert n >= 12 and len(detail["log"]["steps"]) == n
    for step_no in (0, n // 2, n):
        omni = ok(client.get(f"/api/admin/matches/{mid}/steps/{step_no}", headers=h))
        assert omni["state"]["players"]["B"]["deck"] == sorted(decks["B"])
        as_a = ok(client.get(f"/api/admin/matches/{mid}/steps/{step_no}?as=A", headers=h))
        assert "deck" not in as_a["state"]["players"]["B"]  # closed lists: A never saw it
    final = ok(client.get(f"/api/admin/matches/{mid}/steps/{n}", headers=h))
    exported = ok(client.get(f"/api/admin/matches/{mid}/export.json", headers=h))
    assert exported["options"]["decks"] == decks and exported["replayable"] is True
    assert replay_record(exported)["result"] == final["result"] == exported["result"]
    text = client.get(f"/api/admin/matches/{mid}/export.txt", headers=h)
    assert text.status_code == 200 and "Result: " in text.text
    assert ok(client.get(f"/api/matches/{mid}/record", headers=h))["options"]["decks"] == decks


def test_player_record_has_own_deck_and_hides_the_opponents(client, org):  # noqa: F811
    mid, seats, decks = tournament_match(client, org, moves=12)
    for seat, other in (("A", "B"), ("B", "A")):
        rec = record_of(client, mid, seats[seat])
        assert rec["options"]["decks"] == {seat: decks[seat], other: "hidden"}
        assert rec["replayable"] is False
        assert json.dumps(sorted(decks[other])) not in json.dumps(rec)
    # The public summary (live or from history) shows both hidden.
    assert ok(client.get(f"/api/matches/{mid}"))["options"]["decks"] == {"A": "hidden", "B": "hidden"}
    forget_live(client, mid)
    assert ok(client.get(f"/api/matches/{mid}"))["options"]["decks"] == {"A": "hidden", "B": "hidden"}
    assert record_of(client, mid, seats["A"])["options"]["decks"]["B"] == "hidden"


def test_open_lists_record_replays_for_a_player(client, org):  # noqa: F811
    mid, seats, decks = tournament_match(client, org, moves=12, open_lists=True)
    rec = record_of(client, mid, seats["A"])
    assert rec["options"]["decks"] == decks and rec["options"]["open_deck_lists"] is True
    assert rec["replayable"] is True
    assert replay_record(rec)["result"] == rec["result"]


def _lobby_record(client, b_deck, open_lists):
    """A lobby match where A picks a starter and B the whole list ``b_deck`` by hand; then B
    resigns. Returns (A's record, B's record)."""
    ann, bob = account(client, "Ann" + sfx()), account(client, "Bob" + sfx())
    mid = ok(client.post("/api/matches", json={"game": "parbaj", "options": {
        "open_deck_lists": open_lists}}, headers=ann["headers"]))["id"]
    ok(client.post(f"/api/matches/{mid}/join", headers=bob["headers"]))
    act(client, mid, ann, {"type": "choose_deck", "deck": STARTERS[0]})
    act(client, mid, bob, {"type": "choose_deck", "cards": b_deck})
    act(client, mid, bob, {"type": "resign"})
    drain(client)
    return record_of(client, mid, ann), record_of(client, mid, bob)


def test_opponent_cannot_read_deck_choice_in_the_record(client):
    """Closed lists: another seat's deck choice is hidden in a player's record. Differential:
    two matches that differ only in B's list give A the same steps."""
    steps = []
    for b_deck in (POOL.decks[STARTERS[1]]["cards"], POOL.decks[STARTERS[2]]["cards"]):
        rec_a, rec_b = _lobby_record(client, list(b_deck), open_lists=False)
        moves_a = [(s["seat"], s["kind"], s["action"]) for s in rec_a["actions"]]
        assert moves_a[1] == ("B", "action", {"type": "choose_deck", "hidden": True})
        assert moves_a[0] == ("A", "action", {"type": "choose_deck", "deck": STARTERS[0]})
        assert rec_b["actions"][1]["action"] == {"type": "choose_deck", "cards": list(b_deck)}
        assert rec_b["actions"][0]["action"] == {"type": "choose_deck", "hidden": True}
        assert rec_a["replayable"] is rec_b["replayable"] is False
        steps.append(json.dumps([moves_a, rec_a["options"]], sort_keys=True))
    assert steps[0] == steps[1]


def test_open_lists_record_shows_every_choice(client):
    b_deck = list(POOL.decks[STARTERS[1]]["cards"])
    rec_a, _ = _lobby_record(client, b_deck, open_lists=True)
    assert rec_a["actions"][1]["action"] == {"type": "choose_deck", "cards": b_deck}
    assert rec_a["replayable"] is True and replay_record(rec_a)["result"] == rec_a["result"]


# ------------------------------------------------------------------------------ tournaments
def _decks_of(client, tid, who):
    return {d["user"]["id"]: d["deck"] for d in ok(client.get(f"/api/tournaments/{tid}/decks",
                                                              headers=who["headers"]))}


def _closed_event(client, org, organiser_enters):  # noqa: F811
    tid = make_event(client, org, game="parbaj")
    step(client, org, tid, "open-registration")
    ps = players(client, 3)
    decks = starter_decks(client)
    entrants = ([org] if organiser_enters else []) + ps
    for i, p in enumerate(entrants):
        ok(enter(client, tid, p, decks[i % len(decks)]))
    return tid, ps, {p["user"]["id"]: decks[i % len(decks)] for i, p in enumerate(entrants)}


def test_organiser_reads_decks(client, org):  # noqa: F811
    tid, ps, lists = _closed_event(client, org, organiser_enters=False)
    assert _decks_of(client, tid, org) == lists


def test_admin_reads_decks(client, org):  # noqa: F811
    tid, ps, lists = _closed_event(client, org, organiser_enters=True)
    assert _decks_of(client, tid, account(client, "Adm" + sfx(), role="admin")) == lists


def test_organiser_entrant_cannot_read_decks(client, org):  # noqa: F811
    tid, ps, lists = _closed_event(client, org, organiser_enters=True)
    own = {org["user"]["id"]: lists[org["user"]["id"]]}
    assert _decks_of(client, tid, org) == own
    step(client, org, tid, "open-check-in")
    for p in [org] + ps:
        ok(client.post(f"/api/tournaments/{tid}/check-in", headers=p["headers"]))
    step(client, org, tid, "start")
    assert _decks_of(client, tid, org) == own
    # An entry withdrawn is still an entry: the organiser could sign up again.
    tid2, _, _ = _closed_event(client, org, organiser_enters=True)
    ok(client.post(f"/api/tournaments/{tid2}/withdraw", headers=org["headers"]))
    assert _decks_of(client, tid2, org) == {}


def test_demoted_organiser_cannot_read_decks(client, org):  # noqa: F811
    tid, ps, lists = _closed_event(client, org, organiser_enters=False)
    assert _decks_of(client, tid, org) == lists
    admin = account(client, "Adm" + sfx(), role="admin")
    ok(client.post(f"/api/admin/users/{org['user']['id']}/role", json={"role": "player"},
                   headers=admin["headers"]))
    assert _decks_of(client, tid, org) == {}  # the same token: the role is read from the status
    d = ok(client.get(f"/api/tournaments/{tid}", headers=org["headers"]))
    assert d["viewer"]["can_manage"] is False


def test_tournament_pages_and_exports_never_show_decks(client, org):  # noqa: F811
    """Differential: the same running event before and after one entrant's list is swapped in
    SQL (nothing else changes, not even the revision) gives a stranger, another entrant and the
    organiser-entrant identical bytes on every page, export and the tournament socket."""
    tid, ps, lists = _closed_event(client, org, organiser_enters=True)
    step(client, org, tid, "open-check-in")
    for p in [org] + ps:
        ok(client.post(f"/api/tournaments/{tid}/check-in", headers=p["headers"]))
    step(client, org, tid, "start")
    stranger = account(client, "Str" + sfx())
    owner, other = ps[2], ps[0]
    svc = client.app.state.services

    def shown():
        out = []
        for who in (stranger, other, org):
            h = who["headers"]
            out += [client.get(f"/api/tournaments/{tid}", headers=h).text,
                    client.get(f"/api/tournaments/{tid}/rounds/1", headers=h).text,
                    client.get(f"/api/tournaments/{tid}/bracket", headers=h).text,
                    client.get(f"/api/tournaments/{tid}/export.json", headers=h).text,
                    client.get(f"/api/tournaments/{tid}/export.csv", headers=h).text,
                    client.get(f"/api/tournaments/{tid}/decks", headers=h).text]
        with client.websocket_connect(f"/ws/tournaments/{tid}") as ws:
            out.append(json.dumps(ws.receive_json()))
        return out

    before = shown()
    new_list = next(list(d["cards"]) for d in POOL.decks.values()
                    if sorted(d["cards"]) != sorted(lists[owner["user"]["id"]]))

    async def swap():
        from app.db import tournaments as tdb

        ev = await tdb.get(svc.maker, tid)
        entrants = [{**e, "deck": new_list} if e["user"]["id"] == owner["user"]["id"] else e
                    for e in ev["entrants"]]
        async with svc.maker() as session, session.begin():
            await session.execute(update(Tournament).where(Tournament.id == tid)
                                  .values(entrants=entrants))

    client.portal.call(swap)
    assert _decks_of(client, tid, owner) == {owner["user"]["id"]: new_list}  # the swap took
    after = shown()
    assert before == after
    rows = list(csv.DictReader(io.StringIO(before[4])))
    assert rows and all("deck" not in k for k in rows[0])
