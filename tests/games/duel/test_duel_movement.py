"""Footwork, walls, rain distances, dodge availability/cost/distance, pursuit, clash knock-back."""
from __future__ import annotations

import pytest
from duel_kit import GAME, exchange, footwork, hp, make, of, play, pos, sta

from games.base import GameError, IllegalAction


@pytest.mark.parametrize("board,mv_a,mv_b,expect", [
    ((6, 10), "toward", "toward", (7, 9)),
    ((6, 10), "away", "away", (5, 11)),
    ((1, 15), "away", "away", (1, 15)),  # walls
    ((6, 7), "toward", "stay", (6, 7)),  # cannot enter the opponent's space
    ((6, 7), "toward", "away", (6, 8)),  # judged against the opponent's current space
    ((6, 8), "toward", "toward", (6, 8)),  # same space: neither moves
])
def test_footwork(board, mv_a, mv_b, expect):
    st = make("master", "master", pos=board)
    st, _ = play(st, "W:middle", "W:middle", fw=(mv_a, mv_b))
    assert pos(st) == expect


def test_ronin_passing_each_other_means_neither_moves():
    st = make("ronin", "ronin", pos=(6, 9))
    st, _ = play(st, "W:middle", "W:middle", fw=("toward2", "toward2"))
    assert pos(st) == (6, 9)


def test_rain_adds_one_to_every_move():
    st = make("master", "master", pos=(4, 12), slot=20, x="rain")
    st, _ = play(st, "W:middle", "W:middle", fw=("toward", "away"))
    assert pos(st) == (6, 14)
    st = make("master", "master", pos=(4, 12), slot=20, x="rain")
    st, _ = play(st, "W:middle", "W:middle", fw=("stay", "toward"))
    assert pos(st) == (4, 10)


def test_rain_technique_step_and_knockback():
    st = make("ronin", "ronin", pos=(3, 13), slot=20, x="rain")
    st, ev = play(st, "AC", "RC")
    assert pos(st) == (5, 15)  # 2 forward; 2 back stopped by the wall at 15
    st = make("ronin", "ronin", pos=(5, 7), slot=20, x="rain")
    st, ev = play(st, "DC", "DC")
    assert of(ev, "clash")
    assert pos(st) == (3, 9)  # knock-back is a move: 2 in rain


def test_rain_is_not_everywhere():
    st = make("master", "master", pos=(4, 12), slot=20, x="fog")
    st, _ = play(st, "W:middle", "W:middle", fw=("toward", "away"))
    assert pos(st) == (5, 13)


# ---- dodge ---------------------------------------------------------------------------------
def test_dodge_costs_one_and_moves_back_two():
    st = make("ronin", "ronin", pos=(6, 10))
    st, ev = play(st, "W:middle", "W:middle", dodge=(True, False))
    assert pos(st) == (4, 10)
    assert of(ev, "slot_end")[0]["stamina"]["A"] == 19
    assert of(ev, "exchange_end")


def test_dodge_in_rain_is_three():
    st = make("ronin", "ronin", pos=(6, 10), slot=20, x="rain")
    st, ev = play(st, "W:middle", "W:middle", dodge=(False, True))
    assert pos(st) == (6, 13)


@pytest.mark.parametrize("a,rain,offered", [(2, False, False), (3, False, True),
                                            (3, True, False), (4, True, True)])
def test_dodge_needs_room_behind(a, rain, offered):
    st = make("master", "master", pos=(a, 12), slot=20 if rain else None, x="rain")
    st, _ = exchange(st, "W:middle", "W:middle")
    st, _ = footwork(st)
    assert ("A" in GAME.pending(st)) == offered
    if not offered:
        with pytest.raises(GameError):
            GAME.apply(st, "A", {"type": "dodge", "dodge": True})


def test_dodge_not_offered_when_locked_stiff_or_resting():
    st = make("master", "master", pos=(6, 12), lock=(1, None))
    st, _ = exchange(st, "W:middle", "W:middle")
    st, _ = footwork(st)
    assert "A" not in GAME.pending(st)
    st = make("master", "master", pos=(6, 12), stiff=(True, False))
    st, _ = exchange(st, "W:middle", "W:middle")
    st, _ = footwork(st)
    assert GAME.pending(st) == {"B": "dodge"}
    st = make("master", "master", pos=(6, 12), stamina=(0, 0))
    st, ev = exchange(st, "W:middle", "W:middle")
    assert st["phase"] == "footwork" and st["slot"] == 2  # both rested through slot 1
    assert sta(st) == (1, 1)


def test_neither_can_dodge_skips_the_step():
    st = make("master", "master", pos=(2, 14))
    st, ev = exchange(st, "W:middle", "W:middle")
    st, ev = footwork(st)
    assert st["phase"] == "footwork" and st["slot"] == 2


def test_dodge_shape_is_checked():
    st = make("master", "master", pos=(6, 10))
    st, _ = exchange(st, "W:middle", "W:middle")
    st, _ = footwork(st)
    for bad in ({"type": "dodge", "dodge": 1}, {"type": "dodge"},
                {"type": "dodge", "dodge": True, "x": 1}, {"type": "footwork", "move": "stay"}):
        with pytest.raises(IllegalAction):
            GAME.apply(st, "A", bad)


# ---- pursuit -------------------------------------------------------------------------------
@pytest.mark.parametrize("t,b,damage", [
    ("AC", 8, 5),  # B dodges 8 -> 10, A steps 6 -> 7: distance 3
    ("AC", 9, 0),  # distance 4
    ("AT", 8, 1),
    ("AT", 9, 0),
    ("LT", 8, 1),
    ("DC", 7, 0),  # distance 3 after the dodge, but only advancing techniques pursue
    ("RC", 7, 0),
    ("HC", 7, 0),
    ("RH", 7, 0),
])
def test_pursuit_of_a_dodger(t, b, damage):
    st = make("ronin", "ronin", pos=(6, b), options={"health": 10})
    st, ev = play(st, t, "W:middle", dodge=(False, True))
    assert [h["damage"] for h in of(ev, "hit")] == ([damage] if damage else [])
    assert of(ev, "technique", seat="B")[0]["status"] == "dodged"


def test_pursuing_thrust_that_hits_is_not_stiff():
    st = make("ronin", "ronin", pos=(6, 8), options={"health": 10})
    st, ev = play(st, "AT", "W:middle", dodge=(False, True))
    assert of(ev, "slot_end")[0]["thrust_stiffness"]["A"] is False


def test_both_dodge():
    st = make("ronin", "ronin", pos=(6, 9))
    st, ev = play(st, "DC", "AC", dodge=(True, True))
    assert pos(st) == (4, 11) and not of(ev, "hit") and sta(st) == (20, 20)


def test_dodger_cannot_hit():
    st = make("ronin", "ronin", pos=(6, 8), options={"health": 10})
    st, ev = play(st, "W:middle", "HC", dodge=(False, True))
    assert hp(st) == (10, 10)


# ---- clash ---------------------------------------------------------------------------------
def test_clash_knockback_stops_at_both_walls():
    st = make("ronin", "ronin", pos=(13, 15), options={"track_length": 15})
    st, ev = play(st, "DC", "DC")
    assert of(ev, "clash") and pos(st) == (12, 15)


def test_advancing_cut_clash():
    st = make("ronin", "ronin", pos=(6, 10))
    st, ev = play(st, "AC", "AC")
    assert of(ev, "clash") and pos(st) == (6, 10)  # 7 and 9 after the steps, then knocked back


def test_track_length_option_centres_the_start():
    s = GAME.setup({"track_length": 21}, ["A", "B"], 1)
    assert (s["P"]["A"]["pos"], s["P"]["B"]["pos"]) == (9, 13)
    s = GAME.setup({}, ["A", "B"], 1)
    assert (s["P"]["A"]["pos"], s["P"]["B"]["pos"]) == (6, 10)
