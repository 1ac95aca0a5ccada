"""Duel (game id ``duel``): a two-player sword duel with secret three-slot plans.

Rules as implemented: docs/rules/duel.md. Tables: games/duel/tables.py. Commitments:
games/duel/commit.py and docs/commitments.md.

The state is kept deliberately small and flat, because the server copies it on every action
(``apply(copy=True)``, copy-on-write, see ``Duel.apply``):

  phase        "duellist" | "stance" | "plan" | "footwork" | "dodge"
  slot         global slot counter of the current (or next) slot, from 1; drives the weather
  ex, xs       exchange number; slot within the exchange (1..3)
  w, blind     weather of ``slot``; the seat the sun blinds (or None)
  sun, xy      chance draws of the current cycle: seat blinded first; what X is ("rain"/"fog")
  who          seats asked in the current simultaneous decision, as a string: "AB", "A", "B", ""
  buf          seat -> None | record: a locked choice not yet resolved
  later        openings hidden by weather (one "seat decision record" per line), published at
               match end
  salts        salts drawn but not used yet (see commit.new_salt)
  P[seat]      d duellist, hp, st stamina, pos, stance, lock (locked slots left),
               plan (record of the locked plan), rev (this exchange's revealed slots, one string
               each: "slot technique status mighty visible"), f (flag bits, see F_*)

A *record* is one string: salt (32 hex) + commitment (64 hex) + compact value of the choice
(``brute``; ``high``; ``toward``; ``1``/``0`` for a dodge; ``high/downward_cut,low/wait,...``
for a plan). ``_choice`` turns it back into the action object the commitment was made over.

Speed (bench/engine.py, docs/performance.md; bots and the balance lab run millions of
decisions): ``Duel`` overrides the public ``pending``/``legal``/``apply`` of ``games.base.Game``
with equivalent versions that make the same checks in the same order (``apply`` tests the usual
case in one expression first) without building intermediate dicts, and ``sample_action`` draws a
random legal action without building ``legal``. The per-slot steps are written out for seats A
and B rather than looped or split into helpers (a Python call or a small tuple costs more than
the work in it); the rule tables are read through lookups computed at import, every valid plan
included; the frequent events are copies of templates (a dict copy is cheaper than a literal);
the server path (``copy=True``) copies only the containers a step writes. The states, events
and chance draws are exactly those of the straightforward version
(tests/games/duel/test_duel_golden.py).
"""
from __future__ import annotations

from collections.abc import Callable
from hashlib import sha256 as _sha256
from random import Random as _Random
from typing import Any, ClassVar

from games.base import (
    ALL,
    CLOCK_OPTION,
    MAX_TIMEOUTS_OPTION,
    OMNISCIENT,
    SPECTATOR,
    Game,
    IllegalAction,
    InvalidOptions,
    MatchOver,
    NotYourTurn,
    Option,
    State,
    clone,
    event,
    rng,
)

from . import tables as T
from .bots import _INLINE as _CHOICE_INLINE
from .bots import random_action as _random_action
from .commit import canonical_json, salt_pool
from .tables import (  # the scalar rules, read as plain globals in the hot paths
    ABILITY_LOCK,
    CLASH_COST,
    CLASH_KNOCKBACK,
    DODGE_COST,
    DODGE_DISTANCE,
    EXCHANGE_RECOVERY,
    MAX_STAMINA,
    MIGHTY_DAMAGE,
    MIGHTY_MISS_LOCK,
    NORMAL_OPENING,
    PURSUIT,
    PURSUIT_RANGE,
    RAIN_EXTRA,
    REST_RECOVERY,
    SLOTS_PER_EXCHANGE,
    WAIT_RECOVERY,
)

SEATS = ("A", "B")
_SEAT_SET = frozenset(SEATS)
OTHER = {"A": "B", "B": "A"}
IDX = {s: i for i, s in enumerate(T.STANCES)}
COST = {k: v["cost"] for k, v in T.TECHNIQUES.items()}
STEP = {k: v["step"] for k, v in T.TECHNIQUES.items()}
RANGE = {k: v["range"] for k, v in T.TECHNIQUES.items()}
DAMAGE = {k: v["damage"] for k, v in T.TECHNIQUES.items()}
TECH_STANCE = {k: v["stance"] for k, v in T.TECHNIQUES.items()}
ATTACKS = frozenset(k for k, v in T.TECHNIQUES.items() if v["kind"] == "attack")
DEFENSIVE = frozenset(k for k, v in T.TECHNIQUES.items() if v["kind"] == "defense")
_ABBR = {v["abbr"]: k for k, v in T.TECHNIQUES.items()}

# Flag bits in P[seat]["f"]. The first five describe the slot being played and are reset at its
# start; the others carry over between slots.
F_LOCKED = 1  # full action lock this slot
F_REST = 2  # forced rest this slot
F_MISPLAY = 4  # the planned slot is a misplay (hidden until the technique reveal)
F_DODGED = 8  # dodged this slot
F_STAYED = 16  # chose Stay footwork this slot
F_SV = 32  # the current stance was revealed to the other side (opponent and spectators)
F_OPEN = 64  # nothing of this exchange's plan was hidden by weather from the other side
F_CUT = 128  # performed a High cut (Downward/Advancing/Mighty) in the previous slot
F_STIFF = 256  # thrust stiffness for this slot
SLOT_FLAGS = F_LOCKED | F_REST | F_MISPLAY | F_DODGED | F_STAYED
_NOT_SLOT = ~SLOT_FLAGS
_NOT_CUT_STIFF = ~(F_CUT | F_STIFF)
_NOT_SV_OPEN = ~(F_SV | F_OPEN)
_IDLE = F_LOCKED | F_REST  # locked or resting: no footwork, no dodge, no technique
_NO_DODGE = F_LOCKED | F_REST | F_STIFF


def _cell(text: str):
    """Counter-table cell -> (dealt by row, dealt by column), or None for a Clash."""
    if text == "clash":
        return None
    if ":" in text:
        a, b = text.split(":")
        return int(a), int(b)
    n = int(text)
    return (n, 0) if n > 0 else (0, -n)


COUNTER = {
    _ABBR[row]: {_ABBR[col]: _cell(c) for col, c in zip(T.COUNTER_COLUMNS, cells)}
    for row, cells in T.COUNTER_ROWS.items()
}
_COUNTER_TECHS = [_ABBR[a] for a in T.COUNTER_COLUMNS]
_COUNTER_OVERRIDDEN: dict[tuple, dict] = {}  # frozen counter_overrides -> its table


def _counter_for(overrides: list) -> dict:
    """The counter table with the (validated) ``counter_overrides`` applied, each to its cell
    and the mirrored one (so the outcome never depends on which seat played what). Built once
    per distinct override list; the default (no option) path never comes here."""
    key = tuple((o["attack"], o["defence"], o["result"]) for o in overrides)
    table = _COUNTER_OVERRIDDEN.get(key)
    if table is None:
        table = {row: cells.copy() for row, cells in COUNTER.items()}
        for attack, defence, result in key:
            table[attack][defence] = _cell(result)
            table[defence][attack] = _cell(T.COUNTER_RESULTS[result])
        if len(_COUNTER_OVERRIDDEN) > _CACHE_MAX:
            _COUNTER_OVERRIDDEN.clear()
        _COUNTER_OVERRIDDEN[key] = table
    return table


class CounterOverridesOption(Option):
    """``counter_overrides``: null, or a list of ``{"attack", "defence", "result"}`` cells of the
    counter table to change (a balance-lab rule variation). Techniques by id or table
    abbreviation (stored as ids), results as printed in the table."""

    def schema(self) -> dict:
        tech = {"type": "string", "enum": _COUNTER_TECHS + list(T.COUNTER_COLUMNS)}
        cell = {"type": "object", "additionalProperties": False,
                "required": ["attack", "defence", "result"],
                "properties": {"attack": tech, "defence": tech,
                               "result": {"type": "string", "enum": list(T.COUNTER_RESULTS)}}}
        return {"type": ["array", "null"], "default": None, "description": self.description,
                "items": cell}

    def check(self, value):
        if value is None:
            return None
        name = f"Option '{self.name}'"
        if not isinstance(value, list):
            raise InvalidOptions(f"{name} must be a list of {{attack, defence, result}} or null.")
        out: list[dict] = []
        seen: dict[frozenset, int] = {}
        for n, entry in enumerate(value, 1):
            if not isinstance(entry, dict) or set(entry) != {"attack", "defence", "result"}:
                raise InvalidOptions(f"{name}: entry {n} must be an object with exactly "
                                     "attack, defence and result.")
            techs = []
            for field in ("attack", "defence"):
                t = entry[field]
                t = _ABBR.get(t, t) if isinstance(t, str) else t
                if t not in COUNTER:
                    raise InvalidOptions(
                        f"{name}: entry {n}: {field} {entry[field]!r} is not a technique of the "
                        f"counter table (one of: {', '.join(_COUNTER_TECHS)}; or its abbreviation).")
                techs.append(t)
            attack, defence = techs
            result = entry["result"]
            if not isinstance(result, str) or result not in T.COUNTER_RESULTS:
                raise InvalidOptions(f"{name}: entry {n}: result {result!r} is not a counter-table "
                                     f"result (one of: {', '.join(T.COUNTER_RESULTS)}).")
            if attack == defence and T.COUNTER_RESULTS[result] != result:
                raise InvalidOptions(f"{name}: entry {n}: {attack} against itself needs a "
                                     "symmetric result (clash, 0, 1:1 or 2:2).")
            pair = frozenset((attack, defence))
            if pair in seen:
                raise InvalidOptions(f"{name}: entry {n} sets the cell {attack}/{defence} again "
                                     f"(entry {seen[pair]}; an entry also sets the mirrored cell).")
            seen[pair] = n
            out.append({"attack": attack, "defence": defence, "result": result})
        return out

PAIRS = [{"stance": s, "technique": t} for s in T.STANCES
         for t in [k for k, v in T.TECHNIQUES.items() if v["stance"] == s] + ["wait"]]
PHASE_WORDS = {
    "duellist": "the choice of duellists",
    "stance": "the opening stances",
    "plan": "the plans",
    "footwork": "footwork",
    "dodge": "the dodge decisions",
}
FIELD = {"duellist": "duellist", "stance": "stance", "plan": "slots", "footwork": "move", "dodge": "dodge"}
CYCLE_LEN = sum(k for _, k in T.CYCLE)
X_OFFSET = sum(k for kind, k in T.CYCLE[: [c[0] for c in T.CYCLE].index("X")])
RAIN_OTHER = {"rain": "fog", "fog": "rain"}

# ---- precomputed lookups for the hot paths ----------------------------------------------------
# stance -> technique -> "stance/technique" for every well-formed plan slot.
_SLOT_VALUE = {s: {t: s + "/" + t for t in TECH_STANCE if t == "wait" or TECH_STANCE[t] == s}
               for s in T.STANCES}
# Entries of ``legal`` (each call returns fresh copies).
_dcopy = dict.copy
_LEGAL_MOVES = tuple({"type": "footwork", "move": m} for m in T.MOVES)
_LEGAL_RONIN = tuple({"type": "footwork", "move": m} for m in T.RONIN_MOVES)
_M1, _M0, _M_1, _M2, _M_2 = _LEGAL_RONIN  # legal() builds the footwork lists from these
assert _LEGAL_RONIN[:3] == _LEGAL_MOVES
_LEGAL_DODGE = _DODGE_YES, _DODGE_NO = ({"type": "dodge", "dodge": True}, {"type": "dodge", "dodge": False})
_LEGAL_NO_DODGE = (_DODGE_NO,)
_LEGAL_PAIRS = tuple(dict(x) for x in PAIRS)
_LEGAL_PAIRS_OF = {s: tuple(x for x in _LEGAL_PAIRS if x["stance"] == s) for s in T.STANCES}
_LEGAL_STANCES = tuple({"type": "stance", "stance": s} for s in T.STANCES)
_LEGAL_DUELLISTS = tuple({"type": "duellist", "duellist": d} for d in T.DUELLISTS)
# sample_action's draws: rnd.choice(seq) takes k = n.bit_length() random bits per try.
_N_PAIRS = len(_LEGAL_PAIRS)
_K_PAIRS = _N_PAIRS.bit_length()


def _draw(seq: tuple) -> tuple:
    return seq, len(seq), len(seq).bit_length()


_DRAW_MOVES = _draw(_LEGAL_MOVES)
_DRAW_RONIN = _draw(_LEGAL_RONIN)
_DRAW_DODGE = _draw(_LEGAL_DODGE)
_DRAW_NO_DODGE = _draw(_LEGAL_NO_DODGE)
_DRAW_STANCES = _draw(_LEGAL_STANCES)
_DRAW_DUELLISTS = _draw(_LEGAL_DUELLISTS)
_DRAW_FIRST_PAIR = {s: _draw(x) for s, x in _LEGAL_PAIRS_OF.items()}
_DRAW_FOOTWORK_OF = {d: _DRAW_RONIN if d == "ronin" else _DRAW_MOVES for d in T.DUELLISTS}
# Footwork steps toward the opponent, without and with rain (a non-zero move goes one farther).
_STEPS_DRY = dict(T.RONIN_MOVES)
_STEPS_RAIN = {mv: m + (RAIN_EXTRA if m > 0 else -RAIN_EXTRA) if m else m
               for mv, m in T.RONIN_MOVES.items()}
# Technique step without and with rain (0 for no step).
_TSTEP_DRY = dict(STEP)
_TSTEP_RAIN = {t: m + (RAIN_EXTRA if m > 0 else -RAIN_EXTRA) if m else 0 for t, m in STEP.items()}
_HEAVY_CUTS = frozenset(T.HEAVY_CUTS)
_THRUSTS = frozenset(T.THRUSTS)
_HEAVY_OK = frozenset(T.HEAVY_RECOVERY_OK)
# Weather cycle, one entry per offset: (kind, the sun has switched to the other seat).
_CYCLE_AT = tuple((kind, kind == "sun" and i >= T.SUN_SWITCH)
                  for kind, length in T.CYCLE for i in range(length))
assert len(_CYCLE_AT) == CYCLE_LEN


# ------------------------------------------------------------------------------------------
# Records and choices
# ------------------------------------------------------------------------------------------
_PLAN_SLOTS: dict[str, tuple] = {}  # plan value -> ((stance, technique) x3)
_PLAN_JSON: dict[str, str] = {}  # plan value -> canonical JSON of the plan action
_PLAN_OF: dict[str, tuple] = {}  # plan record (the string in P[seat]["plan"]) -> _PLAN_SLOTS value
_CACHE_MAX = 4096  # the caches are cleared when they grow past this (12**3 valid plan values)


def _plan_slots(value: str) -> tuple:
    """((stance, technique), ...) of a plan value, parsed once per distinct value."""
    r = _PLAN_SLOTS.get(value)
    if r is None:
        if len(_PLAN_SLOTS) > _CACHE_MAX:
            _PLAN_SLOTS.clear()
        r = _PLAN_SLOTS[value] = tuple(tuple(x.split("/")) for x in value.split(","))
    return r


def _plan_of(rec: str) -> tuple:
    """_plan_slots of a plan record. Keyed by the record itself: the same string object is read
    every slot of the exchange, and its hash is computed once."""
    r = _PLAN_OF.get(rec)
    if r is None:
        if len(_PLAN_OF) > _CACHE_MAX:
            _PLAN_OF.clear()
        r = _PLAN_OF[rec] = _plan_slots(rec[96:])
    return r


def _choice(kind: str, value: str) -> dict:
    """The action object a compact value stands for (what the commitment was made over)."""
    if kind == "plan":
        (s1, t1), (s2, t2), (s3, t3) = _plan_slots(value)
        return {"type": "plan", "slots": [{"stance": s1, "technique": t1},
                                          {"stance": s2, "technique": t2},
                                          {"stance": s3, "technique": t3}]}
    if kind == "dodge":
        return {"type": "dodge", "dodge": value == "1"}
    return {"type": kind, FIELD[kind]: value}


def _choice_json(kind: str, value: str) -> str:
    """canonical_json(_choice(kind, value)), built directly (values never need escaping)."""
    if kind == "plan":
        j = _PLAN_JSON.get(value)
        if j is None:
            slots = ",".join('{"stance":"%s","technique":"%s"}' % tuple(x.split("/"))
                             for x in value.split(","))
            j = '{"slots":[%s],"type":"plan"}' % slots
            if len(_PLAN_JSON) > _CACHE_MAX:
                _PLAN_JSON.clear()
            _PLAN_JSON[value] = j
        return j
    return _SMALL_JSON[kind, value]


# Every valid plan value (12 stance/technique pairs in each of the three slots: 1,728 values) is
# parsed and encoded once, here (a few milliseconds at import), so no match pays a cache miss;
# _PLAN_COMMIT_JSON is what apply hashes after the salt.
_PLAN_COMMIT_JSON: dict[str, str] = {}


def _all_plans() -> None:
    pair = {v: tuple(v.split("/")) for by_tech in _SLOT_VALUE.values() for v in by_tech.values()}
    pair_json = {v: '{"stance":"%s","technique":"%s"}' % p for v, p in pair.items()}
    for a, pa in pair.items():
        for b, pb in pair.items():
            for c, pc in pair.items():
                v = a + "," + b + "," + c
                _PLAN_SLOTS[v] = (pa, pb, pc)
                _PLAN_JSON[v] = j = ('{"slots":[' + pair_json[a] + "," + pair_json[b] + ","
                                     + pair_json[c] + '],"type":"plan"}')
                _PLAN_COMMIT_JSON[v] = ":" + j


_all_plans()
assert len(_PLAN_COMMIT_JSON) == 12 ** 3 < _CACHE_MAX

_SMALL_JSON = {
    (kind, v): canonical_json(_choice(kind, v))
    for kind, values in (("duellist", T.DUELLISTS), ("stance", T.STANCES),
                         ("footwork", T.RONIN_MOVES), ("dodge", ("0", "1")))
    for v in values
}
# move -> ":" + canonical JSON of the footwork action (what follows the salt in the hash).
_RONIN_JSON = {m: ":" + _SMALL_JSON["footwork", m] for m in T.RONIN_MOVES}
_STANCE_JSON = {s: ":" + _SMALL_JSON["stance", s] for s in T.STANCES}
assert [m for m in T.RONIN_MOVES if m[-1] == "2"] == [m for m in T.RONIN_MOVES if m not in T.MOVES]
_MISSING = object()  # apply: an action without the phase's field
_DODGE_NO_JSON = ":" + _SMALL_JSON["dodge", "0"]
_DODGE_YES_JSON = ":" + _SMALL_JSON["dodge", "1"]
# Event templates: the frequent events are built by copying one of these (keys in the same
# order) and setting the fields that vary; a dict copy is cheaper than a literal.
_Template = dict[str, Any]
_E_COMMIT: dict[str, _Template] = {
    ph: {"type": "commit", "vis": ALL, "seat": None, "decision": ph, "commitment": None}
    for ph in FIELD}
_E_SLOT: _Template = {"type": "slot", "vis": ALL, "slot": None, "exchange": None,
                      "exchange_slot": None, "weather": None, "blind": None}
_E_STANCE: _Template = {"type": "stance", "vis": ALL, "seat": None, "slot": None, "stance": None}
_E_OPENING: _Template = {"type": "stance", "vis": ALL, "seat": None, "slot": None, "stance": None,
                         "opening": True}
_E_DODGED: _Template = {"type": "dodge", "vis": ALL, "seat": None, "dodge": True, "from": None,
                        "to": None}
_E_STAYED: _Template = {"type": "dodge", "vis": ALL, "seat": None, "dodge": False}
_E_STEP: _Template = {"type": "step", "vis": ALL, "seat": None, "from": None, "to": None}
_E_TECHNIQUE: _Template = {"type": "technique", "vis": ALL, "seat": None, "slot": None,
                           "technique": None, "status": None}
_E_FOOTWORK: _Template = {"type": "footwork", "vis": ALL, "seat": None, "move": None, "from": None,
                          "to": None}
_E_REVEAL: dict[str, _Template] = {
    kind: {"type": "reveal", "vis": ALL, "seat": None, "decision": kind, "choice": None,
           "salt": None, "commitment": None} for kind in FIELD}
_KIND_AT = {kind[:2]: kind for kind in FIELD}  # the decisions' first two letters differ
assert len(_KIND_AT) == len(FIELD)
_E_DEFERRED: dict[str, _Template] = {kind: {**e, "deferred": True} for kind, e in _E_REVEAL.items()}  # at match end
_E_REVEAL_FOOTWORK = _E_REVEAL["footwork"]
_E_REVEAL_DODGE = _E_REVEAL["dodge"]
_E_REVEAL_STANCE = _E_REVEAL["stance"]
_E_REVEAL_PLAN = _E_REVEAL["plan"]
# pending() of a decision both seats are asked: phase -> {"A": phase, "B": phase} (copied)
_PENDING_AB = {ph: {"A": ph, "B": ph} for ph in FIELD}


# ------------------------------------------------------------------------------------------
# Weather and geometry
# ------------------------------------------------------------------------------------------
def weather_at(n: int, sun_first: str | None, x: str | None) -> tuple[str, str | None]:
    """Weather of global slot ``n`` and the seat the sun blinds (None when not sunny)."""
    if n <= NORMAL_OPENING:
        return "normal", None
    kind, switched = _CYCLE_AT[(n - NORMAL_OPENING - 1) % CYCLE_LEN]
    if kind == "sun":
        assert sun_first is not None  # drawn at the start, before any sunny slot
        return "sun", OTHER[sun_first] if switched else sun_first
    if kind in ("X", "Y"):
        assert x is not None  # drawn before the first X slot
        return (x, None) if kind == "X" else (RAIN_OTHER[x], None)
    return kind, None


def set_weather(st: State) -> None:
    st["w"], st["blind"] = weather_at(st["slot"], st["sun"], st["xy"])


def _hid(st: State, s: str) -> bool:
    """Are ``s``'s stance and footwork hidden from the other side (opponent and spectators)?"""
    w = st["w"]
    if w == "sun":
        return st["blind"] != s
    if w == "fog":
        P = st["P"]
        return P["B"]["pos"] - P["A"]["pos"] > 1
    return False


def _sunhid(st: State, s: str) -> bool:
    """Are ``s``'s position, technique and dodge hidden from the other side (the sun)?"""
    return st["w"] == "sun" and st["blind"] != s


def _room(st: State, s: str) -> bool:
    k = DODGE_DISTANCE + (RAIN_EXTRA if st["w"] == "rain" else 0)
    pos = st["P"][s]["pos"]
    return pos - k >= 1 if s == "A" else pos + k <= st["options"]["track_length"]


def _move2(st: State, pa: dict, pb: dict, wa: int, wb: int) -> tuple[int, int, int, int]:
    """Move both pieces at once: A (``pa``) ``wa`` and B (``pb``) ``wb`` steps toward the
    opponent (negative: away). A piece stops at a wall and next to the opponent's current space;
    if the two would end on the same space or pass each other, neither moves. Seat A is always
    left of seat B. Returns (A from, A to, B from, B to)."""
    a = pa["pos"]
    b = pb["pos"]
    na = a + wa
    if na >= b:
        na = b - 1
    if na < 1:
        na = 1
    nb = b - wb
    if nb <= a:
        nb = a + 1
    last = st["options"]["track_length"]
    if nb > last:
        nb = last
    if na >= nb:
        return a, a, b, b
    pa["pos"] = na
    pb["pos"] = nb
    return a, na, b, nb


def _rev_entry(text: str) -> dict:
    n, tech, status, mighty, _ = text.split(" ")
    e = {"slot": int(n), "technique": tech, "status": status}
    if mighty == "1":
        e["mighty"] = True
    return e


def _both(dA: str, dB: str, tA: str, tB: str, mA: bool, mB: bool, counter: dict) -> tuple:
    """Both attacks reach: ``counter`` (the match's counter table) with the duellists'
    overrides. Returns
    (clash, dealt by A, dealt by B, A's Samurai Block stopped B, B's stopped A)."""
    if mA and mB:
        return True, 0, 0, False, False
    if mA:
        if dB == "samurai" and tB == "block":
            return False, 0, 0, False, True
        return False, MIGHTY_DAMAGE, 0, False, False
    if mB:
        if dA == "samurai" and tA == "block":
            return False, 0, 0, True, False
        return False, 0, MIGHTY_DAMAGE, False, False
    if dA == "samurai" and tB == "advancing_cut":
        if tA == "block":
            return False, 0, 0, True, False
        if tA == "counterattack":
            return False, 1, 0, False, False
    if dB == "samurai" and tA == "advancing_cut":
        if tB == "block":
            return False, 0, 0, False, True
        if tB == "counterattack":
            return False, 0, 1, False, False
    cell = counter[tA][tB]
    if cell is None:
        return True, 0, 0, False, False
    oA, oB = cell
    return (False, oA, oB, dA == "samurai" and tA == "block" and tB in _THRUSTS,
            dB == "samurai" and tB == "block" and tA in _THRUSTS)


# Step 4: the status a flag gives the planned technique (in this order), or None when it is
# played (then "wait" or "performed").
def _status_of(f: int) -> str | None:
    for flag, status in ((F_LOCKED, "locked"), (F_REST, "rest"), (F_DODGED, "dodged"),
                         (F_MISPLAY, "misplay")):
        if f & flag:
            return status
    return None


_STATUS_FLAGS = F_LOCKED | F_REST | F_DODGED | F_MISPLAY
_STATUS = tuple(_status_of(f) for f in range(_STATUS_FLAGS + 1))
_NOT_OPEN = ~F_OPEN


# ------------------------------------------------------------------------------------------
# The game
# ------------------------------------------------------------------------------------------
class Duel(Game):
    """``pending``, ``legal`` and ``apply`` override ``games.base.Game``'s with the same checks
    in the same order (and the same errors), inlined: bots and benchmarks call them once per
    decision. The rules live in the hooks below."""

    # Phase -> checking / resolving hook, filled in after the class body (see the end of file).
    _CHECK: ClassVar[dict[str, Callable[..., Any]]]
    _RESOLVE: ClassVar[dict[str, Callable[..., Any]]]

    # ---- public contract -----------------------------------------------------------------
    def pending(self, st: State) -> dict[str, str]:
        if st["result"] is not None:
            return {}
        who = st["who"]
        if who == "AB":
            buf = st["buf"]
            if buf["A"] is None:
                if buf["B"] is None:
                    return _PENDING_AB[st["phase"]].copy()
                return {"A": st["phase"]}
            return {"B": st["phase"]} if buf["B"] is None else {}
        if who:
            return {who: st["phase"]} if st["buf"][who] is None else {}
        return {}

    def legal(self, st: State, seat: str) -> list[dict]:
        if (st.get("result") is not None or seat not in _SEAT_SET or seat not in st["who"]
                or st["buf"][seat] is not None):
            return []
        ph = st["phase"]
        if ph == "footwork":
            if st["P"][seat]["d"] == "ronin":
                return [_M1.copy(), _M0.copy(), _M_1.copy(), _M2.copy(), _M_2.copy()]
            return [_M1.copy(), _M0.copy(), _M_1.copy()]
        if ph == "dodge":
            if _room(st, seat):
                return [_DODGE_YES.copy(), _DODGE_NO.copy()]
            return [_DODGE_NO.copy()]
        return self._legal(st, seat)

    def sample_action(self, st: State, seat: str, rnd) -> dict:
        """``bots.random_action(self.legal(st, seat), rnd)`` without building ``legal``: the
        same action from the same draws of ``rnd`` (``rnd.choice`` over the entries, then over
        each plan slot's ``one_of``), for a plain ``random.Random``; any other generator goes
        through ``legal`` and the bot. tests/games/duel/test_duel_sampling.py checks both."""
        if not (_CHOICE_INLINE and rnd.__class__ is _Random):
            return _random_action(self.legal(st, seat), rnd)
        if st["result"] is not None:
            raise MatchOver("The match is over.")
        if st["buf"].get(seat, 0) is not None or seat not in st["who"]:  # not pending
            raise NotYourTurn("It is not your turn.")
        bits = rnd.getrandbits  # rnd.choice(seq) is seq[r], r = bits(k) redrawn until r < n
        ph = st["phase"]
        if ph == "footwork":
            seq, n, k = _DRAW_FOOTWORK_OF[st["P"][seat]["d"]]
        elif ph == "plan":
            while bits(1):  # choice of legal's single entry, the plan template
                pass
            seq, n, k = _DRAW_FIRST_PAIR[st["P"][seat]["stance"]]
            r = bits(k)
            while r >= n:
                r = bits(k)
            x = seq[r]
            r = bits(_K_PAIRS)
            while r >= _N_PAIRS:
                r = bits(_K_PAIRS)
            y = _LEGAL_PAIRS[r]
            r = bits(_K_PAIRS)
            while r >= _N_PAIRS:
                r = bits(_K_PAIRS)
            return {"type": "plan", "slots": [x.copy(), y.copy(), _LEGAL_PAIRS[r].copy()]}
        elif ph == "dodge":
            seq, n, k = _DRAW_DODGE if _room(st, seat) else _DRAW_NO_DODGE
        elif ph == "stance":
            seq, n, k = _DRAW_STANCES
        else:
            seq, n, k = _DRAW_DUELLISTS
        r = bits(k)
        while r >= n:
            r = bits(k)
        return seq[r].copy()

    def apply(self, state: State, seat: str, action: dict, *, copy: bool = True
              ) -> tuple[State, list[dict]]:
        """``games.base.Game.apply`` with ``_apply`` inlined (keep the two in step).

        The action is checked against ``state`` before anything is copied. ``copy=True`` is
        copy-on-write: the new state is a shallow copy of ``state`` with fresh copies of just
        the containers this step writes (``buf``; ``P`` and the two seat dicts when the
        decision resolves; ``timeouts`` when it changes). Everything else (``options``,
        ``seats``, each seat's ``rev`` list, which the engine never changes in place) is shared
        with ``state``: callers treat states as values and never patch one in place (tests
        that patch a board ``games.base.clone`` it first)."""
        ph = state["phase"]
        who = state["who"]
        buf = state["buf"]
        # The usual case in one test: a match not over, a seat asked and not locked yet, a plain
        # dict {"type": <the phase>, <its field>: value}. It implies every check below passes.
        if not (state["result"] is None and seat in state["seats"] and action.__class__ is dict
                and len(action) == 2 and action.get("type") == ph and buf[seat] is None
                and seat in who and (value := action.get(FIELD[ph], _MISSING)) is not _MISSING):
            # games.base.Game.apply's checks, in its order, then this game's
            if state["result"] is not None:
                raise MatchOver("The match is over.")
            if seat not in state["seats"]:
                raise IllegalAction("You are not playing in this match.")
            if not isinstance(action, dict) or not isinstance(t := action.get("type"), str):
                raise IllegalAction("An action is an object with a 'type'.")
            if t == "resign":
                if set(action) != {"type"}:
                    raise IllegalAction("'resign' takes no other fields.")
                st = clone(state) if copy else state  # rare: a plain deep copy
                return st, self._forfeit(st, seat, "resigned")
            if seat not in who or buf[seat] is not None:  # seat not in self.pending(state)
                raise NotYourTurn("It is not your turn.")
            if t != ph:
                if t not in FIELD:
                    raise IllegalAction(f"Unknown action type '{t}'.")
                raise IllegalAction(
                    f"The match is waiting for {PHASE_WORDS[ph]}, not a '{t}' action.")
            field = FIELD[ph]
            if len(action) != 2 or field not in action:
                raise IllegalAction(f"A '{t}' action has exactly two fields: type and {field}.")
            value = action[field]  # a well-formed action in a dict subclass
        # The choice's value and ":" + its canonical JSON (the frequent cases without a call)
        j = None
        if ph == "footwork":
            if value.__class__ is str:
                j = _RONIN_JSON.get(value)
                # the two-space moves ("toward2", "away2") are the Ronin's alone
                if j is not None and value[-1] == "2" and state["P"][seat]["d"] != "ronin":
                    j = None  # _check_footwork refuses it
        elif ph == "dodge":
            if value is False:
                value, j = "0", _DODGE_NO_JSON
            elif value is True and _room(state, seat):
                value, j = "1", _DODGE_YES_JSON
        elif ph == "stance" and value.__class__ is str:
            j = _STANCE_JSON.get(value)
        if j is None:
            value = self._CHECK[ph](self, state, seat, value)
            j = _PLAN_COMMIT_JSON.get(value) if ph == "plan" else None
            if j is None:
                j = ":" + _choice_json(ph, value)
        if copy:
            st = state.copy()
            st["buf"] = buf = buf.copy()
        else:
            st = state
        # A fresh salt (commit.new_salt, inlined): eight per games.base.rng draw.
        pool = st["salts"] or salt_pool(st)
        st["salts"] = pool[32:]
        salt = pool[:32]
        h = _sha256((salt + j).encode()).hexdigest()
        buf[seat] = salt + h + value
        e = _E_COMMIT[ph].copy()
        e["seat"] = seat
        e["commitment"] = h
        ev = [e]
        if (buf["B"] is not None or "B" not in who) if seat == "A" else (
                buf["A"] is not None or "A" not in who):  # everyone asked has locked: resolve
            if copy:
                P = st["P"]
                st["P"] = {"A": P["A"].copy(), "B": P["B"].copy()}
            if ph == "footwork":
                self._resolve_footwork(st, ev)
            else:
                self._RESOLVE[ph](self, st, ev)
        timeouts = st["timeouts"]
        if timeouts[seat]:  # (not 0 already)
            if copy:
                st["timeouts"] = timeouts = timeouts.copy()
            timeouts[seat] = 0
        return st, ev

    def validate_options(self, raw: dict | None, n_seats: int | None = None) -> dict:
        opts = super().validate_options(raw, n_seats)
        # No overrides: the key is left out, so default matches keep their exact states.
        if opts["counter_overrides"] is None:
            del opts["counter_overrides"]
        return opts

    # ---- setup -----------------------------------------------------------------------------
    def _setup(self, st: State) -> None:
        if list(st["seats"]) != list(SEATS):
            raise InvalidOptions("Duel is played by seats A and B.")
        c = (st["options"]["track_length"] + 1) // 2
        st.update(phase="duellist", slot=1, ex=0, xs=0, sun=None, xy=None, who="AB",
                  buf={"A": None, "B": None}, later="", salts="")
        set_weather(st)
        st["P"] = {
            s: {"d": None, "hp": 0, "st": MAX_STAMINA, "pos": c - 2 if s == "A" else c + 2,
                "stance": "middle", "lock": 0, "plan": None, "rev": [], "f": F_SV | F_OPEN}
            for s in SEATS
        }

    # ---- who acts, what is legal ---------------------------------------------------------
    def _pending(self, st: State) -> dict[str, str]:
        ph = st["phase"]
        buf = st["buf"]
        return {s: ph for s in st["who"] if buf[s] is None}

    def _legal(self, st: State, seat: str) -> list[dict]:
        ph = st["phase"]
        if ph == "footwork":
            return list(map(_dcopy, _LEGAL_RONIN if st["P"][seat]["d"] == "ronin" else _LEGAL_MOVES))
        if ph == "dodge":
            return list(map(_dcopy, _LEGAL_DODGE if _room(st, seat) else _LEGAL_NO_DODGE))
        if ph == "plan":
            return [{"type": "plan", "slots": [
                {"one_of": list(map(_dcopy, _LEGAL_PAIRS_OF[st["P"][seat]["stance"]]))},
                {"one_of": list(map(_dcopy, _LEGAL_PAIRS))},
                {"one_of": list(map(_dcopy, _LEGAL_PAIRS))}]}]
        if ph == "stance":
            return [{"type": "stance", "stance": s} for s in T.STANCES]
        return [{"type": "duellist", "duellist": d} for d in T.DUELLISTS]

    def default_action(self, st: State, seat: str) -> dict:
        """The clock's move: Stay; no dodge; Wait x3 in the opening stance; Middle; the Brute."""
        ph = st["phase"]
        if ph == "footwork":
            return {"type": "footwork", "move": "stay"}
        if ph == "dodge":
            return {"type": "dodge", "dodge": False}
        if ph == "plan":
            op = st["P"][seat]["stance"]
            return {"type": "plan", "slots": [{"stance": op, "technique": "wait"} for _ in range(3)]}
        if ph == "stance":
            return {"type": "stance", "stance": "middle"}
        return {"type": "duellist", "duellist": next(iter(T.DUELLISTS))}

    # ---- apply -----------------------------------------------------------------------------
    def _apply(self, st: State, seat: str, a: dict) -> list[dict]:
        """The hook (``Game.timeout`` plays the clock's move through it); ``apply`` inlines the
        same steps."""
        ph = st["phase"]
        t = a["type"]
        if t != ph:
            if t not in FIELD:
                raise IllegalAction(f"Unknown action type '{t}'.")
            raise IllegalAction(f"The match is waiting for {PHASE_WORDS[ph]}, not a '{t}' action.")
        field = FIELD[t]
        if len(a) != 2 or field not in a:
            raise IllegalAction(f"A '{t}' action has exactly two fields: type and {field}.")
        value = self._CHECK[ph](self, st, seat, a[field])
        pool = st.get("salts") or salt_pool(st)
        st["salts"] = pool[32:]
        salt = pool[:32]
        h = _sha256((salt + ":" + _choice_json(ph, value)).encode()).hexdigest()
        buf = st["buf"]
        buf[seat] = salt + h + value
        e = _E_COMMIT[ph].copy()
        e["seat"] = seat
        e["commitment"] = h
        ev = [e]
        for s in st["who"]:
            if buf[s] is None:
                return ev
        self._RESOLVE[ph](self, st, ev)
        return ev

    # Validation: each returns the compact value of the choice.
    def _check_duellist(self, st, seat, d):
        if not isinstance(d, str) or d not in T.DUELLISTS:
            raise IllegalAction("Choose a duellist: " + ", ".join(T.DUELLISTS) + ".")
        return d

    def _check_stance(self, st, seat, s):
        if not isinstance(s, str) or s not in IDX:
            raise IllegalAction("A stance is high, middle or low.")
        return s

    def _check_plan(self, st, seat, slots):
        if type(slots) is list and len(slots) == 3:  # fast path: a well-formed plan
            x, y, z = slots
            try:
                if len(x) == 2 and len(y) == 2 and len(z) == 2 and type(x) is dict:
                    v = (_SLOT_VALUE[x["stance"]][x["technique"]] + ","
                         + _SLOT_VALUE[y["stance"]][y["technique"]] + ","
                         + _SLOT_VALUE[z["stance"]][z["technique"]])
                    if type(y) is dict and type(z) is dict:
                        op = st["P"][seat]["stance"]
                        if x["stance"] != op:
                            raise IllegalAction(f"Slot 1 must use your opening stance ({op}).")
                        return v
            except IllegalAction:
                raise
            except Exception:  # not well-formed: the checks below say why
                pass
        if not isinstance(slots, list) or len(slots) != SLOTS_PER_EXCHANGE:
            raise IllegalAction("A plan is a list of exactly three slots.")
        out = []
        for i, sl in enumerate(slots, 1):
            if not isinstance(sl, dict) or len(sl) != 2 or "stance" not in sl or "technique" not in sl:
                raise IllegalAction(f"Slot {i} must be an object with 'stance' and 'technique'.")
            s, t = sl["stance"], sl["technique"]
            if not isinstance(s, str) or s not in IDX:
                raise IllegalAction(f"Slot {i}: a stance is high, middle or low.")
            if not isinstance(t, str) or t not in TECH_STANCE:
                raise IllegalAction(f"Slot {i}: unknown technique.")
            if t != "wait" and TECH_STANCE[t] != s:
                raise IllegalAction(f"Slot {i}: {t.replace('_', ' ')} is not a {s} technique.")
            out.append(s + "/" + t)
        op = st["P"][seat]["stance"]
        if slots[0]["stance"] != op:
            raise IllegalAction(f"Slot 1 must use your opening stance ({op}).")
        return ",".join(out)

    def _check_footwork(self, st, seat, m):
        moves = T.RONIN_MOVES if st["P"][seat]["d"] == "ronin" else T.MOVES
        if not isinstance(m, str) or m not in moves:
            raise IllegalAction("Footwork is one of: " + ", ".join(moves) + ".")
        return m

    def _check_dodge(self, st, seat, d):
        if not isinstance(d, bool):
            raise IllegalAction("'dodge' is true or false.")
        if d and not _room(st, seat):
            raise IllegalAction("There is no room behind you to dodge.")
        return "1" if d else "0"

    # ---- commitments -----------------------------------------------------------------------
    @staticmethod
    def _open(st: State, s: str, kind: str, rec: str, hidden: bool, ev: list) -> None:
        """Publish a commitment's salt and choice; when weather hides the choice from the other
        side, only the owner gets it now and everyone at the end of the match."""
        if hidden:
            ev.append({"type": "reveal", "vis": [s], "seat": s, "decision": kind,
                       "choice": _choice(kind, rec[96:]), "salt": rec[:32],
                       "commitment": rec[32:96]})
            st["later"] += f"{s} {kind} {rec}\n"
        else:
            ev.append({"type": "reveal", "vis": ALL, "seat": s, "decision": kind,
                       "choice": _choice(kind, rec[96:]), "salt": rec[:32],
                       "commitment": rec[32:96]})

    # ---- resolution ------------------------------------------------------------------------
    # Asking for the next simultaneous decision sets ``who`` (the seats asked), a fresh ``buf``
    # and the phase; when nobody is asked, that decision is resolved at once.
    def _resolve_duellist(self, st: State, ev: list) -> None:
        health = st["options"]["health"]
        for s in SEATS:
            rec = st["buf"][s]
            p = st["P"][s]
            p["d"] = d = rec[96:]
            p["hp"] = health + T.DUELLISTS[d]["health_bonus"]
            self._open(st, s, "duellist", rec, False, ev)
        for s in SEATS:
            p = st["P"][s]
            ev.append(event("duellist", seat=s, duellist=p["d"], health=p["hp"], stamina=p["st"],
                            position=p["pos"]))
        self._start_exchange(st, ev)

    def _start_exchange(self, st: State, ev: list) -> None:
        st["ex"] = ex = st["ex"] + 1
        st["xs"] = 1
        P = st["P"]
        pa, pb = P["A"], P["B"]
        pa["rev"], pa["plan"] = [], None
        pb["rev"], pb["plan"] = [], None
        ev.append({"type": "exchange", "vis": ALL, "exchange": ex, "slot": st["slot"]})
        st["who"] = "AB"  # ask both for the opening stances
        st["buf"] = {"A": None, "B": None}
        st["phase"] = "stance"

    def _resolve_stance(self, st: State, ev: list) -> None:
        """The opening stances (written out for A, then B)."""
        P = st["P"]
        pA, pB = P["A"], P["B"]
        buf = st["buf"]
        n = st["slot"]
        w = st["w"]  # _hid: positions and weather do not change here
        if w == "sun":
            hA, hB = st["blind"] != "A", st["blind"] != "B"
        elif w == "fog":
            hA = hB = pB["pos"] - pA["pos"] > 1
        else:
            hA = hB = False
        # -- seat A
        rec = buf["A"]
        pA["stance"] = stance = rec[96:]
        r = _E_REVEAL_STANCE.copy()
        r["seat"] = "A"
        r["choice"] = {"type": "stance", "stance": stance}
        r["salt"] = rec[:32]
        r["commitment"] = rec[32:96]
        e = _E_OPENING.copy()
        e["seat"] = "A"
        e["slot"] = n
        e["stance"] = stance
        if hA:
            pA["f"] &= _NOT_SV_OPEN
            e["vis"] = ["A"]
            ev.append(e)
            ev.append({"type": "stance", "vis": ["B", SPECTATOR], "seat": "A", "slot": n,
                       "stance": None, "opening": True})
            r["vis"] = ["A"]
            ev.append(r)
            st["later"] += "A stance " + rec + "\n"
        else:
            pA["f"] |= F_SV | F_OPEN
            ev.append(e)
            ev.append(r)
        # -- seat B
        rec = buf["B"]
        pB["stance"] = stance = rec[96:]
        r = _E_REVEAL_STANCE.copy()
        r["seat"] = "B"
        r["choice"] = {"type": "stance", "stance": stance}
        r["salt"] = rec[:32]
        r["commitment"] = rec[32:96]
        e = _E_OPENING.copy()
        e["seat"] = "B"
        e["slot"] = n
        e["stance"] = stance
        if hB:
            pB["f"] &= _NOT_SV_OPEN
            e["vis"] = ["B"]
            ev.append(e)
            ev.append({"type": "stance", "vis": ["A", SPECTATOR], "seat": "B", "slot": n,
                       "stance": None, "opening": True})
            r["vis"] = ["B"]
            ev.append(r)
            st["later"] += "B stance " + rec + "\n"
        else:
            pB["f"] |= F_SV | F_OPEN
            ev.append(e)
            ev.append(r)
        st["who"] = "AB"  # ask both for their plans
        st["buf"] = {"A": None, "B": None}
        st["phase"] = "plan"

    def _resolve_plan(self, st: State, ev: list) -> None:
        P = st["P"]
        buf = st["buf"]
        P["A"]["plan"] = buf["A"]
        P["B"]["plan"] = buf["B"]
        st["buf"] = {"A": None, "B": None}
        self._start_slot(st, ev)

    def _start_slot(self, st: State, ev: list) -> None:
        """Before the slot (states, forced rest, misplays) and step 1, the stances. The two
        seats are written out (A, then B): this runs every slot."""
        P = st["P"]
        pA, pB = P["A"], P["B"]
        xs, n = st["xs"], st["slot"]
        w = st["w"]
        blind = st["blind"]
        e = _E_SLOT.copy()
        e["slot"] = n
        e["exchange"] = st["ex"]
        e["exchange_slot"] = xs
        e["weather"] = w
        e["blind"] = blind
        ev.append(e)
        # _hid: positions and weather do not change here
        if w == "sun":
            hA, hB = blind != "A", blind != "B"
        elif w == "fog":
            hA = hB = pB["pos"] - pA["pos"] > 1
        else:
            hA = hB = False
        i = xs - 1
        movers = ""
        # -- seat A
        rec = pA["plan"]
        stance, t = (_PLAN_OF.get(rec) or _plan_of(rec))[i]
        f = pA["f"] & _NOT_SLOT
        if pA["lock"] > 0:
            f |= F_LOCKED
        sta = pA["st"]
        if sta == 0 or sta < COST[t]:
            f |= F_REST
        cur = pA["stance"]
        # A High<->Low jump is a misplay, except Low straight after a performed High cut.
        if (stance == "high" and cur == "low") or (
                stance == "low" and cur == "high" and not f & F_CUT):
            f |= F_MISPLAY
            pA["stance"] = "middle"
            ev.append({"type": "stance", "vis": ["A"] if hA else ALL, "seat": "A", "slot": n,
                       "stance": "middle", "planned": stance, "misplay": True})
        else:
            if not f & _IDLE and ((f & F_CUT and pA["d"] != "samurai" and not (
                    stance == "low" and t in _HEAVY_OK)) or (f & F_STIFF and t != "wait")):
                f |= F_MISPLAY
            pA["stance"] = stance
            e = _E_STANCE.copy()
            if hA:
                e["vis"] = ["A"]
            e["seat"] = "A"
            e["slot"] = n
            e["stance"] = stance
            ev.append(e)
        if hA:
            f &= _NOT_SV_OPEN
            ev.append({"type": "stance", "vis": ["B", SPECTATOR], "seat": "A", "slot": n,
                       "stance": None})
        else:
            f |= F_SV
        pA["f"] = f
        if f & _IDLE:
            if f & F_LOCKED:
                ev.append({"type": "locked", "vis": ALL, "seat": "A", "slots_left": pA["lock"]})
            if f & F_REST:
                ev.append({"type": "rest", "vis": ALL, "seat": "A"})
        else:
            movers = "A"
        # -- seat B
        rec = pB["plan"]
        stance, t = (_PLAN_OF.get(rec) or _plan_of(rec))[i]
        f = pB["f"] & _NOT_SLOT
        if pB["lock"] > 0:
            f |= F_LOCKED
        sta = pB["st"]
        if sta == 0 or sta < COST[t]:
            f |= F_REST
        cur = pB["stance"]
        if (stance == "high" and cur == "low") or (
                stance == "low" and cur == "high" and not f & F_CUT):
            f |= F_MISPLAY
            pB["stance"] = "middle"
            ev.append({"type": "stance", "vis": ["B"] if hB else ALL, "seat": "B", "slot": n,
                       "stance": "middle", "planned": stance, "misplay": True})
        else:
            if not f & _IDLE and ((f & F_CUT and pB["d"] != "samurai" and not (
                    stance == "low" and t in _HEAVY_OK)) or (f & F_STIFF and t != "wait")):
                f |= F_MISPLAY
            pB["stance"] = stance
            e = _E_STANCE.copy()
            if hB:
                e["vis"] = ["B"]
            e["seat"] = "B"
            e["slot"] = n
            e["stance"] = stance
            ev.append(e)
        if hB:
            f &= _NOT_SV_OPEN
            ev.append({"type": "stance", "vis": ["A", SPECTATOR], "seat": "B", "slot": n,
                       "stance": None})
        else:
            f |= F_SV
        pB["f"] = f
        if f & _IDLE:
            if f & F_LOCKED:
                ev.append({"type": "locked", "vis": ALL, "seat": "B", "slots_left": pB["lock"]})
            if f & F_REST:
                ev.append({"type": "rest", "vis": ALL, "seat": "B"})
        else:
            movers += "B"
        # Ask the movers for footwork. ``buf`` is empty already: _resolve_plan, _resolve_footwork
        # and _resolve_dodge, the ways here, each reset it.
        st["who"] = movers
        if movers:
            st["phase"] = "footwork"
        else:
            self._resolve_footwork(st, ev)

    def _resolve_footwork(self, st: State, ev: list) -> None:
        """Step 2: footwork, both at once; then who may dodge."""
        P = st["P"]
        pa, pb = P["A"], P["B"]
        w = st["w"]
        blind = st["blind"]
        sun = w == "sun"
        if st["who"]:
            buf = st["buf"]
            ra, rb = buf["A"], buf["B"]  # None for a seat not asked
            if sun:  # _hid, before the moves
                hA, hB = blind != "A", blind != "B"
            elif w == "fog":
                hA = hB = pb["pos"] - pa["pos"] > 1
            else:
                hA = hB = False
            steps = _STEPS_RAIN if w == "rain" else _STEPS_DRY
            wa = wb = 0
            if ra is not None:
                ma = ra[96:]
                if ma == "stay":
                    pa["f"] |= F_STAYED
                wa = steps[ma]
            if rb is not None:
                mb = rb[96:]
                if mb == "stay":
                    pb["f"] |= F_STAYED
                wb = steps[mb]
            # _move2(st, pa, pb, wa, wb), inlined
            a = pa["pos"]
            b = pb["pos"]
            na = a + wa
            if na >= b:
                na = b - 1
            if na < 1:
                na = 1
            nb = b - wb
            if nb <= a:
                nb = a + 1
            if nb > st["options"]["track_length"]:
                nb = st["options"]["track_length"]
            if na >= nb:
                na, nb = a, b
            else:
                pa["pos"] = na
                pb["pos"] = nb
            # Events and openings, A then B (a hidden footwork: fog hides the move, not the
            # position; the sun hides both).
            if ra is not None:
                e = _E_FOOTWORK.copy()
                e["seat"] = "A"
                e["move"] = ma
                e["from"] = a
                e["to"] = na
                r = _E_REVEAL_FOOTWORK.copy()
                r["seat"] = "A"
                r["choice"] = {"type": "footwork", "move": ma}
                r["salt"] = ra[:32]
                r["commitment"] = ra[32:96]
                if hA:
                    e["vis"] = ["A"]
                    ev.append(e)
                    if not sun:
                        ev.append({"type": "footwork", "vis": ["B", SPECTATOR], "seat": "A",
                                   "from": a, "to": na})
                    r["vis"] = ["A"]
                    ev.append(r)
                    st["later"] += "A footwork " + ra + "\n"
                else:
                    ev.append(e)
                    ev.append(r)
            if rb is not None:
                e = _E_FOOTWORK.copy()
                e["seat"] = "B"
                e["move"] = mb
                e["from"] = b
                e["to"] = nb
                r = _E_REVEAL_FOOTWORK.copy()
                r["seat"] = "B"
                r["choice"] = {"type": "footwork", "move": mb}
                r["salt"] = rb[:32]
                r["commitment"] = rb[32:96]
                if hB:
                    e["vis"] = ["B"]
                    ev.append(e)
                    if not sun:
                        ev.append({"type": "footwork", "vis": ["A", SPECTATOR], "seat": "B",
                                   "from": b, "to": nb})
                    r["vis"] = ["B"]
                    ev.append(r)
                    st["later"] += "B footwork " + rb + "\n"
                else:
                    ev.append(e)
                    ev.append(r)
        # Who may dodge. Under the sun the offer must not reveal the hidden position: a player
        # the sun hides is asked even when the wall leaves no room (then only "no dodge").
        k = DODGE_DISTANCE + (RAIN_EXTRA if w == "rain" else 0)
        who = ""
        if not pa["f"] & _NO_DODGE and pa["st"] >= DODGE_COST and (
                pa["pos"] - k >= 1 or (sun and blind != "A")):
            who = "A"
        if not pb["f"] & _NO_DODGE and pb["st"] >= DODGE_COST and (
                pb["pos"] + k <= st["options"]["track_length"] or (sun and blind != "B")):
            who += "B"
        st["who"] = who  # ask who may dodge
        st["buf"] = {"A": None, "B": None}
        if who:
            st["phase"] = "dodge"
        else:
            self._play_slot(st, ev)  # _resolve_dodge with nobody asked

    def _resolve_dodge(self, st: State, ev: list) -> None:
        """Step 3: dodges, then the rest of the slot."""
        who = st["who"]
        if who:
            P = st["P"]
            pa, pb = P["A"], P["B"]
            buf = st["buf"]
            ra, rb = buf["A"], buf["B"]  # None for a seat not asked
            k = DODGE_DISTANCE + (RAIN_EXTRA if st["w"] == "rain" else 0)
            da = ra is not None and ra[96:] == "1"
            db = rb is not None and rb[96:] == "1"
            if da:
                pa["f"] |= F_DODGED
                pa["st"] -= DODGE_COST
            if db:
                pb["f"] |= F_DODGED
                pb["st"] -= DODGE_COST
            if da or db:
                a, na, b, nb = _move2(st, pa, pb, -k if da else 0, -k if db else 0)
            sun = st["w"] == "sun"
            blind = st["blind"]
            if ra is not None:
                vis = ["A"] if sun and blind != "A" else ALL
                if da:
                    e = _E_DODGED.copy()
                    e["from"] = a
                    e["to"] = na
                else:
                    e = _E_STAYED.copy()
                e["vis"] = vis
                e["seat"] = "A"
                ev.append(e)
                r = _E_REVEAL_DODGE.copy()
                r["seat"] = "A"
                r["choice"] = {"type": "dodge", "dodge": da}
                r["salt"] = ra[:32]
                r["commitment"] = ra[32:96]
                if vis is not ALL:
                    r["vis"] = ["A"]
                    st["later"] += "A dodge " + ra + "\n"
                ev.append(r)
            if rb is not None:
                vis = ["B"] if sun and blind != "B" else ALL
                if db:
                    e = _E_DODGED.copy()
                    e["from"] = b
                    e["to"] = nb
                else:
                    e = _E_STAYED.copy()
                e["vis"] = vis
                e["seat"] = "B"
                ev.append(e)
                r = _E_REVEAL_DODGE.copy()
                r["seat"] = "B"
                r["choice"] = {"type": "dodge", "dodge": db}
                r["salt"] = rb[:32]
                r["commitment"] = rb[32:96]
                if vis is not ALL:
                    r["vis"] = ["B"]
                    st["later"] += "B dodge " + rb + "\n"
                ev.append(r)
            st["buf"] = {"A": None, "B": None}
            st["who"] = ""
        else:
            st["buf"] = {"A": None, "B": None}
        self._play_slot(st, ev)

    def _play_slot(self, st: State, ev: list) -> None:
        """Steps 4-6 (technique, technique step, damage), the states, and what comes next.
        The two seats are written out (A, then B): this runs every slot."""
        P = st["P"]
        pA, pB = P["A"], P["B"]
        xs, n = st["xs"], st["slot"]
        w = st["w"]
        rain = w == "rain"
        blind = st["blind"]
        hA = w == "sun" and blind != "A"  # the sun hides A's position, technique and dodge
        hB = w == "sun" and blind != "B"
        dA, dB = pA["d"], pB["d"]
        i = xs - 1
        # 4. Technique reveal. No stance here: fog may hide the stance while the technique is
        # visible. Status: locked, rest, dodged, misplay (by flag), else wait or performed.
        fA = pA["f"]
        rec = pA["plan"]
        tA = (_PLAN_OF.get(rec) or _plan_of(rec))[i][1]
        sA = _STATUS[fA & _STATUS_FLAGS]
        okA = mA = False
        if sA is None:
            if tA == "wait":
                sA = "wait"
            else:
                sA = "performed"
                okA = True
                mA = xs == 1 and tA in _HEAVY_CUTS and dA == "brute"
        elif sA == "misplay":
            pA["stance"] = "middle"
        if hA:
            pA["rev"] = [*pA["rev"], f"{n} {tA} {sA} 1 0" if mA else f"{n} {tA} {sA} 0 0"]
            pA["f"] = fA = fA & _NOT_OPEN
            e = _E_TECHNIQUE.copy()
            e["vis"] = ["A"]
            e["seat"] = "A"
            e["slot"] = n
            e["technique"] = tA
            e["status"] = sA
            if mA:
                e["mighty"] = True
            ev.append(e)
            ev.append({"type": "technique", "vis": ["B", SPECTATOR], "seat": "A", "slot": n,
                       "technique": None})
        else:
            pA["rev"] = [*pA["rev"], f"{n} {tA} {sA} 1 1" if mA else f"{n} {tA} {sA} 0 1"]
            e = _E_TECHNIQUE.copy()
            e["seat"] = "A"
            e["slot"] = n
            e["technique"] = tA
            e["status"] = sA
            if mA:
                e["mighty"] = True
            ev.append(e)
        fB = pB["f"]
        rec = pB["plan"]
        tB = (_PLAN_OF.get(rec) or _plan_of(rec))[i][1]
        sB = _STATUS[fB & _STATUS_FLAGS]
        okB = mB = False
        if sB is None:
            if tB == "wait":
                sB = "wait"
            else:
                sB = "performed"
                okB = True
                mB = xs == 1 and tB in _HEAVY_CUTS and dB == "brute"
        elif sB == "misplay":
            pB["stance"] = "middle"
        if hB:
            pB["rev"] = [*pB["rev"], f"{n} {tB} {sB} 1 0" if mB else f"{n} {tB} {sB} 0 0"]
            pB["f"] = fB = fB & _NOT_OPEN
            e = _E_TECHNIQUE.copy()
            e["vis"] = ["B"]
            e["seat"] = "B"
            e["slot"] = n
            e["technique"] = tB
            e["status"] = sB
            if mB:
                e["mighty"] = True
            ev.append(e)
            ev.append({"type": "technique", "vis": ["A", SPECTATOR], "seat": "B", "slot": n,
                       "technique": None})
        else:
            pB["rev"] = [*pB["rev"], f"{n} {tB} {sB} 1 1" if mB else f"{n} {tB} {sB} 0 1"]
            e = _E_TECHNIQUE.copy()
            e["seat"] = "B"
            e["slot"] = n
            e["technique"] = tB
            e["status"] = sB
            if mB:
                e["mighty"] = True
            ev.append(e)
        dodged = (fA | fB) & F_DODGED
        oA = oB = 0  # damage dealt by each seat
        stopA = stopB = False  # this seat's Samurai Block stopped the other's attack
        if okA or okB:
            # 5. Technique step
            steps = _TSTEP_RAIN if rain else _TSTEP_DRY
            wa = steps[tA] if okA else 0
            wb = steps[tB] if okB else 0
            if wa or wb:
                a, na, b, nb = _move2(st, pA, pB, wa, wb)
                if wa:
                    e = _E_STEP.copy()
                    if hA:
                        e["vis"] = ["A"]
                    e["seat"] = "A"
                    e["from"] = a
                    e["to"] = na
                    ev.append(e)
                if wb:
                    e = _E_STEP.copy()
                    if hB:
                        e["vis"] = ["B"]
                    e["seat"] = "B"
                    e["from"] = b
                    e["to"] = nb
                    ev.append(e)
            # 6. Damage
            rA = rB = False  # reach
            clash = False
            dist = pB["pos"] - pA["pos"]
            if dodged:
                if okA and fB & F_DODGED and tA in PURSUIT and dist <= PURSUIT_RANGE:
                    oA = PURSUIT[tA]
                if okB and fA & F_DODGED and tB in PURSUIT and dist <= PURSUIT_RANGE:
                    oB = PURSUIT[tB]
            else:
                if okA:
                    r = RANGE[tA]
                    if r:
                        rA = r[0] <= dist <= r[1]
                if okB:
                    r = RANGE[tB]
                    if r:
                        rB = r[0] <= dist <= r[1]
                if okA and tA in DEFENSIVE:
                    rA = rB and tB in ATTACKS
                if okB and tB in DEFENSIVE:
                    rB = rA and tA in ATTACKS
                if rA and rB:
                    ov = st["options"].get("counter_overrides")
                    clash, oA, oB, stopA, stopB = _both(
                        dA, dB, tA, tB, mA, mB, COUNTER if ov is None else _counter_for(ov))
                else:
                    if rA:
                        oA = MIGHTY_DAMAGE if mA else DAMAGE[tA]
                    if rB:
                        oB = MIGHTY_DAMAGE if mB else DAMAGE[tB]
            # Stamina: techniques (Counterattack and Block only when they work) and clashes
            if okA:
                c = COST[tA]
                if tA in DEFENSIVE and not (rA and oB == 0):
                    c = 0
                if clash:
                    c += CLASH_COST
                c = pA["st"] - c
                pA["st"] = c if c > 0 else 0
            if okB:
                c = COST[tB]
                if tB in DEFENSIVE and not (rB and oA == 0):
                    c = 0
                if clash:
                    c += CLASH_COST
                c = pB["st"] - c
                pB["st"] = c if c > 0 else 0
            if clash:
                ev.append({"type": "clash", "vis": ALL})
                k = CLASH_KNOCKBACK + (RAIN_EXTRA if rain else 0)
                a, na, b, nb = _move2(st, pA, pB, -k, -k)
                ev.append({"type": "knockback", "vis": ["A"] if hA else ALL, "seat": "A",
                           "from": a, "to": na})
                ev.append({"type": "knockback", "vis": ["B"] if hB else ALL, "seat": "B",
                           "from": b, "to": nb})
            if oA:
                hp = pB["hp"] - oA
                pB["hp"] = hp = hp if hp > 0 else 0
                ev.append({"type": "hit", "vis": ALL, "seat": "B", "damage": oA, "health": hp})
            if oB:
                hp = pA["hp"] - oB
                pA["hp"] = hp = hp if hp > 0 else 0
                ev.append({"type": "hit", "vis": ALL, "seat": "A", "damage": oB, "health": hp})
        # 7. States for the next slot (locks, heavy recovery, thrust stiffness); slot-end
        # recovery. Locks never stack: the larger of the remaining and the new count.
        lkA = pA["lock"]
        if fA & F_LOCKED:
            lkA -= 1
        new = MIGHTY_MISS_LOCK if mA and oA == 0 else 0
        if ((okA and oA == 0 and dB == "master" and tA in ATTACKS) or stopB) and new < ABILITY_LOCK:
            new = ABILITY_LOCK
        if new > lkA:
            lkA = new
            ev.append({"type": "lock", "vis": ALL, "seat": "A", "slots": new})
        pA["lock"] = lkA
        fA &= _NOT_CUT_STIFF
        if okA:
            if tA in _HEAVY_CUTS:
                fA |= F_CUT
            elif oA == 0 and tA in _THRUSTS and dA != "samurai":
                fA |= F_STIFF
        pA["f"] = fA
        stA = pA["st"]
        if fA & F_REST:
            stA += REST_RECOVERY
            pA["st"] = stA = stA if stA < MAX_STAMINA else MAX_STAMINA
        elif sA == "wait" and fA & F_STAYED:
            stA += WAIT_RECOVERY
            pA["st"] = stA = stA if stA < MAX_STAMINA else MAX_STAMINA
        lkB = pB["lock"]
        if fB & F_LOCKED:
            lkB -= 1
        new = MIGHTY_MISS_LOCK if mB and oB == 0 else 0
        if ((okB and oB == 0 and dA == "master" and tB in ATTACKS) or stopA) and new < ABILITY_LOCK:
            new = ABILITY_LOCK
        if new > lkB:
            lkB = new
            ev.append({"type": "lock", "vis": ALL, "seat": "B", "slots": new})
        pB["lock"] = lkB
        fB &= _NOT_CUT_STIFF
        if okB:
            if tB in _HEAVY_CUTS:
                fB |= F_CUT
            elif oB == 0 and tB in _THRUSTS and dB != "samurai":
                fB |= F_STIFF
        pB["f"] = fB
        stB = pB["st"]
        if fB & F_REST:
            stB += REST_RECOVERY
            pB["st"] = stB = stB if stB < MAX_STAMINA else MAX_STAMINA
        elif sB == "wait" and fB & F_STAYED:
            stB += WAIT_RECOVERY
            pB["st"] = stB = stB if stB < MAX_STAMINA else MAX_STAMINA
        hpA, hpB = pA["hp"], pB["hp"]
        ev.append({"type": "slot_end", "vis": ALL, "slot": n,
                   "health": {"A": hpA, "B": hpB},
                   "stamina": {"A": stA, "B": stB},
                   "lock": {"A": lkA, "B": lkB},
                   "heavy_recovery": {"A": fA & F_CUT != 0 and dA != "samurai",
                                      "B": fB & F_CUT != 0 and dB != "samurai"},
                   "thrust_stiffness": {"A": fA & F_STIFF != 0, "B": fB & F_STIFF != 0}})
        # Match end, exchange end, next slot
        if hpA == 0 or hpB == 0:
            places = {"A": 1 if hpA or not hpB else 2, "B": 1 if hpB or not hpA else 2}
            ev += self._end(st, places, "knockout")
            return
        if n >= st["options"]["max_slots"]:
            places = {"A": 1 if hpA >= hpB else 2, "B": 1 if hpB >= hpA else 2}
            ev += self._end(st, places, "max_slots")
            return
        over = dodged or xs == SLOTS_PER_EXCHANGE
        if over:
            self._end_exchange(st, ev)
        st["slot"] = n = n + 1
        o = (n - NORMAL_OPENING - 1) % CYCLE_LEN
        if n <= NORMAL_OPENING:  # _advance_weather, inlined where no chance draw is due
            if w != "normal" or blind is not None:
                self._advance_weather(st, ev)
        elif o != 0 and o != X_OFFSET:
            kind, switched = _CYCLE_AT[o]
            if kind == "sun":
                new_w, new_blind = "sun", OTHER[st["sun"]] if switched else st["sun"]
            elif kind == "X":
                new_w, new_blind = st["xy"], None
            elif kind == "Y":
                new_w, new_blind = RAIN_OTHER[st["xy"]], None
            else:
                new_w, new_blind = kind, None
            if new_w != w or new_blind != blind:
                st["w"] = new_w
                st["blind"] = new_blind
                ev.append({"type": "weather", "vis": ALL, "slot": n, "weather": new_w,
                           "blind": new_blind})
        else:
            self._advance_weather(st, ev)
        if over:
            self._start_exchange(st, ev)
        else:
            st["xs"] = xs + 1
            self._start_slot(st, ev)

    def _end_exchange(self, st: State, ev: list) -> None:
        """Discard the plans (opening them), recover, clear the one-slot states. The event does
        not say why the exchange ended: a dodge the sun hid must stay hidden. (A, then B.)"""
        P = st["P"]
        pA, pB = P["A"], P["B"]
        # -- seat A
        f = pA["f"]
        rec = pA["plan"]  # self._open(st, "A", "plan", rec, not f & F_OPEN, ev), inlined
        (s1, t1), (s2, t2), (s3, t3) = _PLAN_OF.get(rec) or _plan_of(rec)
        r = _E_REVEAL_PLAN.copy()
        r["seat"] = "A"
        r["choice"] = {"type": "plan", "slots": [{"stance": s1, "technique": t1},
                                                 {"stance": s2, "technique": t2},
                                                 {"stance": s3, "technique": t3}]}
        r["salt"] = rec[:32]
        r["commitment"] = rec[32:96]
        if not f & F_OPEN:
            r["vis"] = ["A"]
            st["later"] += "A plan " + rec + "\n"
        ev.append(r)
        pA["plan"] = None
        stA = pA["st"] + EXCHANGE_RECOVERY
        pA["st"] = stA = stA if stA < MAX_STAMINA else MAX_STAMINA
        pA["f"] = (f & _NOT_CUT_STIFF) | F_OPEN
        # -- seat B
        f = pB["f"]
        rec = pB["plan"]  # self._open(st, "B", "plan", rec, not f & F_OPEN, ev), inlined
        (s1, t1), (s2, t2), (s3, t3) = _PLAN_OF.get(rec) or _plan_of(rec)
        r = _E_REVEAL_PLAN.copy()
        r["seat"] = "B"
        r["choice"] = {"type": "plan", "slots": [{"stance": s1, "technique": t1},
                                                 {"stance": s2, "technique": t2},
                                                 {"stance": s3, "technique": t3}]}
        r["salt"] = rec[:32]
        r["commitment"] = rec[32:96]
        if not f & F_OPEN:
            r["vis"] = ["B"]
            st["later"] += "B plan " + rec + "\n"
        ev.append(r)
        pB["plan"] = None
        stB = pB["st"] + EXCHANGE_RECOVERY
        pB["st"] = stB = stB if stB < MAX_STAMINA else MAX_STAMINA
        pB["f"] = (f & _NOT_CUT_STIFF) | F_OPEN
        ev.append({"type": "exchange_end", "vis": ALL, "exchange": st["ex"],
                   "stamina": {"A": stA, "B": stB}})

    def _advance_weather(self, st: State, ev: list) -> None:
        n = st["slot"]
        if n > NORMAL_OPENING:
            o = (n - NORMAL_OPENING - 1) % CYCLE_LEN
            if o == 0:
                st["sun"] = rng(st).choice(SEATS)
                ev.append(event("chance", draw="sun_first", slot=n, seat=st["sun"]))
            elif o == X_OFFSET:
                st["xy"] = "rain" if rng(st).random() < 0.5 else "fog"
                ev.append(event("chance", draw="rain_or_fog", slot=n,
                                first=st["xy"], then=RAIN_OTHER[st["xy"]]))
        w0, b0 = st["w"], st["blind"]
        st["w"], st["blind"] = w, blind = weather_at(n, st["sun"], st["xy"])
        if w != w0 or blind != b0:
            ev.append({"type": "weather", "vis": ALL, "slot": n, "weather": w, "blind": blind})

    # ---- the end ---------------------------------------------------------------------------
    def _end(self, st: State, places: dict, reason: str) -> list[dict]:
        """Finish and make the whole record public: every opening held back by weather, the
        current plans and any locked-in choices."""
        ev: list[dict] = []
        later = st["later"]
        for line in later[:-1].split("\n") if later else ():
            # "<seat> <kind> <record>"; the record starts after the second space
            kind = _KIND_AT[line[2:4]]
            o = len(kind) + 3
            r = _E_DEFERRED[kind].copy()
            r["seat"] = line[0]
            v = line[o + 96:]
            if kind == "footwork":  # the frequent kinds, as _choice builds them
                r["choice"] = {"type": "footwork", "move": v}
            elif kind == "dodge":
                r["choice"] = {"type": "dodge", "dodge": v == "1"}
            else:
                r["choice"] = _choice(kind, v)
            r["salt"] = line[o:o + 32]
            r["commitment"] = line[o + 32:o + 96]
            ev.append(r)
        st["later"] = ""
        P = st["P"]
        for s in SEATS:
            if P[s]["plan"]:
                self._open(st, s, "plan", P[s]["plan"], False, ev)
        for s in SEATS:
            if st["buf"][s]:
                self._open(st, s, st["phase"], st["buf"][s], False, ev)
        ev.append(self.finish(st, places, reason, health={s: P[s]["hp"] for s in SEATS},
                              slot=st["slot"]))
        return ev

    def _forfeit(self, st: State, seat: str, reason: str) -> list[dict]:
        places = {s: (2 if s == seat else 1) for s in SEATS}
        return [event("forfeit", seat=seat, reason=reason)] + self._end(st, places, reason)

    # ---- view ------------------------------------------------------------------------------
    def _view(self, st: State, viewer: str) -> dict:
        full = viewer == OMNISCIENT or st["result"] is not None
        P, buf = st["P"], st["buf"]
        blind = st["blind"]
        ph = st["phase"]
        players = {}
        for s in SEATS:
            p = P[s]
            own = full or viewer == s
            b = buf[s]
            plan = p["plan"]
            f = p["f"]
            d = {
                "duellist": p["d"],
                "health": p["hp"],
                "stamina": p["st"],
                "position": p["pos"] if own or blind is None or blind == s else None,
                "stance": p["stance"] if own or f & F_SV else None,
                "heavy_recovery": _heavy(p),
                "thrust_stiffness": bool(f & F_STIFF),
                "lock": p["lock"],
                "committed": b is not None,
                "commitment": b[32:96] if b else None,
                "plan_commitment": plan[32:96] if plan else None,
            }
            if own:
                d["played"] = [_rev_entry(x) for x in p["rev"]]
                d["plan"] = _choice("plan", plan[96:])["slots"] if plan else None
                d["locked_choice"] = _choice(ph, b[96:]) if b else None
                if full:
                    d["plan_salt"] = plan[:32] if plan else None
                    d["locked_salt"] = b[:32] if b else None
            else:
                d["played"] = [_rev_entry(x) if x[-1] == "1" else {"slot": int(x.split(" ", 1)[0]), "hidden": True}
                               for x in p["rev"]]
            players[s] = d
        return {
            "phase": ph,
            "pending": [s for s in st["who"] if buf[s] is None] if st["result"] is None else [],
            "slot": st["slot"],
            "exchange": st["ex"],
            "exchange_slot": st["xs"],
            "weather": st["w"],
            "blind": blind,
            "track_length": st["options"]["track_length"],
            "max_slots": st["options"]["max_slots"],
            "you": viewer if viewer in P else None,
            "players": players,
            "result": st["result"],
        }


def _heavy(p: dict) -> bool:
    return bool(p["f"] & F_CUT) and p["d"] != "samurai"


Duel._CHECK = {ph: getattr(Duel, "_check_" + ph) for ph in FIELD}
Duel._RESOLVE = {ph: getattr(Duel, "_resolve_" + ph) for ph in FIELD}

GAME = Duel(
    id="duel",
    name="Duel",
    min_players=2,
    max_players=2,
    options=(
        Option("max_slots", int, 60, "The match ends after this many slots; more health wins.", 1, 1000),
        Option("health", int, 5, "Starting health (the Brute gets one more).", 1, 50),
        Option("track_length", int, 15, "Spaces on the track (walls at both ends).", 9, 31),
        CounterOverridesOption(
            "counter_overrides", list, None, "Counter-table cells to change (balance lab): "
            "[{attack, defence, result}], each also sets the mirrored cell; null: the seed's table.",
            nullable=True),
        CLOCK_OPTION,
        MAX_TIMEOUTS_OPTION,
    ),
)
