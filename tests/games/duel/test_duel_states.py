"""States (heavy recovery, thrust stiffness, full action lock, forced rest, misplay), stamina and
the end of an exchange."""
from __future__ import annotations

import pytest
from duel_kit import GAME, E, exchange, footwork, hp, make, of, play, pos, sta, step


# ---- heavy recovery ------------------------------------------------------------------------
@pytest.mark.parametrize("second,status", [
    ("HC", "performed"), ("W:low", "wait"), ("W:middle", "misplay"), ("RH", "misplay"),
    ("LT", "misplay"), ("CA", "misplay"), ("W:high", "misplay"), ("RC", "misplay"),
])
def test_heavy_recovery_allows_only_low_horizontal_cut_or_wait(second, status):
    st = make("ronin", "ronin", pos=(3, 13))
    st, ev = play(st, "DC " + second, "W:middle")
    assert GAME.view(st, "B")["players"]["A"]["heavy_recovery"] is True
    st, ev = step(st)
    assert of(ev, "technique", seat="A", slot=2)[0]["status"] == status


def test_heavy_recovery_after_an_advancing_cut_that_hit():
    st = make("ronin", "ronin", pos=(6, 9), options={"health": 10})
    st, ev = play(st, "AC AT", "W:middle")
    assert hp(st) == (10, 5)
    st, ev = step(st)
    assert of(ev, "technique", seat="A", slot=2)[0]["status"] == "misplay"


def test_a_cut_that_did_not_happen_gives_no_heavy_recovery():
    # Stamina 1 cannot pay the Downward Cut: forced rest, so the Low slot after it is a jump.
    st = make("ronin", "ronin", pos=(3, 13), stamina=(1, None))
    st, ev = play(st, "DC HC", "W:middle")
    assert of(ev, "technique", seat="A", slot=1)[0]["status"] == "rest"
    assert GAME.view(st, "B")["players"]["A"]["heavy_recovery"] is False
    assert of(ev, "stance", seat="A", slot=2)[0]["misplay"] is True


# ---- thrust stiffness ----------------------------------------------------------------------
@pytest.mark.parametrize("thrust", ["AT", "LT"])
def test_thrust_that_misses_leaves_only_footwork(thrust):
    st = make("ronin", "ronin", pos=(3, 13))
    st, ev = play(st, thrust + " " + thrust, "W:middle")
    assert GAME.view(st, "B")["players"]["A"]["thrust_stiffness"] is True
    assert set(GAME.pending(st)) == {"A", "B"}  # footwork is still chosen
    st, ev = footwork(st, "toward", "stay")
    assert pos(st)[0] == 5  # moved (3 + own step 1 + footwork 1)
    assert GAME.pending(st) == {"B": "dodge"}  # no dodge for the stiff player
    st, ev = step(st)
    assert of(ev, "technique", seat="A", slot=2)[0]["status"] == "misplay"


def test_stiff_player_may_wait():
    st = make("ronin", "ronin", pos=(3, 13), stamina=(10, None))
    st, ev = play(st, "AT W", "W:middle")
    assert sta(st)[0] == 8
    st, ev = step(st)
    assert of(ev, "technique", seat="A", slot=2)[0]["status"] == "wait"
    assert of(ev, "slot_end", slot=2)[0]["stamina"]["A"] == 9  # Wait + Stay


def test_thrust_that_hits_or_is_blocked():
    st = make("ronin", "ronin", pos=(6, 9), options={"health": 10})
    st, ev = play(st, "AT", "W:middle")
    assert hp(st)[1] == 8 and GAME.view(st, "A")["players"]["A"]["thrust_stiffness"] is False
    st = make("ronin", "ronin", pos=(6, 8))
    st, ev = play(st, "AT", "B")  # blocked: 0 damage -> stiff
    assert GAME.view(st, "A")["players"]["A"]["thrust_stiffness"] is True


def test_stiffness_and_heavy_recovery_clear_at_exchange_end_but_locks_remain():
    st = make("ronin", "master", pos=(3, 13))
    st, ev = play(st, "W:middle W:middle AT", "W:middle")
    st, ev = step(st)
    st, ev = step(st)  # slot 3: the thrust misses the Master -> stiff and locked
    end = of(ev, "slot_end", slot=3)[0]
    assert end["thrust_stiffness"]["A"] is True and end["lock"]["A"] == 1
    assert of(ev, "exchange_end")
    v = GAME.view(st, "B")["players"]["A"]
    assert v["thrust_stiffness"] is False and v["lock"] == 1


# ---- full action lock ----------------------------------------------------------------------
def test_locked_player_does_nothing_but_can_be_hit():
    st = make("ronin", "ronin", pos=(6, 8), lock=(1, None), options={"health": 10})
    st, ev = exchange(st, "AC", "HC")
    assert GAME.pending(st) == {"B": "footwork"}
    assert of(ev, "locked", seat="A")
    st, ev = step(st, B="stay")
    assert of(ev, "technique", seat="A")[0]["status"] == "locked"
    assert not of(ev, "step", seat="A") and pos(st)[0] == 6
    assert hp(st) == (9, 10)
    assert sta(st)[0] == 20
    assert st["P"]["A"]["lock"] == 0


# ---- forced rest ---------------------------------------------------------------------------
def test_forced_rest_at_zero_stamina():
    st = make("ronin", "ronin", pos=(6, 8), stamina=(0, None), options={"health": 10})
    st, ev = exchange(st, "W:middle", "HC")
    assert of(ev, "rest", seat="A")
    assert GAME.pending(st) == {"B": "footwork"}
    st, ev = step(st)
    assert of(ev, "technique", seat="A")[0]["status"] == "rest"
    assert hp(st)[0] == 9  # can still be hit
    assert of(ev, "slot_end")[0]["stamina"]["A"] == 1


def test_forced_rest_below_the_planned_cost():
    st = make("ronin", "ronin", pos=(6, 8), stamina=(1, 2))
    st, ev = exchange(st, "DC", "HC")
    assert of(ev, "rest", seat="A") and not of(ev, "rest", seat="B")
    st, ev = step(st)
    assert of(ev, "slot_end")[0]["stamina"] == {"A": 2, "B": 1}
    assert hp(st)[0] == 4


# ---- misplay -------------------------------------------------------------------------------
def test_misplay_still_allows_footwork_and_dodge():
    st = make("ronin", "ronin", pos=(6, 12))
    st, ev = play(st, "W:high LT", "W:middle")
    assert of(ev, "stance", seat="A", slot=2)[0]["misplay"] is True
    st, ev = footwork(st, "toward", "stay")
    assert pos(st)[0] == 7
    assert "A" in GAME.pending(st)
    st, ev = step(st, dA=True)
    assert of(ev, "dodge", seat="A")[0]["to"] == 5
    assert of(ev, "technique", seat="A")[0]["status"] == "dodged"


def test_misplay_costs_nothing():
    st = make("ronin", "ronin", pos=(6, 8), stamina=(10, None), options={"health": 10})
    st, ev = play(st, "W:high LT", "W:middle")
    st, ev = step(st)
    assert of(ev, "slot_end", slot=2)[0]["stamina"]["A"] == 11 and hp(st) == (10, 10)


# ---- stamina and the end of an exchange ----------------------------------------------------
def test_exchange_recovers_five_capped_at_twenty():
    st = make("ronin", "ronin", pos=(3, 13), stamina=(10, 18))
    st, ev = play(st, "RC RC RC", "W:middle")
    st, ev = step(st)
    st, ev = step(st)
    assert of(ev, "slot_end", slot=3)[0]["stamina"] == {"A": 4, "B": 20}
    assert sta(st) == (9, 20)


def test_stamina_never_goes_below_zero():
    st = make("ronin", "ronin", pos=(6, 8), stamina=(2, 3))
    st, ev = play(st, "DC", "DC")
    assert of(ev, "clash")
    assert of(ev, "slot_end")[0]["stamina"] == {"A": 0, "B": 0}


def test_unplayed_slots_are_discarded_after_a_dodge():
    st = make("ronin", "ronin", pos=(6, 12))
    st, ev = play(st, "HC HC HC", "W:middle", dodge=(True, False))
    assert st["phase"] == "stance" and st["xs"] == 1 and st["ex"] == 2
    plan = [e for e in of(ev, "reveal", seat="A") if e["decision"] == "plan"]
    assert [x["technique"] for x in plan[0]["choice"]["slots"]] == ["horizontal_cut"] * 3


def test_positions_and_health_carry_over_to_the_next_exchange():
    st = make("ronin", "ronin", pos=(6, 9), options={"health": 10})
    st, ev = play(st, "HC", "W:middle", fw=("toward", "stay"))
    st, ev = step(st)
    st, ev = step(st)
    assert st["phase"] == "stance" and pos(st) == (7, 9) and hp(st) == (10, 9)
    assert st["slot"] == 4


def test_flags_are_bits():
    assert len({E.F_LOCKED, E.F_REST, E.F_MISPLAY, E.F_DODGED, E.F_STAYED, E.F_SV, E.F_OPEN,
                E.F_CUT, E.F_STIFF}) == 9
