"""Differential no-leak tests over random playouts that pass through sun, rain and fog slots.

1. Lock differential: at every simultaneous decision, the first seat to lock picks one of two
   different legal choices; the other seat's and a spectator's views and filtered events must
   be byte-identical (the commitment hash, which is meant to be seen and hides the choice behind
   a secret salt, is masked).
2. State surgery: change everything a viewer may not know (the opponent's locked choice, the
   unrevealed rest of the opponent's plan, what the weather hides, hidden flags, the seed, the
   salt pool, the held-back openings); the viewer's view must be byte-identical.
3. Weather resolution differential: under sun or fog, two different hidden footwork or dodge
   choices by the same seat, with the other's same action, give the blinded side identical
   events up to the technique reveal whenever the positions that side can see are the same.
"""
from __future__ import annotations

import json
import random

import pytest
from duel_kit import GAME, SPECTATOR, E, dumps, random_playout, seen

from games.base import clone
from games.duel.bots import random_action

OPTIONS = {"health": 50, "max_slots": 42}
SEEDS = range(8)
OTHER = {"A": "B", "B": "A"}


def mask(x):
    if isinstance(x, dict):
        return {k: ("#" if k in ("commitment", "plan_commitment") else mask(v)) for k, v in x.items()}
    if isinstance(x, list):
        return [mask(v) for v in x]
    return x


def other_choice(st, seat, action, rnd):
    legal = GAME.legal(st, seat)
    for _ in range(50):
        b = random_action(legal, rnd)
        if b != action:
            return b
    return None


@pytest.fixture(scope="module")
def playouts():
    out = []
    for seed in SEEDS:
        rec = []
        final = random_playout(seed, OPTIONS, record=rec)
        out.append((seed, rec, final))
    # the playouts must really cover the weather we want to test
    weathers = {(st["w"], st["phase"]) for _, rec, _ in out for st, _, _, _ in rec}
    for w in ("sun", "fog", "rain"):
        for ph in ("stance", "plan", "footwork", "dodge"):
            assert (w, ph) in weathers, (w, ph)
    assert max(final["slot"] for _, _, final in out) >= 40
    return out


def test_lock_differential(playouts):
    checked = 0
    for seed, rec, _ in playouts:
        rnd = random.Random(seed)
        for st, seat, action, _ in rec:
            pend = GAME.pending(st)
            if len(pend) < 2:
                continue  # the last to lock triggers the public resolution
            alt = other_choice(st, seat, action, rnd)
            if alt is None:
                continue
            s1, e1 = GAME.apply(st, seat, action)
            s2, e2 = GAME.apply(st, seat, alt)
            for viewer in (OTHER[seat], SPECTATOR):
                assert dumps(mask(GAME.view(s1, viewer))) == dumps(mask(GAME.view(s2, viewer)))
                assert dumps(mask(seen(e1, viewer))) == dumps(mask(seen(e2, viewer)))
            checked += 1
    assert checked > 500


def _alt_value(kind, value, rnd):
    pools = {
        "duellist": ["brute", "samurai", "ronin", "master"],
        "stance": ["high", "middle", "low"],
        "footwork": ["toward", "stay", "away", "toward2", "away2"],
        "dodge": ["0", "1"],
    }
    if kind == "plan":
        first = value.split(",")[0]
        return ",".join([first] + [_rand_pair(rnd) for _ in range(2)])
    return rnd.choice([v for v in pools[kind] if v != value])


def _rand_pair(rnd):
    t = rnd.choice(list(E.TECH_STANCE))
    s = E.TECH_STANCE[t] or rnd.choice(["high", "middle", "low"])
    return f"{s}/{t}"


def surgery(st, viewer, rnd):
    """A copy of ``st`` that differs only in what ``viewer`` may not know."""
    s2 = clone(st)
    s2["seed"] = st["seed"] + 1000
    s2["salts"] = "%032x" % rnd.getrandbits(128)
    s2["later"] = "".join(reversed(st["later"].splitlines(True)))
    P = s2["P"]
    hidden_seats = [x for x in "AB" if x != viewer]
    for x in hidden_seats:
        p = P[x]
        rec = s2["buf"][x]
        if rec:
            s2["buf"][x] = rec[:96] + _alt_value(st["phase"], rec[96:], rnd)
        if p["plan"]:
            xs = s2["xs"]
            pairs = p["plan"][96:].split(",")
            for i in range(xs - 1, 3):
                if i == xs - 1:  # this slot's stance is revealed, its technique is not
                    stance = pairs[i].split("/")[0]
                    techs = [t for t, s in E.TECH_STANCE.items() if s in (stance, None)]
                    pairs[i] = f"{stance}/{rnd.choice(techs)}"
                else:
                    pairs[i] = _rand_pair(rnd)
            p["plan"] = p["plan"][:96] + ",".join(pairs)
        p["f"] ^= E.F_MISPLAY
        if not p["f"] & E.F_SV:
            p["stance"] = rnd.choice([s for s in ("high", "middle", "low") if s != p["stance"]])
        if E._sunhid(s2, x):
            lo, hi = (1, P["B"]["pos"] - 1) if x == "A" else (P["A"]["pos"] + 1, s2["options"]["track_length"])
            choices = [q for q in range(lo, hi + 1) if q != p["pos"]]
            if choices:
                p["pos"] = rnd.choice(choices)
            p["rev"] = [r if r.endswith("1") else r.replace(r.split(" ")[1], "wait") for r in p["rev"]]
    return s2


def test_state_surgery_differential(playouts):
    checked = 0
    for seed, rec, _ in playouts:
        rnd = random.Random(seed + 99)
        for st, _, _, _ in rec:
            for viewer in ("A", "B", SPECTATOR):
                s2 = surgery(st, viewer, rnd)
                assert dumps(GAME.view(st, viewer)) == dumps(GAME.view(s2, viewer))
                checked += 1
    assert checked > 3000


def _prefix(events):
    out = []
    for e in events:
        if e["type"] == "technique":
            break
        out.append(e)
    return out


def _moves(events, seat):
    return [(e["type"], e["to"]) for e in _prefix(events) if e.get("seat") == seat and "to" in e]


def test_weather_resolution_differential(playouts):
    checked = {"sun": 0, "fog": 0}
    for _seed, rec, _ in playouts:
        for i, (st, seat, action, _) in enumerate(rec):
            if st["phase"] not in ("footwork", "dodge") or len(GAME.pending(st)) < 2:
                continue
            if not (E._hid(st, seat) if st["phase"] == "footwork" else E._sunhid(st, seat)):
                continue
            y = OTHER[seat]
            y_action = next(a for s0, s, a, _ in rec[i + 1:] if s == y)
            for alt in GAME.legal(st, seat):
                if alt == action:
                    continue
                branches = []
                for a in (action, alt):
                    s1, e1 = GAME.apply(st, seat, a)
                    s1, e2 = GAME.apply(s1, y, y_action)
                    branches.append((s1, e1 + e2))
                (sa, ea), (sb, eb) = branches
                if _moves(ea, y) != _moves(eb, y):
                    continue  # the hidden move changed what y itself did: a legitimate difference
                if st["w"] == "fog" and _moves(ea, seat) != _moves(eb, seat):
                    continue  # positions stay visible in fog
                for viewer in (y, SPECTATOR):
                    assert dumps(mask(seen(_prefix(ea), viewer))) == dumps(mask(seen(_prefix(eb), viewer)))
                    if sa["phase"] == "dodge" and sb["phase"] == "dodge":
                        assert dumps(mask(GAME.view(sa, viewer))) == dumps(mask(GAME.view(sb, viewer)))
                checked["sun" if st["w"] == "sun" else "fog"] += 1
    assert checked["sun"] > 20 and checked["fog"] > 5, checked


def test_views_contain_nothing_hidden_by_text(playouts):
    """A blunt extra check: a seat's view never contains the opponent's unrevealed plan text."""
    for _, rec, _ in playouts:
        for st, _, _, _ in rec:
            if st["phase"] not in ("footwork", "dodge"):
                continue
            for viewer in ("A", "B"):
                p = st["P"][OTHER[viewer]]
                future = p["plan"][96:].split(",")[st["xs"]:]
                text = json.dumps(GAME.view(st, viewer)["players"][OTHER[viewer]])
                assert "plan" not in GAME.view(st, viewer)["players"][OTHER[viewer]]
                for pair in future:
                    assert pair not in text


def test_event_visibility_rules_under_weather(playouts):
    """Independent scan of every event a seat received: under the sun the blinded seat gets no
    stance, footwork, dodge, technique or position of the opponent; in fog beyond distance 1 no
    footwork choice (the move) of the opponent."""
    checked = 0
    for _, rec, _ in playouts:
        for st, _, _, events in rec:
            w, blind = st["w"], st["blind"]
            dist = st["P"]["B"]["pos"] - st["P"]["A"]["pos"]
            for e in events:
                if e["type"] in ("slot", "weather"):
                    w, blind = e["weather"], e["blind"]
                    continue
                x = e.get("seat")
                if x not in ("A", "B") or e["type"] in ("reveal", "commit"):
                    continue
                y = OTHER[x]
                for viewer in (y, SPECTATOR):
                    got = seen([e], viewer)
                    if not got:
                        continue
                    got = got[0]
                    if w == "sun" and blind == y:
                        checked += 1
                        assert got["type"] not in ("footwork", "step", "knockback", "dodge"), got
                        if got["type"] == "technique":
                            assert got["technique"] is None, got
                        if got["type"] == "stance":
                            assert got["stance"] is None, got
                    if w == "fog" and got["type"] == "footwork" and dist > 1:
                        checked += 1
                        assert "move" not in got, got
                    if got["type"] == "technique":  # the stance is only ever told by stance events
                        assert "stance" not in got, got
    assert checked > 200
