"""The browser client's unit tests (tests/js/*.test.mjs, Node's own test runner) as part of the
Python suite, and a check that the Duel board's rule tables are the engine's."""
from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from games.duel import tables as T

ROOT = Path(__file__).resolve().parents[2]
NODE = shutil.which("node")

pytestmark = pytest.mark.js


def node(*args: str) -> subprocess.CompletedProcess:
    assert NODE, "Node 20+ is needed for the browser unit tests (apt-get install nodejs)"
    return subprocess.run([NODE, *args], cwd=ROOT, capture_output=True, text=True, timeout=120)


def test_node_unit_tests_pass():
    run = node("--test", "tests/js/")
    out = run.stdout + run.stderr
    assert run.returncode == 0, out[-4000:]
    passed = re.search(r"^# pass (\d+)$", out, re.M)
    failed = re.search(r"^# fail (\d+)$", out, re.M)
    assert passed and int(passed.group(1)) >= 40, out[-2000:]
    assert failed and failed.group(1) == "0", out[-2000:]


DUMP_TABLES = """
const R = await import('./static/games/duel_rules.js');
console.log(JSON.stringify({
  stances: R.STANCES, duellists: R.DUELLISTS, health: R.HEALTH_BONUS, techniques: R.TECHNIQUES,
  columns: R.COUNTER_COLUMNS, rows: R.COUNTER_ROWS, moves: R.MOVES, ronin: R.RONIN_MOVES,
  steps: R.MOVE_STEPS, heavy: R.HEAVY_CUTS, thrusts: R.THRUSTS, recovery_ok: R.HEAVY_RECOVERY_OK,
  max_stamina: R.MAX_STAMINA, dodge: R.DODGE_DISTANCE, opening: R.NORMAL_OPENING, cycle: R.CYCLE,
  cycle_len: R.CYCLE_LEN, sun_switch: R.SUN_SWITCH,
}));
"""


def test_duel_board_tables_are_the_engines():
    run = node("--input-type=module", "-e", DUMP_TABLES)
    assert run.returncode == 0, run.stderr
    js = json.loads(run.stdout)
    assert js["stances"] == list(T.STANCES)
    assert js["duellists"] == list(T.DUELLISTS)
    assert js["health"] == {d: v.get("health_bonus", 0) for d, v in T.DUELLISTS.items()}
    assert js["techniques"] == T.TECHNIQUES
    assert js["columns"] == T.COUNTER_COLUMNS
    assert js["rows"] == T.COUNTER_ROWS
    assert js["moves"] == list(T.MOVES)
    assert js["steps"] == T.RONIN_MOVES
    assert sorted(js["ronin"]) == sorted(T.RONIN_MOVES)
    assert (js["heavy"], js["thrusts"], js["recovery_ok"]) == (
        list(T.HEAVY_CUTS), list(T.THRUSTS), list(T.HEAVY_RECOVERY_OK))
    assert (js["max_stamina"], js["dodge"], js["opening"], js["sun_switch"]) == (
        T.MAX_STAMINA, T.DODGE_DISTANCE, T.NORMAL_OPENING, T.SUN_SWITCH)
    assert js["cycle"] == [list(c) for c in T.CYCLE]
    assert js["cycle_len"] == sum(n for _, n in T.CYCLE)
