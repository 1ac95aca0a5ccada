"""State building and driving helpers for the Duel tests.

``make`` builds a match through the real apply path (duellist choice), then patches the board
(positions, weather slot, stamina, health, states) so a test can start anywhere. ``exchange``
plays the opening stances and the plans, ``step`` plays one slot's footwork and dodge. Everything
after the patch goes through ``GAME.apply``.
"""
from __future__ import annotations

import json
import random

from games.base import OMNISCIENT, SPECTATOR, filter_events
from games.duel import GAME
from games.duel import engine as E
from games.duel.bots import random_action

# Our own abbreviations (deliberately not read from the engine's tables).
TECH = {
    "DC": "downward_cut",
    "AC": "advancing_cut",
    "RC": "retreating_cut",
    "CA": "counterattack",
    "AT": "advancing_thrust",
    "B": "block",
    "HC": "horizontal_cut",
    "RH": "retreating_horizontal_cut",
    "LT": "low_advancing_thrust",
    "W": "wait",
}
STANCE_OF = {"DC": "high", "AC": "high", "RC": "high", "CA": "middle", "AT": "middle",
             "B": "middle", "HC": "low", "RH": "low", "LT": "low"}
# Technique step toward the opponent, as the seed's table prints it.
OWN_STEP = {"DC": 0, "AC": 1, "RC": -1, "CA": 0, "AT": 1, "B": -1, "HC": 0, "RH": -1, "LT": 1, "W": 0}


def make(a="ronin", b="ronin", *, pos=(6, 10), slot=None, sun="A", x="rain", stamina=None,
         health=None, lock=None, stiff=None, cut=None, stance=None, options=None, seed=7):
    """A match past the duellist choice, waiting for the opening stances, with the board patched.
    Per-seat patches are (A, B) pairs; ``None`` in a pair leaves that seat alone."""
    st = GAME.setup(options or {}, ["A", "B"], seed)
    st, _ = GAME.apply(st, "A", {"type": "duellist", "duellist": a})
    st, _ = GAME.apply(st, "B", {"type": "duellist", "duellist": b})
    assert st["phase"] == "stance"
    P = st["P"]
    P["A"]["pos"], P["B"]["pos"] = pos
    if slot is not None:
        st["slot"], st["sun"], st["xy"] = slot, sun, x
        E.set_weather(st)
    for seat, i in (("A", 0), ("B", 1)):
        p = P[seat]
        if stamina is not None and stamina[i] is not None:
            p["st"] = stamina[i]
        if health is not None and health[i] is not None:
            p["hp"] = health[i]
        if lock is not None and lock[i] is not None:
            p["lock"] = lock[i]
        if stiff is not None and stiff[i]:
            p["f"] |= E.F_STIFF
        if cut is not None and cut[i]:
            p["f"] |= E.F_CUT
        if stance is not None and stance[i] is not None:
            p["stance"] = stance[i]
    return st


def slots(spec):
    """'DC HC W' or ['DC', 'W:low', ...] -> three plan slots. Wait takes the previous stance
    unless written 'W:stance'; missing slots are Wait in the last stance."""
    items = spec.split() if isinstance(spec, str) else list(spec)
    out, last = [], None
    for it in items:
        t, _, s = it.partition(":")
        stance = s or STANCE_OF.get(t) or last or "middle"
        out.append({"stance": stance, "technique": TECH[t]})
        last = stance
    while len(out) < 3:
        out.append({"stance": last, "technique": "wait"})
    return out


def exchange(st, A, B):
    """Opening stances (slot 1's) and plans for both seats; returns (state, events)."""
    pa, pb = slots(A), slots(B)
    ev = []
    for seat, p in (("A", pa), ("B", pb)):
        st, e = GAME.apply(st, seat, {"type": "stance", "stance": p[0]["stance"]})
        ev += e
    for seat, p in (("A", pa), ("B", pb)):
        st, e = GAME.apply(st, seat, {"type": "plan", "slots": p})
        ev += e
    return st, ev


def step(st, A="stay", B="stay", dA=False, dB=False):
    """One slot: footwork for the seats asked, then dodge for the seats asked."""
    ev = []
    slot = st["slot"]
    for seat, mv in (("A", A), ("B", B)):
        if st["phase"] == "footwork" and st["slot"] == slot and seat in GAME.pending(st):
            st, e = GAME.apply(st, seat, {"type": "footwork", "move": mv})
            ev += e
    for seat, d in (("A", dA), ("B", dB)):
        if st["phase"] == "dodge" and st["slot"] == slot and seat in GAME.pending(st):
            st, e = GAME.apply(st, seat, {"type": "dodge", "dodge": d})
            ev += e
    return st, ev


def footwork(st, A="stay", B="stay"):
    """Only the footwork step (for the seats asked); returns (state, events)."""
    assert st["phase"] == "footwork"
    ev = []
    for seat, mv in (("A", A), ("B", B)):
        if st["phase"] == "footwork" and seat in GAME.pending(st):
            st, e = GAME.apply(st, seat, {"type": "footwork", "move": mv})
            ev += e
    return st, ev


def play(st, A, B, fw=("stay", "stay"), dodge=(False, False)):
    """exchange + one step; returns (state, all events)."""
    st, ev1 = exchange(st, A, B)
    st, ev2 = step(st, fw[0], fw[1], dodge[0], dodge[1])
    return st, ev1 + ev2


def of(events, kind, **match):
    return [e for e in events if e["type"] == kind and all(e.get(k) == v for k, v in match.items())]


def seen(events, viewer):
    return filter_events(events, viewer)


def hp(st):
    return st["P"]["A"]["hp"], st["P"]["B"]["hp"]


def sta(st):
    return st["P"]["A"]["st"], st["P"]["B"]["st"]


def pos(st):
    return st["P"]["A"]["pos"], st["P"]["B"]["pos"]


def dumps(x):
    return json.dumps(x, sort_keys=True)


def random_playout(seed, options=None, until=None, record=None):
    """Random legal play from setup; stops at the result or when ``until(state)`` is true.
    ``record`` (a list) receives (state_before, seat, action, events)."""
    st = GAME.setup(options or {}, ["A", "B"], seed)
    rnd = random.Random(seed)
    while st["result"] is None and not (until and until(st)):
        seat = rnd.choice(sorted(GAME.pending(st)))
        action = random_action(GAME.legal(st, seat), rnd)
        new, ev = GAME.apply(st, seat, action)
        if record is not None:
            record.append((st, seat, action, ev))
        st = new
    return st


__all__ = ["GAME", "E", "OMNISCIENT", "SPECTATOR", "TECH", "make", "slots", "exchange", "step", "footwork",
           "play", "of", "seen", "hp", "sta", "pos", "dumps", "random_playout", "OWN_STEP"]
