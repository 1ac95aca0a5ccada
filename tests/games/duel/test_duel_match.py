"""Match flow: results, slot cap, timeouts, forfeits, validation, legality, replay, JSON, views."""
from __future__ import annotations

import json
import random

import pytest
from duel_kit import (
    GAME,
    OMNISCIENT,
    SPECTATOR,
    dumps,
    exchange,
    footwork,
    hp,
    make,
    of,
    play,
    random_playout,
    step,
)

from games.base import GameError, IllegalAction, MatchOver, NotYourTurn
from games.duel.bots import expand, random_action


# ---- setup and the duellist choice -----------------------------------------------------------
def test_setup_and_simultaneous_duellist_choice():
    st = GAME.setup({}, ["A", "B"], 1)
    assert GAME.pending(st) == {"A": "duellist", "B": "duellist"}
    st, ev = GAME.apply(st, "B", {"type": "duellist", "duellist": "master"})
    assert GAME.pending(st) == {"A": "duellist"}
    assert GAME.view(st, "A")["players"]["B"]["duellist"] is None
    assert GAME.view(st, "A")["players"]["B"]["committed"] is True
    assert "master" not in dumps(GAME.view(st, "A")) + dumps([e for e in ev if e["vis"] == "all"])
    st, ev = GAME.apply(st, "A", {"type": "duellist", "duellist": "master"})  # mirror allowed
    assert {e["seat"]: e["duellist"] for e in of(ev, "duellist")} == {"A": "master", "B": "master"}
    assert (st["P"]["A"]["pos"], st["P"]["B"]["pos"]) == (6, 10)
    assert hp(st) == (5, 5) and (st["P"]["A"]["st"], st["P"]["B"]["st"]) == (20, 20)
    assert GAME.pending(st) == {"A": "stance", "B": "stance"}


def test_options_are_validated():
    with pytest.raises(GameError):
        GAME.setup({"max_slots": 0}, ["A", "B"], 1)
    with pytest.raises(GameError):
        GAME.setup({"nope": 1}, ["A", "B"], 1)
    with pytest.raises(GameError):
        GAME.setup({}, ["A"], 1)
    schema = GAME.options_schema()["properties"]
    assert schema["max_slots"]["default"] == 60
    assert {"clock_seconds", "max_timeouts", "health", "track_length"} <= set(schema)


# ---- results ---------------------------------------------------------------------------------
def test_knockout_win():
    st = make("ronin", "ronin", pos=(6, 8))
    st, ev = play(st, "DC", "W:middle")
    assert st["result"]["winner"] == "A" and st["result"]["places"] == {"A": 1, "B": 2}
    assert of(ev, "match_end")
    assert GAME.pending(st) == {} and GAME.legal(st, "A") == []
    with pytest.raises(MatchOver):
        GAME.apply(st, "A", {"type": "stance", "stance": "high"})


def test_slot_cap_more_health_wins():
    st = make("ronin", "ronin", pos=(6, 8), options={"max_slots": 1})
    st, ev = play(st, "HC", "W:middle")
    assert st["result"]["reason"] == "max_slots" and st["result"]["winner"] == "A"
    assert st["result"]["health"] == {"A": 5, "B": 4}


def test_slot_cap_equal_health_is_a_draw():
    st = make("ronin", "ronin", pos=(3, 13), options={"max_slots": 2})
    st, ev = play(st, "W:middle", "W:middle")
    assert st["result"] is None
    st, ev = step(st)
    assert st["result"]["draw"] is True and st["result"]["reason"] == "max_slots"
    assert st["result"]["slot"] == 2


def test_knockout_in_the_last_slot_beats_the_cap():
    st = make("ronin", "ronin", pos=(6, 8), options={"max_slots": 1})
    st, ev = play(st, "DC", "W:middle")
    assert st["result"]["reason"] == "knockout"


def test_random_playouts_end_and_every_legal_entry_is_accepted():
    for seed in range(20):
        rnd = random.Random(seed)
        st = GAME.setup({"max_slots": 25}, ["A", "B"], seed)
        steps = 0
        while st["result"] is None:
            seat = rnd.choice(sorted(GAME.pending(st)))
            legal = GAME.legal(st, seat)
            assert legal
            for entry in legal:  # every entry (templates expanded at random) is valid
                GAME.apply(st, seat, expand(entry, rnd))
            st, _ = GAME.apply(st, seat, random_action(legal, rnd))
            steps += 1
            assert steps < 2000
        assert st["result"]["reason"] in ("knockout", "max_slots")


def test_plan_legal_is_one_template_with_one_of():
    st = make("ronin", "ronin")
    st, _ = GAME.apply(st, "A", {"type": "stance", "stance": "low"})
    st, _ = GAME.apply(st, "B", {"type": "stance", "stance": "high"})
    legal = GAME.legal(st, "A")
    assert len(legal) == 1 and legal[0]["type"] == "plan"
    first, second, third = legal[0]["slots"]
    assert {x["technique"] for x in first["one_of"]} == {
        "horizontal_cut", "retreating_horizontal_cut", "low_advancing_thrust", "wait"}
    assert {x["stance"] for x in first["one_of"]} == {"low"}
    assert len(second["one_of"]) == 12 and second == third


# ---- timeouts --------------------------------------------------------------------------------
def test_timeout_defaults_in_every_phase():
    st = GAME.setup({"max_timeouts": 5}, ["A", "B"], 3)
    st, ev = GAME.timeout(st, "A")
    st, _ = GAME.apply(st, "B", {"type": "duellist", "duellist": "ronin"})
    assert st["P"]["A"]["d"] == "brute"  # the lowest-numbered duellist
    st, ev = GAME.timeout(st, "A")
    st, _ = GAME.apply(st, "B", {"type": "stance", "stance": "high"})
    assert st["P"]["A"]["stance"] == "middle"
    st["P"]["A"]["stance"] = "low"  # the default plan uses the current (opening) stance
    st, ev = GAME.timeout(st, "A")
    assert next(e for e in ev if e["type"] == "timeout")["count"] == 3
    st, _ = GAME.apply(st, "B", {"type": "plan", "slots": [{"stance": "high", "technique": "wait"}] * 3})
    assert st["P"]["A"]["plan"].endswith("low/wait,low/wait,low/wait")
    st, ev = GAME.timeout(st, "A")
    st, ev = GAME.apply(st, "B", {"type": "footwork", "move": "toward"})
    assert of(ev, "footwork", seat="A")[0]["move"] == "stay"
    assert st["phase"] == "dodge"
    st2, ev = GAME.timeout(st, "A")
    assert st2["result"]["reason"] == "timeouts" and st2["result"]["winner"] == "B"
    st, ev = GAME.apply(st, "A", {"type": "dodge", "dodge": False})  # a real action resets
    assert st["timeouts"]["A"] == 0
    st, ev = GAME.timeout(st, "B")
    assert of(ev, "dodge", seat="B")[0]["dodge"] is False


def test_forfeit_after_max_timeouts_reveals_the_record():
    st = make("ronin", "ronin")
    st, _ = exchange(st, "HC", "DC")
    counts = []
    while st["result"] is None:
        for seat in sorted(GAME.pending(st)):
            if seat == "A":
                st, ev = GAME.timeout(st, "A")
                counts.append(st["timeouts"]["A"])
            else:
                st, _ = GAME.apply(st, "B", GAME.default_action(st, "B"))
            if st["result"]:
                break
    assert counts == [1, 2, 3]  # footwork, dodge, footwork: consecutive timeouts
    assert st["result"]["reason"] == "timeouts" and st["result"]["winner"] == "B"
    assert of(ev, "forfeit", seat="A")
    plans = [e for e in ev if e["type"] == "reveal" and e["decision"] == "plan"]
    assert {e["seat"] for e in plans} == {"A", "B"} and all(e["vis"] == "all" for e in plans)


def test_resign():
    st = make("ronin", "ronin")
    st, ev = GAME.apply(st, "B", {"type": "resign"})
    assert st["result"]["winner"] == "A" and st["result"]["reason"] == "resigned"


def test_timeout_of_a_seat_that_is_not_pending():
    st = make("ronin", "ronin")
    st, _ = GAME.apply(st, "A", {"type": "stance", "stance": "high"})
    with pytest.raises(NotYourTurn):
        GAME.timeout(st, "A")


# ---- validation ------------------------------------------------------------------------------
BAD_PLANS = [
    "x",
    [],
    [{"stance": "high", "technique": "wait"}] * 2,
    [{"stance": "high", "technique": "wait"}] * 4,
    [{"stance": "high", "technique": "horizontal_cut"}] + [{"stance": "high", "technique": "wait"}] * 2,
    [{"stance": "middle", "technique": "wait"}] * 3,  # slot 1 must be the opening stance
    [{"stance": "high", "technique": "wait", "x": 1}] * 3,
    [{"stance": "high"}] * 3,
    [{"stance": "sideways", "technique": "wait"}] * 3,
    [{"stance": "high", "technique": "fireball"}] * 3,
    [{"stance": ["high"], "technique": "wait"}] * 3,
    [{"stance": "high", "technique": {"a": 1}}] * 3,
    [None] * 3,
]


@pytest.mark.parametrize("slots", BAD_PLANS)
def test_bad_plans_are_rejected(slots):
    st = make("ronin", "ronin")
    st, _ = GAME.apply(st, "A", {"type": "stance", "stance": "high"})
    st, _ = GAME.apply(st, "B", {"type": "stance", "stance": "high"})
    with pytest.raises(IllegalAction):
        GAME.apply(st, "A", {"type": "plan", "slots": slots})


@pytest.mark.parametrize("action", [
    {"type": "dance"},
    {"type": "stance"},
    {"type": "stance", "stance": "high", "extra": 1},
    {"type": "stance", "stance": 3},
    {"type": "stance", "stance": ["high"]},
    {"type": "stance", "stance": "upside"},
    {"type": "duellist", "duellist": "brute"},  # wrong phase
    {"type": "footwork", "move": "stay"},
])
def test_bad_actions_are_rejected(action):
    st = make("ronin", "ronin")
    with pytest.raises(IllegalAction):
        GAME.apply(st, "A", action)


def test_bad_action_shapes_at_base_level():
    st = make("ronin", "ronin")
    for bad in (None, [], {"stance": "high"}, {"type": 3}):
        with pytest.raises(IllegalAction):
            GAME.apply(st, "A", bad)
    with pytest.raises(IllegalAction):
        GAME.apply(st, "C", {"type": "stance", "stance": "high"})


def test_committed_seat_is_no_longer_pending():
    st = make("ronin", "ronin")
    st, _ = GAME.apply(st, "A", {"type": "stance", "stance": "high"})
    with pytest.raises(NotYourTurn):
        GAME.apply(st, "A", {"type": "stance", "stance": "low"})


def test_illegal_action_leaves_the_state_untouched():
    st = make("ronin", "ronin")
    before = dumps(st)
    with pytest.raises(IllegalAction):
        GAME.apply(st, "A", {"type": "stance", "stance": "nope"})
    assert dumps(st) == before


# ---- determinism and JSON --------------------------------------------------------------------
def _replay(seed, options):
    rnd = random.Random(seed * 7 + 1)
    st = GAME.setup(options, ["A", "B"], seed)
    actions, events = [], []
    while st["result"] is None:
        seat = rnd.choice(sorted(GAME.pending(st)))
        a = random_action(GAME.legal(st, seat), rnd)
        actions.append((seat, a))
        st, ev = GAME.apply(st, seat, a)
        events.append(ev)
        assert json.loads(json.dumps(st)) == st
    return st, actions, events


def test_replay_is_deterministic():
    for seed in range(5):
        options = {"max_slots": 45, "health": 30}
        st, actions, events = _replay(seed, options)
        again = GAME.setup(options, ["A", "B"], seed)
        for i, (seat, a) in enumerate(actions):
            again, ev = GAME.apply(again, seat, a)
            assert ev == events[i]
        assert again == st
        assert dumps(again) == dumps(st)


def test_state_and_views_are_json():
    st, _, _ = _replay(11, {"max_slots": 40, "health": 40})
    assert json.loads(json.dumps(st)) == st
    for viewer in ("A", "B", SPECTATOR, OMNISCIENT):
        v = GAME.view(st, viewer)
        assert json.loads(json.dumps(v)) == v


def test_seed_and_salts_never_in_views_before_the_end():
    rec = []
    random_playout(4, {"health": 40, "max_slots": 40}, record=rec)
    for st, _, _, _ in rec:
        if st["result"] is not None:
            continue
        for viewer in ("A", "B", SPECTATOR):
            v = GAME.view(st, viewer)
            text = dumps(v)
            assert "seed" not in v and "rng_n" not in text and "salts" not in text
            assert "salt" not in text  # no salt before it is revealed by an event


def test_view_after_the_end_shows_everything():
    st, _, _ = _replay(2, {"max_slots": 12})
    full = GAME.view(st, OMNISCIENT)
    for viewer in ("A", "B", SPECTATOR):
        assert {**GAME.view(st, viewer), "you": None} == full
    assert "seed" not in dumps(full)


def test_footwork_only_for_those_who_can_move():
    st = make("ronin", "ronin", lock=(1, 0))
    st, _ = exchange(st, "W:middle", "W:middle")
    assert GAME.pending(st) == {"B": "footwork"}
    st, _ = footwork(st, B="toward")
    assert st["P"]["B"]["pos"] == 9


def test_invariants_over_varied_random_playouts():
    bound = set()  # which limits the playouts pressed against: the track's ends, face to face
    for seed in range(30):
        rnd = random.Random(seed)
        opts = {"track_length": rnd.choice([9, 15, 31]), "max_slots": rnd.choice([3, 60, 120]),
                "health": rnd.choice([1, 5, 20])}
        st = GAME.setup(opts, ["A", "B"], seed)
        while st["result"] is None:
            seat = rnd.choice(sorted(GAME.pending(st)))
            before = {s: st["P"][s]["pos"] for s in "AB"}
            if rnd.random() < 0.03:
                st, events = GAME.timeout(st, seat)
            else:
                st, events = GAME.apply(st, seat, random_action(GAME.legal(st, seat), rnd))
            P = st["P"]
            # A piece moves only through events (footwork, step, dodge) that go on from where
            # it stood, the last one ending where it now stands. (An event may come twice, one
            # copy per visibility: the same move, not a second one.)
            at, last = dict(before), {}
            for e in events:
                if "from" in e and "to" in e and e.get("seat") in ("A", "B"):
                    move = (e["from"], e["to"])
                    if e["from"] != at[e["seat"]]:
                        assert move == last.get(e["seat"]), (before, e)
                        continue
                    at[e["seat"]], last[e["seat"]] = e["to"], move
            assert {s: P[s]["pos"] for s in "AB"} == at
            a, b = P["A"]["pos"], P["B"]["pos"]
            assert 1 <= a < b <= opts["track_length"], (a, b, opts)
            bound |= {k for k, hit in (("A end", a == 1), ("B end", b == opts["track_length"]),
                                       ("face to face", b - a == 1)) if hit}
            for s in "AB":
                assert 0 <= P[s]["st"] <= 20 and P[s]["hp"] >= 0 and P[s]["lock"] <= 3
            assert (st["xs"] in (1, 2, 3) or st["phase"] == "duellist") and st["slot"] <= opts["max_slots"]
    assert bound == {"A end", "B end", "face to face"}, bound
