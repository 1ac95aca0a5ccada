"""Properties over random playouts: termination, legality, replay, JSON, and no leaks."""
from __future__ import annotations

import json
import random

import pytest
from duell_helpers import (
    GAME,
    SEATS,
    SPECTATOR,
    dumps,
    playout,
    redeal_hidden,
    visible_hands,
)

from games.base import OMNISCIENT, GameError, clone, filter_events
from games.duell import tables as T

MODES = [
    {"mode": "prologo"},
    {"mode": "tenzone"},
    {"mode": "tenzone", "special_cards": False},
    {"mode": "tenzone", "track_length": 15, "duels_to_win": 2},
    {"mode": "prologo", "track_length": 31, "duels_to_win": 1},
]


def _other(seat):
    return "B" if seat == "A" else "A"


@pytest.mark.parametrize("options", MODES)
def test_random_playouts_terminate_with_a_result(options):
    for seed in range(25):
        state, record = playout(options, seed, timeout_p=0.02)
        res = state["result"]
        assert res is not None, "match did not end"
        assert res["reason"] in ("duels", "timeouts")
        if res["reason"] == "duels":
            assert res["score"][res["winner"]] == state["options"]["duels_to_win"]
            assert res["score"][_other(res["winner"])] < state["options"]["duels_to_win"]


def _candidates(state):
    """Every action shape a client could send (well-formed), legal or not."""
    out = [{"type": "parry"}]
    for v in T.CARD_VALUES:
        for d in T.DIRECTIONS:
            out.append({"type": "move", "card": v, "dir": d})
        out.append({"type": "retreat", "card": v})
        for k in range(1, 4):
            out.append({"type": "attack", "cards": [v] * k})
            for m in T.CARD_VALUES:
                out.append({"type": "advance_attack", "move": m, "cards": [v] * k})
    out.append({"type": "attack", "cards": [1, 2]})
    out += [{"type": "choose_special", "card": c} for c in T.SPECIAL_DECK]
    return out


@pytest.mark.parametrize("options", MODES[:3])
def test_legal_is_exactly_what_apply_accepts(options):
    """Every legal entry is accepted; every other well-formed action is rejected; a pending
    seat always has at least one legal action; legal entries are distinct."""
    checked = 0
    for seed in range(8):
        rnd = random.Random(seed)
        state = GAME.setup(options, SEATS, seed)
        while state["result"] is None:
            (seat,) = GAME.pending(state)
            legal = GAME.legal(state, seat)
            assert legal
            assert len({dumps(a) for a in legal}) == len(legal)
            if rnd.random() < 0.2 or state["phase"] != "play":
                keys = {dumps(a) for a in legal}
                for cand in _candidates(state):
                    ok = True
                    try:
                        GAME.apply(state, seat, cand)
                    except GameError:
                        ok = False
                    assert ok == (dumps(cand) in keys), (cand, legal)
                    checked += 1
                assert GAME.legal(state, _other(seat)) == []
            state, _ = GAME.apply(state, seat, rnd.choice(legal))
    assert checked > 1000


@pytest.mark.parametrize("options", MODES[:2])
def test_replay_reproduces_final_state_and_events(options):
    for seed in range(6):
        final, record = playout(options, seed, timeout_p=0.05)
        state = GAME.setup(options, SEATS, seed)
        for seat, action in record:
            if action is None:
                state, _ = GAME.timeout(state, seat)
            else:
                state, _ = GAME.apply(state, seat, action)
        assert dumps(state) == dumps(final)


def test_same_seed_same_match_different_seed_differs():
    a = GAME.setup({"mode": "tenzone"}, SEATS, 11)
    b = GAME.setup({"mode": "tenzone"}, SEATS, 11)
    c = GAME.setup({"mode": "tenzone"}, SEATS, 12)
    assert a == b and a != c


@pytest.mark.parametrize("options", MODES[:2])
def test_state_and_views_round_trip_json(options):
    for seed in range(4):
        rnd = random.Random(seed)
        state = GAME.setup(options, SEATS, seed)
        while state["result"] is None:
            assert json.loads(json.dumps(state)) == state
            for viewer in ("A", "B", SPECTATOR, OMNISCIENT):
                v = GAME.view(state, viewer)
                assert json.loads(json.dumps(v)) == v
            (seat,) = GAME.pending(state)
            state, events = GAME.apply(state, seat, rnd.choice(GAME.legal(state, seat)))
            assert json.loads(json.dumps(events)) == events
        assert json.loads(json.dumps(state)) == state


def test_apply_does_not_mutate_input():
    rnd = random.Random(5)
    state = GAME.setup({"mode": "tenzone"}, SEATS, 5)
    for _ in range(200):
        if state["result"] is not None:
            break
        before = dumps(state)
        (seat,) = GAME.pending(state)
        new, _ = GAME.apply(state, seat, rnd.choice(GAME.legal(state, seat)))
        assert dumps(state) == before
        state = new


def test_card_conservation_and_invariants():
    """Hands + pile + set aside + discards always make the 25-card deck; hands never exceed
    the limit; a fencer moves only by a move, advance-and-attack or retreat event that
    matches its card and direction (from where it stood, to where it now stands, unless that
    step ended the duel and the next one was set up), and so stays on the track, in front of
    the opponent: the bounds are checked where they bind, at both ends of the track and with
    the fencers face to face."""
    moves = 0
    bound = set()  # which limits the playouts pressed against
    for options in MODES[:2]:
        for seed in range(10):
            rnd = random.Random(seed)
            state = GAME.setup(options, SEATS, seed)
            while state["result"] is None:
                if state["phase"] != "choose_special":
                    cards = (state["deck"] + state["aside"] + state["discard"]
                             + state["hands"]["A"] + state["hands"]["B"])
                    assert sorted(cards) == sorted(T.MOVEMENT_DECK)
                    for h in state["hands"].values():
                        assert len(h) <= state["hand_size"] and h == sorted(h)
                (seat,) = GAME.pending(state)
                before = dict(state["pos"])
                state, events = GAME.apply(state, seat, rnd.choice(GAME.legal(state, seat)))
                new_duel = any(e["type"] == "duel_start" for e in events)
                moved = {}
                for e in (e for e in events if "from" in e and "to" in e):
                    toward = 1 if e["seat"] == "A" else -1
                    # The lambdas run at once (B023 does not apply).
                    step = {"move": lambda: e["card"] * (toward if e["dir"] == "forward" else -toward),  # noqa: B023
                            "advance_attack": lambda: e["move"] * toward,  # noqa: B023
                            "retreat": lambda: -e["card"] * toward}[e["type"]]()  # noqa: B023
                    assert e["seat"] == seat and e["from"] == before[seat]
                    assert e["to"] == e["from"] + step
                    moved[seat] = e["to"]
                    moves += 1
                if state["result"] is None and not new_duel:
                    assert state["pos"] == {**before, **moved}
                L = state["options"]["track_length"]
                a, b = state["pos"]["A"], state["pos"]["B"]
                assert 1 <= a < b <= L, (a, b, L)
                bound |= {k for k, hit in (("A end", a == 1), ("B end", b == L), ("face to face", b - a == 1)) if hit}
    assert moves > 1000  # the playouts did move the fencers
    assert bound == {"A end", "B end", "face to face"}, bound


# ---------------------------------------------------------------------------------------------
# The differential no-leak test
# ---------------------------------------------------------------------------------------------
def _pair_views(s1, s2, viewer):
    return dumps(GAME.view(s1, viewer)), dumps(GAME.view(s2, viewer))


def _shown_cards(events, viewer):
    """Cards the viewer may legitimately see being dealt or drawn: its own, or any under Open
    hands (the redaction test checks that nothing else carries cards)."""
    return [(e["seat"], e["cards"]) for e in events
            if e["type"] in ("draw", "deal") and "cards" in e
            and (e["seat"] == viewer or e["vis"] == "all")]


def _continue_and_compare(s1, s2, viewer, rnd, steps=40):
    """Play the same actions on both states while they are legal in both and the viewer has
    not legitimately learned something different (its own visible cards). Returns how many
    steps were compared."""
    compared = 0
    for _ in range(steps):
        if s1["result"] is not None:
            break
        (actor,) = GAME.pending(s1)
        assert GAME.pending(s2) == {actor: GAME.pending(s1)[actor]}
        if rnd.random() < 0.1:
            n1, e1 = GAME.timeout(s1, actor)
            n2, e2 = GAME.timeout(s2, actor)
            if GAME.default_action(s1, actor) != GAME.default_action(s2, actor):
                break
        else:
            action = rnd.choice(GAME.legal(s1, actor))
            if action not in GAME.legal(s2, actor):
                break
            n1, e1 = GAME.apply(s1, actor, action)
            n2, e2 = GAME.apply(s2, actor, action)
        if (visible_hands(n1, viewer) != visible_hands(n2, viewer)
                or _shown_cards(e1, viewer) != _shown_cards(e2, viewer)):
            break  # the viewer drew (or was shown) different cards: a legitimate difference
        if any(e["type"] == "reveal" for e in e1) and n1["last_duel"] != n2["last_duel"]:
            break  # end-of-deck reveal: both hands become public by rule
        assert dumps(filter_events(e1, viewer)) == dumps(filter_events(e2, viewer))
        assert dumps(GAME.view(n1, viewer)) == dumps(GAME.view(n2, viewer))
        s1, s2 = n1, n2
        compared += 1
        if n1["hands"] != n2["hands"]:
            # Hidden cards now differ (a redacted draw, just compared). From here on, public
            # outcomes may legitimately differ (a parry possible in one state only).
            break
    return compared


NO_LEAK_CONFIGS = [
    {"mode": "prologo"},
    {"mode": "tenzone", "special_cards": False},
    {"mode": "tenzone"},
]


@pytest.mark.slow
@pytest.mark.parametrize("options", NO_LEAK_CONFIGS)
@pytest.mark.parametrize("viewer", ["A", "B", SPECTATOR])
def test_differential_no_leak(options, viewer):
    rules_seen = set()
    compared_steps = 0
    snapshots = 0
    for seed in range(40 if options.get("special_cards", True) and options["mode"] == "tenzone"
                      else 15):
        rnd = random.Random(1000 + seed)
        state = GAME.setup(options, SEATS, seed)
        while state["result"] is None:
            if rnd.random() < 0.25:
                rules_seen.add(state["rule"] if state["phase"] != "choose_special"
                               else "starters_choice")
                # (1) everything hidden from the viewer re-dealt: identical view right now
                full = redeal_hidden(state, viewer, rnd, include_hands=True)
                if viewer != SPECTATOR and full["rule"] != "open_hands":
                    assert full["hands"][_other(viewer)] is not None
                a, b = _pair_views(state, full, viewer)
                assert a == b
                # (2) only the pile order (and set-aside cards) permuted: identical views and
                #     filtered events along the same public action sequence
                deck_only = redeal_hidden(state, viewer, rnd, include_hands=False)
                a, b = _pair_views(state, deck_only, viewer)
                assert a == b
                compared_steps += _continue_and_compare(clone(state), deck_only, viewer,
                                                        random.Random(seed))
                snapshots += 1
            (seat,) = GAME.pending(state)
            state, _ = GAME.apply(state, seat, rnd.choice(GAME.legal(state, seat)))
    assert snapshots > 50 and compared_steps > 100
    if options["mode"] == "tenzone" and options.get("special_cards", True):
        assert rules_seen >= {"three_cards", "no_retreat", "open_hands", "ten_cards",
                              "starters_choice"}


def test_redeal_really_changes_hidden_cards():
    """Guard for the no-leak test: the re-deal does produce different hidden contents."""
    changed = 0
    for seed in range(20):
        state = GAME.setup({"mode": "tenzone", "special_cards": False}, SEATS, seed)
        new = redeal_hidden(state, "A", random.Random(seed), include_hands=True)
        assert new["hands"]["A"] == state["hands"]["A"]
        changed += new["hands"]["B"] != state["hands"]["B"]
        changed += new["deck"] != state["deck"]
    assert changed > 20


def test_no_hidden_values_in_views():
    """The deck order, set-aside cards and seed never appear in a seat's or spectator's view."""
    for seed in range(30):
        state = GAME.setup({"mode": "tenzone"}, SEATS, seed)
        for viewer in ("A", "B", SPECTATOR):
            v = GAME.view(state, viewer)
            assert not {"deck", "aside", "seed", "rng_n"} & set(v)
            if state["rule"] != "open_hands":
                for s in SEATS:
                    if s != viewer:
                        assert v["hands"][s] is None


def test_opponent_draws_and_deals_are_redacted_in_playouts():
    """Every viewer gets exactly one event per deal/draw; it names the cards only for the
    drawer, or for everyone while Open hands is the rule of that duel."""
    for options in NO_LEAK_CONFIGS:
        for seed in range(5):
            rnd = random.Random(seed)
            state = GAME.setup(options, SEATS, seed)
            while state["result"] is None:
                rule = state["rule"]
                (seat,) = GAME.pending(state)
                state, events = GAME.apply(state, seat, rnd.choice(GAME.legal(state, seat)))
                for viewer in ("A", "B", SPECTATOR):
                    rule_now = rule
                    seen = filter_events(events, viewer)
                    n_raw = sum(1 for e in filter_events(events, OMNISCIENT)
                                if e["type"] in ("draw", "deal") and "cards" in e)
                    assert sum(1 for e in seen if e["type"] in ("draw", "deal")) == n_raw
                    for e in seen:
                        if e["type"] == "duel_start":
                            rule_now = None if e["special"] == "starters_choice" else e["special"]
                        elif e["type"] == "special_chosen":
                            rule_now = e["rule"]
                        elif e["type"] in ("draw", "deal"):
                            assert ("cards" in e) == (e["seat"] == viewer
                                                      or rule_now == "open_hands")


def test_random_matches_of_both_modes_play_to_the_end():
    # How fast (matches/s, view() µs): bench/engine.py duell, see docs/performance.md.
    for n in range(60):
        state, _ = playout({"mode": "tenzone" if n % 2 else "prologo"}, n)
        assert state["result"] is not None, n
