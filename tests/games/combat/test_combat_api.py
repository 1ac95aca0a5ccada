"""Combat: options, dealing, action validation, the view shape, the bot."""
from __future__ import annotations

import random

import pytest
from combat_support import GAME, R, cards_in_play, fight, rig, seat_names

from games.base import (
    CLOCK_OPTION,
    MAX_TIMEOUTS_OPTION,
    OMNISCIENT,
    SPECTATOR,
    IllegalAction,
    InvalidOptions,
    NotYourTurn,
    filter_events,
)
from games.combat.bots import random_action


# ---- declaration and options ----------------------------------------------------------------
def test_declaration():
    assert (GAME.id, GAME.min_players, GAME.max_players) == ("combat", 2, 6)
    names = [o.name for o in GAME.options]
    assert names == ["seats", "decks", "variant", "advanced_cards", "ending", "max_battles",
                     "clock_seconds", "max_timeouts"]
    assert MAX_TIMEOUTS_OPTION in GAME.options
    # The clock runs by default, so a seat that leaves keeps being played.
    clock = GAME.options_schema()["properties"]["clock_seconds"]
    assert clock["default"] == 30 and clock["minimum"] == CLOCK_OPTION.minimum
    schema = GAME.options_schema()["properties"]
    assert schema["variant"]["enum"] == ["basic", "extra", "advanced", "versus", "multiply"]
    assert schema["ending"]["enum"] == ["prisoners", "surrender"]
    assert schema["max_battles"]["default"] == 500


@pytest.mark.parametrize("n, decks", [(2, 1), (3, 1), (4, 1), (5, 2), (6, 2)])
def test_default_decks_by_seat_count(n, decks):
    assert GAME.validate_options({}, n)["decks"] == decks
    st = GAME.setup({}, seat_names(n), 1)
    assert st["size"] == 40 * decks == cards_in_play(st)
    assert st["options"]["decks"] == decks


def test_decks_option_overrides_the_default():
    assert GAME.validate_options({"decks": 1}, 6)["decks"] == 1
    assert GAME.validate_options({"decks": 2}, 2)["decks"] == 2
    assert GAME.validate_options({"seats": 5}, None)["decks"] == 2
    assert GAME.validate_options({}, None)["decks"] is None  # decided when the table is known


def test_validated_options_validate_again_unchanged():
    opts = GAME.validate_options({"variant": "advanced", "advanced_cards": 4}, 3)
    assert GAME.validate_options(opts, 3) == opts


@pytest.mark.parametrize(
    "raw",
    [
        {"decks": 3}, {"decks": 0}, {"variant": "division"}, {"advanced_cards": 5},
        {"ending": "sudden"}, {"max_battles": 0}, {"seats": 7}, {"seats": 1},
        {"colour": "red"}, {"decks": "2"}, {"max_battles": True},
    ],
)
def test_bad_options_are_refused(raw):
    with pytest.raises(InvalidOptions):
        GAME.validate_options(raw, 3)


def test_seats_option_must_match_the_table():
    with pytest.raises(InvalidOptions):
        GAME.setup({"seats": 4}, seat_names(3), 1)
    assert GAME.setup({"seats": 3}, seat_names(3), 1)["options"]["seats"] == 3


@pytest.mark.parametrize("n", [1, 7])
def test_table_size_is_checked(n):
    with pytest.raises(InvalidOptions):
        GAME.setup({}, [f"S{i}" for i in range(n)], 1)


# ---- dealing --------------------------------------------------------------------------------
def test_deal_is_one_at_a_time_from_seat_a():
    st = GAME.setup({}, seat_names(3), 9)
    assert [len(st["draw"][s]) for s in "ABC"] == [14, 13, 13]
    # Rebuild the shuffled deck from the piles: dealing order is A, B, C, A, ... and each
    # dealt card goes on top, so a pile read bottom-up is every third card of the deck.
    deck = [st["draw"]["ABC"[i % 3]][i // 3] for i in range(40)]
    assert sorted(R.decode("".join(deck))) == sorted(list(range(1, 11)) * 4)
    st5 = GAME.setup({}, seat_names(5), 9)
    assert [len(st5["draw"][s]) for s in "ABCDE"] == [16] * 5
    st6 = GAME.setup({"decks": 1}, seat_names(6), 9)
    assert [len(st6["draw"][s]) for s in "ABCDEF"] == [7, 7, 7, 7, 6, 6]


def test_setup_is_deterministic_per_seed():
    assert GAME.setup({}, seat_names(4), 42) == GAME.setup({}, seat_names(4), 42)
    assert GAME.setup({}, seat_names(4), 42)["draw"] != GAME.setup({}, seat_names(4), 43)["draw"]


# ---- actions --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "action",
    [
        {"type": "attack"}, {"type": "fight", "cards": 2}, {"type": "FIGHT"},
        {"kind": "fight"}, {"type": 1}, "fight", None, [],
    ],
)
def test_malformed_actions_are_illegal(action):
    st = GAME.setup({}, seat_names(2), 1)
    with pytest.raises(IllegalAction):
        GAME.apply(st, "A", action)


def test_strangers_and_non_pending_seats_are_refused():
    st = GAME.setup({}, seat_names(2), 1)
    with pytest.raises(IllegalAction):
        GAME.apply(st, "C", {"type": "fight"})
    st, _ = GAME.apply(st, "A", {"type": "fight"})
    with pytest.raises(NotYourTurn):
        GAME.apply(st, "A", {"type": "fight"})


def test_legal_and_default_action():
    st = GAME.setup({}, seat_names(3), 1)
    assert GAME.legal(st, "A") == [{"type": "fight"}, {"type": "concede"}]
    assert GAME.default_action(st, "A") == {"type": "fight"}
    assert GAME.legal(st, SPECTATOR) == []


# ---- views ----------------------------------------------------------------------------------
def test_view_shape():
    st = rig([[5, 1, 2, 3, 7, 6], [5, 4, 4, 4, 8, 9], [2, 3]], variant="basic")
    st, _ = fight(st)
    st, _ = GAME.apply(st, "B", {"type": "fight"})
    v = GAME.view(st, "A")
    assert v["you"] == "A" and GAME.view(st, SPECTATOR)["you"] is None
    assert v["variant"] == "basic" and v["attack_cards"] == 1 and v["ending"] == "prisoners"
    assert v["battle"] == 1 and v["battles_done"] == 0
    assert v["clash"] == {"kind": "war", "war": 1, "seats": ["A", "B", "C"], "ready": ["B"]}
    assert v["seats"]["A"] == {"draw": 5, "prisoners": 0, "out": None, "ready": False,
                               "pending": True}
    assert v["seats"]["B"]["ready"] is True and v["seats"]["B"]["pending"] is False
    assert v["table"] == {
        "rounds": [{
            "A": {"down": 0, "cards": [5], "value": 5, "op": "card", "text": "5"},
            "B": {"down": 0, "cards": [5], "value": 5, "op": "card", "text": "5"},
            "C": {"down": 0, "cards": [2], "value": 2, "op": "card", "text": "2"},
        }],
        "cards": 3, "face_down": 0,
    }
    assert [x["seat"] for x in v["standings"]] == ["A", "B", "C"]
    assert v["set_aside"] == 0 and v["last_battle"] is None and v["result"] is None
    assert "hidden" not in v and "max_battles" not in v
    st, _ = fight(st)
    v = GAME.view(st, SPECTATOR)
    war_round = v["last_battle"]["rounds"][1]
    assert war_round["A"]["down"] == 3 and "down_cards" not in war_round["A"]
    assert war_round["C"] == {"down": 0, "cards": [3], "value": 3, "op": "card", "text": "3"}
    omni = GAME.view(st, OMNISCIENT)
    assert omni["last_battle"]["rounds"][1]["A"]["down_cards"] == [1, 2, 3]
    assert omni["hidden"]["draw"]["A"] == [6]


def test_view_standings_follow_the_ending():
    st = rig([[9, 1, 1], [1, 1, 1]], ending="surrender")
    st, _ = fight(st)
    v = GAME.view(st, "B")
    assert v["max_battles"] == 500
    assert v["standings"] == [{"seat": "A", "place": 1, "score": 4},
                              {"seat": "B", "place": 2, "score": 2}]


def test_face_down_cards_only_in_the_omniscient_event():
    st = rig([[5, 1, 2, 3, 7], [5, 4, 4, 4, 8]])
    st, _ = fight(st)
    st, ev = fight(st)
    (fd,) = [e for e in ev if e["type"] == "face_down"]
    assert fd["vis"] == [OMNISCIENT] and fd["cards"] == {"A": [1, 2, 3], "B": [4, 4, 4]}
    for viewer in ("A", "B", SPECTATOR):
        assert "face_down" not in [e["type"] for e in filter_events(ev, viewer)]
    assert "face_down" in [e["type"] for e in filter_events(ev, OMNISCIENT)]


# ---- bot ------------------------------------------------------------------------------------
def test_bot_never_concedes():
    rnd = random.Random(0)
    legal = [{"type": "fight"}, {"type": "concede"}]
    assert {random_action(legal, rnd)["type"] for _ in range(200)} == {"fight"}
    with pytest.raises(ValueError):
        random_action([{"type": "concede"}], rnd)
    with pytest.raises(ValueError):
        random_action([], rnd)
