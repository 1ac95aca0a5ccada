"""Each technique alone (against a waiting opponent), in and out of range, with its cost and step."""
from __future__ import annotations

import pytest
from duel_kit import OWN_STEP, make, of, play, pos, sta

# From the seed's technique table.
ATTACKS = {  # abbr: (range lo, range hi, damage, stamina)
    "DC": (1, 2, 5, 2),
    "AC": (1, 2, 5, 2),
    "RC": (1, 2, 2, 2),
    "AT": (2, 2, 2, 2),
    "HC": (1, 2, 1, 1),
    "RH": (1, 2, 1, 2),
    "LT": (1, 2, 2, 2),
}


def board_for(t, final):
    """Positions so that after ``t``'s own step (B waits) the distance is ``final``."""
    s = OWN_STEP[t]
    a = 1 if s < 0 else 6  # a backward step from the wall does not happen
    return a, a + final + (s if s > 0 else 0)


@pytest.mark.parametrize("t", sorted(ATTACKS))
@pytest.mark.parametrize("final", [1, 2, 3, 4])
def test_attack_alone_in_and_out_of_range(t, final):
    lo, hi, dmg, cost = ATTACKS[t]
    st = make("ronin", "ronin", pos=board_for(t, final), options={"health": 10})
    st, ev = play(st, t, "W:middle")
    assert pos(st)[1] - pos(st)[0] == final
    hits = of(ev, "hit", seat="B")
    if lo <= final <= hi:
        assert [h["damage"] for h in hits] == [dmg]
    else:
        assert hits == []
    assert of(ev, "slot_end")[0]["stamina"]["A"] == 20 - cost  # paid even when it misses
    assert of(ev, "technique", seat="A")[0]["status"] == "performed"


@pytest.mark.parametrize("t,step", [("AC", 1), ("AT", 1), ("LT", 1), ("RC", -1), ("RH", -1),
                                    ("B", -1), ("DC", 0), ("HC", 0), ("CA", 0)])
def test_own_step(t, step):
    st = make("ronin", "ronin", pos=(6, 12))
    st, ev = play(st, t, "W:middle")
    assert pos(st)[0] == 6 + step
    assert bool(of(ev, "step", seat="A")) == (step != 0)


@pytest.mark.parametrize("t", ["CA", "B"])
def test_defensive_technique_alone_does_nothing_and_costs_nothing(t):
    st = make("ronin", "ronin", pos=(6, 8), stamina=(15, 15))
    st, ev = play(st, t, "W:middle")
    assert not of(ev, "hit")
    assert of(ev, "slot_end")[0]["stamina"]["A"] == 15


def test_wait_is_free_and_recovers_one_only_with_stay():
    st = make("ronin", "ronin", pos=(4, 12), stamina=(15, 15))
    st, ev = play(st, "W:middle", "W:middle", fw=("stay", "toward"))
    assert of(ev, "slot_end")[0]["stamina"] == {"A": 16, "B": 15}


def test_wait_bonus_is_capped_at_twenty():
    st = make("ronin", "ronin", pos=(4, 12))
    st, ev = play(st, "W:middle", "W:middle")
    assert sta(st) == (20, 20)
