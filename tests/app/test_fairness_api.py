"""Provably fair chance over the API (docs/fairness.md): the seed body field, the fairness block
from creation on, every creation path (create, join, rematch, play the computer, a host's
bot, a tournament's seated match), the seed derived at the start, and finished matches of all
four games whose records verify - with ``games.fairness.verify_record`` and with
``duelhall verify`` as a subprocess - and stop verifying when one thing in them is changed."""
from __future__ import annotations

import copy
import hashlib
import json
import random
import subprocess
import sys
import uuid

import pytest

from app.live.store import public_fairness
from games import fairness as F
from games.base import expand_one_of
from games.registry import get_game
from tests.conftest import ROOT, drain, guest

SEED_A = "a1" * 16
SEED_B = "B2" * 24  # upper case is accepted and kept lower case


def stored(client, mid) -> dict:
    svc = client.app.state.services
    return json.loads(client.portal.call(svc.redis.get, svc.store.k.match(mid)))


def err(r, status, code):
    assert r.status_code == status, r.text
    assert r.json()["error"]["code"] == code, r.text
    return r.json()["error"]["message"]


def sha(hex_seed: str) -> str:
    return hashlib.sha256(bytes.fromhex(hex_seed)).hexdigest()


# ------------------------------------------------------------------------------ the seed field
@pytest.mark.parametrize("bad", ["", "ab" * 15 + "a", "zz" * 16, "a" * 129, 1234, ["ab" * 16],
                                 {"hex": "ab" * 16}, "ab" * 16 + " "])
def test_a_bad_seed_is_a_clear_422_on_every_route(client, bad):
    a, b = guest(client, "Ann"), guest(client, "Bob")
    routes = [("/api/matches", {"game": "duell", "options": {}, "seed": bad}),
              ("/api/bots/matches", {"game": "duell", "level": "random", "seed": bad})]
    for url, body in routes:
        message = err(client.post(url, json=body, headers=a["headers"]), 422, "invalid_message")
        assert "seed" in message, message
    mid = client.post("/api/matches", json={"game": "duell"}, headers=a["headers"]).json()["id"]
    message = err(client.post(f"/api/matches/{mid}/join", json={"seed": bad}, headers=b["headers"]),
                  422, "invalid_message")
    assert "seed" in message
    assert client.get(f"/api/matches/{mid}").json()["status"] == "open"  # nobody joined


def test_the_fairness_block_from_creation_to_the_start(client):
    a, b = guest(client, "Ann"), guest(client, "Bob")
    created = client.post("/api/matches", json={"game": "duell", "seed": SEED_A}, headers=a["headers"]).json()
    fair = created["fairness"]
    doc = stored(client, created["id"])
    server_seed = doc["fairness"]["server_seed"]
    assert len(server_seed) == 64 and fair["server_seed_sha256"] == sha(server_seed)
    assert fair == {"server_seed_sha256": sha(server_seed), "player_seeds": {"A": SEED_A},
                    "server_seed": None, "match_seed": None}
    # No engine seed before the start: nothing to guess from.
    assert doc["seed"] is None and doc["state"] is None
    listed = client.get("/api/matches", params={"status": "open"}).json()
    assert [m["fairness"] for m in listed if m["id"] == created["id"]] == [fair]

    joined = client.post(f"/api/matches/{created['id']}/join", json={"seed": SEED_B},
                         headers=b["headers"]).json()
    assert joined["status"] == "live"
    assert joined["fairness"]["player_seeds"] == {"A": SEED_A, "B": SEED_B.lower()}
    assert joined["fairness"]["server_seed_sha256"] == fair["server_seed_sha256"]
    assert joined["fairness"]["server_seed"] is None and joined["fairness"]["match_seed"] is None
    doc = stored(client, created["id"])
    # The engine was set up with the derivation from the server seed and both players' seeds.
    expected = F.match_seed(server_seed, {"A": SEED_A, "B": SEED_B.lower()})
    assert doc["seed"] == doc["state"]["seed"] == expected
    for who in (a, b, None):
        v = client.get(f"/api/matches/{created['id']}/view", headers=who["headers"] if who else {}).json()
        assert v["fairness"] == joined["fairness"]


def test_without_a_seed_the_server_draws_one_per_player(client):
    a, b = guest(client, "Ann"), guest(client, "Bob")
    mid = client.post("/api/matches", json={"game": "duell"}, headers=a["headers"]).json()["id"]
    live = client.post(f"/api/matches/{mid}/join", headers=b["headers"]).json()  # no body at all
    seeds = live["fairness"]["player_seeds"]
    assert sorted(seeds) == ["A", "B"] and seeds["A"] != seeds["B"]
    assert all(F.check_player_seed(s) == s for s in seeds.values())
    doc = stored(client, mid)
    assert doc["seed"] == F.match_seed(doc["fairness"]["server_seed"], seeds)


def test_leaving_takes_the_seed_along_and_the_seats_keep_theirs(client):
    a, b, c = guest(client, "Ann"), guest(client, "Bob"), guest(client, "Cy")
    mid = client.post("/api/matches", json={"game": "combat", "options": {"seats": 3}, "seed": SEED_A},
                      headers=a["headers"]).json()["id"]
    client.post(f"/api/matches/{mid}/join", json={"seed": "bb" * 16}, headers=b["headers"])
    client.post(f"/api/matches/{mid}/join", json={"seed": "cc" * 16}, headers=c["headers"])
    # (Three seats: full, so it started.) Another table to see a re-lettering while open:
    mid = client.post("/api/matches", json={"game": "combat", "options": {"seats": 3}, "seed": SEED_A},
                      headers=a["headers"]).json()["id"]
    client.post(f"/api/matches/{mid}/join", json={"seed": "bb" * 16}, headers=b["headers"])
    left = client.post(f"/api/matches/{mid}/leave", headers=a["headers"]).json()
    assert left["fairness"]["player_seeds"] == {"A": "bb" * 16}  # Bob is seat A now
    live = client.post(f"/api/matches/{mid}/join", json={"seed": "cc" * 16}, headers=c["headers"]).json()
    assert live["fairness"]["player_seeds"] == {"A": "bb" * 16, "B": "cc" * 16}
    assert SEED_A not in json.dumps(stored(client, mid)["fairness"])


def test_every_other_creation_path_gives_every_seat_a_seed(client):
    a, b = guest(client, "Ann"), guest(client, "Bob")
    svc = client.app.state.services
    # Play the computer: the person's seed, a drawn one for the bot; started at once.
    pc = client.post("/api/bots/matches", json={"game": "duell", "level": "random", "seed": SEED_A},
                     headers=a["headers"]).json()
    assert pc["status"] == "live"
    seeds = pc["fairness"]["player_seeds"]
    assert seeds["A"] == SEED_A and F.check_player_seed(seeds["B"]) == seeds["B"]
    doc = stored(client, pc["id"])
    assert doc["seed"] == F.match_seed(doc["fairness"]["server_seed"], seeds)
    # The host seats a computer player at an open Combat table.
    mid = client.post("/api/matches", json={"game": "combat", "options": {"seats": 3}, "seed": SEED_A},
                      headers=a["headers"]).json()["id"]
    added = client.post(f"/api/matches/{mid}/bots", json={"level": "random"}, headers=a["headers"]).json()
    assert sorted(added["fairness"]["player_seeds"]) == ["A", "B"]
    # A tournament's match is created seated and started: the server draws every seat's seed.
    users = [{"id": "u_t1", "name": "T1", "role": "player"}, {"id": "u_t2", "name": "T2", "role": "player"}]
    seated = client.portal.call(svc.store.create_seated, "duell", {}, users, {})
    fair = public_fairness(seated)
    assert sorted(fair["player_seeds"]) == ["A", "B"] and fair["server_seed"] is None
    assert seated["seed"] == F.match_seed(seated["fairness"]["server_seed"], fair["player_seeds"])
    # A rematch: the offering player's seed goes into the new match; the other joins with theirs.
    mid = client.post("/api/matches", json={"game": "duell"}, headers=a["headers"]).json()["id"]
    client.post(f"/api/matches/{mid}/join", headers=b["headers"])
    client.post(f"/api/matches/{mid}/actions", json={"action": {"type": "resign"}}, headers=a["headers"])
    offer = client.post(f"/api/matches/{mid}/rematch", json={"seed": SEED_B}, headers=b["headers"]).json()
    assert offer["fairness"]["player_seeds"] == {"A": SEED_B.lower()}
    assert offer["fairness"]["server_seed_sha256"] != client.get(f"/api/matches/{mid}").json()[
        "fairness"]["server_seed_sha256"]
    err(client.post(f"/api/matches/{mid}/rematch", json={"seed": "no"}, headers=a["headers"]),
        422, "invalid_message")
    live = client.post(f"/api/matches/{offer['id']}/join", json={"seed": SEED_A}, headers=a["headers"]).json()
    assert live["fairness"]["player_seeds"] == {"A": SEED_B.lower(), "B": SEED_A}


def test_the_server_seed_is_revealed_when_the_match_is_over(client):
    a, b = guest(client, "Ann"), guest(client, "Bob")
    mid = client.post("/api/matches", json={"game": "duell", "seed": SEED_A}, headers=a["headers"]).json()["id"]
    # Aborted before the start (the last player left): revealed, with no match seed.
    gone = client.post(f"/api/matches/{mid}/leave", headers=a["headers"]).json()
    assert gone["status"] == "aborted"
    server_seed = gone["fairness"]["server_seed"]
    assert sha(server_seed) == gone["fairness"]["server_seed_sha256"] and gone["fairness"]["match_seed"] is None
    # Finished: in the summary, every view and the history.
    mid = client.post("/api/matches", json={"game": "duell", "seed": SEED_A}, headers=a["headers"]).json()["id"]
    client.post(f"/api/matches/{mid}/join", json={"seed": SEED_B}, headers=b["headers"])
    committed = client.get(f"/api/matches/{mid}").json()["fairness"]["server_seed_sha256"]
    client.post(f"/api/matches/{mid}/actions", json={"action": {"type": "resign"}}, headers=b["headers"])
    drain(client)
    doc = stored(client, mid)
    revealed = client.get(f"/api/matches/{mid}").json()["fairness"]
    assert revealed["server_seed"] == doc["fairness"]["server_seed"]
    assert sha(revealed["server_seed"]) == committed == revealed["server_seed_sha256"]
    assert revealed["match_seed"] == str(doc["seed"])
    for who in (a["headers"], b["headers"], {}):
        assert client.get(f"/api/matches/{mid}/view", headers=who).json()["fairness"] == revealed
    history = client.get("/api/matches", params={"status": "finished"}).json()
    assert [m["fairness"] for m in history if m["id"] == mid] == [revealed]
    assert client.get(f"/api/matches/{mid}/record", headers=a["headers"]).json()["fairness"] == revealed


# ------------------------------------------------------------------------------ all four games
def choose(v: dict, rnd: random.Random) -> dict:
    """A random legal action, preferring to play on (no conceding) so the match has substance."""
    legal = [a for a in v["legal"] if a.get("type") != "concede"] or v["legal"]
    return expand_one_of(rnd.choice(legal), rnd)


def play_random(client, mid, players: dict, rnd: random.Random, max_steps: int = 3000) -> dict:
    any_player = next(iter(players.values()))
    for _ in range(max_steps):
        v = client.get(f"/api/matches/{mid}/view", headers=any_player["headers"]).json()
        if v["status"] != "live":
            return v
        seat = v["pending"][0]
        mine = client.get(f"/api/matches/{mid}/view", headers=players[seat]["headers"]).json()
        r = client.post(f"/api/matches/{mid}/actions", json={"action": choose(mine, rnd)},
                        headers=players[seat]["headers"])
        assert r.status_code == 200, r.text
    raise AssertionError("the match did not end")


def test_an_admins_copy_has_every_event_and_verifies(client):
    from tests.conftest import account

    admin = account(client, f"Root{uuid.uuid4().hex[:8]}", role="admin")
    a, b = guest(client, "Ann"), guest(client, "Bob")
    mid = client.post("/api/matches", json={"game": "duell"}, headers=a["headers"]).json()["id"]
    client.post(f"/api/matches/{mid}/join", headers=b["headers"])
    play_random(client, mid, {"A": a, "B": b}, random.Random(3))
    drain(client)
    full = client.get(f"/api/matches/{mid}/record", headers=admin["headers"]).json()
    export = client.get(f"/api/admin/matches/{mid}/export.json", headers=admin["headers"]).json()
    mine = client.get(f"/api/matches/{mid}/record", headers=a["headers"]).json()
    assert full["events_for"] == "omniscient" and "events_for" not in export
    seen = {json.dumps(e, sort_keys=True) for x in mine["actions"] for e in x["events"]}
    every = [e for x in full["actions"] for e in x["events"]]
    assert any(json.dumps(e, sort_keys=True) not in seen for e in every)  # B's private draws
    for record in (full, export, mine):
        assert F.verify_record(record).ok


def finished_record(client, game_id: str, seats: int, options: dict, rnd_seed: int):
    rnd = random.Random(rnd_seed)
    people = [guest(client, f"P{i}") for i in range(seats)]
    seeds = ["%032x" % rnd.getrandbits(128) for _ in people]
    created = client.post("/api/matches", json={"game": game_id, "options": options, "seed": seeds[0]},
                          headers=people[0]["headers"]).json()
    mid = created["id"]
    for p, s in zip(people[1:], seeds[1:]):
        assert client.post(f"/api/matches/{mid}/join", json={"seed": s}, headers=p["headers"]).status_code == 200
    players = {chr(ord("A") + i): p for i, p in enumerate(people)}
    end = play_random(client, mid, players, rnd)
    assert end["status"] == "finished" and end["result"]
    drain(client)
    r = client.get(f"/api/matches/{mid}/record", headers=people[0]["headers"])
    assert r.status_code == 200, r.text
    record = r.json()
    # What the players saw while it was live is what the record reveals.
    assert record["fairness"]["server_seed_sha256"] == created["fairness"]["server_seed_sha256"]
    assert record["fairness"]["player_seeds"] == dict(zip(players, seeds))
    assert record["fairness"] == end["fairness"]
    return record


def run_cli(path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "app.cli", "verify", str(path)], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)


GAMES = [("duell", 2, {}), ("duel", 2, {}), ("parbaj", 2, {}), ("combat", 3, {"seats": 3, "clock_seconds": None})]


@pytest.mark.parametrize("game_id,seats,options", GAMES, ids=[g[0] for g in GAMES])
def test_a_finished_match_of_every_game_verifies_and_tampering_is_named(client, tmp_path, game_id,
                                                                         seats, options):
    record = finished_record(client, game_id, seats, options, rnd_seed=len(game_id))
    assert len(record["actions"]) > 2 and all(a["events"] for a in record["actions"])
    verdict = F.verify_record(record)
    assert verdict.ok, verdict.text()
    assert verdict.steps == len(record["actions"])
    # A player's copy carries the events their seat was shown, nothing else.
    assert record["events_for"] == "A"
    assert all(e["vis"] == "all" or "A" in e["vis"] for a in record["actions"] for e in a["events"])

    path = tmp_path / "record.json"
    path.write_text(json.dumps(record))
    done = run_cli(path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("OK:") and f"all {len(record['actions'])} steps" in done.stdout

    # One thing changed at a time: the CLI exits 1 and names it.
    server = copy.deepcopy(record)
    server["fairness"]["server_seed"] = "%064x" % (int(record["fairness"]["server_seed"], 16) ^ 1)
    player = copy.deepcopy(record)
    player["fairness"]["player_seeds"]["B"] = "0" * 32
    action = copy.deepcopy(record)
    n = len(action["actions"]) // 2
    action["actions"][n - 1]["action"] = {"type": "resign"}
    for tampered, what, named in ((server, "hash", "sha256(server_seed)"),
                                  (player, "derivation", "derived"),
                                  (action, "step", f"step {n} ")):
        path.write_text(json.dumps(tampered))
        done = run_cli(path)
        assert done.returncode == 1, done.stdout + done.stderr
        assert done.stderr.startswith(f"FAILED ({what}):") and named in done.stderr, done.stderr


def test_the_cli_refuses_what_is_not_a_record(tmp_path):
    path = tmp_path / "x.json"
    path.write_text("not json")
    done = run_cli(path)
    assert done.returncode == 1 and "FAILED (record)" in done.stderr
    done = run_cli(tmp_path / "missing.json")
    assert done.returncode == 1 and "cannot read" in done.stderr


def test_a_timeout_step_is_recorded_and_replays(client):
    """Steps the clock plays (kind "timeout") carry their events too."""
    a, b = guest(client, "Ann"), guest(client, "Bob")
    mid = client.post("/api/matches", json={"game": "duell", "options": {"clock_seconds": 5, "max_timeouts": 1}},
                      headers=a["headers"]).json()["id"]
    client.post(f"/api/matches/{mid}/join", headers=b["headers"])
    svc = client.app.state.services
    change = client.portal.call(svc.store.fire_timeouts, mid, 1e12)
    assert change.write and change.doc["status"] == "finished"
    drain(client)
    record = client.get(f"/api/matches/{mid}/record", headers=a["headers"]).json()
    assert [s["kind"] for s in record["actions"]] == ["timeout"]
    assert record["actions"][0]["events"][0]["type"] == "timeout"
    assert F.verify_record(record).ok


def test_game_ids_cover_every_game():
    from games.registry import all_games

    assert {g.id for g in all_games()} == {g[0] for g in GAMES}
    assert all(get_game(g[0]) for g in GAMES)


def test_fair_deal_strings_in_every_catalogue():
    """Every 'fair.*' key the fair-deal UI uses is in all four core catalogues, translated."""
    import re

    source = (ROOT / "static" / "fair_deal.js").read_text()
    used = set(re.findall(r"'fair\.([a-z_]+)'", source))
    # Keys built at run time: fair.check.<id>, fair.status.<status>, fair.why.<reason>.
    dynamic = {"check": {"revealed", "commitment", "seen", "own_seed", "derivation"},
               "status": {"ok", "failed", "skipped"},
               "why": {"not_seen", "no_seed", "not_started"}}
    assert {"verified", "failed", "details", "download", "replay_note"} <= used
    cats = {lang: json.loads((ROOT / "static" / "i18n" / lang / "core.json").read_text())["fair"]
            for lang in ("en", "it", "pt", "hu")}
    for lang, fair in cats.items():
        for key in used:
            assert isinstance(fair.get(key), str) and fair[key].strip(), (lang, key)
        for group, ids in dynamic.items():
            assert set(fair[group]) == ids, (lang, group)
        assert "{seat}" in fair["player_seed"], lang
        assert "✓" in fair["verified"] and "✗" in fair["failed"], lang
        if lang != "en":  # translated, not copied
            same = [k for k in used if fair[k] == cats["en"][k]]
            assert not same, (lang, same)


def test_a_players_record_events_do_not_tell_a_closed_deck(client, monkeypatch):
    """Párbaj with closed deck lists (docs/security.md, secret options): B's deck stays B's after
    the end, and the events this change adds to A's record must not tell it either.
    Differential: two matches with the same seeds that differ only in B's hand-picked list give
    A identical events in every step. And A's copy, which hides B's choice, is refused by the
    verifier by name, while an admin's copy of the same match verifies."""
    from app.live import store as store_module
    from games.parbaj.cardpool import POOL
    from tests.conftest import account

    monkeypatch.setattr(store_module, "draw_server_seed", lambda: "5e" * 32)
    admin = account(client, f"Root{uuid.uuid4().hex[:8]}", role="admin")
    starters = sorted(POOL.decks)
    worlds = []
    for b_deck in (POOL.decks[starters[1]]["cards"], POOL.decks[starters[2]]["cards"]):
        a, b = guest(client, "Ann"), guest(client, "Bob")
        mid = client.post("/api/matches", json={"game": "parbaj", "options": {"open_deck_lists": False},
                                                "seed": SEED_A}, headers=a["headers"]).json()["id"]
        client.post(f"/api/matches/{mid}/join", json={"seed": "b2" * 16}, headers=b["headers"])
        for who, action in ((a, {"type": "choose_deck", "deck": starters[0]}),
                            (b, {"type": "choose_deck", "cards": list(b_deck)})):
            r = client.post(f"/api/matches/{mid}/actions", json={"action": action}, headers=who["headers"])
            assert r.status_code == 200, r.text
        # The deal happened (both decks shuffled, hands drawn); B resigns before playing a card,
        # so nothing B does in public depends on the list.
        client.post(f"/api/matches/{mid}/actions", json={"action": {"type": "resign"}}, headers=b["headers"])
        drain(client)
        mine = client.get(f"/api/matches/{mid}/record", headers=a["headers"]).json()
        full = client.get(f"/api/matches/{mid}/record", headers=admin["headers"]).json()
        assert mine["fairness"]["server_seed"] == "5e" * 32  # the patch took effect: same deal
        assert json.dumps(sorted(b_deck)) not in json.dumps(mine)
        verdict = F.verify_record(mine)
        assert (verdict.ok, verdict.what) == (False, "record") and "replayable" in verdict.problem
        assert F.verify_record(full).ok, F.verify_record(full).text()
        worlds.append(([s["events"] for s in mine["actions"]], [s["events"] for s in full["actions"]]))
    (mine_1, full_1), (mine_2, full_2) = worlds
    assert len(mine_1) == len(mine_2) >= 3
    assert mine_1 == mine_2
    # The comparison can fail: the admin's copies, with B's private events, tell the worlds apart.
    assert full_1 != full_2
