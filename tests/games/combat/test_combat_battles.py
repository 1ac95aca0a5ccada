"""Combat: the attack arithmetic, ties, wars, short piles, undecidable wars."""
from __future__ import annotations

import pytest
from combat_support import GAME, cards_in_play, fight, fight_to_end, of_type, rig

from games.base import SPECTATOR


def attacks(events):
    return [e["attacks"] for e in of_type(events, "attack")]


# ---- the five attack variants --------------------------------------------------------------
@pytest.mark.parametrize(
    "variant, extra, a, b, a_attack, b_attack, winner",
    [
        ("basic", {}, [7], [5], (7, "card", "7"), (5, "card", "5"), "A"),
        ("basic", {}, [2], [10], (2, "card", "2"), (10, "card", "10"), "B"),
        ("extra", {}, [3, 4], [6, 2], (7, "sum", "3 + 4 = 7"), (8, "sum", "6 + 2 = 8"), "B"),
        ("advanced", {}, [1, 2, 3], [2, 2, 1],
         (6, "sum", "1 + 2 + 3 = 6"), (5, "sum", "2 + 2 + 1 = 5"), "A"),
        ("advanced", {"advanced_cards": 4}, [1, 1, 1, 1], [1, 1, 1, 2],
         (4, "sum", "1 + 1 + 1 + 1 = 4"), (5, "sum", "1 + 1 + 1 + 2 = 5"), "B"),
        ("versus", {}, [2, 9], [5, 5],
         (7, "subtract", "9 - 2 = 7"), (0, "subtract", "5 - 5 = 0"), "A"),
        ("versus", {}, [10, 1], [3, 10],
         (9, "subtract", "10 - 1 = 9"), (7, "subtract", "10 - 3 = 7"), "A"),
        ("multiply", {}, [7, 6], [5, 8],
         (42, "multiply", "7 x 6 = 42"), (40, "multiply", "5 x 8 = 40"), "A"),
        ("multiply", {}, [1, 10], [3, 4],
         (10, "multiply", "1 x 10 = 10"), (12, "multiply", "3 x 4 = 12"), "B"),
    ],
)
def test_variant_arithmetic(variant, extra, a, b, a_attack, b_attack, winner):
    st = rig([a, b], variant=variant, **extra)
    st, ev = fight(st)
    (att,) = attacks(ev)
    assert (att["A"]["value"], att["A"]["op"], att["A"]["text"]) == a_attack
    assert (att["B"]["value"], att["B"]["op"], att["B"]["text"]) == b_attack
    assert att["A"]["cards"] == a and att["B"]["cards"] == b
    (cap,) = of_type(ev, "capture")
    assert cap["seat"] == winner and cap["cards"] == len(a) + len(b)
    assert len(st["prisoners"][winner]) == len(a) + len(b)
    # The view keeps the finished battle on show, with the same formula data.
    last = GAME.view(st, SPECTATOR)["last_battle"]
    assert last["winner"] == winner
    assert last["rounds"][0]["A"] == {**att["A"]}


@pytest.mark.parametrize(
    "variant, lone, other, lone_value, other_value",
    [
        ("extra", 9, [3, 4], 9, 7),        # a short sum is the sum of what it has
        ("advanced", 6, [1, 1, 3], 6, 5),
        ("versus", 9, [10, 2], 9, 8),      # a lone card has no defence: its own value
        ("multiply", 9, [2, 4], 9, 8),     # a lone card is its own product
    ],
)
def test_short_attack_uses_what_it_has(variant, lone, other, lone_value, other_value):
    st = rig([[lone], other], variant=variant)
    st, ev = fight(st)
    (att,) = attacks(ev)
    assert att["A"]["cards"] == [lone] and att["A"]["value"] == lone_value
    assert att["A"]["text"] == str(lone)
    assert att["B"]["value"] == other_value
    assert of_type(ev, "capture")[0]["seat"] == "A"


def test_short_attack_with_two_of_three_cards():
    st = rig([[4, 5], [1, 1, 1]], variant="advanced")
    st, ev = fight(st)
    (att,) = attacks(ev)
    assert att["A"] == {"down": 0, "cards": [4, 5], "value": 9, "op": "sum", "text": "4 + 5 = 9"}


def test_each_battle_needs_every_armed_seat_to_fight():
    st = rig([[7, 1], [5, 1], [3, 1]])
    assert GAME.pending(st) == {"A": "fight", "B": "fight", "C": "fight"}
    st, ev = GAME.apply(st, "B", {"type": "fight"})
    assert of_type(ev, "ready") == [{"type": "ready", "vis": "all", "seat": "B", "battle": 1}]
    assert set(GAME.pending(st)) == {"A", "C"}
    assert GAME.view(st, "A")["seats"]["B"]["ready"] is True
    assert GAME.view(st, SPECTATOR)["clash"]["ready"] == ["B"]
    st, ev = GAME.apply(st, "A", {"type": "fight"})
    assert not of_type(ev, "attack")  # nothing is turned up before the last confirmation
    st, ev = GAME.apply(st, "C", {"type": "fight"})
    assert of_type(ev, "capture")[0]["seat"] == "A"
    assert GAME.pending(st) == {"A": "fight", "B": "fight", "C": "fight"}  # the next battle


# ---- ties and wars --------------------------------------------------------------------------
def test_two_way_tie_goes_to_war():
    st = rig([[5, 1, 2, 3, 9, 4], [5, 6, 7, 8, 3, 4]])
    st, ev = fight(st)
    (war,) = of_type(ev, "war")
    assert war["tied"] == ["A", "B"] and war["value"] == 5 and war["seats"] == ["A", "B"]
    assert not of_type(ev, "capture")
    view = GAME.view(st, SPECTATOR)
    assert view["clash"]["kind"] == "war" and view["clash"]["war"] == 1
    assert view["table"]["cards"] == 2 and view["table"]["face_down"] == 0
    st, ev = fight(st)
    (att,) = attacks(ev)
    assert att["A"]["down"] == 3 and att["A"]["cards"] == [9]
    assert att["B"]["down"] == 3 and att["B"]["cards"] == [3]
    cap = of_type(ev, "capture")[0]
    assert cap["seat"] == "A" and cap["cards"] == 10
    assert len(st["prisoners"]["A"]) == 10
    assert GAME.view(st, SPECTATOR)["last_battle"]["rounds"][1]["B"]["down"] == 3


def test_three_way_tie():
    st = rig([[8, 1, 1, 1, 2], [8, 1, 1, 1, 7], [8, 1, 1, 1, 3]])
    st, ev = fight(st)
    assert of_type(ev, "war")[0]["tied"] == ["A", "B", "C"]
    st, ev = fight(st)
    cap = of_type(ev, "capture")[0]
    assert cap["seat"] == "B" and cap["cards"] == 15


def test_tie_for_strongest_sends_every_armed_seat_to_war_and_a_loser_can_win():
    # A and B tie at 8; C's 2 was the weakest, but C fights the war too and wins it.
    st = rig([[8, 1, 1, 1, 4], [8, 1, 1, 1, 5], [2, 1, 1, 1, 10]])
    st, ev = fight(st)
    war = of_type(ev, "war")[0]
    assert war["tied"] == ["A", "B"] and war["seats"] == ["A", "B", "C"]
    assert set(GAME.pending(st)) == {"A", "B", "C"}
    st, ev = fight(st)
    assert of_type(ev, "capture")[0] == {
        "type": "capture", "vis": "all", "battle": 1, "seat": "C", "value": 10, "cards": 15
    }


def test_six_way_tie():
    piles = [[5, 1, 1, 1, v] for v in (2, 3, 4, 9, 6, 7)]
    st = rig(piles)
    st, ev = fight(st)
    assert of_type(ev, "war")[0]["tied"] == ["A", "B", "C", "D", "E", "F"]
    st, ev = fight(st)
    cap = of_type(ev, "capture")[0]
    assert cap["seat"] == "D" and cap["cards"] == 30
    assert cards_in_play(st) == 30


def test_repeated_wars_until_the_tie_breaks():
    a = [6, 1, 1, 1, 4, 2, 2, 2, 9]
    b = [6, 3, 3, 3, 4, 5, 5, 5, 8]
    st = rig([a, b], variant="basic")
    st, ev = fight(st)
    st, ev = fight(st)
    (war,) = of_type(ev, "war")
    assert war["war"] == 2 and war["value"] == 4
    assert GAME.view(st, "A")["table"] == {
        "rounds": GAME.view(st, "B")["table"]["rounds"], "cards": 10, "face_down": 6
    }
    st, ev = fight(st)
    cap = of_type(ev, "capture")[0]
    assert cap["seat"] == "A" and cap["cards"] == 18
    assert st["battles"] == 1  # a battle with its wars is one battle


def test_war_in_a_two_card_variant():
    st = rig([[3, 4, 1, 1, 1, 9, 9], [5, 2, 2, 2, 2, 1, 1]], variant="extra")
    st, ev = fight(st)
    assert of_type(ev, "war")[0]["value"] == 7
    st, ev = fight(st)
    (att,) = attacks(ev)
    assert att["A"]["down"] == 3 and att["A"]["value"] == 18
    assert att["B"]["down"] == 3 and att["B"]["value"] == 2


# ---- short of cards in a war ----------------------------------------------------------------
def test_war_short_pile_keeps_enough_for_the_attack():
    # After the tie A has 2 cards: one face down, one attack. B has plenty.
    st = rig([[5, 1, 9], [5, 2, 2, 2, 3]])
    st, _ = fight(st)
    st, ev = fight(st)
    (att,) = attacks(ev)
    assert att["A"]["down"] == 1 and att["A"]["cards"] == [9]
    assert att["B"]["down"] == 3 and att["B"]["cards"] == [3]
    assert of_type(ev, "capture")[0]["cards"] == 8


def test_war_with_exactly_one_attack_left_lays_nothing_down():
    st = rig([[5, 9], [5, 2, 2, 2, 3]])
    st, _ = fight(st)
    st, ev = fight(st)
    (att,) = attacks(ev)
    assert att["A"]["down"] == 0 and att["A"]["cards"] == [9]


def test_war_short_in_a_multi_card_variant():
    # extra (2 cards): A keeps 3 after the tie -> 1 down + a 2-card attack;
    # B keeps 1 -> no face-down card, a 1-card attack.
    st = rig([[4, 4, 1, 6, 6], [2, 6, 5]], variant="extra")
    st, _ = fight(st)
    st, ev = fight(st)
    (att,) = attacks(ev)
    assert (att["A"]["down"], att["A"]["cards"], att["A"]["value"]) == (1, [6, 6], 12)
    assert (att["B"]["down"], att["B"]["cards"], att["B"]["value"]) == (0, [5], 5)


def test_seat_with_no_cards_sits_the_war_out_and_its_stake_stays():
    # A ties with its last card: B and C fight the war; C's 4 takes everything, A's 5 too.
    st = rig([[5], [5, 2, 2, 2, 3], [1, 4]])
    st, ev = fight(st)
    war = of_type(ev, "war")[0]
    assert war["tied"] == ["A", "B"] and war["seats"] == ["B", "C"]
    assert set(GAME.pending(st)) == {"B", "C"}
    st, ev = fight(st)
    (att,) = attacks(ev)
    assert "A" not in att
    assert att["C"] == {"down": 0, "cards": [4], "value": 4, "op": "card", "text": "4"}
    cap = of_type(ev, "capture")[0]
    assert cap["seat"] == "C" and cap["cards"] == 3 + 4 + 1
    assert "5" in st["prisoners"]["C"]


def test_a_lone_seat_with_cards_wins_the_war():
    st = rig([[5], [5, 2, 2, 2, 3]])
    st, ev = fight(st)
    assert of_type(ev, "war")[0]["seats"] == ["B"]
    assert GAME.pending(st) == {"B": "fight"}
    st, ev = fight(st)
    assert of_type(ev, "capture")[0]["seat"] == "B"
    assert len(st["prisoners"]["B"]) == 6  # both 5s, three face down, the 3
    assert GAME.result(st)["places"] == {"B": 1, "A": 2}


# ---- undecidable wars -----------------------------------------------------------------------
def test_undecidable_war_sets_the_table_aside():
    st = rig([[9, 5], [1, 5]])
    st, ev = fight(st)
    st, ev = fight(st)
    (war,) = of_type(ev, "war")
    assert war["seats"] == []
    assert of_type(ev, "set_aside")[0]["cards"] == 2
    assert not of_type(ev, "capture")
    assert len(st["set_aside"]) == 2 and st["table"] == []
    assert GAME.view(st, SPECTATOR)["set_aside"] == 2
    assert GAME.view(st, SPECTATOR)["last_battle"]["winner"] is None
    res = GAME.result(st)
    assert res["places"] == {"A": 1, "B": 2} and res["scores"] == {"A": 2, "B": 0}
    assert cards_in_play(st) == 4


def test_undecidable_after_a_war_round():
    # Tie, then both run out mid-war on another tie: everything on the table is set aside.
    st = rig([[5, 1, 2, 3, 7], [5, 4, 4, 4, 7], [1]])
    st, ev = fight(st)
    st, ev = fight(st)
    assert [w["seats"] for w in of_type(ev, "war")] == [[]]
    assert of_type(ev, "set_aside")[0]["cards"] == 11
    res = GAME.result(st)
    assert res["reason"] == "cards_out"
    assert res["places"] == {"A": 1, "B": 1, "C": 1} and res["draw"] is True


def test_undecidable_war_in_surrender_puts_everyone_out_together():
    st = rig([[5], [5]], ending="surrender")
    st, ev = fight(st)
    assert of_type(ev, "set_aside")[0]["cards"] == 2
    res = GAME.result(st)
    assert res["reason"] == "all_out"
    assert res["places"] == {"A": 1, "B": 1} and res["draw"] is True and res["winner"] is None


def test_full_game_conserves_cards_to_the_end():
    st = rig([[5, 1, 2, 3, 9, 4], [5, 6, 7, 8, 3, 4], [2, 2]])
    st, _ = fight_to_end(st)
    assert cards_in_play(st) == 14
