"""The weather cycle, its public chance draws, and what morning sun and fog hide."""
from __future__ import annotations

from duel_kit import (
    GAME,
    OMNISCIENT,
    SPECTATOR,
    E,
    dumps,
    exchange,
    footwork,
    make,
    of,
    play,
    random_playout,
    seen,
    step,
)


def expected_schedule(n, sun_first, x):
    """Written from the seed's table: 1-9 normal, then sun x6, normal x3, X x6, normal x3,
    Y x6, normal x3, repeating."""
    if n <= 9:
        return "normal", None
    o = (n - 10) % 27
    other = {"A": "B", "B": "A"}
    y = {"rain": "fog", "fog": "rain"}[x]
    if o < 3:
        return "sun", sun_first
    if o < 6:
        return "sun", other[sun_first]
    if 9 <= o < 15:
        return x, None
    if 18 <= o < 24:
        return y, None
    return "normal", None


def test_schedule_table():
    for n in range(1, 120):
        for sun in "AB":
            for x in ("rain", "fog"):
                assert E.weather_at(n, sun, x) == expected_schedule(n, sun, x), n
    assert E.weather_at(10, "A", "rain") == ("sun", "A")
    assert E.weather_at(13, "A", "rain") == ("sun", "B")
    assert E.weather_at(19, "A", "fog") == ("fog", None)
    assert E.weather_at(28, "A", "fog") == ("rain", None)
    assert E.weather_at(37, "B", "fog") == ("sun", "B")


def _playout_with_weather(seed):
    rec = []
    st = random_playout(seed, {"health": 50, "max_slots": 60}, record=rec)
    return st, [e for _, _, _, ev in rec for e in ev]


def test_weather_follows_the_drawn_cycle_in_play():
    outcomes = set()
    for seed in range(12):
        st, events = _playout_with_weather(seed)
        chance = of(events, "chance")
        assert [c["slot"] for c in chance] == [10, 19, 37, 46]
        assert all(c["vis"] == "all" for c in chance)
        draws = {c["slot"]: c for c in chance}
        for e in of(events, "slot"):
            n = e["slot"]
            cyc = 10 if n < 37 else 37
            sun = draws[cyc]["seat"] if n >= 10 else "A"
            x = draws[cyc + 9]["first"] if n >= cyc + 9 else "rain"
            assert (e["weather"], e["blind"]) == expected_schedule(n, sun, x), n
        outcomes.add((draws[10]["seat"], draws[19]["first"]))
        # the draw is seeded: the same seed gives the same draws
        st2, events2 = _playout_with_weather(seed)
        assert of(events2, "chance") == chance
    assert len(outcomes) >= 3  # both seats and both orders occur


def test_weather_for_the_next_slot_is_in_every_view():
    st = make("ronin", "ronin", slot=19, x="fog")
    for viewer in ("A", "B", SPECTATOR):
        v = GAME.view(st, viewer)
        assert (v["weather"], v["blind"], v["slot"]) == ("fog", None, 19)


# ---- morning sun ---------------------------------------------------------------------------
def _sun_slot():
    """Slot 10, A is blinded. B advances with a Low Advancing Thrust; A stays with a Horizontal
    Cut: both reach at 2, HC vs LT is +1 for A."""
    st = make("ronin", "ronin", pos=(6, 10), slot=10, sun="A", options={"health": 10})
    st, ev1 = exchange(st, "HC", "LT")
    st, ev2 = step(st, "stay", "toward")
    return st, ev1 + ev2


def test_sun_hides_the_opponent_from_the_blinded_player():
    st, ev = _sun_slot()
    va = GAME.view(st, "A")["players"]["B"]
    assert va["position"] is None and va["stance"] is None
    assert va["played"] == [{"slot": 10, "hidden": True}]
    assert va["health"] == 9 and va["stamina"] == 18  # still visible
    mine = seen(ev, "A")
    assert not [e for e in mine if e["type"] in ("footwork", "step", "dodge") and e["seat"] == "B"]
    stances = [e["stance"] for e in mine if e["type"] == "stance" and e["seat"] == "B"]
    assert len(stances) == 3 and set(stances) == {None}  # opening, slot 10, slot 11
    assert [e["technique"] for e in mine if e["type"] == "technique" and e["seat"] == "B"] == [None]
    assert not [e for e in mine if e["type"] == "reveal" and e["seat"] == "B"
                and e["decision"] in ("stance", "footwork", "dodge")]
    text = dumps(mine)
    assert "low_advancing_thrust" not in text and '"toward"' not in text
    # hits, damage and health stay visible
    assert [(e["seat"], e["damage"]) for e in mine if e["type"] == "hit"] == [("B", 1)]


def test_sun_leaves_the_blinded_player_their_own_view_and_the_other_sees_all():
    st, ev = _sun_slot()
    va = GAME.view(st, "A")["players"]["A"]
    assert va["position"] == 6 and va["stance"] == "low"
    vb = GAME.view(st, "B")["players"]["A"]
    assert vb["position"] == 6 and vb["stance"] == "low"
    assert vb["played"][0]["technique"] == "horizontal_cut"
    theirs = seen(ev, "B")
    assert of(theirs, "footwork", seat="A")[0]["move"] == "stay"


def test_spectator_sees_only_what_both_players_see_under_sun():
    st, ev = _sun_slot()
    vs = GAME.view(st, SPECTATOR)["players"]
    assert vs["B"]["position"] is None and vs["B"]["stance"] is None
    assert vs["A"]["position"] == 6 and vs["A"]["stance"] == "low"
    text = dumps(seen(ev, SPECTATOR))
    assert "low_advancing_thrust" not in text and '"toward"' not in text


def test_sun_switches_to_the_other_seat_after_three_slots():
    st = make("ronin", "ronin", pos=(3, 13), slot=12, sun="A")
    st, ev = play(st, "W:middle", "W:middle")
    assert st["slot"] == 13 and st["blind"] == "B"
    assert GAME.view(st, "A")["players"]["B"]["position"] == 13
    assert GAME.view(st, "B")["players"]["A"]["position"] is None


def test_opening_stance_reveal_follows_the_next_slots_weather():
    st = make("ronin", "ronin", pos=(6, 10), slot=10, sun="A")
    st, ev = GAME.apply(st, "A", {"type": "stance", "stance": "high"})
    st, ev2 = GAME.apply(st, "B", {"type": "stance", "stance": "low"})
    assert of(seen(ev2, "A"), "stance", seat="B")[0]["stance"] is None
    assert of(seen(ev2, "B"), "stance", seat="A")[0]["stance"] == "high"
    assert GAME.view(st, "A")["players"]["B"]["stance"] is None


def test_sun_dodge_offer_does_not_reveal_the_hidden_position():
    # B (hidden from the blinded A) has no room behind: still asked, only "no" is legal.
    st = make("ronin", "ronin", pos=(6, 14), slot=10, sun="A")
    st, _ = exchange(st, "W:middle", "W:middle")
    st, _ = footwork(st)
    assert set(GAME.pending(st)) == {"A", "B"}
    assert GAME.legal(st, "B") == [{"type": "dodge", "dodge": False}]
    # The blinded A's own position is visible to B: no such courtesy needed.
    st = make("ronin", "ronin", pos=(2, 10), slot=10, sun="A")
    st, _ = exchange(st, "W:middle", "W:middle")
    st, _ = footwork(st)
    assert set(GAME.pending(st)) == {"B"}


# ---- fog -----------------------------------------------------------------------------------
def test_fog_hides_stances_and_footwork_beyond_distance_one():
    st = make("ronin", "ronin", pos=(4, 9), slot=19, x="fog", options={"health": 10})
    st, ev = play(st, "HC", "CA", fw=("toward", "stay"))
    for viewer, other in (("A", "B"), ("B", "A"), (SPECTATOR, "A"), (SPECTATOR, "B")):
        mine = seen(ev, viewer)
        assert all(e["stance"] is None for e in of(mine, "stance", seat=other))
        fw = of(mine, "footwork", seat=other)
        assert fw and all("move" not in e for e in fw)  # positions stay known...
        # ...and techniques are not hidden by fog
        assert of(mine, "technique", seat=other)[0]["technique"] is not None
    assert of(seen(ev, "B"), "footwork", seat="A")[0]["to"] == 5
    assert GAME.view(st, "B")["players"]["A"]["stance"] is None
    assert GAME.view(st, "B")["players"]["A"]["position"] == 5
    assert GAME.view(st, "A")["players"]["A"]["stance"] == "low"


def test_fog_at_distance_one_hides_nothing():
    st = make("ronin", "ronin", pos=(6, 7), slot=19, x="fog", options={"health": 10})
    st, ev = play(st, "HC", "CA")
    mine = seen(ev, "B")
    assert of(mine, "stance", seat="A")[0]["stance"] == "low"
    assert of(mine, "footwork", seat="A")[0]["move"] == "stay"


def test_weather_hidden_openings_are_published_at_the_end():
    st = make("ronin", "ronin", pos=(4, 9), slot=19, x="fog", options={"max_slots": 19})
    st, ev = play(st, "HC", "CA")
    assert st["result"]["reason"] == "max_slots"
    end = [e for e in seen(ev, "B") if e["type"] == "reveal" and e["seat"] == "A"]
    kinds = {(e["decision"], e.get("deferred", False)) for e in end}
    assert ("stance", True) in kinds and ("footwork", True) in kinds and ("plan", False) in kinds
    full = GAME.view(st, OMNISCIENT)
    for viewer in ("A", "B", SPECTATOR):
        assert {**GAME.view(st, viewer), "you": None} == full
