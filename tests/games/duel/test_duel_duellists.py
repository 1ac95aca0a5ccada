"""The four duellists: abilities and exemptions, through real play."""
from __future__ import annotations

import pytest
from duel_kit import GAME, exchange, footwork, hp, make, of, play, pos, sta, step

from games.base import IllegalAction


# ---- Brute ---------------------------------------------------------------------------------
def test_brute_has_one_more_health():
    st = make("brute", "ronin")
    assert hp(st) == (6, 5)
    st = make("brute", "master", options={"health": 9})
    assert hp(st) == (10, 9)


def test_mighty_cut_in_slot_one_overrides_the_table():
    # Downward Cut vs Advancing Thrust is -5 for the cut; Mighty, the Brute deals 5 instead.
    st = make("brute", "ronin", pos=(6, 9), options={"health": 10})
    st, ev = play(st, "DC", "AT")
    assert of(ev, "technique", seat="A")[0]["mighty"] is True
    assert hp(st) == (11, 5)


def test_no_mighty_cut_after_slot_one():
    st = make("brute", "ronin", pos=(6, 13), options={"health": 10})
    st, _ = play(st, "W:high DC", "W:middle AT")
    assert st["xs"] == 2
    st["P"]["B"]["pos"] = 9  # close in for slot 2 (no footwork needed)
    st, ev = step(st)
    assert "mighty" not in of(ev, "technique", seat="A")[0]
    assert hp(st) == (6, 10)  # the plain table: the cut takes 5


def test_mighty_cut_against_mighty_cut_is_a_clash_and_both_are_locked():
    st = make("brute", "brute", pos=(6, 8))
    st, ev = play(st, "DC", "DC")
    assert of(ev, "clash") and not of(ev, "hit")
    assert [of(ev, "lock", seat=s)[0]["slots"] for s in "AB"] == [3, 3]
    # neither can act, so slots 2 and 3 play themselves and the locks count down
    assert st["phase"] == "stance" and [st["P"][s]["lock"] for s in "AB"] == [1, 1]


def test_mighty_cut_stopped_by_samurai_block_locks_three_not_four():
    st = make("brute", "samurai", pos=(6, 8))
    st, ev = play(st, "AC", "B")
    assert pos(st)[1] - pos(st)[0] == 2
    assert not of(ev, "hit")
    assert sta(st) == (18, 19)  # the Block worked
    assert st["P"]["A"]["lock"] == 3


def test_mighty_downward_cut_is_stopped_by_samurai_block_but_plain_one_is_not():
    st = make("brute", "samurai", pos=(6, 7))
    st, ev = play(st, "DC", "B")  # B steps back to 8: distance 2
    assert not of(ev, "hit") and st["P"]["A"]["lock"] == 3
    st = make("ronin", "samurai", pos=(6, 7), options={"health": 10})
    st, ev = play(st, "DC", "B")
    assert hp(st) == (10, 5)


def test_mighty_cut_beats_samurai_counterattack():
    st = make("brute", "samurai", pos=(6, 9), options={"health": 10})
    st, ev = play(st, "AC", "CA")
    assert hp(st) == (11, 5)


def test_missed_mighty_cut_locks_even_when_dodged_but_not_when_pursuit_hits():
    st = make("brute", "ronin", pos=(6, 12), options={"health": 10})
    st, ev = play(st, "DC", "W:middle", dodge=(False, True))
    assert st["P"]["A"]["lock"] == 3
    st = make("brute", "ronin", pos=(6, 8), options={"health": 10})
    st, ev = play(st, "AC", "W:middle", dodge=(False, True))
    assert of(ev, "hit", seat="B")[0]["damage"] == 5
    assert st["P"]["A"]["lock"] == 0


def test_retreating_cut_is_never_mighty():
    st = make("brute", "ronin", pos=(1, 3), options={"health": 10})
    st, ev = play(st, "RC", "W:middle")
    assert "mighty" not in of(ev, "technique", seat="A")[0]
    assert hp(st)[1] == 8 and st["P"]["A"]["lock"] == 0


# ---- Samurai -------------------------------------------------------------------------------
def test_samurai_block_stops_advancing_cut_and_locks_the_attacker():
    st = make("samurai", "ronin", pos=(6, 8))
    st, ev = play(st, "B", "AC")
    assert not of(ev, "hit")
    assert st["P"]["B"]["lock"] == 1 and of(ev, "lock", seat="B")
    assert sta(st)[0] == 19


@pytest.mark.parametrize("thrust", ["AT", "LT"])
def test_samurai_block_of_a_thrust_locks_the_attacker(thrust):
    st = make("samurai", "ronin", pos=(6, 8))
    st, ev = play(st, "B", thrust)
    assert not of(ev, "hit") and st["P"]["B"]["lock"] == 1


def test_plain_block_of_a_thrust_does_not_lock():
    st = make("ronin", "ronin", pos=(6, 8))
    st, ev = play(st, "B", "AT")
    assert not of(ev, "hit") and st["P"]["B"]["lock"] == 0


def test_samurai_block_does_not_stop_a_plain_downward_cut():
    st = make("samurai", "ronin", pos=(6, 7), options={"health": 10})
    st, ev = play(st, "B", "DC")
    assert hp(st) == (5, 10) and st["P"]["B"]["lock"] == 0


def test_samurai_counterattack_only_helps_against_advancing_cut():
    st = make("samurai", "ronin", pos=(6, 8), options={"health": 10})
    st, ev = play(st, "CA", "DC")
    assert hp(st) == (5, 10)


def test_samurai_is_exempt_from_heavy_recovery():
    st = make("samurai", "ronin", pos=(3, 13))
    st, ev = play(st, "DC AT", "W:middle")
    assert GAME.view(st, "B")["players"]["A"]["heavy_recovery"] is False
    st, ev = step(st)
    assert of(ev, "technique", seat="A")[0]["status"] == "performed"


def test_samurai_may_go_low_straight_after_a_high_cut():
    st = make("samurai", "ronin", pos=(3, 13))
    st, _ = play(st, "DC HC", "W:middle")
    st, ev = step(st)
    assert of(ev, "technique", seat="A")[0]["status"] == "performed"


def test_samurai_is_exempt_from_thrust_stiffness():
    st = make("samurai", "ronin", pos=(4, 12))
    st, ev = play(st, "AT AT", "W:middle")
    assert not of(ev, "hit")
    assert GAME.view(st, "B")["players"]["A"]["thrust_stiffness"] is False
    st, _ = footwork(st)
    assert st["phase"] == "dodge" and "A" in GAME.pending(st)  # may dodge
    st, ev = step(st)
    assert of(ev, "technique", seat="A", slot=2)[0]["status"] == "performed"


# ---- Ronin ---------------------------------------------------------------------------------
def test_ronin_has_two_space_footwork_others_do_not():
    st = make("ronin", "master", pos=(6, 12))
    st, _ = exchange(st, "W:middle", "W:middle")
    moves_a = [x["move"] for x in GAME.legal(st, "A")]
    moves_b = [x["move"] for x in GAME.legal(st, "B")]
    assert set(moves_a) == {"toward", "stay", "away", "toward2", "away2"}
    assert set(moves_b) == {"toward", "stay", "away"}
    with pytest.raises(IllegalAction):
        GAME.apply(st, "B", {"type": "footwork", "move": "toward2"})
    st, _ = step(st, "away2", "stay")
    assert pos(st) == (4, 12)


def test_ronin_two_spaces_in_rain_is_three():
    st = make("ronin", "master", pos=(6, 14), slot=19, x="rain")
    st, _ = play(st, "W:middle", "W:middle", fw=("toward2", "stay"))
    assert pos(st) == (9, 14)


# ---- Master --------------------------------------------------------------------------------
def test_master_locks_an_attacker_whose_attack_is_stopped():
    st = make("master", "ronin", pos=(1, 2))
    st, ev = play(st, "B", "RC")  # A's step is stopped by the wall; B steps back to 3
    assert pos(st) == (1, 3)  # both reach: the Block stops the Retreating Cut (0)
    assert not of(ev, "hit") and sta(st)[0] == 19
    assert st["P"]["B"]["lock"] == 1


def test_master_locks_an_attacker_after_a_dodge():
    st = make("master", "ronin", pos=(6, 8))
    st, ev = play(st, "W:middle", "HC", dodge=(True, False))
    assert not of(ev, "hit") and st["P"]["B"]["lock"] == 1


def test_master_lock_after_a_clash():
    st = make("master", "ronin", pos=(6, 8))
    st, ev = play(st, "DC", "DC")
    assert of(ev, "clash")
    assert [st["P"][s]["lock"] for s in "AB"] == [0, 1]


def test_master_does_not_lock_a_hit_or_a_non_attack():
    st = make("master", "ronin", pos=(6, 8), options={"health": 10})
    st, ev = play(st, "W:middle", "HC")
    assert hp(st) == (9, 10) and st["P"]["B"]["lock"] == 0
    for t in ("W:middle", "CA", "B"):
        st = make("master", "ronin", pos=(6, 8))
        st, ev = play(st, "W:middle", t)
        assert st["P"]["B"]["lock"] == 0, t


def test_locks_do_not_stack_mighty_miss_against_master():
    st = make("brute", "master", pos=(6, 12))
    st, ev = play(st, "DC", "W:middle")
    assert st["P"]["A"]["lock"] == 3


def test_a_new_lock_only_raises_the_remaining_count():
    # B carries 2 locked slots; in slot 1 B is locked, A (Master) waits; the remaining lock
    # counts down and is not reset by anything smaller.
    st = make("master", "brute", pos=(6, 12), lock=(None, 2))
    st, ev = play(st, "W:middle", "DC")
    assert of(ev, "technique", seat="B")[0]["status"] == "locked"
    assert st["P"]["B"]["lock"] == 1
