"""Duel rule tables as plain data (seed 001 plus docs/rules/duel.md). The engine reads only these.

Technique ids are snake_case. ``step``: +1 forward (toward the opponent), -1 back, 0 none.
``range``: [min, max] distance an attack reaches at; ``None`` for the defensive techniques and Wait.
``cost``: stamina; for Counterattack and Block it is paid only when they work.
"""
from __future__ import annotations

from typing import Any

STANCES = ("high", "middle", "low")

TECHNIQUES: dict[str, dict[str, Any]] = {
    "downward_cut": {"abbr": "DC", "stance": "high", "step": 0, "range": [1, 2], "damage": 5, "cost": 2, "kind": "attack"},
    "advancing_cut": {"abbr": "AC", "stance": "high", "step": 1, "range": [1, 2], "damage": 5, "cost": 2, "kind": "attack"},
    "retreating_cut": {"abbr": "RC", "stance": "high", "step": -1, "range": [1, 2], "damage": 2, "cost": 2, "kind": "attack"},
    "counterattack": {"abbr": "CA", "stance": "middle", "step": 0, "range": None, "damage": 1, "cost": 1, "kind": "defense"},
    "advancing_thrust": {"abbr": "AT", "stance": "middle", "step": 1, "range": [2, 2], "damage": 2, "cost": 2, "kind": "attack"},
    "block": {"abbr": "B", "stance": "middle", "step": -1, "range": None, "damage": 0, "cost": 1, "kind": "defense"},
    "horizontal_cut": {"abbr": "HC", "stance": "low", "step": 0, "range": [1, 2], "damage": 1, "cost": 1, "kind": "attack"},
    "retreating_horizontal_cut": {"abbr": "RH", "stance": "low", "step": -1, "range": [1, 2], "damage": 1, "cost": 2, "kind": "attack"},
    "low_advancing_thrust": {"abbr": "LT", "stance": "low", "step": 1, "range": [1, 2], "damage": 2, "cost": 2, "kind": "attack"},
    "wait": {"abbr": "W", "stance": None, "step": 0, "range": None, "damage": 0, "cost": 0, "kind": "wait"},
}

# The counter table exactly as printed in the seed: row = yours, column = theirs.
# "+n" you deal n, "-n" you take n, "a:b" you deal a and take b, "0" nothing, "clash".
COUNTER_COLUMNS = ["DC", "AC", "RC", "CA", "AT", "B", "HC", "RH", "LT"]
COUNTER_ROWS = {
    "DC": ["clash", "-5", "+5", "+5", "-5", "+5", "0", "+5", "+5"],
    "AC": ["+5", "clash", "+5", "+5", "-5", "+5", "-5", "+5", "-5"],
    "RC": ["-5", "-5", "2:2", "+1", "+2", "0", "+2", "+2", "+2"],
    "CA": ["-5", "-5", "-1", "0", "+1", "0", "-1", "-1", "+1"],
    "AT": ["+5", "+5", "-2", "-1", "2:2", "0", "+5", "-2", "+5"],
    "B": ["-5", "-5", "0", "0", "0", "0", "0", "0", "0"],
    "HC": ["0", "+5", "-2", "+1", "-5", "0", "1:1", "0", "+1"],
    "RH": ["-5", "-5", "-2", "+1", "+2", "0", "0", "1:1", "-5"],
    "LT": ["-5", "+5", "-2", "-1", "-5", "0", "-1", "+5", "2:2"],
}
# The values a cell may take (the ``counter_overrides`` option is checked against these), each
# with its value seen from the other side (the mirrored cell: column against row).
COUNTER_RESULTS = {"clash": "clash", "0": "0", "+1": "-1", "-1": "+1", "+2": "-2", "-2": "+2",
                   "+5": "-5", "-5": "+5", "1:1": "1:1", "2:2": "2:2"}

DUELLISTS = {
    "brute": {"health_bonus": 1},
    "samurai": {"health_bonus": 0},
    "ronin": {"health_bonus": 0},
    "master": {"health_bonus": 0},
}

# Footwork: steps toward the opponent (negative = away). Ronin also has the two-space moves.
MOVES = {"toward": 1, "stay": 0, "away": -1}
RONIN_MOVES = {"toward": 1, "stay": 0, "away": -1, "toward2": 2, "away2": -2}

MAX_STAMINA = 20
EXCHANGE_RECOVERY = 5
WAIT_RECOVERY = 1
REST_RECOVERY = 1
DODGE_COST = 1
DODGE_DISTANCE = 2
CLASH_COST = 2
CLASH_KNOCKBACK = 1
RAIN_EXTRA = 1
SLOTS_PER_EXCHANGE = 3

HEAVY_CUTS = ("downward_cut", "advancing_cut")  # heavy recovery; Mighty in a Brute's slot 1
THRUSTS = ("advancing_thrust", "low_advancing_thrust")  # thrust stiffness after 0 damage
HEAVY_RECOVERY_OK = ("horizontal_cut", "wait")  # with Low stance
PURSUIT = {"advancing_cut": 5, "advancing_thrust": 1, "low_advancing_thrust": 1}
PURSUIT_RANGE = 3
MIGHTY_DAMAGE = 5
MIGHTY_MISS_LOCK = 3
ABILITY_LOCK = 1  # Master's whiff lock and Samurai's Block lock

# Weather: slots 1..NORMAL_OPENING normal, then this cycle repeats. "X"/"Y" are rain and fog in
# an order drawn at the cycle's first X slot; the sun blinds one seat for 3 slots, then the other.
NORMAL_OPENING = 9
CYCLE = [("sun", 6), ("normal", 3), ("X", 6), ("normal", 3), ("Y", 6), ("normal", 3)]
SUN_SWITCH = 3
