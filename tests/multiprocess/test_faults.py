"""Small versions of bench/faults.py's scenarios, through the same code, so CI proves them:
kill -9 an app process mid-play, crash and restart Redis on its AOF, a short Postgres outage.

Each starts its own redis-server (AOF on) on a free port: never the shared one. The SQL is the
suite's database (with SQLite, only the first process writes history and the killed process is
another one; see docs/operations.md), except for the Postgres outage, which needs a private
Postgres cluster it may stop. bench/faults.py prints the full-size figures
(docs/performance.md)."""
from __future__ import annotations

import asyncio

import pytest

from bench.faults import Unavailable, cluster, scenario_kill, scenario_postgres, scenario_redis
from tests.multiprocess.servers import require_binary

pytestmark = pytest.mark.multiprocess


@pytest.fixture
def three(db_url, tmp_path):
    require_binary("redis-server", "fault tests start a private Redis with AOF")
    with cluster(3, db_url, tmp_path) as cl:
        yield cl


def show(result) -> None:
    result.print()  # the figures, in the test log (pytest -s)


def test_kill_9_one_app_process_mid_play(three):
    result = asyncio.run(scenario_kill(three, lanes=6, play_seconds=6, kill_after=2.5,
                                       history_timeout=50))
    show(result)
    assert result.problems == []
    assert result.figures["players who reconnected"] > 0
    assert result.figures["moves applied after the kill"] > 0
    # The killed process really died (not a clean shutdown that drains its sockets).
    victim = 1 if three.single_writer else 2
    assert three.fleet.procs[victim].returncode == -9


def test_redis_crash_and_restart_on_its_aof(three):
    result = asyncio.run(scenario_redis(three, lanes=6, downtime=2, crash_after=2.5,
                                        play_seconds=6, history_timeout=50))
    show(result)
    assert result.problems == []
    assert result.figures["matches live at the crash"] > 0
    assert result.figures["moves acknowledged before the crash"] > 0
    assert result.figures["first move applied after restart"] != "never"


def test_short_postgres_outage(tmp_path):
    require_binary("redis-server", "fault tests start a private Redis with AOF")
    try:
        ctx = cluster(3, None, tmp_path)
        cl = ctx.__enter__()
    except Unavailable as e:
        pytest.fail(f"this test needs a private Postgres (initdb/pg_ctl): {e}")
    try:
        result = asyncio.run(scenario_postgres(cl, lanes=4, outage=5, start_after=2,
                                               history_timeout=40))
    finally:
        ctx.__exit__(None, None, None)
    show(result)
    assert result.problems == []
    assert result.figures["moves applied during the outage"] > 0
    assert result.figures["outbox entries waiting (max)"] > 0


def test_the_history_check_catches_lost_doubled_and_wrong_steps():
    """The check every scenario relies on is not vacuous: a match played by the engine alone
    passes it, and each kind of damage to its history is reported."""
    import copy
    import random

    from bench.faults import MatchLog, SeatLog, check_history, pick
    from games.registry import get_game

    game, rnd, options = get_game("duell"), random.Random(5), {"duels_to_win": 1}
    state = game.setup(options, ["A", "B"], 11)
    steps, version = [], 2
    while game.result(state) is None:
        seat = next(iter(game.pending(state)))
        action = pick(game.legal(state, seat), rnd)
        state, _ = game.apply(state, seat, action)
        version += 1
        steps.append({"version": version, "seat": seat, "kind": "action", "action": action})
    record = {"game": "duell", "options": options, "seed": 11,
              "seats": [{"seat": "A"}, {"seat": "B"}], "actions": steps}

    def match(final_state=state) -> MatchLog:
        seats = {}
        for seat in ("A", "B"):
            log = SeatLog(seat, confirmed=sum(s["seat"] == seat for s in steps))
            log.final = {"result": game.result(final_state), "state": game.view(final_state, seat)}
            seats[seat] = log
        return MatchLog("m1", seats)

    assert check_history([match()], {"m1": record}) == []
    lost = {**record, "actions": steps[:-1]}
    assert any("SQL holds" in p for p in check_history([match()], {"m1": lost}))
    doubled = {**record, "actions": steps + [steps[-1]]}
    assert any("versions repeat" in p for p in check_history([match()], {"m1": doubled}))
    again = {**record, "actions": steps + [{**steps[-1], "version": version + 1}]}
    # Applied twice: one step too many (here after the end, so it does not even replay).
    assert any("SQL holds" in p for p in check_history([match()], {"m1": again}))
    assert any("does not replay" in p for p in check_history([match()], {"m1": again}))
    seen = match()
    wrong = copy.deepcopy(seen.seats["A"].final)
    wrong["state"]["score"] = {"A": 7, "B": 7}
    seen.seats["A"].final = wrong
    assert any("replayed view differs" in p for p in check_history([seen], {"m1": record}))
    assert any("no complete history" in p for p in check_history([match()], {}))
