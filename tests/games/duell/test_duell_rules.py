"""Targeted tests, one (or more) per ruling, through the real apply path."""
from __future__ import annotations

import pytest
from duell_helpers import GAME, SPECTATOR, act, make_state, of_type, types

from games.base import (
    CLOCK_OPTION,
    MAX_TIMEOUTS_OPTION,
    IllegalAction,
    InvalidOptions,
    MatchOver,
    NotYourTurn,
    filter_events,
)
from games.duell import tables as T


def seed_with_special(card: str, mode: str = "tenzone") -> int:
    for seed in range(1000):
        s = GAME.setup({"mode": mode}, ["A", "B"], seed)
        if s["special"] == card:
            return seed
    raise AssertionError(f"no seed turns up {card}")


# ---------------------------------------------------------------------------------------------
# Options and setup
# ---------------------------------------------------------------------------------------------
def test_options_defaults_and_schema():
    opts = GAME.validate_options({})
    assert opts == {"mode": "prologo", "duels_to_win": 5, "track_length": 23,
                    "special_cards": True, "clock_seconds": None, "max_timeouts": 3}
    names = {o.name for o in GAME.options}
    assert CLOCK_OPTION in GAME.options and MAX_TIMEOUTS_OPTION in GAME.options
    assert names == set(opts)
    schema = GAME.options_schema()["properties"]
    assert schema["mode"]["enum"] == ["prologo", "tenzone"]
    assert (schema["duels_to_win"]["minimum"], schema["duels_to_win"]["maximum"]) == (1, 9)
    assert (schema["track_length"]["minimum"], schema["track_length"]["maximum"]) == (15, 31)


@pytest.mark.parametrize("bad", [
    {"mode": "blitz"}, {"duels_to_win": 0}, {"duels_to_win": 10}, {"track_length": 14},
    {"track_length": 32}, {"special_cards": 1}, {"mode": 1}, {"colour": "red"},
])
def test_invalid_options_rejected(bad):
    with pytest.raises(InvalidOptions):
        GAME.setup(bad, ["A", "B"], 1)


def test_player_count_enforced():
    with pytest.raises(InvalidOptions):
        GAME.setup({}, ["A"], 1)


@pytest.mark.parametrize("length", [15, 23, 31])
def test_setup_positions_hands_deck(length):
    s = GAME.setup({"track_length": length}, ["A", "B"], 5)
    assert s["pos"] == {"A": 1, "B": length}
    assert [len(s["hands"]["A"]), len(s["hands"]["B"])] == [5, 5]
    assert len(s["deck"]) == 15 and s["discard"] == [] and s["aside"] == []
    everything = sorted(s["deck"] + s["hands"]["A"] + s["hands"]["B"])
    assert everything == sorted(T.MOVEMENT_DECK)
    assert s["special"] is None and s["rule"] is None  # Prologo: no special cards
    assert GAME.pending(s) == {s["starter"]: "play"}
    assert s["score"] == {"A": 0, "B": 0} and s["duel"] == 1


def test_special_cards_off_in_tenzone():
    for seed in range(30):
        s = GAME.setup({"mode": "tenzone", "special_cards": False}, ["A", "B"], seed)
        assert s["special"] is None and s["rule"] is None


def test_special_card_turned_up_each_tenzone_duel_covers_all_eight():
    seen = set()
    for seed in range(200):
        s = GAME.setup({"mode": "tenzone"}, ["A", "B"], seed)
        assert s["special"] in T.SPECIAL_DECK
        seen.add(s["special"])
    assert seen == set(T.SPECIAL_DECK)


# ---------------------------------------------------------------------------------------------
# Movement (both modes)
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("mode", ["prologo", "tenzone"])
def test_move_forward_then_draw_one(mode):
    s = make_state(mode, hands={"A": [1, 2, 3, 4, 5], "B": [1, 1, 2, 2, 3]},
                   deck=[5, 4, 4, 3, 3])
    s2, ev = act(s, "A", {"type": "move", "card": 3, "dir": "forward"})
    assert s2["pos"]["A"] == 4
    assert s2["hands"]["A"] == [1, 2, 4, 5, 5]
    assert s2["discard"] == [3]
    assert len(s2["deck"]) == 4
    assert GAME.pending(s2) == {"B": "play"}
    mv = of_type(ev, "move")[0]
    assert (mv["seat"], mv["card"], mv["dir"], mv["from"], mv["to"]) == ("A", 3, "forward", 1, 4)
    # the play is public; the draw is seen with its card by A only, as a count by the others
    assert of_type(filter_events(ev, "B"), "move") == of_type(filter_events(ev, SPECTATOR), "move")
    a_draw = of_type(filter_events(ev, "A"), "draw")
    b_draw = of_type(filter_events(ev, "B"), "draw")
    sp_draw = of_type(filter_events(ev, SPECTATOR), "draw")
    assert a_draw == [{"type": "draw", "seat": "A", "count": 1, "cards": [5], "deck_count": 4}]
    assert b_draw == sp_draw == [{"type": "draw", "seat": "A", "count": 1, "deck_count": 4}]


def test_move_back_and_second_seat_directions():
    s = make_state("prologo", pos={"A": 5, "B": 20}, hands={"A": [1, 2, 3, 4, 5],
                                                            "B": [1, 2, 3, 4, 5]})
    s, _ = act(s, "A", {"type": "move", "card": 4, "dir": "back"})
    assert s["pos"]["A"] == 1
    s, _ = act(s, "B", {"type": "move", "card": 3, "dir": "back"})
    assert s["pos"]["B"] == 23
    s, _ = act(s, "A", {"type": "move", "card": 2, "dir": "forward"})
    s, _ = act(s, "B", {"type": "move", "card": 5, "dir": "forward"})
    assert s["pos"] == {"A": 3, "B": 18}


def test_moves_may_not_leave_track_nor_reach_or_pass_opponent():
    s = make_state("prologo", pos={"A": 2, "B": 5}, hands={"A": [1, 2, 3, 4, 5],
                                                           "B": [1, 2, 3, 4, 5]})
    legal = GAME.legal(s, "A")
    assert {"type": "move", "card": 1, "dir": "back"} in legal
    assert {"type": "move", "card": 2, "dir": "forward"} in legal
    for card, direction in [(2, "back"), (3, "forward"), (4, "forward"), (5, "back")]:
        assert {"type": "move", "card": card, "dir": direction} not in legal
        with pytest.raises(IllegalAction):
            GAME.apply(s, "A", {"type": "move", "card": card, "dir": direction})
    s = make_state("prologo", pos={"A": 10, "B": 23}, active="B")
    with pytest.raises(IllegalAction, match="leave the track"):
        GAME.apply(s, "B", {"type": "move", "card": 1, "dir": "back"})


def test_move_needs_the_card_in_hand():
    s = make_state("prologo", hands={"A": [1, 1, 2, 2, 3], "B": [1, 2, 3, 4, 5]})
    with pytest.raises(IllegalAction, match="do not hold"):
        GAME.apply(s, "A", {"type": "move", "card": 5, "dir": "forward"})


# ---------------------------------------------------------------------------------------------
# Prologo hits, no passing, no legal play, last card
# ---------------------------------------------------------------------------------------------
def test_prologo_hit_wins_the_duel_and_loser_starts_next():
    s = make_state("prologo", pos={"A": 10, "B": 13},
                   hands={"A": [1, 3, 3, 4, 5], "B": [1, 2, 3, 4, 5]})
    assert {"type": "attack", "cards": [3]} in GAME.legal(s, "A")
    # Prologo lists one-card hits only
    assert {"type": "attack", "cards": [3, 3]} not in GAME.legal(s, "A")
    s2, ev = act(s, "A", {"type": "attack", "cards": [3]})
    end = of_type(ev, "duel_end")[0]
    assert (end["winner"], end["reason"], end["duel"]) == ("A", "hit", 1)
    assert s2["score"] == {"A": 1, "B": 0}
    assert s2["duel"] == 2 and s2["starter"] == "B"
    assert s2["pos"] == {"A": 1, "B": 23}
    assert GAME.pending(s2) == {"B": "play"}
    assert s2["last_duel"]["winner"] == "A"
    assert GAME.view(s2, "B")["last_duel"] == {"duel": 1, "winner": "A", "reason": "hit"}


@pytest.mark.parametrize("action", [
    {"type": "attack", "cards": [4]},
    {"type": "attack", "cards": [3, 3]},
    {"type": "advance_attack", "move": 1, "cards": [2]},
])
def test_prologo_bad_hits_rejected(action):
    s = make_state("prologo", pos={"A": 10, "B": 13},
                   hands={"A": [1, 2, 3, 3, 4], "B": [1, 2, 3, 4, 5]})
    with pytest.raises(IllegalAction):
        GAME.apply(s, "A", action)


def test_no_hit_from_afar():
    s = make_state("prologo", hands={"A": [1, 2, 3, 4, 5], "B": [1, 2, 3, 4, 5]})
    with pytest.raises(IllegalAction, match="distance"):
        GAME.apply(s, "A", {"type": "attack", "cards": [5]})


@pytest.mark.parametrize("mode", ["prologo", "tenzone"])
@pytest.mark.parametrize("action", [{"type": "pass"}, {"type": "move", "card": 0, "dir": "back"},
                                    {"type": "attack", "cards": []}])
def test_no_passing(mode, action):
    s = make_state(mode)
    with pytest.raises(IllegalAction):
        GAME.apply(s, "A", action)
    assert all(a["type"] != "pass" for a in GAME.legal(s, "A"))


@pytest.mark.parametrize("mode", ["prologo", "tenzone"])
def test_no_legal_play_loses_at_start_of_turn(mode):
    # B moves to distance 1 from A, who stands on its starting square holding no 1
    s = make_state(mode, pos={"A": 1, "B": 4}, active="B",
                   hands={"A": [2, 3, 3, 4, 5], "B": [1, 2, 3, 4, 5]}, deck=[5, 5, 5])
    s2, ev = act(s, "B", {"type": "move", "card": 2, "dir": "forward"})
    assert of_type(ev, "no_legal_play") == [{"type": "no_legal_play", "seat": "A", "vis": "all"}]
    end = of_type(ev, "duel_end")[0]
    assert (end["winner"], end["reason"]) == ("B", "no_legal_play")
    assert s2["score"] == {"A": 0, "B": 1} and s2["starter"] == "A" and s2["duel"] == 2


def test_a_single_hit_card_is_a_legal_play():
    s = make_state("prologo", pos={"A": 1, "B": 4}, active="B",
                   hands={"A": [1, 3, 3, 4, 5], "B": [1, 2, 3, 4, 5]}, deck=[5, 5, 5])
    s2, ev = act(s, "B", {"type": "move", "card": 2, "dir": "forward"})
    assert "no_legal_play" not in types(ev)
    assert GAME.legal(s2, "A") == [{"type": "attack", "cards": [1]}]


def test_prologo_last_card_farther_fencer_wins():
    s = make_state("prologo", pos={"A": 5, "B": 20}, deck=[4],
                   hands={"A": [1, 2, 3, 4, 5], "B": [1, 2, 3, 4, 5]})
    s2, ev = act(s, "A", {"type": "move", "card": 1, "dir": "forward"})
    assert "reveal" not in types(ev)  # Ruling (ours): Prologo does not reveal the hands
    end = of_type(ev, "duel_end")[0]
    assert (end["winner"], end["reason"], end["decided_by"]) == ("A", "deck_out", "advance")
    assert end["advance"] == {"A": 5, "B": 3}
    assert s2["score"] == {"A": 1, "B": 0} and s2["starter"] == "B"


def test_prologo_last_card_equal_distance_no_winner_starter_alternates():
    s = make_state("prologo", pos={"A": 4, "B": 19}, deck=[4], starter="A",
                   hands={"A": [1, 2, 3, 4, 5], "B": [1, 2, 3, 4, 5]})
    s2, ev = act(s, "A", {"type": "move", "card": 1, "dir": "forward"})
    end = of_type(ev, "duel_end")[0]
    assert end["winner"] is None and end["reason"] == "deck_out"
    assert s2["score"] == {"A": 0, "B": 0}
    assert s2["duel"] == 2 and s2["starter"] == "B"
    # and again: no winner with B starting -> A starts
    s3 = make_state("prologo", pos={"A": 4, "B": 19}, deck=[4], starter="B", active="B",
                    hands={"A": [1, 2, 3, 4, 5], "B": [1, 2, 3, 4, 5]})
    s4, _ = act(s3, "B", {"type": "move", "card": 1, "dir": "back"})  # B 20: advance 3 vs 3
    assert s4["last_duel"]["winner"] is None and s4["starter"] == "A"


# ---------------------------------------------------------------------------------------------
# Tenzone: attack, parry, continuation, drawing
# ---------------------------------------------------------------------------------------------
def test_tenzone_attack_lists_each_count_and_parry_then_continuation():
    s = make_state("tenzone", pos={"A": 10, "B": 13},
                   hands={"A": [1, 2, 3, 3, 5], "B": [3, 3, 4, 4, 5]},
                   deck=[1, 2, 4, 5, 1, 2, 4, 5])
    legal = GAME.legal(s, "A")
    assert {"type": "attack", "cards": [3]} in legal
    assert {"type": "attack", "cards": [3, 3]} in legal
    assert {"type": "attack", "cards": [3, 3, 3]} not in legal
    s, ev = act(s, "A", {"type": "attack", "cards": [3, 3]})
    # the attacker's turn ends: A draws as many as played
    assert s["hands"]["A"] == [1, 1, 2, 2, 5]
    assert of_type(filter_events(ev, "A"), "draw")[0]["cards"] == [1, 2]
    assert GAME.pending(s) == {"B": "defend"}
    assert GAME.legal(s, "B") == [{"type": "parry"}]  # no retreat from a plain attack
    pub = GAME.view(s, SPECTATOR)["attack"]
    assert pub == {"by": "A", "cards": [3, 3], "value": 3, "count": 2, "move": None}
    with pytest.raises(IllegalAction, match="retreat only"):
        GAME.apply(s, "B", {"type": "retreat", "card": 4})
    with pytest.raises(IllegalAction, match="under attack"):
        GAME.apply(s, "B", {"type": "move", "card": 4, "dir": "back"})
    s, ev = act(s, "B", {"type": "parry"})
    assert of_type(ev, "parry") == [{"type": "parry", "seat": "B", "cards": [3, 3], "vis": "all"}]
    # continuation: B takes a normal turn at once, holding fewer cards, before anyone draws
    assert GAME.pending(s) == {"B": "play"}
    assert s["hands"]["B"] == [4, 4, 5]
    assert "draw" not in types(ev)
    assert len(s["deck"]) == 6
    s, ev = act(s, "B", {"type": "move", "card": 4, "dir": "back"})
    # ...and at the end of that turn B draws for the parry and the move
    draw = of_type(filter_events(ev, "B"), "draw")[0]
    assert draw["count"] == 3 and draw["cards"] == [1, 4, 5]
    assert len(s["hands"]["B"]) == 5
    assert GAME.pending(s) == {"A": "play"}


def test_tenzone_unparried_attack_is_a_hit():
    s = make_state("tenzone", pos={"A": 10, "B": 13},
                   hands={"A": [1, 2, 3, 3, 5], "B": [3, 4, 4, 5, 5]})
    s2, ev = act(s, "A", {"type": "attack", "cards": [3, 3]})
    assert "parry" not in types(ev)
    end = of_type(ev, "duel_end")[0]
    assert (end["winner"], end["reason"]) == ("A", "hit")
    assert s2["score"]["A"] == 1 and s2["starter"] == "B"


def test_tenzone_attack_cards_must_all_equal_distance():
    s = make_state("tenzone", pos={"A": 10, "B": 13},
                   hands={"A": [1, 2, 3, 3, 5], "B": [3, 4, 4, 5, 5]})
    for bad in ([3, 2], [2], [3, 3, 3]):
        with pytest.raises(IllegalAction):
            GAME.apply(s, "A", {"type": "attack", "cards": bad})


def test_parry_needs_same_number_of_same_value():
    s = make_state("tenzone", pos={"A": 10, "B": 12}, phase="defend", active="B",
                   attack={"by": "A", "value": 2, "count": 3, "move": None},
                   hands={"A": [1, 1, 3, 4, 5], "B": [2, 2, 4, 5, 5]})
    assert GAME.legal(s, "B") == []
    with pytest.raises(IllegalAction, match="To parry"):
        GAME.apply(s, "B", {"type": "parry"})


def test_continuation_without_a_legal_play_loses():
    # after parrying, B (hand [4, 4]) stands on its start square 3 spaces from A: no play
    s = make_state("tenzone", pos={"A": 20, "B": 23},
                   hands={"A": [3, 3, 1, 1, 1], "B": [3, 3, 4, 4, 4]})
    s, _ = act(s, "A", {"type": "attack", "cards": [3, 3]})
    s2, ev = act(s, "B", {"type": "parry"})
    assert types(ev)[:2] == ["parry", "no_legal_play"]
    end = of_type(ev, "duel_end")[0]
    assert (end["winner"], end["reason"]) == ("A", "no_legal_play")


def test_advance_and_attack_then_retreat_and_redraw():
    s = make_state("tenzone", pos={"A": 10, "B": 15},
                   hands={"A": [1, 2, 3, 3, 5], "B": [1, 1, 3, 4, 5]},
                   deck=[1, 2, 3, 4, 5, 1, 2, 3, 4, 5])
    legal = GAME.legal(s, "A")
    advances = [a for a in legal if a["type"] == "advance_attack"]
    assert advances == [{"type": "advance_attack", "move": 2, "cards": [3]},
                        {"type": "advance_attack", "move": 2, "cards": [3, 3]},
                        {"type": "advance_attack", "move": 3, "cards": [2]}]
    assert {"type": "attack", "cards": [5]} in legal
    s, ev = act(s, "A", {"type": "advance_attack", "move": 2, "cards": [3, 3]})
    aa = of_type(ev, "advance_attack")[0]
    assert (aa["from"], aa["to"], aa["move"], aa["cards"], aa["distance"]) == (10, 12, 2, [3, 3], 3)
    assert of_type(filter_events(ev, "A"), "draw")[0]["count"] == 3  # move + two attack cards
    assert s["pos"]["A"] == 12
    # B cannot parry (one 3) but may retreat with any card that moves it back legally
    legal_b = GAME.legal(s, "B")
    assert {"type": "parry"} not in legal_b
    assert legal_b == [{"type": "retreat", "card": c} for c in (1, 3, 4, 5)]
    s, ev = act(s, "B", {"type": "retreat", "card": 4})
    assert of_type(ev, "retreat")[0]["to"] == 19
    assert GAME.pending(s) == {"B": "play"} and s["hands"]["B"] == [1, 1, 3, 5]
    assert "draw" not in types(ev)
    s, ev = act(s, "B", {"type": "move", "card": 1, "dir": "forward"})
    assert of_type(filter_events(ev, "B"), "draw")[0]["count"] == 2  # retreat + move
    assert len(s["hands"]["B"]) == 5


def test_advance_and_attack_parry_counts_only_attack_cards():
    s = make_state("tenzone", pos={"A": 10, "B": 15},
                   hands={"A": [1, 2, 3, 3, 5], "B": [3, 3, 4, 4, 5]})
    s, _ = act(s, "A", {"type": "advance_attack", "move": 2, "cards": [3, 3]})
    assert {"type": "parry"} in GAME.legal(s, "B")
    s, ev = act(s, "B", {"type": "parry"})
    assert of_type(ev, "parry")[0]["cards"] == [3, 3]
    assert s["hands"]["B"] == [4, 4, 5]


@pytest.mark.parametrize("action,msg", [
    ({"type": "advance_attack", "move": 5, "cards": [3]}, "land on or pass"),
    ({"type": "advance_attack", "move": 1, "cards": [3]}, "distance is 4"),
    ({"type": "advance_attack", "move": 4, "cards": [1]}, "do not hold"),
    ({"type": "advance_attack", "move": 3, "cards": [2, 2]}, "do not hold"),
])
def test_advance_and_attack_rejections(action, msg):
    s = make_state("tenzone", pos={"A": 10, "B": 15},
                   hands={"A": [1, 2, 3, 3, 5], "B": [3, 3, 4, 4, 5]})
    with pytest.raises(IllegalAction, match=msg):
        GAME.apply(s, "A", action)


def test_advance_and_attack_unanswerable_is_a_hit():
    s = make_state("tenzone", pos={"A": 15, "B": 23},  # B on its start square: no retreat
                   hands={"A": [5, 5, 5, 3, 1], "B": [1, 1, 2, 4, 4]})
    _, ev = act(s, "A", {"type": "advance_attack", "move": 5, "cards": [3]})
    end = of_type(ev, "duel_end")[0]
    assert (end["winner"], end["reason"]) == ("A", "hit")


# ---------------------------------------------------------------------------------------------
# Tenzone end of deck
# ---------------------------------------------------------------------------------------------
def test_tenzone_deck_out_reveal_more_cards_of_distance_wins():
    s = make_state("tenzone", pos={"A": 10, "B": 15}, deck=[5],
                   hands={"A": [1, 2, 2, 3, 4], "B": [1, 1, 1, 4, 4]})
    s2, ev = act(s, "A", {"type": "move", "card": 1, "dir": "forward"})
    reveal = of_type(ev, "reveal")
    assert reveal == [{"type": "reveal", "hands": {"A": [2, 2, 3, 4, 5], "B": [1, 1, 1, 4, 4]},
                       "distance": 4, "vis": "all"}]
    assert of_type(filter_events(ev, SPECTATOR), "reveal")[0]["hands"]["B"] == [1, 1, 1, 4, 4]
    end = of_type(ev, "duel_end")[0]
    assert (end["winner"], end["decided_by"], end["counts"]) == ("B", "cards", {"A": 1, "B": 2})
    assert end["advance"] == {"A": 10, "B": 8}  # A is farther but the cards decide
    assert GAME.view(s2, SPECTATOR)["last_duel"]["hands"]["A"] == [2, 2, 3, 4, 5]


def test_tenzone_deck_out_equal_cards_falls_back_to_advance():
    s = make_state("tenzone", pos={"A": 10, "B": 15}, deck=[5],
                   hands={"A": [1, 2, 2, 3, 4], "B": [1, 1, 1, 2, 4]})
    _, ev = act(s, "A", {"type": "move", "card": 1, "dir": "forward"})
    end = of_type(ev, "duel_end")[0]
    assert (end["winner"], end["decided_by"]) == ("A", "advance")


def test_tenzone_deck_out_far_apart_advance_decides_or_no_winner():
    s = make_state("tenzone", pos={"A": 5, "B": 20}, deck=[5],
                   hands={"A": [1, 2, 2, 3, 4], "B": [1, 1, 1, 2, 4]})
    _, ev = act(s, "A", {"type": "move", "card": 1, "dir": "forward"})  # A 6, advance 5 v 3
    end = of_type(ev, "duel_end")[0]
    assert (end["winner"], end["decided_by"], end["distance"]) == ("A", "advance", 14)
    s = make_state("tenzone", pos={"A": 4, "B": 19}, deck=[5],
                   hands={"A": [1, 2, 2, 3, 4], "B": [1, 1, 1, 2, 4]})
    s2, ev = act(s, "A", {"type": "move", "card": 1, "dir": "forward"})  # 4 v 4
    assert of_type(ev, "duel_end")[0]["winner"] is None
    assert s2["starter"] == "B" and s2["score"] == {"A": 0, "B": 0}


def test_tenzone_deck_out_attack_may_still_be_parried_then_reveal():
    s = make_state("tenzone", pos={"A": 10, "B": 13}, deck=[5],
                   hands={"A": [1, 1, 2, 2, 3], "B": [3, 4, 4, 4, 4]})
    s, ev = act(s, "A", {"type": "attack", "cards": [3]})
    assert "deck_empty" in types(ev) and "reveal" not in types(ev)
    assert GAME.pending(s) == {"B": "defend"} and GAME.view(s, "B")["deck_out"] is True
    s, ev = act(s, "B", {"type": "parry"})
    assert types(ev)[:3] == ["parry", "reveal", "duel_end"]
    end = of_type(ev, "duel_end")[0]
    # distance 3: no one holds a 3 -> advance 9 (A) v 10 (B)
    assert (end["winner"], end["decided_by"]) == ("B", "advance")


def test_tenzone_deck_out_no_retreat_from_last_advance_attack():
    s = make_state("tenzone", pos={"A": 8, "B": 13}, deck=[5],
                   hands={"A": [1, 1, 1, 2, 3], "B": [1, 1, 1, 1, 3]})
    s, ev = act(s, "A", {"type": "advance_attack", "move": 2, "cards": [3]})
    assert "deck_empty" in types(ev)
    assert GAME.legal(s, "B") == [{"type": "parry"}]
    with pytest.raises(IllegalAction, match="draw pile is empty"):
        GAME.apply(s, "B", {"type": "retreat", "card": 1})
    _, ev = act(s, "B", {"type": "parry"})
    assert "reveal" in types(ev)


def test_tenzone_deck_out_unparried_last_attack_is_a_hit():
    s = make_state("tenzone", pos={"A": 8, "B": 13}, deck=[5],
                   hands={"A": [1, 1, 1, 2, 3], "B": [1, 1, 1, 1, 4]})
    _, ev = act(s, "A", {"type": "advance_attack", "move": 2, "cards": [3]})
    assert "reveal" not in types(ev)
    end = of_type(ev, "duel_end")[0]
    assert (end["winner"], end["reason"]) == ("A", "hit")


def test_draw_takes_what_is_left_when_pile_is_short():
    s = make_state("tenzone", pos={"A": 10, "B": 15}, deck=[4],
                   hands={"A": [1, 2, 3, 3, 5], "B": [3, 3, 4, 4, 5]})
    s, ev = act(s, "A", {"type": "advance_attack", "move": 2, "cards": [3, 3]})
    assert of_type(filter_events(ev, "A"), "draw")[0]["cards"] == [4]
    assert s["deck"] == [] and s["deck_out"] is True
    assert s["hands"]["A"] == [1, 4, 5]


# ---------------------------------------------------------------------------------------------
# Match and starters
# ---------------------------------------------------------------------------------------------
def test_match_ends_at_duels_to_win():
    s = make_state("prologo", pos={"A": 10, "B": 13}, score={"A": 1, "B": 1},
                   hands={"A": [1, 3, 3, 4, 5], "B": [1, 2, 3, 4, 5]}, duels_to_win=2)
    s2, ev = act(s, "A", {"type": "attack", "cards": [3]})
    assert s2["result"]["winner"] == "A" and s2["result"]["places"] == {"A": 1, "B": 2}
    assert s2["result"]["reason"] == "duels" and s2["result"]["score"] == {"A": 2, "B": 1}
    assert types(ev)[-2:] == ["duel_end", "match_end"]
    assert GAME.pending(s2) == {} and GAME.legal(s2, "B") == []
    assert GAME.view(s2, "A")["phase"] == "over"
    with pytest.raises(MatchOver):
        GAME.apply(s2, "B", {"type": "move", "card": 1, "dir": "forward"})


def test_match_goes_on_below_duels_to_win():
    s = make_state("prologo", pos={"A": 10, "B": 13}, score={"A": 0, "B": 1},
                   hands={"A": [1, 3, 3, 4, 5], "B": [1, 2, 3, 4, 5]}, duels_to_win=2)
    s2, ev = act(s, "A", {"type": "attack", "cards": [3]})
    assert s2["result"] is None and "duel_start" in types(ev)


def test_first_starter_is_random_and_reproducible():
    starters = {GAME.setup({}, ["A", "B"], seed)["starter"] for seed in range(40)}
    assert starters == {"A", "B"}
    for seed in range(10):
        assert (GAME.setup({}, ["A", "B"], seed)["starter"]
                == GAME.setup({}, ["A", "B"], seed)["starter"])


def test_loser_starts_next_duel_both_ways():
    s = make_state("prologo", pos={"A": 10, "B": 13}, active="B", starter="A",
                   hands={"A": [1, 2, 4, 4, 5], "B": [1, 2, 3, 4, 5]})
    s2, _ = act(s, "B", {"type": "attack", "cards": [3]})
    assert s2["starter"] == "A" and GAME.pending(s2) == {"A": "play"}


def test_new_duel_is_dealt_afresh():
    s = make_state("prologo", pos={"A": 10, "B": 13},
                   hands={"A": [1, 3, 3, 4, 5], "B": [1, 2, 3, 4, 5]})
    s2, ev = act(s, "A", {"type": "attack", "cards": [3]})
    assert s2["discard"] == [] and len(s2["deck"]) == 15
    assert sorted(s2["deck"] + s2["hands"]["A"] + s2["hands"]["B"]) == sorted(T.MOVEMENT_DECK)
    deal_b_for_a = [e for e in filter_events(ev, "A") if e["type"] == "deal" and e["seat"] == "B"]
    assert deal_b_for_a == [{"type": "deal", "seat": "B", "count": 5, "deck_count": 20}]
    assert "cards" in next(e for e in filter_events(ev, "B") if e["type"] == "deal"
                           and e["seat"] == "B")


# ---------------------------------------------------------------------------------------------
# Special cards
# ---------------------------------------------------------------------------------------------
def test_three_cards_hand_size_and_redraw():
    seed = seed_with_special("three_cards")
    s = GAME.setup({"mode": "tenzone"}, ["A", "B"], seed)
    assert [len(h) for h in s["hands"].values()] == [3, 3] and len(s["deck"]) == 19
    assert GAME.view(s, "A")["hand_limit"] == 3
    t = make_state("tenzone", rule="three_cards", hands={"A": [1, 2, 3], "B": [1, 2, 3]},
                   deck=[5, 5, 5])
    t, _ = act(t, "A", {"type": "move", "card": 2, "dir": "forward"})
    assert t["hands"]["A"] == [1, 3, 5]


def test_ten_cards_cuts_the_pile_and_hides_the_rest():
    seed = seed_with_special("ten_cards")
    s = GAME.setup({"mode": "tenzone"}, ["A", "B"], seed)
    assert len(s["deck"]) == 10 and len(s["aside"]) == 5
    assert [len(h) for h in s["hands"].values()] == [5, 5]
    for viewer in ("A", "B", SPECTATOR):
        v = GAME.view(s, viewer)
        assert v["deck_count"] == 10 and v["aside_count"] == 5
        assert "aside" not in v and "deck" not in v
    omni = GAME.view(s, "omniscient")
    assert omni["aside"] == s["aside"] and omni["deck"] == s["deck"]


def test_ten_cards_short_duel_reaches_deck_out():
    seed = seed_with_special("ten_cards")
    s = GAME.setup({"mode": "tenzone"}, ["A", "B"], seed)
    # both players step back and forth: ten cards are gone within ten turns
    for _ in range(12):
        if s["duel"] != 1:
            break
        (seat,) = GAME.pending(s)
        s, ev = GAME.apply(s, seat, GAME.default_action(s, seat))
    assert s["duel"] == 2 and s["last_duel"]["reason"] in ("deck_out", "hit", "no_legal_play")


def test_no_retreat_forbids_moving_back_and_retreating():
    s = make_state("tenzone", rule="no_retreat", pos={"A": 5, "B": 15},
                   hands={"A": [1, 2, 3, 3, 5], "B": [1, 1, 3, 4, 5]})
    assert all(a.get("dir") != "back" for a in GAME.legal(s, "A"))
    with pytest.raises(IllegalAction, match="No retreat"):
        GAME.apply(s, "A", {"type": "move", "card": 1, "dir": "back"})
    s["pos"] = {"A": 10, "B": 15}
    s2, ev = act(s, "A", {"type": "advance_attack", "move": 2, "cards": [3]})
    # B could retreat were it allowed; with one 3 it parries
    assert GAME.legal(s2, "B") == [{"type": "parry"}]
    with pytest.raises(IllegalAction, match="No retreat"):
        GAME.apply(s2, "B", {"type": "retreat", "card": 1})
    s["hands"]["B"] = [1, 1, 4, 4, 5]
    _, ev = act(s, "A", {"type": "advance_attack", "move": 2, "cards": [3]})
    assert of_type(ev, "duel_end")[0]["reason"] == "hit"


def test_no_retreat_only_backward_moves_means_no_legal_play():
    s = make_state("tenzone", rule="no_retreat", pos={"A": 10, "B": 15}, active="B",
                   hands={"A": [4, 4, 5, 5, 5], "B": [1, 2, 3, 4, 5]}, deck=[1, 1, 1])
    s2, ev = act(s, "B", {"type": "move", "card": 2, "dir": "forward"})  # distance 3
    assert "no_legal_play" in types(ev)
    assert of_type(ev, "duel_end")[0]["winner"] == "B"


def test_open_hands_shows_both_hands_and_draws():
    seed = seed_with_special("open_hands")
    s = GAME.setup({"mode": "tenzone"}, ["A", "B"], seed)
    for viewer in ("A", "B", SPECTATOR):
        assert GAME.view(s, viewer)["hands"] == s["hands"]
    (seat,) = GAME.pending(s)
    s2, ev = GAME.apply(s, seat, GAME.default_action(s, seat))
    other = "B" if seat == "A" else "A"
    for viewer in (other, SPECTATOR):
        draws = of_type(filter_events(ev, viewer), "draw")
        assert len(draws) == 1 and "cards" in draws[0]


def test_hidden_hands_without_open_hands():
    s = make_state("tenzone")
    assert GAME.view(s, "A")["hands"] == {"A": [1, 2, 3, 4, 5], "B": None}
    assert GAME.view(s, "A")["hand"] == [1, 2, 3, 4, 5]
    assert GAME.view(s, SPECTATOR)["hands"] == {"A": None, "B": None}
    assert GAME.view(s, SPECTATOR)["hand"] is None
    assert GAME.view(s, SPECTATOR)["hand_sizes"] == {"A": 5, "B": 5}


def test_starters_choice():
    seed = seed_with_special("starters_choice")
    s = GAME.setup({"mode": "tenzone"}, ["A", "B"], seed)
    st = s["starter"]
    other = "B" if st == "A" else "A"
    assert GAME.pending(s) == {st: "choose_special"}
    assert GAME.legal(s, st) == [{"type": "choose_special", "card": c}
                                 for c in ("three_cards", "no_retreat", "open_hands", "ten_cards")]
    assert s["hands"] == {"A": [], "B": []}  # Ruling (ours): chosen before the deal
    assert GAME.view(s, other)["special"] == "starters_choice" and s["rule"] is None
    with pytest.raises(NotYourTurn):
        GAME.apply(s, other, {"type": "choose_special", "card": "open_hands"})
    for bad in ({"type": "choose_special", "card": "starters_choice"},
                {"type": "choose_special", "card": 3},
                {"type": "move", "card": 1, "dir": "forward"}):
        with pytest.raises(IllegalAction):
            GAME.apply(s, st, bad)
    for card, hand_len, deck_len in [("three_cards", 3, 19), ("ten_cards", 5, 10),
                                     ("no_retreat", 5, 15), ("open_hands", 5, 15)]:
        s2, ev = act(s, st, {"type": "choose_special", "card": card})
        assert s2["rule"] == card and s2["special"] == "starters_choice"
        assert of_type(ev, "special_chosen")[0] == {"type": "special_chosen", "seat": st,
                                                    "rule": card, "vis": "all"}
        assert len(s2["hands"]["A"]) == hand_len and len(s2["deck"]) == deck_len
        assert GAME.pending(s2) == {st: "play"}
    s2, _ = act(s, st, {"type": "choose_special", "card": "no_retreat"})
    assert all(a.get("dir") != "back" for a in GAME.legal(s2, st))
    s2, _ = act(s, st, {"type": "choose_special", "card": "open_hands"})
    assert GAME.view(s2, other)["hands"][st] == s2["hands"][st]


def test_choose_special_only_when_choosing():
    s = make_state("tenzone")
    with pytest.raises(IllegalAction, match="already set"):
        GAME.apply(s, "A", {"type": "choose_special", "card": "open_hands"})


# ---------------------------------------------------------------------------------------------
# Clock, resign, shapes
# ---------------------------------------------------------------------------------------------
def test_default_action_prefers_parry_then_smallest_retreat():
    s = make_state("tenzone", pos={"A": 10, "B": 13}, phase="defend", active="B",
                   attack={"by": "A", "value": 3, "count": 1, "move": 2},
                   hands={"A": [1, 1, 4, 4, 5], "B": [2, 3, 4, 5, 5]})
    assert GAME.default_action(s, "B") == {"type": "parry"}
    s["hands"]["B"] = [2, 4, 4, 5, 5]
    assert GAME.default_action(s, "B") == {"type": "retreat", "card": 2}


def test_default_action_smallest_back_else_smallest_forward_never_attack():
    s = make_state("tenzone", pos={"A": 3, "B": 6},
                   hands={"A": [1, 2, 3, 3, 5], "B": [1, 2, 3, 4, 5]})
    assert GAME.default_action(s, "A") == {"type": "move", "card": 1, "dir": "back"}
    s["pos"] = {"A": 1, "B": 6}
    s["hands"]["A"] = [2, 3, 4, 5, 5]
    assert GAME.default_action(s, "A") == {"type": "move", "card": 2, "dir": "forward"}
    s["rule"] = "no_retreat"
    s["pos"] = {"A": 8, "B": 12}
    assert GAME.default_action(s, "A") == {"type": "move", "card": 2, "dir": "forward"}


def test_default_action_when_an_attack_is_the_only_play():
    # Ruling (ours): no passing, so the clock plays the smallest attack
    s = make_state("tenzone", pos={"A": 1, "B": 2},
                   hands={"A": [1, 1, 3, 4, 5], "B": [1, 2, 3, 4, 5]})
    assert GAME.default_action(s, "A") == {"type": "attack", "cards": [1]}


def test_default_choice_for_starters_choice():
    seed = seed_with_special("starters_choice")
    s = GAME.setup({"mode": "tenzone"}, ["A", "B"], seed)
    s2, ev = GAME.timeout(s, s["starter"])
    assert s2["rule"] == "three_cards" and types(ev)[0] == "timeout"


def test_timeout_plays_default_and_forfeits_after_max_consecutive():
    s = make_state("prologo", pos={"A": 5, "B": 19}, max_timeouts=2, deck=[1, 2, 3, 4, 5] * 3,
                   hands={"A": [1, 2, 3, 4, 5], "B": [1, 2, 3, 4, 5]})
    s, ev = GAME.timeout(s, "A")
    assert types(ev)[:2] == ["timeout", "move"]
    assert of_type(ev, "move")[0]["card"] == 1 and of_type(ev, "move")[0]["dir"] == "back"
    assert s["timeouts"]["A"] == 1
    s, _ = act(s, "B", {"type": "move", "card": 1, "dir": "forward"})
    s, ev = GAME.timeout(s, "A")
    assert types(ev) == ["timeout", "forfeit", "match_end"]
    assert s["result"]["winner"] == "B" and s["result"]["reason"] == "timeouts"
    with pytest.raises(NotYourTurn):
        GAME.timeout(make_state("prologo"), "B")


def test_real_action_resets_timeout_count():
    s = make_state("prologo", pos={"A": 5, "B": 19}, max_timeouts=2, deck=[1, 2, 3, 4, 5] * 3)
    s, _ = GAME.timeout(s, "A")
    s, _ = GAME.timeout(s, "B")
    s, _ = act(s, "A", {"type": "move", "card": 1, "dir": "forward"})
    assert s["timeouts"]["A"] == 0
    s, _ = GAME.timeout(s, "B")
    assert s["result"]["winner"] == "A"


@pytest.mark.parametrize("seat", ["A", "B"])
def test_resign_any_time(seat):
    s = make_state("tenzone")
    s2, ev = GAME.apply(s, seat, {"type": "resign"})
    assert s2["result"]["winner"] == ("B" if seat == "A" else "A")
    assert s2["result"]["reason"] == "resigned"
    assert types(ev) == ["forfeit", "match_end"]
    assert GAME.pending(s2) == {}
    with pytest.raises(IllegalAction):
        GAME.apply(s, seat, {"type": "resign", "now": True})


def test_not_your_turn():
    s = make_state("prologo")
    with pytest.raises(NotYourTurn):
        GAME.apply(s, "B", {"type": "move", "card": 1, "dir": "back"})


@pytest.mark.parametrize("action", [
    None, [], "move", {"card": 1}, {"type": 3},
    {"type": "move"}, {"type": "move", "card": 1}, {"type": "move", "card": True, "dir": "back"},
    {"type": "move", "card": "1", "dir": "back"}, {"type": "move", "card": 1.0, "dir": "back"},
    {"type": "move", "card": 1, "dir": "up"}, {"type": "move", "card": 1, "dir": None},
    {"type": "move", "card": 1, "dir": "forward", "extra": 1},
    {"type": "attack"}, {"type": "attack", "cards": 3}, {"type": "attack", "cards": ["3"]},
    {"type": "attack", "cards": [0]}, {"type": "attack", "cards": [6]},
    {"type": "attack", "cards": [True]}, {"type": "attack", "cards": [3], "card": 3},
    {"type": "advance_attack", "move": True, "cards": [3]},
    {"type": "advance_attack", "move": 2}, {"type": "advance_attack", "move": 2, "cards": []},
    {"type": "parry"}, {"type": "parry", "cards": [3]}, {"type": "retreat", "card": 1},
    {"type": "retreat"}, {"type": "choose_special", "card": "open_hands"},
    {"type": "choose_special"}, {"type": "unknown"}, {"type": "pass"},
])
def test_malformed_or_misplaced_actions_raise_illegal_action(action):
    s = make_state("tenzone", pos={"A": 10, "B": 13},
                   hands={"A": [1, 2, 3, 3, 5], "B": [3, 3, 4, 4, 5]})
    before = repr(s)
    with pytest.raises(IllegalAction) as info:
        GAME.apply(s, "A", action)
    assert info.value.message and info.value.message[-1] in ".:)"
    assert repr(s) == before  # the caller's state is untouched


def test_defence_phase_rejects_turn_actions_and_bad_retreats():
    s = make_state("tenzone", pos={"A": 10, "B": 15},
                   hands={"A": [1, 2, 3, 3, 5], "B": [1, 1, 3, 4, 5]})
    s, _ = act(s, "A", {"type": "advance_attack", "move": 2, "cards": [3, 3]})
    for bad in ({"type": "attack", "cards": [3]}, {"type": "parry"},
                {"type": "retreat", "card": 2}, {"type": "retreat", "card": True},
                {"type": "retreat", "card": 1, "dir": "back"},
                {"type": "advance_attack", "move": 1, "cards": [2]}):
        with pytest.raises(IllegalAction):
            GAME.apply(s, "B", bad)
    s["pos"]["B"] = 22  # retreating 3, 4 or 5 would leave the track
    assert GAME.legal(s, "B") == [{"type": "retreat", "card": 1}]
    with pytest.raises(IllegalAction, match="leave the track"):
        GAME.apply(s, "B", {"type": "retreat", "card": 3})


def test_views_show_public_state():
    s = make_state("tenzone", pos={"A": 10, "B": 13}, score={"A": 2, "B": 1},
                   hands={"A": [1, 2, 3, 3, 5], "B": [3, 3, 4, 4, 5]}, deck=[1, 2, 3])
    s, _ = act(s, "A", {"type": "attack", "cards": [3]})
    for viewer in ("A", "B", SPECTATOR):
        v = GAME.view(s, viewer)
        assert v["positions"] == {"A": 10, "B": 13} and v["distance"] == 3
        assert v["starts"] == {"A": 1, "B": 23}
        assert v["score"] == {"A": 2, "B": 1} and v["discard"] == [3]
        assert v["deck_count"] == 2 and v["phase"] == "defend" and v["active"] == "B"
        assert v["attack"]["cards"] == [3] and v["mode"] == "tenzone"
        assert "seed" not in v and "deck" not in v and "aside" not in v
    assert GAME.view(s, "B")["hand"] == [3, 3, 4, 4, 5]
    assert GAME.view(s, "B")["hands"]["A"] is None
    omni = GAME.view(s, "omniscient")
    assert omni["hands"]["A"] == s["hands"]["A"] and omni["seed"] == s["seed"]


def test_bot_prefers_non_resign():
    import random

    from games.duell.bots import random_action

    rnd = random.Random(3)
    legal = [{"type": "resign"}, {"type": "parry"}]
    assert all(random_action(legal, rnd) == {"type": "parry"} for _ in range(20))
    assert random_action([{"type": "resign"}], rnd) == {"type": "resign"}
