"""Swiss: pairing properties over random events (2-256 players, random drops), the bye rules,
late entries, the top cut, and a hand-computed tie-breaker example."""
from __future__ import annotations

import math
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import app.tournaments as T
from app.tournaments.swiss import pair_round
from tests.tournaments.support import EXAMPLES, appearances, rematch_free_pairing_exists, run

sizes = st.one_of(st.integers(2, 12), st.integers(13, 64), st.integers(65, 256))


def check_swiss_rounds(log, state):
    met: set = set()
    byes: dict = {}
    for entry in log:
        pairings = [p for p in entry["pairings"] if p["stage"] == "swiss"]
        if not pairings and not entry["active"]:
            continue
        if not pairings:
            continue
        active = entry["active"]
        seen = appearances(pairings)
        # every active player exactly once (a match or the bye); nobody else
        assert set(seen) == active
        assert all(c == 1 for c in seen.values())
        bye = [p["players"][0] for p in pairings if p["bye"]]
        assert len(bye) == len(active) % 2
        if bye:
            least = min(byes.get(p, 0) for p in active)
            # nobody gets a second bye while an active player has none
            assert byes.get(bye[0], 0) == least
            eligible = [r["player"] for r in entry["standings"]
                        if r["player"] in active and byes.get(r["player"], 0) == least]
            lowest = eligible[-1]
            if bye[0] != lowest:
                # only allowed when giving it to the lowest-ranked eligible player forces a rematch
                assert not rematch_free_pairing_exists(sorted(active - {lowest}), met, None)
        rematches = [p for p in pairings if not p["bye"] and frozenset(p["players"]) in met]
        if rematches:
            ok = {p for p in active if byes.get(p, 0) == min(byes.get(q, 0) for q in active)}
            assert not rematch_free_pairing_exists(sorted(active), met, ok), rematches
        for p in pairings:
            if p["bye"]:
                byes[p["players"][0]] = byes.get(p["players"][0], 0) + 1
            else:
                met.add(frozenset(p["players"]))
                assert p["table"] is not None and len(p["starts"]) == p["best_of"]
    return met, byes


@pytest.mark.slow
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=sizes, seed=st.integers(0, 10**6), drops=st.sampled_from([0.0, 0.02, 0.1]),
       best_of=st.sampled_from([1, 3]))
def test_swiss_properties(n, seed, drops, best_of):
    state, log = run("swiss", n, {"best_of": best_of}, seed=seed, drop_rate=drops,
                     mid_round_drop_rate=drops / 2)
    check_swiss_rounds(log, state)
    rounds = max(1, math.ceil(math.log2(n)))
    assert state["round"] == rounds
    assert T.is_finished(state)
    rows = T.standings(state)
    assert len(rows) == n and [r["rank"] for r in rows] == list(range(1, n + 1))
    for r in rows:
        assert r["points"] == 3 * r["wins"] + r["draws"]
        assert r["wins"] + r["draws"] + r["losses"] == r["rounds"]
    # the champion is the best-ranked player who did not drop
    assert T.champion(state) == next(r["player"] for r in rows if not r["dropped"])
    # sorted by match points, then OMW% (shown rounded, so only a weak order can be checked)
    keys = [(-r["points"], -r["omw"]) for r in rows]
    assert keys == sorted(keys)


@settings(max_examples=10, deadline=None)
@given(n=st.integers(3, 9), seed=st.integers(0, 10**6))
def test_more_rounds_than_opponents_still_pairs_everyone(n, seed):
    # rematches become unavoidable; they must still be the fewest possible
    state, log = run("swiss", n, {"rounds": n + 2}, seed=seed)
    check_swiss_rounds(log, state)
    assert state["round"] == n + 2


def test_first_round_folds_by_seed_and_bye_goes_to_lowest_seed():
    state = T.create("swiss", [{"id": i, "rating": 2000 - i} for i in range(9)])
    state, ps = T.next_pairings(state)
    assert [p["players"] for p in ps] == [[0, 4], [1, 5], [2, 6], [3, 7], [8, None]]
    assert [p["table"] for p in ps] == [1, 2, 3, 4, None]
    assert ps[-1]["bye"] and ps[-1]["status"] == "done" and ps[-1]["id"] == "S1.bye"


def test_large_field_has_no_rematches_and_one_bye_each():
    n = 301
    state, log = run("swiss", n, {"rounds": 9}, seed=7)
    met, byes = check_swiss_rounds(log, state)
    assert all(v == 1 for v in byes.values()) and len(byes) == 9
    total = sum(len([p for p in e["pairings"] if not p["bye"]]) for e in log)
    assert len(met) == total  # no pair met twice


def test_pair_round_prefers_equal_scores_then_avoids_rematch():
    ranked = ["a", "b", "c", "d"]
    score = {"a": 3, "b": 3, "c": 0, "d": 0}
    pairs, bye = pair_round(ranked, score, {p: set() for p in ranked}, {})
    assert pairs == [("a", "b"), ("c", "d")] and bye is None
    # a and b met: the rematch is avoided even though it costs two floats
    opp = {"a": {"b"}, "b": {"a"}, "c": set(), "d": set()}
    pairs, _ = pair_round(ranked, score, opp, {})
    assert {frozenset(p) for p in pairs} in ({frozenset("ac"), frozenset("bd")}, {frozenset("ad"), frozenset("bc")})
    # everybody has met everybody: a rematch is unavoidable, scores decide again
    opp = {p: set(ranked) - {p} for p in ranked}
    pairs, _ = pair_round(ranked, score, opp, {})
    assert pairs == [("a", "b"), ("c", "d")]


def test_bye_rules_in_small_field():
    # three players, three rounds: each gets exactly one bye, the lowest-ranked first
    state = T.create("swiss", [{"id": x} for x in "abc"], {"seeding": "manual", "rounds": 3})
    got = []
    for _ in range(3):
        state, ps = T.next_pairings(state)
        got.append(next(p["players"][0] for p in ps if p["bye"]))
        for p in ps:
            if not p["bye"]:
                state = T.report(state, p["id"], {"winner": p["players"][0]})
    assert got[0] == "c" and sorted(got) == ["a", "b", "c"]
    assert T.is_finished(state) and T.champion(state) == T.standings(state)[0]["player"]


def test_two_players_swiss():
    state = T.create("swiss", [{"id": "x"}, {"id": "y"}])
    assert state["options"]["rounds"] == 1
    state, ps = T.next_pairings(state)
    assert [p["players"] for p in ps] == [["x", "y"]]
    state = T.report(state, ps[0]["id"], {"winner": "y"})
    assert T.is_finished(state) and T.champion(state) == "y"


def test_late_entry():
    state = T.create("swiss", [{"id": i} for i in range(6)], {"rounds": 5, "seeding": "manual"})
    state, ps = T.next_pairings(state)
    state = T.add_late(state, {"id": "late", "rating": 1800})  # joins round 2 with one loss
    for p in ps:
        state = T.report(state, p["id"], {"winner": p["players"][0]})
    row = next(r for r in T.standings(state) if r["player"] == "late")
    assert (row["losses"], row["rounds"], row["points"], row["seed"]) == (1, 1, 0, 7)
    state, ps = T.next_pairings(state)
    # seven players now; the newcomer is the lowest-ranked without a bye
    assert [p["players"] for p in ps if p["bye"]] == [["late", None]]
    state = T.add_late(state, {"id": "later"})  # round 2 of 5 started: 2*2 < 5, still open
    for p in ps:
        if p["status"] == "pending":
            state = T.report(state, p["id"], {"winner": p["players"][1]})
    state, _ = T.next_pairings(state)  # round 3 of 5 started: closed
    with pytest.raises(T.TournamentError) as e:
        T.add_late(state, {"id": "too-late"})
    assert e.value.code == "late_entry_closed"
    with pytest.raises(T.TournamentError) as e:
        T.add_late(T.create("round_robin", [{"id": 1}, {"id": 2}]), {"id": 3})
    assert e.value.code == "late_entry_not_allowed"


@pytest.mark.slow
@settings(max_examples=15, deadline=None)
@given(n=st.integers(8, 128), cut=st.sampled_from([4, 8]), seed=st.integers(0, 10**6),
       drops=st.sampled_from([0.0, 0.05]))
def test_swiss_with_top_cut(n, cut, seed, drops):
    state, log = run("swiss", n, {"top_cut": cut, "best_of": 1, "top_cut_best_of": 3}, seed=seed,
                     drop_rate=drops)
    check_swiss_rounds(log, state)
    swiss_rounds = state["options"]["rounds"]
    cut_entry = next(e for e in log if e["round"] > swiss_rounds)
    expected = [r["player"] for r in cut_entry["standings"] if r["player"] in cut_entry["active"]][:cut]
    assert state["brackets"]["cut"]["entrants"] == expected  # seeded by Swiss standing
    cut_pairings = [p for e in log for p in e["pairings"] if p["stage"] == "cut"]
    assert all(p["best_of"] == 3 for p in cut_pairings)
    champ = T.champion(state)
    assert champ in expected
    rows = T.standings(state)
    assert rows[0]["player"] == champ and rows[0]["place"] == 1
    assert [r["cut"] for r in rows[: len(expected)]] == [True] * len(expected)
    assert state["round"] == swiss_rounds + int(math.log2(cut))


def test_tie_breakers_worked_example():
    """Five players, best of three, three rounds, manual seeds A-E; every value below is
    computed by hand in docs/tournaments.md ("Worked example")."""
    state = T.create("swiss", [{"id": x} for x in "ABCDE"], {"seeding": "manual", "best_of": 3, "rounds": 3})

    def play(expected_pairs, expected_bye, results):
        nonlocal state
        state, ps = T.next_pairings(state)
        assert [p["players"] for p in ps if not p["bye"]] == expected_pairs
        assert [p["players"][0] for p in ps if p["bye"]] == [expected_bye]
        for p in ps:
            if not p["bye"]:
                state = T.report(state, p["id"], results[tuple(p["players"])])

    play([["A", "C"], ["B", "D"]], "E", {("A", "C"): {"winner": "A", "games": [2, 0]},
                                         ("B", "D"): {"winner": "B", "games": [2, 0]}})
    rows = {r["player"]: r for r in T.standings(state)}
    assert [r["player"] for r in T.standings(state)] == ["A", "B", "E", "C", "D"]
    # the 33% floor: C lost 0-2, so C's MW% and GW% are 0, counted as 0.33 for A
    assert rows["C"]["mw"] == 0.33 and rows["C"]["gw"] == 0.33
    assert (rows["A"]["omw"], rows["A"]["gw"], rows["A"]["ogw"]) == (0.33, 1.0, 0.33)
    assert (rows["E"]["omw"], rows["E"]["gw"], rows["E"]["byes"]) == (0.33, 1.0, 1)  # a bye is not an opponent

    play([["A", "B"], ["E", "C"]], "D", {("A", "B"): {"winner": "A", "games": [2, 1]},
                                         ("E", "C"): {"winner": "C", "games": [1, 2]}})
    rows = {r["player"]: r for r in T.standings(state)}
    assert [r["player"] for r in T.standings(state)] == ["A", "B", "C", "E", "D"]
    assert (rows["B"]["omw"], rows["B"]["gw"]) == (0.75, 0.6)
    assert (rows["C"]["omw"], rows["C"]["gw"]) == (0.75, 0.4)  # B above C on GW%
    assert (rows["E"]["omw"], rows["E"]["gw"]) == (0.5, 0.6)
    assert (rows["D"]["omw"], rows["D"]["gw"]) == (0.5, 0.5)  # E above D on GW%

    # round 3: A floats down; A-E / B-D would repeat B-D, A-B would repeat A-B: A-D, B-E
    play([["A", "D"], ["B", "E"]], "C", {("A", "D"): {"winner": "A", "games": [2, 0]},
                                         ("B", "E"): {"winner": None, "games": [1, 1], "draws": 1}})
    table = T.standings(state)
    got = {r["player"]: (r["points"], r["mw"], r["omw"], r["gw"], r["ogw"]) for r in table}
    assert got == {
        "A": (9, 1.0, 0.4815, 0.8571, 0.4821),  # OMW (6/9+4/9+3/9)/3 = 13/27; OGW 27/56
        "C": (6, 0.6667, 0.7222, 0.5714, 0.6994),  # OMW (1 + 4/9)/2; OGW (6/7 + 13/24)/2
        "B": (4, 0.4444, 0.5926, 0.5417, 0.5774),  # OMW 16/27; GW 13/24; OGW 97/168
        "E": (4, 0.4444, 0.5556, 0.5417, 0.5565),  # OMW 5/9; OGW 187/336
        "D": (3, 0.3333, 0.7222, 0.3333, 0.6994),  # MW 3/9 is above the floor
    }
    assert [r["player"] for r in table] == ["A", "C", "B", "E", "D"]
    assert T.is_finished(state) and T.champion(state) == "A"


def test_swiss_is_deterministic():
    a, _ = run("swiss", 40, {"best_of": 3}, seed=3, drop_rate=0.05)
    b, _ = run("swiss", 40, {"best_of": 3}, seed=3, drop_rate=0.05)
    assert a == b


def test_random_seeding_depends_only_on_seed():
    players = [{"id": i} for i in range(20)]
    s1 = T.create("swiss", players, {"seeding": "random", "seed": 5})
    s2 = T.create("swiss", players, {"seeding": "random", "seed": 5})
    s3 = T.create("swiss", players, {"seeding": "random", "seed": 6})
    order = [p["id"] for p in s1["players"]]
    assert order == [p["id"] for p in s2["players"]] != [p["id"] for p in s3["players"]]
    assert sorted(order) == list(range(20))
    state = random.getstate()
    T.create("swiss", players, {"seeding": "random", "seed": 5})
    assert random.getstate() == state  # the global generator is never touched


def _perfect_matchings(nodes):
    if not nodes:
        yield []
        return
    a, rest = nodes[0], nodes[1:]
    for i, b in enumerate(rest):
        for m in _perfect_matchings(rest[:i] + rest[i + 1:]):
            yield [(a, b)] + m


@settings(max_examples=40, deadline=None)
@given(data=st.data(), n=st.integers(2, 9))
def test_matching_tiers_are_lexicographic(data, n):
    """The weights rank pairings exactly by (rematches, bye position, sum of squared score
    differences, fold cost), whatever the magnitudes (checked against brute force, with fold
    positions as large as in a 2,000-player field)."""
    from app.tournaments.swiss import _fold_cost, _match

    members = list(range(n))
    score = {p: data.draw(st.sampled_from([0, 1, 3, 4, 6, 9])) for p in members}
    members.sort(key=lambda p: -score[p])
    opponents = {p: set() for p in members}
    for a in members:
        for b in members:
            if a < b and data.draw(st.booleans()):
                opponents[a].add(b)
                opponents[b].add(a)
    pos = {p: data.draw(st.integers(0, 2000)) for p in members}
    partner = {p: data.draw(st.integers(0, 2000)) for p in members}
    eligible = [p for p in members if data.draw(st.booleans())] or members[-1:] if n % 2 else []

    def key(pairs):
        rem = d2 = fold = 0
        bye_rank = 0
        for a, b in pairs:
            if b is None:
                bye_rank = -members.index(a)
                continue
            rem += b in opponents[a]
            d2 += (score[a] - score[b]) ** 2
            fold += _fold_cost(a, b, pos, partner)
        return (rem, bye_rank, d2, fold)

    def candidates():
        nodes = members + ["bye"] if n % 2 else list(members)
        for m in _perfect_matchings(nodes):
            pairs = [(a, None) if b == "bye" else (b, None) if a == "bye" else (a, b) for a, b in m]
            if all(b is not None or a in eligible for a, b in pairs):
                yield pairs

    best = min(key(c) for c in candidates())
    got = _match(members, score, opponents, pos, partner, eligible, allow_rematch=True)
    assert len(got) == (n + 1) // 2
    assert key(got) == best
