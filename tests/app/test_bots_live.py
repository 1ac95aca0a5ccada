"""Computer players in live matches (app/live/bots.py, app/api/bots.py; docs/bots.md).

Played over the HTTP API with the bot runner doing the computer's turns: a person against the
random bot in Duell, Duel and Párbaj to the end, Combat with three bots, a Combat table where
people fill the seats the bots left. And the runner's guarantees: the bot's input is exactly
its seat's view document (and does not change with the opponent's secrets), bots only send
legal moves, two runners (two processes on one Redis) racing on one turn apply it once, the
sweep finds turns nobody plays, bots beat the clock, and the errors have clear codes.
"""
from __future__ import annotations

import asyncio
import copy
import json
import random
import threading

import pytest

import games.bots as game_bots
from app.errors import STATUS
from app.live import bots as live_bots
from app.live import service
from app.live.views import render
from games.registry import get_game
from tests.conftest import ROOT, account, drain, guest
from tests.support import async_wait_for

ANN = {"id": "u_ann", "name": "Ann", "role": "player"}


@pytest.fixture
def settings(settings):
    """No think pause; levels other than random in threads, so fakes registered here are seen."""
    return settings.model_copy(update={"bot_think_ms": 0, "bot_executor": "thread"})


@pytest.fixture
def fake_level(monkeypatch):
    """Register ``fn`` as a bot level of ``game`` for this test only (through the registry's
    public functions, which is all the runner uses)."""
    def register(game: str, level: str, fn) -> None:
        real_levels, real_get = game_bots.levels, game_bots.get_bot
        monkeypatch.setattr(game_bots, "levels",
                            lambda g: tuple(real_levels(g)) + ((level,) if g == game else ()))
        monkeypatch.setattr(game_bots, "get_bot", lambda g, lv, *a, **k: (
            fn if (g, lv) == (game, level) else real_get(g, lv, *a, **k)))

    return register


# The levels a person plays here: random, and strong where the registry has it.
LEVELS = [lv for lv in ("random", "strong") if lv in game_bots.levels("duell")]


@pytest.fixture
def refused(monkeypatch):
    """Every refusal a bot's move got from ``service.perform`` (the runner's only way to act)."""
    seen: list[tuple[str, str]] = []
    real = service.perform

    async def perform(svc, match_id, user, action, client_seq=None, version=None):
        try:
            return await real(svc, match_id, user, action, client_seq, version)
        except Exception as e:
            if user.id.startswith("bot-"):
                seen.append((getattr(e, "code", type(e).__name__), json.dumps(action)))
            raise

    monkeypatch.setattr(service, "perform", perform)
    return seen


# ------------------------------------------------------------------------------ helpers
def runner(client):
    return client.app.state.services.bots


def settle(client) -> None:
    client.portal.call(runner(client).settle)


def play_computer(client, player, game, level="random", bots=1, options=None, status=200):
    r = client.post("/api/bots/matches", headers=player["headers"],
                    json={"game": game, "level": level, "bots": bots, "options": options or {}})
    assert r.status_code == status, r.text
    return r.json()


def view(client, mid, player) -> dict:
    r = client.get(f"/api/matches/{mid}/view", headers=player["headers"])
    assert r.status_code == 200, r.text
    return r.json()


def play_people(client, mid, people: list[dict], seed: int = 0, max_steps: int = 5000) -> dict:
    """The people play random legal moves until the match ends; after every move the bots are
    given time to answer, and then a person must be the one to move. Returns the last view."""
    rnd = random.Random(seed)
    for _ in range(max_steps):
        settle(client)
        views = [(p, view(client, mid, p)) for p in people]
        if views[0][1]["status"] != "live":
            return views[0][1]
        movers = [(p, v) for p, v in views if v["seat"] in v["pending"]]
        assert movers, f"nobody but a bot is pending and it did not move: {views[0][1]['pending']}"
        p, v = movers[0]
        action = game_bots.get_bot(v["game"], "random")({k: v[k] for k in game_bots.VIEW_KEYS}, rnd)
        r = client.post(f"/api/matches/{mid}/actions", headers=p["headers"],
                        json={"action": action, "version": v["version"]})
        # A bot may move between the view and the action (simultaneous decisions): stale.
        assert r.status_code == 200 or r.json()["error"]["code"] == "stale_version", r.text
    raise AssertionError("the match did not end")


def bot_seats(summary: dict) -> dict[str, dict]:
    return {s["seat"]: s["user"] for s in summary["seats"] if s["user"] and s["user"].get("bot")}


# ------------------------------------------------------------------------------ whole games
@pytest.mark.slow
@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("game, options", [
    ("duell", {"duels_to_win": 2}),
    ("duel", {"max_slots": 12}),
    ("parbaj", {"max_rounds": 12}),
])
def test_a_person_plays_the_computer_to_the_end(client, refused, game, options, level):
    ann = account(client, f"Ann{game}{level}")
    sm = play_computer(client, ann, game, level=level, options=options)
    assert sm["status"] == "live", sm
    assert [s["seat"] for s in sm["seats"]] == ["A", "B"]
    assert sm["seats"][0]["user"]["id"] == ann["user"]["id"]
    bot = sm["seats"][1]["user"]
    assert bot == {"id": f"bot-{level}-1", "name": f"Computer ({level})", "role": "player", "bot": level}
    live = client.get("/api/matches?status=live").json()
    assert bot_seats(next(m for m in live if m["id"] == sm["id"])) == {"B": bot}

    last = play_people(client, sm["id"], [ann], seed=len(game))
    assert last["status"] == "finished" and last["result"]["places"].keys() == {"A", "B"}
    assert refused == [], "the bot sent moves the server refused"
    assert runner(client).stats["moves"] > 0

    # History: every bot step is its own action (none timed out), and the bot is marked.
    drain(client)
    record = client.get(f"/api/matches/{sm['id']}/record", headers=ann["headers"]).json()
    bot_steps = [a for a in record["actions"] if a["seat"] == "B"]
    assert bot_steps and all(a["kind"] == "action" and a["user_id"] == bot["id"] for a in bot_steps)
    assert {s["seat"]: s["user"].get("bot") for s in record["seats"]} == {"A": None, "B": level}
    mine = client.get(f"/api/users/{ann['user']['id']}/matches").json()
    assert mine[0]["id"] == sm["id"] and mine[0]["seats"][1]["user"]["bot"] == level
    profile = client.get(f"/api/users/{bot['id']}").json()
    assert profile["user"]["bot"] is True and profile["user"]["name"] == f"Computer ({level})"
    assert not any(k.startswith("fallback") for k in runner(client).stats), runner(client).stats
    # Not rated: a match with a computer player counts for nobody's rating.
    assert client.get(f"/api/users/{ann['user']['id']}").json()["ratings"] == []
    board = client.get(f"/api/leaderboard/{game}").json()
    assert not {bot["id"], ann["user"]["id"]} & {r["user"]["id"] for r in board}


def test_combat_one_person_and_three_bots(client, refused):
    ann = guest(client, "Ann")
    sm = play_computer(client, ann, "combat", bots=3)
    assert sm["status"] == "live"
    assert bot_seats(sm) == {s: live_bots.bot_user("random", n)
                             for s, n in (("B", 1), ("C", 2), ("D", 3))}
    assert bot_seats(sm)["C"]["name"] == "Computer 2 (random)"
    last = play_people(client, sm["id"], [ann], seed=3)
    assert last["status"] == "finished"
    assert set(last["result"]["places"]) == {"A", "B", "C", "D"}
    assert refused == []


def test_combat_table_people_fill_the_seats_the_bots_leave(client, refused):
    ann, bob = guest(client, "Ann"), guest(client, "Bob")
    sm = play_computer(client, ann, "combat", bots=1, options={"seats": 4})
    assert sm["status"] == "open" and len(sm["seats"]) == 2  # waits for people
    r = client.post(f"/api/matches/{sm['id']}/bots", headers=ann["headers"], json={"level": "random"})
    assert r.status_code == 200 and r.json()["status"] == "open", r.text
    assert set(bot_seats(r.json())) == {"B", "C"}
    r = client.post(f"/api/matches/{sm['id']}/join", headers=bob["headers"])
    assert r.status_code == 200 and r.json()["status"] == "live", r.text
    last = play_people(client, sm["id"], [ann, bob], seed=5)
    assert last["status"] == "finished" and len(last["result"]["places"]) == 4
    assert refused == []


def test_rematch_against_the_computer_seats_the_bot_again(client):
    ann = guest(client, "Ann")
    sm = play_computer(client, ann, "duell")
    r = client.post(f"/api/matches/{sm['id']}/actions", headers=ann["headers"],
                    json={"action": {"type": "resign"}})
    assert r.status_code == 200 and r.json()["status"] == "finished"
    settle(client)
    r = client.post(f"/api/matches/{sm['id']}/rematch", headers=ann["headers"])
    assert r.status_code == 200, r.text
    new = r.json()
    assert new["id"] != sm["id"] and new["status"] == "live"
    assert bot_seats(new) == {"B": live_bots.bot_user("random", 1)}


def test_rematch_against_the_computer_after_the_match_left_redis(client):
    ann = guest(client, "Ann")
    sm = play_computer(client, ann, "duell")
    client.post(f"/api/matches/{sm['id']}/actions", headers=ann["headers"], json={"action": {"type": "resign"}})
    settle(client)
    drain(client)
    svc = client.app.state.services
    client.portal.call(svc.redis.delete, svc.store.k.match(sm["id"]), svc.store.k.events(sm["id"]))
    r = client.post(f"/api/matches/{sm['id']}/rematch", headers=ann["headers"])
    assert r.status_code == 200, r.text
    new = r.json()
    assert new["id"] != sm["id"] and new["status"] == "live"
    assert bot_seats(new) == {"B": live_bots.bot_user("random", 1)}


# ------------------------------------------------------------------------------ open tables
def test_bots_leave_a_table_no_person_sits_at(client):
    ann = guest(client, "Ann")
    mid = client.post("/api/matches", json={"game": "combat", "options": {}}, headers=ann["headers"]).json()["id"]
    for _ in range(2):
        assert client.post(f"/api/matches/{mid}/bots", headers=ann["headers"],
                           json={"level": "random"}).status_code == 200
    assert client.post(f"/api/matches/{mid}/leave", headers=ann["headers"]).status_code == 200
    settle(client)
    assert client.get(f"/api/matches/{mid}").json()["status"] == "aborted"
    assert mid not in {m["id"] for m in client.get("/api/matches?status=open").json()}


def test_host_role_passes_to_a_person_not_a_bot(client):
    ann, bob = guest(client, "Ann"), guest(client, "Bob")
    mid = client.post("/api/matches", json={"game": "combat", "options": {}}, headers=ann["headers"]).json()["id"]
    client.post(f"/api/matches/{mid}/bots", headers=ann["headers"], json={"level": "random"})
    client.post(f"/api/matches/{mid}/join", headers=bob["headers"])
    client.post(f"/api/matches/{mid}/leave", headers=ann["headers"])  # the bot is now seat A
    settle(client)
    sm = client.get(f"/api/matches/{mid}").json()
    assert sm["seats"][0]["user"]["bot"] and sm["host"] == bob["user"]["id"]
    r = client.post(f"/api/matches/{mid}/start", headers=bob["headers"])
    assert r.status_code == 200 and r.json()["status"] == "live", r.text


# ------------------------------------------------------------------------------ errors
def test_error_codes(client):
    ann, bob = guest(client, "Ann"), guest(client, "Bob")

    def err(r, status, code):
        assert r.status_code == status, r.text
        assert r.json()["error"]["code"] == code, r.text

    play = lambda body, who=ann: client.post("/api/bots/matches", json=body, headers=who["headers"])  # noqa: E731
    err(play({"game": "duell", "level": "grandmaster"}), 422, "unknown_bot_level")
    err(play({"game": "duell", "level": "random", "bots": 2}), 422, "invalid_options")
    err(play({"game": "combat", "level": "random", "bots": 3, "options": {"seats": 3}}), 422, "invalid_options")
    err(play({"game": "duell", "level": "random", "bots": 0}), 422, "invalid_message")
    err(play({"game": "chess", "level": "random"}), 404, "not_found")
    err(client.post("/api/bots/matches", json={"game": "duell", "level": "random"}), 401, "unauthorized")

    mid = client.post("/api/matches", json={"game": "combat", "options": {}}, headers=ann["headers"]).json()["id"]
    add = lambda level="random", who=ann, m=mid: client.post(  # noqa: E731
        f"/api/matches/{m}/bots", json={"level": level}, headers=who["headers"])
    err(add("grandmaster"), 422, "unknown_bot_level")
    err(add(who=bob), 403, "not_host")
    for _ in range(5):
        assert add().status_code == 200
    err(add(), 409, "match_full")
    assert client.post(f"/api/matches/{mid}/start", headers=ann["headers"]).status_code == 200
    err(add(), 409, "match_not_open")
    err(add(m="nosuchmatch"), 404, "not_found")


def test_new_error_codes_are_documented():
    protocol = (ROOT / "docs" / "protocol.md").read_text()
    for code, status in (("unknown_bot_level", 422), ("not_host", 403)):
        assert STATUS[code] == status
        assert f"`{code}`" in protocol
    for lang in ("en", "it", "pt", "hu"):
        core = json.loads((ROOT / "static" / "i18n" / lang / "core.json").read_text())
        assert {"unknown_bot_level", "not_host"} <= set(core["error"]), lang


def test_levels_listed_per_game(client):
    levels = client.get("/api/bots").json()["levels"]
    assert set(levels) == {"duel", "duell", "combat", "parbaj"}
    for game, names in levels.items():
        assert list(names) == list(game_bots.levels(game)) and names[0] == "random"


# ------------------------------------------------------------------------------ the runner
async def started(settings, redis=None):
    """A Services like the app's, without background workers and without the bot runner as an
    observer: these tests play the bots' turns by hand (``play_round``, ``sweep_once``), so
    nothing else moves them. ``redis``: share one Redis server with other Services."""
    from app.db.session import make_engine, sessionmaker
    from app.live.hub import Hub
    from app.live.outbox import OutboxWorker
    from app.live.store import MatchStore
    from app.services import Services

    settings = settings.model_copy(update={"run_workers": False})
    if redis is None:
        svc = Services.build(settings)
    else:
        store = MatchStore(redis, settings.redis_prefix, settings.finished_ttl_seconds)
        engine = make_engine(settings)
        maker = sessionmaker(engine)
        svc = Services(settings=settings, redis=redis, store=store, hub=Hub(store, redis),
                       engine=engine, maker=maker,
                       outbox=OutboxWorker(store, maker, settings.outbox_batch, name=f"t{id(store)}"))
    await svc.start()
    svc.observers.remove(svc.bots.observe)
    return svc


@pytest.fixture
async def svc(settings):
    s = await started(settings)
    yield s
    await s.stop()


@pytest.fixture
async def two_processes(settings):
    """Two Services on one Redis server, as two processes behind a load balancer."""
    if settings.redis_url:
        from app.live.redis import make_redis

        redises = [make_redis(settings), make_redis(settings)]
    else:
        import fakeredis

        server = fakeredis.FakeServer()
        redises = [fakeredis.FakeAsyncRedis(server=server, decode_responses=True) for _ in range(2)]
    both = [await started(settings, r) for r in redises]
    yield both
    for s in both:
        await s.stop()


async def bot_to_move(svc, level="random", options=None, game="duell") -> dict:
    """A live match of Ann against one bot, with the bot to move. Made through the store, so no
    observer has seen it: nothing plays the bot until the test says so."""
    store = svc.store
    doc = await store.create(game, options or {}, ANN)
    doc = (await store.add_bots(doc["id"], ANN["id"], lambda d: live_bots.name_bots(d, [level]))).doc
    g = get_game(game)
    while "B" not in g.pending(doc["state"]):
        action = game_bots.get_bot(game, "random")(game_bots.view_doc(g, doc["state"], "A"), random.Random(1))
        doc = (await store.act(doc["id"], ANN["id"], action)).doc
    return doc


async def test_bot_input_is_exactly_its_view_document(svc, monkeypatch):
    calls = []
    real = game_bots.choose

    def spy(game_id, level, doc, rnd):
        calls.append(copy.deepcopy(doc))
        return real(game_id, level, doc, rnd)

    monkeypatch.setattr(game_bots, "choose", spy)
    doc = await bot_to_move(svc)
    assert await svc.bots.play_round(doc)
    assert calls == [render(doc, "B", "B", [])]
    assert calls[0]["seat"] == "B" and calls[0]["state"]["hands"]["A"] is None
    after = await svc.store.load(doc["id"])
    assert after["version"] == doc["version"] + 1 and after["cseq"]["B"] == 1


async def test_bot_input_does_not_depend_on_the_opponents_secrets(svc, monkeypatch):
    """Two live documents that differ only in what B may not know (A's hand, the deck order)
    give the bot at B identical input, and so the same move."""
    doc = await bot_to_move(svc)
    other = copy.deepcopy(doc)
    st = other["state"]
    pool = st["hands"]["A"] + st["deck"]
    random.Random(9).shuffle(pool)
    st["hands"]["A"], st["deck"] = pool[:len(st["hands"]["A"])], pool[len(st["hands"]["A"]):]
    assert st["hands"]["A"] != doc["state"]["hands"]["A"]  # the secret really differs
    assert render(other, "A", "A", []) != render(doc, "A", "A", [])
    assert live_bots.bot_input(other, "B") == live_bots.bot_input(doc, "B")

    inputs = []
    real = game_bots.choose
    monkeypatch.setattr(game_bots, "choose",
                        lambda g, lv, d, rnd: inputs.append(copy.deepcopy(d)) or real(g, lv, d, rnd))
    s = doc["seats"][1]
    first = await svc.bots._choose(doc, s, 1.0)
    second = await svc.bots._choose(other, s, 1.0)
    assert first == second and inputs[0] == inputs[1]


async def test_two_runners_racing_on_one_turn_apply_it_once(two_processes):
    one, two = two_processes
    doc = await bot_to_move(one)
    # No leases: both compute the same move (same seed, seat, version) and both send it.
    moved = await asyncio.gather(one.bots.play_round(doc, lease=False),
                                 two.bots.play_round(doc, lease=False))
    assert moved == [True, True]
    after = await one.store.load(doc["id"])
    assert after["steps"] == doc["steps"] + 1 and after["cseq"]["B"] == 1
    stats = one.bots.stats + two.bots.stats
    assert stats["moves"] == 1 and stats["duplicates"] + stats["raced"] == 1


async def test_two_runners_choosing_differently_still_move_once(two_processes, fake_level):
    """A level that answers differently on each call (as a search cut short by the clock
    might): the second move under the same client_seq is refused, not applied."""
    calls = []

    def fickle(doc, rnd):
        calls.append(1)
        moves = [a for a in doc["legal"] if a.get("type") != "resign"]
        return moves[len(calls) % len(moves)]

    fake_level("duell", "fickle", fickle)
    one, two = two_processes
    doc = await bot_to_move(one, level="fickle")
    assert one.bots.needs_turn(doc)
    await asyncio.gather(one.bots.play_round(doc, lease=False), two.bots.play_round(doc, lease=False))
    assert len(calls) == 2
    after = await one.store.load(doc["id"])
    assert after["steps"] == doc["steps"] + 1 and after["cseq"]["B"] == 1
    stats = one.bots.stats + two.bots.stats
    assert stats["moves"] == 1 and stats["raced"] + stats["duplicates"] == 1


async def test_sweeps_of_two_processes_pick_up_a_stuck_turn_once(two_processes):
    one, two = two_processes
    doc = await bot_to_move(one)
    # The process that saw the change recorded the match, then died before the bot moved.
    await one.redis.sadd(one.bots.key, doc["id"])
    started = await asyncio.gather(one.bots.sweep_once(), two.bots.sweep_once())
    assert started == [1, 1]
    await asyncio.gather(one.bots.settle(), two.bots.settle())
    after = await one.store.load(doc["id"])
    assert after["steps"] == doc["steps"] + 1 and after["cseq"]["B"] == 1
    stats = one.bots.stats + two.bots.stats
    assert stats["moves"] == 1 and stats["leased_elsewhere"] == 1
    # A turn is taken once; a finished match leaves the set.
    assert await one.bots.sweep_once() == 0
    await one.store.act(doc["id"], ANN["id"], {"type": "resign"})
    await one.bots.sweep_once()
    assert not await one.redis.sismember(one.bots.key, doc["id"])


@pytest.mark.slow
def test_the_process_pool_plays_a_whole_game(settings, monkeypatch, refused):
    """The default executor: levels that search run in a spawned worker process. The strong
    level where there is one; else the random one, routed through the pool all the same. The
    bot's call and its input cross the process boundary and the game still ends cleanly."""
    from fastapi.testclient import TestClient

    from app.main import create_app

    level = LEVELS[-1]
    monkeypatch.setattr(live_bots, "INLINE_LEVELS", frozenset())
    with TestClient(create_app(settings.model_copy(update={"bot_executor": "process"}),
                               run_migrations=False)) as client:
        ann = guest(client, "Ann")
        sm = play_computer(client, ann, "duell", level=level, options={"duels_to_win": 1})
        last = play_people(client, sm["id"], [ann], seed=11)
        assert last["status"] == "finished"
        stats = runner(client).stats
        assert stats["moves"] > 0 and not any(k.startswith("fallback") for k in stats), stats
        assert refused == []


# ------------------------------------------------------------------------------ clocks
def test_timing_keeps_within_the_clock(svc, monkeypatch):
    from app.live import bots as bots_module

    monkeypatch.setattr(bots_module, "now", lambda: 1000.0)  # a clock that stands still
    r = svc.bots
    doc = {"deadlines": {}}
    assert r._timing(doc, ["B"]) == (0.0, svc.settings.bot_move_seconds)
    doc = {"deadlines": {"B": 1005.0, "A": 1001.0}}
    think, budget = r._timing(doc, ["B"])
    # The think pause is capped by a share of the 5 s left; the search gets half of what then
    # remains, less the margin kept for sending the move.
    assert think == min(svc.settings.bot_think_ms / 1000, 5.0 * bots_module.THINK_SHARE)
    assert budget == pytest.approx((5.0 - think) * bots_module.CLOCK_SHARE - bots_module.CLOCK_MARGIN)
    assert 0 < budget < 2.5
    doc = {"deadlines": {"B": 1000.8}}
    assert r._timing(doc, ["B"])[1] == 0.0  # no time to search: play random at once


def test_a_slow_bot_falls_back_before_its_clock_runs_out(client, fake_level):
    """A level that would think for a minute, on a 5 s clock, with the clocks running: the bot
    plays a random move in time instead of letting the clock play for it."""
    release = threading.Event()

    def slow(doc, rnd):
        release.wait(60)
        return doc["legal"][0]

    fake_level("duell", "slow", slow)
    try:
        ann = guest(client, "Ann")
        sm = play_computer(client, ann, "duell", level="slow", options={"clock_seconds": 5})
        v = view(client, sm["id"], ann)
        if "A" in v["pending"]:
            action = game_bots.get_bot("duell", "random")(v, random.Random(2))
            assert client.post(f"/api/matches/{sm['id']}/actions", headers=ann["headers"],
                               json={"action": action}).status_code == 200
        settle(client)
        v = view(client, sm["id"], ann)
        assert "B" not in v["pending"] and v["state"]["timeouts"]["B"] == 0
        assert v["players"][1]["user"]["bot"] == "slow"
        stats = runner(client).stats
        assert stats["fallback:slow"] == 1 and stats["moves"] == 1, stats
    finally:
        release.set()


# ------------------------------------------------------------------------------ stopping
async def thinking(runner, doc) -> str:
    """Start the bot's turn in ``runner`` with a long think, and return its lease once taken."""
    runner.settings = runner.settings.model_copy(update={"bot_think_ms": 600_000})
    runner.kick(doc["id"])
    key = f"{runner.store.k.p}botturn:{doc['id']}:{doc['version']}"

    async def taken() -> bool:
        return await runner.r.get(key) == runner.name

    await async_wait_for(taken, message="the bot never took its turn's lease")
    return key


async def test_a_stopping_runner_hands_its_turns_over_at_once(two_processes):
    """A process that stops (a drain, docs/operations.md) releases the turn leases it holds, so
    another process's sweep plays those turns now, not when the leases run out."""
    one, two = two_processes
    doc = await bot_to_move(one)
    await one.redis.sadd(one.bots.key, doc["id"])  # as the runner's observer records it
    key = await thinking(one.bots, doc)
    await two.bots.sweep_once()
    await two.bots.settle()
    assert two.bots.stats["leased_elsewhere"] == 1  # held by the thinking runner

    await one.bots.close()
    assert await one.redis.get(key) is None
    await two.bots.sweep_once()
    await two.bots.settle()
    after = await two.store.load(doc["id"])
    assert after["steps"] == doc["steps"] + 1 and after["cseq"]["B"] == 1
    assert two.bots.stats["moves"] == 1 and one.bots.stats["moves"] == 0


async def test_a_stopping_runner_leaves_a_lease_that_is_no_longer_its_own(two_processes):
    one, two = two_processes
    doc = await bot_to_move(one)
    key = await thinking(one.bots, doc)
    await one.redis.set(key, two.bots.name)  # ours ran out and another process took the turn
    await one.bots.close()
    assert await one.redis.get(key) == two.bots.name
