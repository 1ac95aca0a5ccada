"""A new game needs a package and one registry entry, nothing else (issue #16): a copy of
games/duell registered as "rapier" (tests/new_game/conftest.py) works everywhere a game is
used — the contract suite, the lobby over HTTP and websockets, the computer at every level it
declares (strong ones in the server's spawned worker pool), the lab on the command line and
on the lab page's API, a tournament round, and the admins' review of the finished match.
The generic board in a real browser is tests/new_game/test_new_game_browser.py.
"""
from __future__ import annotations

import json
import random
import time
import uuid

import pytest

from app.cli import main as cli
from games import registry
from games.base import filter_events
from games.bots import VIEW_KEYS, get_bot
from games.replay import replay_record
from tests.conftest import account, drain, guest
from tests.games.contract import CHECKS
from tests.new_game.conftest import GAME_ID, PACKAGE

pytestmark = pytest.mark.usefixtures("new_game")
SHORT = {"duels_to_win": 1}


def ok(r, status=200):
    assert r.status_code == status, r.text
    return r.json()


def sfx() -> str:
    return uuid.uuid4().hex[:6]


# ------------------------------------------------------------------------------ registration
def test_the_copy_is_a_game_of_its_own(new_game, new_game_package):
    folder, package = new_game_package
    assert GAME_ID in registry.ids() and registry.get_info(GAME_ID) is new_game
    game = new_game.game
    assert game.id == GAME_ID and game.name == "Rapier"
    # Its engine is the copied package's, loaded from outside the repository.
    module = __import__(type(game).__module__, fromlist=["x"])
    assert type(game).__module__.startswith(PACKAGE + ".")
    assert str(folder) in module.__file__
    assert game is not registry.get_game("duell")
    assert game.setup({}, ["A", "B"], 1)["game"] == GAME_ID
    assert new_game.board is None and new_game.levels == ("random", "strong")
    # A second, different entry under the same id is refused; the same one again is not.
    with pytest.raises(ValueError):
        registry.register(GAME_ID, "games.duel")
    assert registry.register(GAME_ID, PACKAGE, name="Rapier", board=None) is new_game
    with pytest.raises(ValueError):
        registry.register("duell", PACKAGE)
    with pytest.raises(ValueError):
        registry.register("Bad id", PACKAGE)
    # The EXTRA_GAMES shape (app/config.py) names the same entry: nothing changes.
    registry.register_all({GAME_ID: {"module": PACKAGE, "name": "Rapier", "board": None}})
    assert registry.get_info(GAME_ID) is new_game
    assert registry.added() == {GAME_ID: {"module": PACKAGE, "name": "Rapier", "board": None}}


def test_listed_for_the_clients(client):
    games = {g["id"]: g for g in ok(client.get("/api/games"))}
    g = games[GAME_ID]
    assert g["name"] == "Rapier" and g["board"] is None and g["simultaneous"] is False
    assert g["bot_levels"] == ["random", "strong"] and g["rules"] == "docs/rules/duell.md"
    assert g["lab"] == {"length_unit": "duels", "moves": "cards played", "lineup": None}
    assert g["options_schema"] == games["duell"]["options_schema"]
    assert games["duell"]["board"] == "duell"
    assert ok(client.get("/api/bots"))["levels"][GAME_ID] == ["random", "strong"]


@pytest.mark.parametrize("check", CHECKS, ids=lambda c: c.__name__.removeprefix("check_"))
def test_contract(new_game, check):
    check(new_game)


# ------------------------------------------------------------------------------ the lobby
def _connect(client, mid, player):
    return client.websocket_connect(f"/ws/matches/{mid}?token={player['token']}")


def _until(ws, kind: str, version: int = 0, seen: list | None = None) -> dict:
    """The next message of ``kind`` (at ``version`` or later); the others go to ``seen``."""
    while True:
        m = ws.receive_json()
        if m["type"] == kind and m.get("version", version) >= version:
            return m
        if seen is not None:
            seen.append(m)


def test_lobby_create_join_and_play_over_the_websocket(client):
    a, b = guest(client, "Ann"), guest(client, "Bob")
    made = ok(client.post("/api/matches", json={"game": GAME_ID, "options": SHORT},
                          headers=a["headers"]))
    assert made["game"] == GAME_ID and made["game_name"] == "Rapier" and made["status"] == "open"
    listed = ok(client.get(f"/api/matches?status=open&game={GAME_ID}", headers=b["headers"]))
    assert made["id"] in [m["id"] for m in listed]
    mid = made["id"]
    assert ok(client.post(f"/api/matches/{mid}/join", headers=b["headers"]))["status"] == "live"
    players = {"A": a, "B": b}
    rnd = random.Random(3)
    with _connect(client, mid, a) as wa, _connect(client, mid, b) as wb:
        sockets = {"A": wa, "B": wb}
        views = {s: ws.receive_json() for s, ws in sockets.items()}
        assert views["A"]["game"] == GAME_ID and views["A"]["state"]["hands"]["B"] is None
        moves = 0
        while views["A"]["status"] == "live":
            seat = views["A"]["pending"][0]
            mover = views[seat]
            assert mover["legal"], mover
            moves += 1
            sockets[seat].send_json({"type": "action", "client_seq": moves,
                                     "action": rnd.choice(mover["legal"])})
            before: list = []
            ack = _until(sockets[seat], "ack", seen=before)
            # The mover's view of its move comes before the acknowledgment.
            views[seat] = [m for m in before if m["type"] == "view"][-1]
            assert views[seat]["version"] == ack["version"]
            other = "B" if seat == "A" else "A"
            views[other] = _until(sockets[other], "view", ack["version"])
        assert moves > 3
    summary = ok(client.get(f"/api/matches/{mid}", headers=a["headers"]))
    assert summary["status"] == "finished" and summary["result"] == views["A"]["result"]
    drain(client)
    record = ok(client.get(f"/api/matches/{mid}/record", headers=players["A"]["headers"]))
    assert record["game"] == GAME_ID and len(record["actions"]) == moves
    assert registry.get_game(GAME_ID).result(replay_record(record)) == summary["result"]


# ------------------------------------------------------------------------------ the computer
@pytest.fixture
def settings(settings):
    """Bots at once; levels other than random in the spawned worker pool, as in production
    (the pool learns the run-time registry entry when it starts), with time to start it."""
    return settings.model_copy(update={"bot_think_ms": 0, "bot_executor": "process",
                                       "bot_move_seconds": 120.0})


@pytest.mark.parametrize("level", ["random", "strong"])
def test_play_the_computer_at_each_level(client, new_game, level):
    assert level in new_game.levels
    me = guest(client, "Cy")
    made = ok(client.post("/api/bots/matches", headers=me["headers"],
                          json={"game": GAME_ID, "level": level, "options": SHORT}))
    mid = made["id"]
    assert made["status"] == "live" and made["seats"][1]["user"]["bot"] == level
    runner = client.app.state.services.bots
    rnd = random.Random(5)
    for _ in range(500):
        client.portal.call(runner.settle)
        v = ok(client.get(f"/api/matches/{mid}/view", headers=me["headers"]))
        if v["status"] != "live":
            break
        assert v["pending"] == ["A"], "the computer did not answer"
        action = get_bot(GAME_ID, "random")({k: v[k] for k in VIEW_KEYS}, rnd)
        ok(client.post(f"/api/matches/{mid}/actions", headers=me["headers"],
                       json={"action": action, "version": v["version"]}))
    assert v["status"] == "finished", v["status"]
    assert runner.stats["moves"] > 0
    # Every computer move was its own level's (none fell back to random in the server).
    assert not [k for k in runner.stats if k.startswith("fallback")], runner.stats


# ------------------------------------------------------------------------------ the lab
def test_the_lab_on_the_command_line(tmp_path, capsys):
    out = tmp_path / "rapier"
    assert cli(["simulate", GAME_ID, "--games", "8", "--bots", "strong,random", "--seed", "2",
                "--workers", "2", "--budget", "4", "--options", json.dumps(SHORT),
                "--out", str(out), "--quiet"]) == 0
    text = capsys.readouterr().out
    assert "Lab: Rapier" in text and "length (duels)" in text and "Cards played" in text
    report = json.loads(out.with_name("rapier.json").read_text())
    r = report["rule_sets"][0]["report"]
    assert report["game"] == GAME_ID and r["games"] == 8
    assert sum(c["games"] for c in r["bots"].values()) == 16
    assert set(r["moves"]["items"]) == {"1", "2", "3", "4", "5"}
    assert "<svg" in out.with_name("rapier.html").read_text()


def test_the_lab_page_api(client):
    org = account(client, "Org" + sfx(), role="organiser")
    meta = ok(client.get("/api/lab/meta", headers=org["headers"]))
    g = next(g for g in meta["games"] if g["id"] == GAME_ID)
    assert g["lab"]["length_unit"] == "duels" and g["lineup"] is None and g["lineups"] == []
    run = ok(client.post("/api/lab/runs", headers=org["headers"], json={
        "game": GAME_ID, "games": 6, "bots": ["strong", "random"], "options": SHORT,
        "budget": 4}), 202)
    end = time.time() + 180
    while (done := ok(client.get(f"/api/lab/runs/{run['id']}", headers=org["headers"])))[
            "status"] != "done":
        assert done["status"] != "failed" and time.time() < end, done
        time.sleep(0.2)
    assert done["report"]["game"] == GAME_ID
    assert done["report"]["rule_sets"][0]["report"]["games"] == 6
    page = client.get(f"/api/lab/runs/{run['id']}/report.html", headers=org["headers"])
    assert page.status_code == 200 and "Rapier" in page.text


# ------------------------------------------------------------------------------ tournaments
def test_a_tournament_round(client):
    org = account(client, "Org" + sfx(), role="organiser")
    tid = ok(client.post("/api/tournaments", headers=org["headers"], json={
        "name": "Rapier cup", "game": GAME_ID, "format": "swiss",
        "settings": {"round_break_seconds": 0, "rounds": 2, "game_options": SHORT}}), 201)["id"]
    ok(client.post(f"/api/tournaments/{tid}/open-registration", headers=org["headers"]))
    people = [account(client, f"Fen{i}{sfx()}") for i in range(4)]
    for p in people:
        ok(client.post(f"/api/tournaments/{tid}/register", headers=p["headers"]))
    ok(client.post(f"/api/tournaments/{tid}/open-check-in", headers=org["headers"]))
    for p in people:
        ok(client.post(f"/api/tournaments/{tid}/check-in", headers=p["headers"]))
    d = ok(client.post(f"/api/tournaments/{tid}/start", headers=org["headers"]))
    assert d["game"] == GAME_ID and d["round"] == 1
    pairings = d["current_round"]["pairings"]
    assert len(pairings) == 2
    by_user = {p["user"]["id"]: p for p in people}
    rnd = random.Random(9)
    for pairing in pairings:
        mid = pairing["matches"][-1]["id"]
        seated = {u: by_user[u] for u in pairing["players"]}
        for _ in range(2000):
            v = ok(client.get(f"/api/matches/{mid}/view", headers=next(iter(seated.values()))["headers"]))
            if v["status"] != "live":
                break
            assert v["game"] == GAME_ID and v["options"]["duels_to_win"] == 1
            uid = next(s["user"]["id"] for s in v["players"] if s["seat"] == v["pending"][0])
            mine = ok(client.get(f"/api/matches/{mid}/view", headers=seated[uid]["headers"]))
            action = get_bot(GAME_ID, "random")({k: mine[k] for k in VIEW_KEYS}, rnd)
            r = client.post(f"/api/matches/{mid}/actions", headers=seated[uid]["headers"],
                            json={"action": action})
            assert r.status_code in (200, 409), r.text
    # The results report themselves and the next round pairs itself.
    end = time.time() + 30
    while (d := ok(client.get(f"/api/tournaments/{tid}")))["round"] < 2:
        assert time.time() < end, d
        time.sleep(0.1)
    first = next(r for r in ok(client.get(f"/api/tournaments/{tid}/export.json"))["rounds"]
                 if r["round"] == 1)
    assert all(p["status"] == "done" and p["how"] == "played" for p in first["pairings"])


# ------------------------------------------------------------------------------ review
def test_admin_review_of_a_finished_match(client):
    admin = account(client, "Rev" + sfx(), role="admin")
    a, b = account(client, "Aki" + sfx()), account(client, "Ben" + sfx())
    mid = ok(client.post("/api/matches", json={"game": GAME_ID, "options": SHORT},
                         headers=a["headers"]))["id"]
    ok(client.post(f"/api/matches/{mid}/join", headers=b["headers"]))
    players = {"A": a, "B": b}
    rnd = random.Random(4)
    for _ in range(2000):
        v = ok(client.get(f"/api/matches/{mid}/view", headers=a["headers"]))
        if v["status"] != "live":
            break
        seat = v["pending"][0]
        mine = ok(client.get(f"/api/matches/{mid}/view", headers=players[seat]["headers"]))
        ok(client.post(f"/api/matches/{mid}/actions", headers=players[seat]["headers"],
                       json={"action": rnd.choice(mine["legal"]), "version": mine["version"]}))
    drain(client)
    h = admin["headers"]
    detail = ok(client.get(f"/api/admin/matches/{mid}", headers=h))
    rec = detail["record"]
    assert rec["game"] == GAME_ID
    n = len(rec["actions"])
    game = registry.get_game(GAME_ID)
    state = game.setup(rec["options"], ["A", "B"], rec["seed"])
    for i, step in enumerate(rec["actions"], 1):
        state, events = game.apply(state, step["seat"], step["action"])
        if i in (1, n // 2, n):
            as_b = ok(client.get(f"/api/admin/matches/{mid}/steps/{i}?as=B", headers=h))
            assert as_b["state"] == json.loads(json.dumps(game.view(state, "B")))
            assert as_b["events"] == json.loads(json.dumps(filter_events(events, "B")))
            assert as_b["state"]["hands"]["A"] is None
    assert ok(client.get(f"/api/admin/matches/{mid}/steps/{n}", headers=h))["result"] == v["result"]
