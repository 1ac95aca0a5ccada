"""Verifiable commitments: every secret choice is committed when locked and opened later."""
from __future__ import annotations

import hashlib
import json

import pytest
from duel_kit import GAME, SPECTATOR, make, of, play, random_playout, seen, step

from games.duel import engine as E
from games.duel.commit import canonical_json, commitment, verify_commitment


def _by_hand(salt, choice):
    text = salt + ":" + json.dumps(choice, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def test_scheme_matches_the_documented_formula():
    choice = {"type": "plan", "slots": [{"stance": "high", "technique": "downward_cut"},
                                        {"stance": "low", "technique": "wait"},
                                        {"stance": "low", "technique": "wait"}]}
    salt = "0123456789abcdef0123456789abcdef"
    assert commitment(salt, choice) == _by_hand(salt, choice)
    assert verify_commitment(_by_hand(salt, choice), salt, choice)


def test_tampered_reveal_fails():
    choice = {"type": "footwork", "move": "toward"}
    salt = "f" * 32
    c = commitment(salt, choice)
    assert verify_commitment(c, salt, choice)
    assert verify_commitment(c.upper(), salt, choice)
    assert not verify_commitment(c, salt, {"type": "footwork", "move": "away"})
    assert not verify_commitment(c, "e" + "f" * 31, choice)
    assert not verify_commitment(c[:-1] + "0", salt, choice)
    for junk in (None, 3, b"x", "zz", "é" * 64):
        assert not verify_commitment(junk, salt, choice)
        assert not verify_commitment(c, junk, choice)
    assert not verify_commitment(c, salt, {1, 2})  # not JSON: False, never an exception


def test_fast_canonical_json_equals_the_reference():
    values = {
        "duellist": ["brute", "samurai", "ronin", "master"],
        "stance": ["high", "middle", "low"],
        "footwork": ["toward", "stay", "away", "toward2", "away2"],
        "dodge": ["0", "1"],
        "plan": ["high/downward_cut,low/horizontal_cut,middle/wait",
                 "low/wait,low/low_advancing_thrust,high/retreating_cut"],
    }
    for kind, vals in values.items():
        for v in vals:
            assert E._choice_json(kind, v) == canonical_json(E._choice(kind, v))


def _all_events(seed, options):
    rec = []
    st = random_playout(seed, options, record=rec)
    return st, [e for _, _, _, ev in rec for e in ev]


@pytest.mark.parametrize("seed", range(6))
def test_every_commitment_is_opened_and_verifies(seed):
    st, events = _all_events(seed, {"health": 40, "max_slots": 45})
    assert st["result"] is not None
    commits = of(events, "commit")
    assert all(e["vis"] == "all" for e in commits)
    # After the match, every viewer holds an opening for every commitment.
    for viewer in ("A", "B", SPECTATOR):
        mine = seen(events, viewer)
        opened = {e["commitment"]: e for e in mine if e["type"] == "reveal"}
        for c in commits:
            o = opened[c["commitment"]]
            assert (o["seat"], o["decision"]) == (c["seat"], c["decision"])
            assert verify_commitment(o["commitment"], o["salt"], o["choice"])
            assert len(o["salt"]) == 32 and int(o["salt"], 16) >= 0
    salts = [e["salt"] for e in events if e["type"] == "reveal" and not e.get("deferred")]
    assert len(salts) == len(set(salts))


def test_the_revealed_choice_is_what_was_played():
    st = make("ronin", "ronin", pos=(6, 10))
    st, ev = play(st, "DC", "W:middle", fw=("toward", "stay"))
    fw = next(e for e in of(ev, "reveal", seat="A") if e["decision"] == "footwork")
    assert fw["choice"] == {"type": "footwork", "move": "toward"}
    commit = next(e for e in of(ev, "commit", seat="A") if e["decision"] == "footwork")
    assert commit["commitment"] == fw["commitment"]


def test_plan_is_opened_at_exchange_end_with_its_salt():
    st = make("ronin", "ronin", pos=(3, 13))
    st, ev = play(st, "DC HC W:low", "W:middle")
    plan_commit = next(e for e in of(ev, "commit", seat="A") if e["decision"] == "plan")
    # not opened during the exchange: only each slot's technique is revealed as it is played
    assert not [e for e in of(ev, "reveal", seat="A") if e["decision"] == "plan"]
    assert GAME.view(st, "B")["players"]["A"]["plan_commitment"] == plan_commit["commitment"]
    assert GAME.view(st, "B")["players"]["A"].get("plan") is None
    ev_all = list(ev)
    for _ in range(2):
        st, e = step(st)
        ev_all += e
    opened = next(e for e in of(ev_all, "reveal", seat="A") if e["decision"] == "plan")
    assert opened["vis"] == "all"
    assert verify_commitment(plan_commit["commitment"], opened["salt"], opened["choice"])
    assert [s["technique"] for s in opened["choice"]["slots"]] == [
        "downward_cut", "horizontal_cut", "wait"]


def test_salts_come_from_the_seed():
    a = make("ronin", "ronin", seed=5)
    b = make("ronin", "ronin", seed=5)
    c = make("ronin", "ronin", seed=6)
    act = {"type": "stance", "stance": "high"}
    ca = of(GAME.apply(a, "A", act)[1], "commit")[0]["commitment"]
    cb = of(GAME.apply(b, "A", act)[1], "commit")[0]["commitment"]
    cc = of(GAME.apply(c, "A", act)[1], "commit")[0]["commitment"]
    assert ca == cb != cc
