"""Combat: both endings, elimination, concede/resign, forfeits by timeout, max_battles,
ranking with shared places."""
from __future__ import annotations

import pytest
from combat_support import GAME, cards_in_play, fight, fight_to_end, of_type, rig

from games.base import SPECTATOR, IllegalAction, MatchOver, NotYourTurn, seat_names


# ---- ending: prisoners ----------------------------------------------------------------------
def test_prisoners_ending_ranks_by_prisoners_with_shared_places():
    # Battle 1: A (9) takes 3; battle 2: B (8) takes 3; battle 3: C (7) takes 3; D never wins.
    st = rig([[9, 1, 1], [1, 8, 1], [1, 1, 7], [2, 2, 2]])
    st, _ = fight_to_end(st)
    res = GAME.result(st)
    assert res["reason"] == "cards_out"
    assert res["scores"] == {"A": 4, "B": 4, "C": 4, "D": 0}
    assert res["places"] == {"A": 1, "B": 1, "C": 1, "D": 4}
    assert res["winner"] is None and res["draw"] is False
    assert res["battles"] == 3


def test_prisoners_ending_when_fewer_than_two_seats_have_cards():
    # A has more cards; once B is empty the game ends and A's leftover draw pile does not count.
    st = rig([[1, 2, 9, 9, 9], [3, 4]])
    st, ev = fight(st)
    assert GAME.result(st) is None
    st, ev = fight(st)
    res = GAME.result(st)
    assert res["reason"] == "cards_out" and res["battles"] == 2
    assert res["places"] == {"B": 1, "A": 2} and res["winner"] == "B"
    assert res["scores"] == {"A": 0, "B": 4}
    assert len(st["draw"]["A"]) == 3
    assert of_type(ev, "match_end")[0]["result"] == res


def test_a_seat_without_cards_waits_and_is_still_ranked():
    st = rig([[9, 1, 1], [1], [1, 2, 3]])
    st, _ = fight(st)
    assert set(GAME.pending(st)) == {"A", "C"}  # B is empty: no longer pending
    st, _ = fight_to_end(st)
    assert GAME.result(st)["places"]["B"] == 3


def test_max_battles_does_not_apply_to_the_prisoners_ending():
    st = rig([[9, 9, 9], [1, 1, 1]], max_battles=1)
    st, _ = fight_to_end(st)
    assert GAME.result(st)["battles"] == 3


# ---- ending: surrender ----------------------------------------------------------------------
def test_surrender_reshuffles_prisoners_when_the_draw_pile_empties():
    st = rig([[9], [1, 3, 5]], ending="surrender")
    st, ev = fight(st)
    (rs,) = of_type(ev, "reshuffle")
    assert rs == {"type": "reshuffle", "vis": "all", "seat": "A", "cards": 2}
    assert sorted(st["draw"]["A"]) == ["1", "9"] and st["prisoners"]["A"] == ""
    view = GAME.view(st, SPECTATOR)["seats"]["A"]
    assert view["draw"] == 2 and view["prisoners"] == 0 and view["out"] is None
    assert cards_in_play(st) == 4


def test_surrender_reshuffles_mid_attack_when_short():
    # extra: A wins the first battle, then holds 1 card + 4 prisoners and needs 2 to attack.
    st = rig([[9, 9, 1], [1, 1, 5, 5]], variant="extra", ending="surrender")
    st, _ = fight(st)
    assert len(st["draw"]["A"]) == 1 and len(st["prisoners"]["A"]) == 4
    st, ev = fight(st)
    kinds = [e["type"] for e in ev if e["type"] in ("reshuffle", "attack")]
    assert kinds[:2] == ["reshuffle", "attack"]
    att = of_type(ev, "attack")[0]["attacks"]["A"]
    assert len(att["cards"]) == 2 and att["cards"][0] == 1
    assert cards_in_play(st) == 7


def test_surrender_last_seat_standing_wins_and_exit_order_ranks():
    # Battle 1: A takes everything; C is empty and out. Battle 2: A beats B; B out.
    st = rig([[9, 9], [1, 8], [2]], ending="surrender")
    st, ev = fight(st)
    (out,) = of_type(ev, "out")
    assert out["seats"] == ["C"] and out["reason"] == "no_cards"
    assert GAME.view(st, SPECTATOR)["seats"]["C"]["out"] == "no_cards"
    assert set(GAME.pending(st)) == {"A", "B"}
    st, ev = fight(st)
    res = GAME.result(st)
    assert res["reason"] == "last_standing"
    assert res["places"] == {"A": 1, "B": 2, "C": 3} and res["winner"] == "A"


def test_surrender_seats_out_together_share_a_place():
    st = rig([[9, 9], [1], [1]], ending="surrender")
    st, ev = fight(st)
    assert of_type(ev, "out")[0]["seats"] == ["B", "C"]
    res = GAME.result(st)
    assert res["places"] == {"A": 1, "B": 2, "C": 2}


def test_surrender_max_battles_ranks_by_cards_held():
    st = rig([[9, 1, 1], [1, 9, 1]], ending="surrender", max_battles=1)
    st, _ = fight(st)
    res = GAME.result(st)
    assert res["reason"] == "max_battles" and res["battles"] == 1
    assert res["scores"] == {"A": 4, "B": 2}
    assert res["places"] == {"A": 1, "B": 2}


def test_surrender_max_battles_tie_is_a_draw():
    st = rig([[9, 1, 1], [1, 9, 1]], ending="surrender", max_battles=2)
    st, _ = fight_to_end(st)
    res = GAME.result(st)
    assert res["reason"] == "max_battles" and res["battles"] == 2
    assert res["places"] == {"A": 1, "B": 1} and res["draw"] is True


def test_surrender_default_game_ends_within_max_battles():
    st = GAME.setup({"ending": "surrender"}, seat_names(2), 11)
    st, _ = fight_to_end(st, limit=5_000)
    assert GAME.result(st)["battles"] <= 500


# ---- concede / resign / forfeit -------------------------------------------------------------
def test_concede_is_allowed_for_a_seat_that_is_not_pending():
    st = rig([[7, 1, 1], [5, 1, 1], [3, 1, 1]])
    st, _ = GAME.apply(st, "A", {"type": "fight"})
    assert "A" not in GAME.pending(st) and GAME.legal(st, "A") == []
    st, ev = GAME.apply(st, "A", {"type": "concede"})
    (fo,) = of_type(ev, "forfeit")
    assert fo["seat"] == "A" and fo["set_aside"] == 3
    assert GAME.result(st) is None
    assert set(GAME.pending(st)) == {"B", "C"}
    assert GAME.view(st, SPECTATOR)["seats"]["A"]["out"] == "resigned"
    assert len(st["set_aside"]) == 3 and cards_in_play(st) == 9


def test_concede_by_the_last_pending_seat_resolves_the_battle():
    st = rig([[7, 1], [5, 1], [3, 1]])
    st, _ = fight(st, ["A", "B"])
    st, ev = GAME.apply(st, "C", {"type": "concede"})
    cap = of_type(ev, "capture")[0]
    assert cap["seat"] == "A" and cap["cards"] == 2
    assert "C" not in of_type(ev, "attack")[0]["attacks"]


def test_a_conceding_seats_stake_stays_on_the_table():
    st = rig([[5, 1, 1, 1, 2], [5, 1, 1, 1, 9], [5, 1, 1, 1, 3]])
    st, _ = fight(st)  # three-way tie: war
    st, ev = GAME.apply(st, "C", {"type": "concede"})
    assert of_type(ev, "forfeit")[0]["set_aside"] == 4
    assert set(GAME.pending(st)) == {"A", "B"}
    st, ev = fight(st)
    cap = of_type(ev, "capture")[0]
    assert cap["seat"] == "B" and cap["cards"] == 3 + 8  # C's 5 included
    assert cards_in_play(st) == 15


def test_concede_leaving_one_seat_ends_the_match_even_mid_war():
    st = rig([[5, 1, 1, 1, 2], [5, 1, 1, 1, 9]])
    st, _ = fight(st)
    st, ev = GAME.apply(st, "B", {"type": "concede"})
    res = GAME.result(st)
    assert res["reason"] == "last_standing" and res["places"] == {"A": 1, "B": 2}
    assert of_type(ev, "match_end")
    assert GAME.pending(st) == {}
    assert cards_in_play(st) == 10  # the stake stays on the table, counted


def test_conceded_seat_ranks_below_every_seat_still_in():
    st = rig([[9, 9, 1, 1], [1, 1, 2, 2], [1, 1, 3, 3]])
    st, _ = fight(st)
    st, _ = fight(st)
    assert len(st["prisoners"]["A"]) == 6
    st, _ = GAME.apply(st, "A", {"type": "concede"})
    st, _ = fight_to_end(st)
    res = GAME.result(st)
    assert res["places"]["A"] == 3 and res["places"]["C"] == 1


def test_seats_out_at_different_times_rank_by_exit_order():
    st = rig([[2, 2, 2], [3, 3, 3], [4, 4, 4], [5, 5, 5]])
    st, _ = GAME.apply(st, "D", {"type": "concede"})
    st, _ = GAME.apply(st, "B", {"type": "resign"})
    st, _ = GAME.apply(st, "A", {"type": "concede"})
    res = GAME.result(st)
    assert res["places"] == {"C": 1, "A": 2, "B": 3, "D": 4}
    assert res["reason"] == "last_standing"


def test_concede_and_resign_are_the_same_and_only_once():
    for kind in ("concede", "resign"):
        st = rig([[5, 1], [3, 1], [4, 1]])
        st, _ = GAME.apply(st, "B", {"type": kind})
        with pytest.raises(IllegalAction):
            GAME.apply(st, "B", {"type": "concede"})
        with pytest.raises(IllegalAction):
            GAME.apply(st, "B", {"type": "resign"})
        with pytest.raises(NotYourTurn):
            GAME.apply(st, "B", {"type": "fight"})


def test_concede_shape_is_strict():
    st = rig([[5], [3]])
    with pytest.raises(IllegalAction):
        GAME.apply(st, "A", {"type": "concede", "now": True})


def test_concede_in_two_seats_ends_the_match():
    st = GAME.setup({}, seat_names(2), 3)
    st, ev = GAME.apply(st, "A", {"type": "concede"})
    assert GAME.result(st)["places"] == {"A": 2, "B": 1}
    with pytest.raises(MatchOver):
        GAME.apply(st, "B", {"type": "fight"})
    with pytest.raises(MatchOver):
        GAME.apply(st, "B", {"type": "concede"})


def test_concede_between_battles_can_end_the_prisoners_game():
    # Only A and B have cards; B concedes: A is the only seat with cards among C and A.
    st = rig([[9, 1], [1, 2], []])
    st, ev = GAME.apply(st, "B", {"type": "concede"})
    res = GAME.result(st)
    assert res["reason"] == "cards_out"
    assert res["places"] == {"A": 1, "C": 1, "B": 3}


# ---- timeouts -------------------------------------------------------------------------------
def test_timeout_plays_fight():
    st = rig([[7, 1], [5, 1]], max_timeouts=3)
    st, ev = GAME.timeout(st, "A")
    assert ev[0] == {"type": "timeout", "vis": "all", "seat": "A", "count": 1}
    assert of_type(ev, "ready")[0]["seat"] == "A"
    assert GAME.view(st, SPECTATOR)["seats"]["A"]["ready"] is True
    with pytest.raises(NotYourTurn):
        GAME.timeout(st, "A")
    st, ev = GAME.timeout(st, "B")
    assert of_type(ev, "capture")[0]["seat"] == "A"
    assert st["timeouts"] == {"A": 1, "B": 1}
    st, _ = GAME.apply(st, "A", {"type": "fight"})
    assert st["timeouts"]["A"] == 0


def test_repeated_timeouts_forfeit_and_the_rest_play_on():
    st = rig([[1, 1, 1, 1], [2, 2, 2, 2], [3, 3, 3, 3]], max_timeouts=2)
    st, _ = GAME.timeout(st, "A")
    st, _ = fight(st, ["B", "C"])
    st, ev = GAME.timeout(st, "A")
    fo = of_type(ev, "forfeit")[0]
    assert fo["seat"] == "A" and fo["reason"] == "timeouts"
    assert GAME.result(st) is None
    assert set(GAME.pending(st)) == {"B", "C"}
    st, _ = fight_to_end(st)
    res = GAME.result(st)
    assert res["places"] == {"C": 1, "B": 2, "A": 3}
    assert cards_in_play(st) == 12


def test_timeout_forfeit_of_the_last_pending_seat_resolves_the_round():
    st = rig([[1, 1], [2, 2], [3, 3]], max_timeouts=1)
    st, _ = fight(st, ["B", "C"])
    st, ev = GAME.timeout(st, "A")
    assert [e["type"] for e in ev][:3] == ["timeout", "forfeit", "attack"]
    assert of_type(ev, "capture")[0]["seat"] == "C"


def test_war_whose_only_fighter_concedes_is_set_aside():
    # B ties with its last card; C has no cards; A alone fights the war, then concedes.
    st = rig([[5, 1, 1, 1, 2], [5], [2], []])
    st, _ = fight(st)
    assert GAME.pending(st) == {"A": "fight"}
    st, ev = GAME.apply(st, "A", {"type": "concede"})
    assert of_type(ev, "set_aside")[0]["cards"] == 3
    assert not of_type(ev, "attack")
    res = GAME.result(st)
    assert res["reason"] == "cards_out"
    assert res["places"] == {"B": 1, "C": 1, "D": 1, "A": 4}
    assert cards_in_play(st) == 7
