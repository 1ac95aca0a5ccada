"""The nine worked examples of /work/shared/rules/duel.md, each through the real apply path."""
from __future__ import annotations

from duel_kit import GAME, exchange, hp, make, of, play, pos, sta, step


def test_example_1_mighty_beats_the_table():
    st = make("samurai", "brute", pos=(6, 10))
    st, ev = play(st, "AT", "AC", fw=("toward", "toward"))
    assert of(ev, "footwork", seat="A")[0]["to"] == 7 and of(ev, "footwork", seat="B")[0]["to"] == 9
    assert pos(st) == (7, 9)  # the technique steps would both end on 8: neither moves
    assert of(ev, "technique", seat="B")[0]["mighty"] is True
    assert hp(st) == (0, 6)
    assert sta(st) == (18, 18)
    assert st["result"]["winner"] == "B" and st["result"]["reason"] == "knockout"


def test_example_2_mighty_cut_that_misses_locks_for_three_slots():
    st = make("samurai", "brute", pos=(6, 10))
    st, ev = play(st, "B", "AC", fw=("stay", "toward"))
    assert pos(st) == (5, 8)
    assert not of(ev, "hit")
    assert sta(st) == (20, 18)  # the Block did not work: free
    assert st["P"]["B"]["lock"] == 3
    # Slots 2 and 3: B is locked (not asked for footwork, technique does not happen).
    for _ in range(2):
        assert set(GAME.pending(st)) == {"A"}
        st, ev = step(st)
        assert of(ev, "technique", seat="B")[0]["status"] == "locked"
    # The lock outlives the exchange: slot 1 of the next exchange is still locked.
    assert st["phase"] == "stance" and st["P"]["B"]["lock"] == 1
    st, ev = exchange(st, "W:middle", "DC")
    assert set(GAME.pending(st)) == {"A"}
    st, ev = step(st)
    assert of(ev, "technique", seat="B")[0]["status"] == "locked"
    assert st["P"]["B"]["lock"] == 0
    assert set(GAME.pending(st)) == {"A", "B"}  # free again in the fifth slot


def test_example_3_master_punishes_a_whiff():
    st = make("master", "ronin", pos=(6, 10))
    st, ev = play(st, "W:middle", "HC")
    assert not of(ev, "hit")
    assert st["P"]["B"]["lock"] == 1
    assert of(ev, "lock", seat="B")[0]["slots"] == 1
    assert sta(st)[1] == 19


def test_example_4_rain_dodge_and_pursuit():
    st = make("ronin", "ronin", pos=(8, 10), slot=19, x="rain", options={"health": 10})
    assert st["w"] == "rain"
    st, ev = play(st, "AC", "W:middle", dodge=(False, True))
    d = of(ev, "dodge", seat="B")[0]
    assert (d["from"], d["to"]) == (10, 13)
    s = of(ev, "step", seat="A")[0]
    assert (s["from"], s["to"]) == (8, 10)
    assert of(ev, "technique", seat="B")[0]["status"] == "dodged"
    assert of(ev, "hit", seat="B")[0]["damage"] == 5
    assert hp(st) == (10, 5)
    end = of(ev, "slot_end")[0]
    assert end["stamina"] == {"A": 18, "B": 19}
    assert of(ev, "exchange_end")
    assert st["phase"] == "stance"  # the exchange ended after this slot


def test_example_5_clash_at_the_wall():
    st = make("ronin", "ronin", pos=(2, 4))
    st, ev = play(st, "DC", "DC")
    assert of(ev, "clash") and not of(ev, "hit")
    assert sta(st) == (16, 16)
    assert pos(st) == (1, 5)
    assert hp(st) == (5, 5)
    v = GAME.view(st, "A")["players"]
    assert v["A"]["heavy_recovery"] and v["B"]["heavy_recovery"]


def test_example_6a_high_to_low_without_heavy_recovery_is_a_misplay():
    st = make("ronin", "ronin", pos=(3, 13), stamina=(10, None))
    st, ev1 = play(st, "W:high HC HC", "W:middle")
    assert sta(st)[0] == 11  # slot 1: Wait + Stay
    st, ev = step(st)
    stance = of(ev1, "stance", seat="A", slot=2)[0]
    assert stance["misplay"] and stance["planned"] == "low" and stance["stance"] == "middle"
    assert of(ev, "technique", seat="A")[0]["status"] == "misplay"
    assert sta(st)[0] == 11  # no technique, no Wait bonus
    # slot 3 (already revealed) is judged from Middle: Low is one step, legal
    s3 = of(ev, "stance", seat="A", slot=3)[0]
    assert s3["stance"] == "low" and "misplay" not in s3
    st, ev = step(st)
    assert of(ev, "technique", seat="A")[0]["status"] == "performed"
    assert of(ev, "slot_end")[0]["stamina"]["A"] == 10


def test_example_6b_low_horizontal_cut_straight_after_a_high_cut_is_legal():
    st = make("ronin", "ronin", pos=(3, 13))
    st, _ = play(st, "DC HC", "W:middle")
    st, ev = step(st)
    assert of(ev, "technique", seat="A")[0]["status"] == "performed"
    assert st["P"]["A"]["stance"] == "low"


def test_example_6c_thrust_after_a_high_cut_is_a_misplay():
    st = make("ronin", "ronin", pos=(3, 13))
    st, _ = play(st, "DC AT", "W:middle")
    st, ev = step(st)
    assert of(ev, "technique", seat="A")[0]["status"] == "misplay"
    assert st["P"]["A"]["stance"] == "middle"


def test_example_7_footwork_conflicts():
    st = make("ronin", "ronin", pos=(6, 8))
    st, _ = play(st, "W:middle", "W:middle", fw=("toward", "toward"))
    assert pos(st) == (6, 8)
    st = make("ronin", "samurai", pos=(6, 9))
    st, _ = play(st, "W:middle", "W:middle", fw=("toward2", "stay"))
    assert pos(st) == (8, 9)
    st = make("ronin", "samurai", pos=(6, 8))
    st, _ = play(st, "W:middle", "W:middle", fw=("toward2", "stay"))
    assert pos(st) == (7, 8)


def test_example_8_samurai_counter_against_an_advancing_cut():
    st = make("samurai", "ronin", pos=(6, 9))
    st, ev = play(st, "CA", "AC")
    assert pos(st) == (6, 8)
    assert of(ev, "hit", seat="B")[0]["damage"] == 1
    assert not of(ev, "hit", seat="A")
    assert hp(st) == (5, 4)
    assert sta(st) == (19, 18)
    assert GAME.view(st, "A")["players"]["B"]["heavy_recovery"] is True


def test_example_9_both_fall_is_a_draw():
    st = make("ronin", "ronin", pos=(6, 8), health=(1, 1))
    st, ev = play(st, "HC", "HC")
    assert hp(st) == (0, 0)
    assert st["result"]["draw"] is True and st["result"]["winner"] is None
    assert st["result"]["places"] == {"A": 1, "B": 1}
    assert of(ev, "match_end")
