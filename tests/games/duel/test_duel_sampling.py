"""Duel's fast paths against their plain definitions: ``sample_action`` (a random legal action
without building ``legal``), the copy-on-write ``apply``, the salt pool and the plan tables."""
from __future__ import annotations

import json
import random
from collections import Counter

import pytest
from duel_kit import GAME, make, random_playout

from games.base import Game, MatchOver, NotYourTurn, clone, expand_one_of
from games.duel import commit as C
from games.duel import engine as E
from games.duel.bots import random_action


def _states(seeds, options=None):
    """(state, pending seat) pairs along random playouts, every phase included."""
    out = []
    for seed in seeds:
        rec = []
        random_playout(seed, options, record=rec)
        out += [(st, seat) for st, seat, _, _ in rec]
    return out


def _all_expansions(entry):
    """Every concrete action a legal entry stands for."""
    if isinstance(entry, dict):
        if set(entry) == {"one_of"}:
            return [x for v in entry["one_of"] for x in _all_expansions(v)]
        keys = list(entry)
        combos = [{}]
        for k in keys:
            combos = [{**c, k: v} for c in combos for v in _all_expansions(entry[k])]
        return combos
    if isinstance(entry, list):
        combos = [[]]
        for item in entry:
            combos = [c + [v] for c in combos for v in _all_expansions(item)]
        return combos
    return [entry]


def _key(action):
    return json.dumps(action, sort_keys=True)


# ---- sample_action ---------------------------------------------------------------------------
@pytest.mark.parametrize("options", [{}, {"track_length": 9}, {"health": 30, "max_slots": 40}])
def test_sample_action_is_the_random_bot_over_legal_draw_for_draw(options):
    """Same action and same generator state afterwards as random_action(legal): hence exactly
    the bot's distribution, and the same matches when a simulation switches to it."""
    for i, (st, seat) in enumerate(_states(range(4), options)):
        fast, plain = random.Random(i), random.Random(i)
        a = GAME.sample_action(st, seat, fast)
        b = random_action(GAME.legal(st, seat), plain)
        assert a == b and type(a) is dict, (st["phase"], a, b)
        assert fast.getstate() == plain.getstate()
        GAME.apply(st, seat, a)  # and it is accepted


def _phase_states():
    """One state per kind of decision, ronin and not, dodge with and without room."""
    out = {"duellist": (GAME.setup({}, ["A", "B"], 3), "A")}
    # Slot 10 opens the sun: it blinds B, so A, hidden from B, is asked to dodge even at the wall.
    st = make("ronin", "brute", pos=(3, 13), slot=10, sun="B")
    out["stance"] = (st, "A")
    for opening in ("high", "middle", "low"):
        s2, _ = GAME.apply(st, "A", {"type": "stance", "stance": opening})
        s2, _ = GAME.apply(s2, "B", {"type": "stance", "stance": "middle"})
        out["plan/" + opening] = (s2, "A")
    s3 = s2
    for seat in "AB":
        s3, _ = GAME.apply(s3, seat, {"type": "plan", "slots": [
            {"stance": s3["P"][seat]["stance"], "technique": "wait"},
            {"stance": "middle", "technique": "wait"}, {"stance": "middle", "technique": "wait"}]})
    assert s3["phase"] == "footwork"
    out["footwork/ronin"], out["footwork/brute"] = (s3, "A"), (s3, "B")
    s4, _ = GAME.apply(s3, "A", {"type": "footwork", "move": "away2"})  # A to the wall: no room
    s4, _ = GAME.apply(s4, "B", {"type": "footwork", "move": "stay"})
    assert s4["phase"] == "dodge" and s4["P"]["A"]["pos"] == 1 and s4["blind"] == "B"
    out["dodge/no room"], out["dodge/room"] = (s4, "A"), (s4, "B")
    return out


def test_sample_action_draws_exactly_the_legal_set_uniformly():
    for name, (st, seat) in _phase_states().items():
        if st["phase"] != name.split("/")[0] or seat not in GAME.pending(st):
            pytest.fail(f"{name}: the set-up did not reach that decision")
        legal = {_key(a) for entry in GAME.legal(st, seat) for a in _all_expansions(entry)}
        rnd = random.Random(name)
        draws = 40 * len(legal) + 2000
        seen = Counter(_key(GAME.sample_action(st, seat, rnd)) for _ in range(draws))
        assert set(seen) == legal, name
        # Uniform: Pearson's chi-square well inside its spread (k-1 mean, sqrt(2(k-1)) sd).
        k, expected = len(legal), draws / len(legal)
        chi2 = sum((n - expected) ** 2 / expected for n in seen.values())
        assert chi2 < (k - 1) + 6 * (2 * max(k - 1, 1)) ** 0.5, (name, chi2, k)


def test_dodge_without_room_offers_only_no_dodge():
    st, seat = _phase_states()["dodge/no room"]
    assert GAME.legal(st, seat) == [{"type": "dodge", "dodge": False}]
    assert {_key(GAME.sample_action(st, seat, random.Random(k))) for k in range(50)} == {
        _key({"type": "dodge", "dodge": False})}


def test_sample_action_with_another_generator_goes_through_legal():
    class CountingRandom(random.Random):
        pass

    for i, (st, seat) in enumerate(_states([5])[:80]):
        a = GAME.sample_action(st, seat, CountingRandom(i))
        assert a == random_action(GAME.legal(st, seat), random.Random(i))


def test_sample_action_refuses_what_legal_has_nothing_for():
    st = GAME.setup({}, ["A", "B"], 1)
    st, _ = GAME.apply(st, "A", {"type": "duellist", "duellist": "brute"})
    with pytest.raises(NotYourTurn):
        GAME.sample_action(st, "A", random.Random(1))  # already locked
    with pytest.raises(NotYourTurn):
        GAME.sample_action(st, "C", random.Random(1))
    over, _ = GAME.apply(st, "B", {"type": "resign"})
    with pytest.raises(MatchOver):
        GAME.sample_action(over, "A", random.Random(1))
    with pytest.raises(MatchOver):
        Game.sample_action(GAME, over, "A", random.Random(1))


def test_base_sample_action_is_a_choice_over_legal_with_templates_expanded():
    """games.base.Game's default hook (what games without their own draw get)."""
    for i, (st, seat) in enumerate(_states([2])[:120]):
        a = Game.sample_action(GAME, st, seat, random.Random(i))
        assert a == random_action(GAME.legal(st, seat), random.Random(i))
    template = {"type": "x", "n": {"one_of": [1, {"one_of": [2, 3]}]}, "l": [{"one_of": ["a"]}]}
    got = {_key(expand_one_of(template, random.Random(k))) for k in range(200)}
    assert got == {_key({"type": "x", "n": n, "l": ["a"]}) for n in (1, 2, 3)}


# ---- copy-on-write apply ---------------------------------------------------------------------
def test_no_later_step_changes_an_earlier_state():
    """apply(copy=True) shares untouched containers between the old and the new state; no
    step may write into a shared one. Every state keeps the bytes it had when it was made."""
    for seed in range(3):
        rnd = random.Random(seed)
        st = GAME.setup({}, ["A", "B"], seed)
        kept = []
        while st["result"] is None:
            seat = min(GAME.pending(st))
            if rnd.random() < 0.03:
                st, _ = GAME.timeout(st, seat)
            else:
                st, _ = GAME.apply(st, seat, GAME.sample_action(st, seat, rnd))
            kept.append((st, json.dumps(st)))
        assert all(json.dumps(s) == text for s, text in kept)


def test_refused_action_copies_nothing_and_changes_nothing():
    st = random_playout(4, until=lambda s: s["phase"] == "plan")
    before = json.dumps(st)
    for bad in ({"type": "plan", "slots": []}, {"type": "footwork", "move": "stay"},
                {"type": "plan"}, {"type": "plan", "slots": [], "x": 1}, ["plan"]):
        with pytest.raises(Exception):  # noqa: B017  (a malformed action: any refusal will do)
            GAME.apply(st, "A", bad)
    assert json.dumps(st) == before


# ---- tables and the salt pool ----------------------------------------------------------------
def test_plan_tables_hold_every_valid_plan_as_the_plain_code_builds_it():
    assert len(E._PLAN_COMMIT_JSON) == 12 ** 3
    for value, j in E._PLAN_COMMIT_JSON.items():
        slots = tuple(tuple(x.split("/")) for x in value.split(","))
        assert E._PLAN_SLOTS[value] == slots
        assert j == ":" + C.canonical_json(E._choice("plan", value))
    plan = {"type": "plan", "slots": [{"stance": "low", "technique": "horizontal_cut"},
                                      {"stance": "high", "technique": "wait"},
                                      {"stance": "middle", "technique": "block"}]}
    assert E._PLAN_COMMIT_JSON["low/horizontal_cut,high/wait,middle/block"] == (
        ":" + json.dumps(plan, sort_keys=True, separators=(",", ":")))


def test_salt_pool_fast_path_is_used_and_equals_games_base_rng():
    assert C.salt_pool is C._pool_fast
    for seed in (0, 3, 2**40 + 1, -7, 10**25):
        a, b = {"seed": seed, "rng_n": 5}, {"seed": seed, "rng_n": 5}
        for _ in range(4):
            pool = C.salt_pool(a)
            assert pool == C._pool_by_rng(b) and a == b
            assert len(pool) == 32 * C.SALT_BATCH and pool == pool.lower()
            int(pool, 16)


def test_clone_then_patch_does_not_reach_the_previous_state():
    """What the docstring of Duel.apply asks of tests that patch a board: clone first."""
    st = random_playout(6, until=lambda s: s["phase"] == "footwork")
    new, _ = GAME.apply(st, min(GAME.pending(st)), {"type": "footwork", "move": "stay"})
    patched = clone(new)
    patched["P"]["A"]["hp"] = 1
    patched["options"]["track_length"] = 9
    assert st["P"]["A"]["hp"] != 1 and st["options"]["track_length"] == 15
