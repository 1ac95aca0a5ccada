"""Single and double elimination: bracket properties over random events (2-256 players,
random drops), byes to the top seeds, the grand final with and without the reset, the
losers-bracket drop-in order, placements and small fields."""
from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import app.tournaments as T
from app.tournaments.seeding import next_power_of_two
from tests.tournaments.support import EXAMPLES, appearances, run

sizes = st.one_of(st.integers(2, 12), st.integers(13, 64), st.integers(65, 256))


def losses_by_player(state):
    out: dict = {}
    for m in state["matches"].values():
        if m["status"] == "done" and m["loser"] is not None:
            out[m["loser"]] = out.get(m["loser"], 0) + 1
    return out


def voided(state):
    return {p for m in state["matches"].values() if m["void"] for p in m["players"] if p is not None}


@settings(max_examples=EXAMPLES, deadline=None)
@given(n=sizes, seed=st.integers(0, 10**6), drops=st.sampled_from([0.0, 0.05, 0.2]))
def test_single_elimination_properties(n, seed, drops):
    state, log = run("single_elimination", n, seed=seed, drop_rate=drops, mid_round_drop_rate=drops / 2,
                     log_standings=False)
    size = next_power_of_two(n)
    assert state["round"] == size.bit_length() - 1
    out: set = set()
    for entry in log:
        # one call may pass through rounds where nothing was left to play
        for rnd in sorted({p["round"] for p in entry["pairings"]}):
            pairings = [p for p in entry["pairings"] if p["round"] == rnd]
            seen = appearances(pairings)
            assert all(c == 1 for c in seen.values())
            # every player still in (not knocked out, not dropped) plays or has a bye
            still_in = {p for p in entry["active"] if p not in out}
            assert still_in <= set(seen)
            for p in pairings:
                m = state["matches"][p["id"]]  # the final record (the log holds the pairing as issued)
                if m["loser"] is not None:
                    out.add(m["loser"])
    champ = T.champion(state)
    losses = losses_by_player(state)
    if champ is not None:
        assert champ not in losses and not _dropped(state, champ)
    assert all(v == 1 for v in losses.values())
    # everybody but the champion is out, exactly once
    assert set(losses) | voided(state) | ({champ} - {None}) == {p["id"] for p in state["players"]}
    rows = T.standings(state)
    if champ is not None:
        assert rows[0]["player"] == champ and rows[0]["place"] == 1


def _dropped(state, pid):
    return next(p["dropped"] for p in state["players"] if p["id"] == pid)


@settings(max_examples=EXAMPLES, deadline=None)
@given(n=sizes, seed=st.integers(0, 10**6), drops=st.sampled_from([0.0, 0.05]),
       reset=st.booleans())
def test_double_elimination_properties(n, seed, drops, reset):
    state, log = run("double_elimination", n, {"grand_final_reset": reset}, seed=seed,
                     drop_rate=drops, mid_round_drop_rate=drops / 2, log_standings=False)
    for entry in log:
        for rnd in {p["round"] for p in entry["pairings"]}:
            pairings = [p for p in entry["pairings"] if p["round"] == rnd]
            assert all(c == 1 for c in appearances(pairings).values())
    champ = T.champion(state)
    losses = losses_by_player(state)
    gf = state["matches"]["GF"]
    gf2 = state["matches"].get("GF2")
    assert (gf2 is not None) == reset
    if reset and gf2["status"] == "done":
        # the reset is only played when the losers-bracket champion won the first final
        assert gf["winner"] == gf["players"][1] and not gf["forfeit"]
        assert champ == gf2["winner"]
    elif reset:
        assert gf2["status"] == "skipped"
    if champ is not None:
        assert losses.get(champ, 0) <= 1 and not _dropped(state, champ)
    for _pid, k in losses.items():
        assert k <= 2
    everyone = {p["id"] for p in state["players"]}
    two = {p for p, k in losses.items() if k == 2}
    gf_loser = {gf["loser"]} if gf["status"] == "done" and gf["loser"] else set()
    assert two | voided(state) | gf_loser | ({champ} - {None}) == everyone


@settings(max_examples=EXAMPLES, deadline=None)
@given(n=st.integers(3, 128), seed=st.integers(0, 10**6))
def test_losers_bracket_first_two_rounds_never_rematch(n, seed):
    state, log = run("double_elimination", n, seed=seed, log_standings=False)
    met: set = set()
    for entry in log:
        for p in entry["pairings"]:
            if p["status"] == "done" and not p["bye"] and p["players"][1] is not None:
                key = frozenset(p["players"])
                if p["bracket"] == "losers" and p["level"] <= 2:
                    assert key not in met, p["id"]
                met.add(key)


def test_favourites_winning_rematch_only_in_losers_final():
    for n in (4, 8, 16, 32, 64, 128):
        state = T.create("double_elimination", [{"id": i, "rating": -i} for i in range(n)])
        met, rematches = set(), []
        while not T.is_finished(state):
            state, ps = T.next_pairings(state, copy=False)
            for p in ps:
                if p["status"] == "pending":
                    key = frozenset(p["players"])
                    if key in met and p["bracket"] == "losers":
                        rematches.append(p["id"])
                    met.add(key)
                    T.report(state, p["id"], {"winner": min(p["players"])}, copy=False)
        last_lb = f"L{2 * (n.bit_length() - 2)}.1"
        assert rematches == [last_lb], (n, rematches)
        assert T.champion(state) == 0


def test_byes_go_to_top_seeds():
    state = T.create("single_elimination", [{"id": f"s{i}", "rating": 100 - i} for i in range(1, 6)])
    state, ps = T.next_pairings(state)
    byes = {p["players"][0] for p in ps if p["bye"]}
    assert byes == {"s1", "s2", "s3"}
    assert [p["players"] for p in ps if not p["bye"]] == [["s4", "s5"]]
    assert T.bracket(state)["size"] == 8


def _play_de(n, winners, reset=True):
    """Run a double elimination where ``winners(p)`` picks each match winner."""
    state = T.create("double_elimination", [{"id": i} for i in range(n)],
                     {"seeding": "manual", "grand_final_reset": reset})
    while not T.is_finished(state):
        state, ps = T.next_pairings(state)
        for p in ps:
            if p["status"] == "pending":
                state = T.report(state, p["id"], {"winner": winners(p)})
    return state


def test_grand_final_reset():
    top = lambda p: min(p["players"])  # noqa: E731
    # the WB champion wins the grand final: no reset
    s = _play_de(4, top)
    assert s["matches"]["GF2"]["status"] == "skipped" and T.champion(s) == 0
    # the LB champion wins the grand final: the reset is played and decides
    lb_wins_gf = lambda p: max(p["players"]) if p["id"] == "GF" else min(p["players"])  # noqa: E731
    s = _play_de(4, lb_wins_gf)
    assert s["matches"]["GF2"]["status"] == "done" and T.champion(s) == 0
    lb_wins_both = lambda p: max(p["players"]) if p["id"].startswith("GF") else min(p["players"])  # noqa: E731
    s = _play_de(4, lb_wins_both)
    assert T.champion(s) == 1  # seed 2 lost W2.1 to seed 1, came back through the LB final
    # without the reset option, the first grand final decides
    s = _play_de(4, lb_wins_gf, reset=False)
    assert "GF2" not in s["matches"] and T.champion(s) == 1
    rows = T.standings(s)
    assert [(r["player"], r["place"]) for r in rows[:2]] == [(1, 1), (0, 2)]


def test_double_elimination_structure_and_placements_for_8():
    s = _play_de(8, lambda p: min(p["players"]))
    rounds = [[p["id"] for p in T.pairings(s, r) if not p["bye"]] for r in range(1, s["round"] + 1)]
    assert rounds == [
        ["W1.1", "W1.2", "W1.3", "W1.4"],
        ["W2.1", "W2.2", "L1.1", "L1.2"],
        ["W3.1", "L2.1", "L2.2"],
        ["L3.1"],
        ["L4.1"],
        ["GF"],
    ]
    places = [(r["player"], r["place"], r["place_to"]) for r in T.standings(s)]
    assert places == [(0, 1, 1), (1, 2, 2), (2, 3, 3), (3, 4, 4), (4, 5, 6), (5, 5, 6), (6, 7, 8), (7, 7, 8)]


def test_single_elimination_placements():
    state = T.create("single_elimination", [{"id": i} for i in range(8)], {"seeding": "manual"})
    while not T.is_finished(state):
        state, ps = T.next_pairings(state)
        for p in ps:
            if p["status"] == "pending":
                state = T.report(state, p["id"], {"winner": min(p["players"]), "games": None})
    rows = T.standings(state)
    assert [(r["player"], r["place"], r["place_to"]) for r in rows] == [
        (0, 1, 1), (1, 2, 2), (2, 3, 4), (3, 3, 4), (4, 5, 8), (5, 5, 8), (6, 5, 8), (7, 5, 8)]
    assert rows[3]["eliminated_in"] == "W2.1"  # seed 4 meets seed 1 in the top half


@pytest.mark.parametrize("fmt", ["single_elimination", "double_elimination"])
def test_two_and_three_players(fmt):
    s = T.create(fmt, [{"id": "a"}, {"id": "b"}], {"seeding": "manual"})
    s, ps = T.next_pairings(s)
    assert [p["players"] for p in ps] == [["a", "b"]]
    s = T.report(s, ps[0]["id"], {"winner": "b"})
    if fmt == "single_elimination":
        assert T.is_finished(s) and T.champion(s) == "b"
    else:
        s, ps = T.next_pairings(s)  # grand final: the rematch, "a" now from the losers side
        assert [p["id"] for p in ps] == ["GF"] and ps[0]["players"] == ["b", "a"]
        s = T.report(s, "GF", {"winner": "a"})
        s, ps = T.next_pairings(s)
        assert [p["id"] for p in ps] == ["GF2"]
        s = T.report(s, "GF2", {"winner": "a"})
        assert T.champion(s) == "a"
    s = T.create(fmt, [{"id": x} for x in "abc"], {"seeding": "manual"})
    s, ps = T.next_pairings(s)
    assert [(p["players"], p["bye"]) for p in ps] == [(["a", None], True), (["b", "c"], False)]


def test_drop_gives_walkovers_in_brackets():
    s = T.create("single_elimination", [{"id": i} for i in range(4)], {"seeding": "manual"})
    s, ps = T.next_pairings(s)  # W1.1: 0-3, W1.2: 1-2
    s = T.drop(s, 3)  # pending match: forfeited at once
    m = T.get_pairing(s, "W1.1")
    assert m["status"] == "done" and m["forfeit"] and m["winner"] == 0 and m["result"]["games"] == [1, 0]
    s = T.report(s, "W1.2", {"winner": 2})
    s = T.drop(s, 0)  # between rounds: the final opens as a walkover
    s, ps = T.next_pairings(s)
    assert [(p["id"], p["forfeit"], p["winner"], p["table"]) for p in ps] == [("W2.1", True, 2, None)]
    assert T.is_finished(s) and T.champion(s) == 2
    # both finalists gone: nobody wins
    s = T.create("single_elimination", [{"id": i} for i in range(2)])
    s = T.drop(T.drop(s, 0), 1)
    s, ps = T.next_pairings(s)
    assert ps == [] and T.is_finished(s) and T.champion(s) is None


def test_exhaustive_small_double_elimination():
    """Every outcome sequence of a 4-player double elimination (with reset) ends with one
    champion and everybody else out."""
    ids = list(range(4))
    for bits in itertools.product([0, 1], repeat=7):
        it = iter(bits)
        state = T.create("double_elimination", [{"id": i} for i in ids], {"seeding": "manual"})
        while not T.is_finished(state):
            state, ps = T.next_pairings(state, copy=False)
            for p in ps:
                if p["status"] == "pending":
                    T.report(state, p["id"], {"winner": p["players"][next(it, 0)]}, copy=False)
        champ = T.champion(state)
        rows = T.standings(state)
        assert rows[0]["player"] == champ and rows[0]["place"] == 1
        assert sorted(r["place"] for r in rows) == [1, 2, 3, 4]
