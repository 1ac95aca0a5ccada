"""Bots (games/bots.py, games/<game>/strong.py): what they are given, what they send, how well
they play.

* Input: every call a bot gets from the match harness (``games.bots.play_match``, which the lab
  uses) is exactly ``view_doc(game, state, seat)`` of that moment — checked against a shadow
  copy of the match — and has exactly the view-document keys. Two states that differ only in
  what the seat may not know give the same input, hence the same action for the same ``rnd``.
* Output: over many seeds, every game, both levels, every action is accepted by the engine
  (``play_match`` applies them; a refused one raises).
* Strength: on a fixed seed set (both seat orders), the strong level wins at least 80% against
  random — the rate docs/lab.md records on larger sets. Deterministic by seed: no clock.
* The determinizations the strong bots search over give the seat exactly the view they were
  built from.
"""
from __future__ import annotations

import math
import random

import pytest

from games.base import clone
from games.bots import LEVELS, VIEW_KEYS, get_bot, levels, play_match, view_doc
from games.registry import get_game

GAMES = ("duell", "duel", "combat", "parbaj")
# Small Duel budgets keep these runs to seconds; the default budget is stronger still.
TEST_BUDGET = {"duel": 16}


def _bot(game_id: str, level: str):
    return get_bot(game_id, level, TEST_BUDGET.get(game_id) if level == "strong" else None)


def test_registry_levels():
    assert LEVELS == ("random", "strong")
    for g in GAMES:
        assert levels(g) == LEVELS
        for lv in LEVELS:
            assert callable(get_bot(g, lv))
    assert levels("nope") == ()
    with pytest.raises(KeyError):
        get_bot("duel", "grandmaster")


# ------------------------------------------------------------------------------------------
# Input: exactly the seat's view document
# ------------------------------------------------------------------------------------------
class Spy:
    """Wraps a bot; checks each input against ``view_doc`` of a shadow copy of the match that
    the test keeps itself (replaying every applied action)."""

    def __init__(self, game, bot, shadow: dict):
        self.game, self.bot, self.shadow, self.calls = game, bot, shadow, 0

    def __call__(self, doc, rnd):
        seat = doc["seat"]
        assert set(doc) == set(VIEW_KEYS)
        assert doc == view_doc(self.game, self.shadow["state"], seat)
        self.calls += 1
        return self.bot(doc, rnd)


@pytest.mark.parametrize("game_id", GAMES)
@pytest.mark.parametrize("level", LEVELS)
def test_bot_input_is_exactly_the_seat_view_document(game_id, level):
    game = get_game(game_id)
    seed = 11
    options = {"max_slots": 12} if game_id == "duel" else {}
    shadow = {"state": game.setup(options, ["A", "B"], seed)}
    spies = {s: Spy(game, _bot(game_id, level), shadow) for s in ("A", "B")}

    def follow(state, seat, action, events):
        shadow["state"], _ = game.apply(shadow["state"], seat, action)

    final = play_match(game, spies, seed, options, on_step=follow)
    assert game.result(final) is not None
    assert spies["A"].calls > 0 and spies["B"].calls > 0
    assert game.view(final, "omniscient") == game.view(shadow["state"], "omniscient")


@pytest.mark.parametrize("game_id", GAMES)
def test_a_bot_that_reads_less_gets_exactly_that_part_of_the_view_document(game_id):
    """The random level declares it reads ``legal`` only; the harness then builds just that
    (a view per decision is a third of a random Duel match's cost in the lab)."""
    assert get_bot(game_id, "random").reads == ("legal",)
    game = get_game(game_id)
    options = {"max_slots": 6} if game_id == "duel" else {}
    shadow = {"state": game.setup(options, ["A", "B"], 4)}
    rand = get_bot(game_id, "random")
    seen = []

    def narrow(doc, rnd):
        assert doc == view_doc(game, shadow["state"], min(game.pending(shadow["state"])), ("legal",))
        seen.append(doc)
        return rand(doc, rnd)

    narrow.reads = ("legal",)

    def follow(state, seat, action, events):
        shadow["state"], _ = game.apply(shadow["state"], seat, action)

    final = play_match(game, {"A": narrow, "B": narrow}, 4, options, on_step=follow)
    assert game.view(final, "omniscient") == game.view(shadow["state"], "omniscient")
    assert seen and all(set(d) == {"legal"} for d in seen)


def test_parbaj_decks_option_never_reaches_a_bot():
    from games.parbaj.cardpool import POOL

    game = get_game("parbaj")
    decks = list(POOL.decks.values())
    st = game.setup({"decks": {"A": decks[0]["cards"], "B": decks[1]["cards"]}}, ["A", "B"], 3)
    doc = view_doc(game, st, "A")
    assert doc["options"]["decks"] == {"A": "hidden", "B": "hidden"}  # set, but not what
    theirs = set(decks[1]["cards"]) - set(decks[0]["cards"])
    assert theirs and not any(c in repr(doc) for c in theirs)


def _secret_twins(game_id: str):
    """(game, state, other_state, seat): two states that differ only in what ``seat`` may not
    know, after a few random moves."""
    game = get_game(game_id)
    rnd = random.Random(5)
    rand = get_bot(game_id, "random")
    st = game.setup({}, ["A", "B"], 21)
    for _ in range({"duel": 7, "duell": 6, "combat": 4, "parbaj": 30}[game_id]):
        seat = min(game.pending(st))
        st, _ = game.apply(st, seat, rand(view_doc(game, st, seat), rnd))
    other = clone(st)
    if game_id == "duell":
        # B's hand swapped with the top of the draw pile (keeping A's view).
        seat = "A"
        hand, deck = other["hands"]["B"], other["deck"]
        i = next(k for k, c in enumerate(deck) if c not in hand)
        hand[0], deck[i] = deck[i], hand[0]
        hand.sort()
    elif game_id == "combat":
        seat = "A"
        other["draw"]["B"] = other["draw"]["B"][::-1]
        other["draw"]["A"] = other["draw"]["A"][1:] + other["draw"]["A"][:1]
    elif game_id == "parbaj":
        seat = min(game.pending(st))
        opp = "B" if seat == "A" else "A"
        hand = other["players"][opp]["hand"].split(",")
        assert hand and hand[0]
        hand[0] = "stray_dog" if hand[0] != "stray_dog" else "ember_pup"
        other["players"][opp]["hand"] = ",".join(sorted(hand))
    else:  # duel: B locks a different plan while A is still to choose
        while st["phase"] != "plan":
            seat = min(game.pending(st))
            st, _ = game.apply(st, seat, rand(view_doc(game, st, seat), rnd))
        st, _ = game.apply(st, "B", {"type": "plan", "slots": [
            {"stance": st["P"]["B"]["stance"], "technique": "wait"}] + [
            {"stance": "middle", "technique": "block"}] * 2})
        other = clone(st)
        other["buf"]["B"] = other["buf"]["B"][:96] + other["buf"]["B"][96:].replace(
            "middle/block", "middle/counterattack")
        seat = "A"
    assert other != st
    return game, st, other, seat


@pytest.mark.parametrize("game_id", GAMES)
def test_hidden_information_changes_nothing_a_bot_sees_or_does(game_id):
    game, st, other, seat = _secret_twins(game_id)
    a, b = view_doc(game, st, seat), view_doc(game, other, seat)
    assert a == b
    for level in LEVELS:
        bot = _bot(game_id, level)
        if a["legal"]:
            assert bot(a, random.Random(9)) == bot(b, random.Random(9))


# ------------------------------------------------------------------------------------------
# Output: legal actions only
# ------------------------------------------------------------------------------------------
SEEDS = {"duell": 12, "duel": 3, "combat": 12, "parbaj": 12}


@pytest.mark.slow
@pytest.mark.parametrize("game_id", GAMES)
@pytest.mark.parametrize("level", LEVELS)
def test_bots_only_send_legal_actions(game_id, level):
    """``play_match`` applies every action; an illegal one raises. Both seat orders, several
    option sets."""
    game = get_game(game_id)
    option_sets = {"duell": [{}, {"mode": "tenzone"}], "duel": [{"max_slots": 20}],
                   "combat": [{}, {"variant": "versus"}], "parbaj": [{}, {"best_of": 3}]}[game_id]
    other = "random" if level == "strong" else "strong"
    for opts in option_sets:
        for seed in range(SEEDS[game_id]):
            seats = {"A": _bot(game_id, level), "B": _bot(game_id, other)}
            if seed % 2:
                seats = {"A": seats["B"], "B": seats["A"]}
            final = play_match(game, seats, seed, opts)
            assert game.result(final) is not None


def test_combat_strong_always_fights():
    game = get_game("combat")
    strong = get_bot("combat", "strong")
    st = game.setup({"seats": 3}, ["A", "B", "C"], 4)
    for seat in sorted(game.pending(st)):
        assert strong(view_doc(game, st, seat), random.Random(1)) == {"type": "fight"}


# ------------------------------------------------------------------------------------------
# Strength: strong beats random on a fixed seed set, both seat orders
# ------------------------------------------------------------------------------------------
STRENGTH = [  # (game, options, matches): the strong seat alternates A, B, A, ...
    ("duell", {}, 20),
    ("duell", {"mode": "tenzone"}, 10),
    ("parbaj", {}, 20),
    ("duel", {}, 8),
]


@pytest.mark.slow
@pytest.mark.parametrize("game_id,options,n", STRENGTH)
def test_strong_beats_random_on_a_fixed_seed_set(game_id, options, n):
    game = get_game(game_id)
    wins = 0
    for seed in range(n):
        strong_seat = "A" if seed % 2 == 0 else "B"
        bots = {s: _bot(game_id, "strong" if s == strong_seat else "random") for s in ("A", "B")}
        result = game.result(play_match(game, bots, seed, options))
        wins += result["winner"] == strong_seat and not result["draw"]
    assert wins >= math.ceil(0.8 * n), f"{game_id}: strong won {wins} of {n}"


# ------------------------------------------------------------------------------------------
# Determinization: sampled worlds consistent with the view
# ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("game_id,options", [("duel", {}), ("duell", {}),
                                             ("duell", {"mode": "tenzone"})])
def test_determinized_states_give_the_seat_its_own_view(game_id, options):
    import importlib

    determinize = importlib.import_module(f"games.{game_id}.strong").determinize
    game = get_game(game_id)
    rand = get_bot(game_id, "random")
    checked = 0
    for seed in range(4 if game_id == "duel" else 6):
        rnd = random.Random(seed)
        st = game.setup(options, ["A", "B"], seed)
        while game.result(st) is None:
            seat = min(game.pending(st))
            for s in sorted(game.pending(st)) + ["A", "B"]:
                doc = view_doc(game, st, s)
                world = determinize(doc, random.Random(checked))
                assert view_doc(game, world, s) == doc
                checked += 1
            st, _ = game.apply(st, seat, rand(view_doc(game, st, seat), rnd), copy=False)
    assert checked > 200
