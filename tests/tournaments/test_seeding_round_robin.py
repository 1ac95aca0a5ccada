"""Golden seeding orders and Berger tables; round-robin properties and tie-breakers."""
from __future__ import annotations

import itertools

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import app.tournaments as T
from app.tournaments.seeding import berger_rounds, bracket_positions, seed_order, starts
from tests.tournaments.support import appearances, run


def test_bracket_positions_golden():
    assert bracket_positions(2) == [1, 2]
    assert bracket_positions(4) == [1, 4, 2, 3]
    assert bracket_positions(8) == [1, 8, 4, 5, 2, 7, 3, 6]
    assert bracket_positions(16) == [1, 16, 8, 9, 4, 13, 5, 12, 2, 15, 7, 10, 3, 14, 6, 11]
    assert bracket_positions(32) == [
        1, 32, 16, 17, 8, 25, 9, 24, 4, 29, 13, 20, 5, 28, 12, 21,
        2, 31, 15, 18, 7, 26, 10, 23, 3, 30, 14, 19, 6, 27, 11, 22,
    ]


@pytest.mark.parametrize("size", [2, 4, 8, 16, 32, 64, 128, 256])
def test_bracket_positions_properties(size):
    order = bracket_positions(size)
    assert sorted(order) == list(range(1, size + 1))
    # round-1 opponents add up to size + 1; seeds 1 and 2 in opposite halves; the top 2^k
    # seeds spread one per block of size / 2^k
    assert all(order[i] + order[i + 1] == size + 1 for i in range(0, size, 2))
    k = 1
    while k <= size:
        block = size // k
        for b in range(k):
            assert sum(1 for s in order[b * block:(b + 1) * block] if s <= k) == 1
        k *= 2


def test_first_round_of_a_16_bracket():
    state = T.create("single_elimination", [{"id": f"s{i}", "rating": 3000 - i} for i in range(1, 17)])
    state, ps = T.next_pairings(state)
    assert [tuple(int(x[1:]) for x in p["players"]) for p in ps] == [
        (1, 16), (8, 9), (4, 13), (5, 12), (2, 15), (7, 10), (3, 14), (6, 11)]


def test_seed_order_methods():
    players = [{"id": "a", "rating": 1500}, {"id": "b"}, {"id": "c", "rating": 1700}, {"id": "d", "rating": 1500}]
    assert [p["id"] for p in seed_order(players, "rating", 0)] == ["c", "a", "d", "b"]  # unrated last, ties stable
    assert [p["id"] for p in seed_order(players, "manual", 0)] == ["a", "b", "c", "d"]
    assert seed_order(players, "random", 1) == seed_order(players, "random", 1)


def test_berger_tables_golden():
    # FIDE Berger tables (first number plays white)
    assert berger_rounds(4) == [[(1, 4), (2, 3)], [(4, 3), (1, 2)], [(2, 4), (3, 1)]]
    assert berger_rounds(6) == [
        [(1, 6), (2, 5), (3, 4)],
        [(6, 4), (5, 3), (1, 2)],
        [(2, 6), (3, 1), (4, 5)],
        [(6, 5), (1, 4), (2, 3)],
        [(3, 6), (4, 2), (5, 1)],
    ]
    # odd counts use the next even table; the partner of the extra number has the bye
    assert berger_rounds(3) == berger_rounds(4)


@pytest.mark.parametrize("n", range(2, 23))
def test_berger_tables_properties(n):
    rounds = berger_rounds(n)
    m = n + n % 2
    assert len(rounds) == m - 1
    met = [frozenset(p) for r in rounds for p in r]
    assert len(set(met)) == len(met) == m * (m - 1) // 2
    for r in rounds:
        assert sorted(x for p in r for x in p) == list(range(1, m + 1))
    # colours balanced: each player is first in (m-2)/2 or m/2 of their games
    firsts = [sum(1 for r in rounds for p in r if p[0] == x) for x in range(1, m + 1)]
    assert all(abs(f - (m - 1) / 2) <= 0.5 for f in firsts)


def test_starts_alternate():
    assert starts("a", "b", 1) == ["a"]
    assert starts("a", "b", 3) == ["a", "b", "a"]
    assert starts("b", "a", 5) == ["b", "a", "b", "a", "b"]


@pytest.mark.slow
@settings(max_examples=25, deadline=None)
@given(n=st.one_of(st.integers(2, 16), st.integers(17, 64)), seed=st.integers(0, 10**6),
       drops=st.sampled_from([0.0, 0.02]))
@example(n=255, seed=1, drops=0.01).via("the largest fields: 255 rounds of 127 games")
@example(n=256, seed=2, drops=0.0).via("the largest fields: 255 rounds of 128 games")
def test_round_robin_properties(n, seed, drops):
    state, log = run("round_robin", n, seed=seed, drop_rate=drops, log_standings=False)
    assert state["round"] == n - 1 + n % 2
    met = []
    for entry in log:
        seen = appearances(entry["pairings"])
        # everybody is listed exactly once (the bye included), dropped players as walkovers;
        # a game between two dropped players is void and not listed
        void = {x for mid in state["rounds"][entry["round"] - 1] if state["matches"][mid]["void"]
                for x in state["matches"][mid]["players"]}
        assert set(seen) == {p["id"] for p in state["players"]} - void and set(seen.values()) == {1}
        assert sum(1 for p in entry["pairings"] if p["bye"]) == n % 2
        for p in entry["pairings"]:
            if not p["bye"]:
                met.append(frozenset(p["players"]))
                if p["forfeit"]:
                    loser = state["matches"][p["id"]]["loser"]
                    assert loser in {q["id"] for q in state["players"] if q["dropped"]}
    voids = sum(1 for m in state["matches"].values() if m["void"])
    assert len(met) == len(set(met)) == n * (n - 1) // 2 - voids  # everybody met everybody once
    rows = T.standings(state)
    keys = [(-r["points"], -r["h2h"], -r["game_wins"], r["seed"]) for r in rows]
    assert keys == sorted(keys)
    assert T.champion(state) == next(r["player"] for r in rows if not r["dropped"])


def _rr(results):
    state = T.create("round_robin", [{"id": x} for x in "ABCD"], {"seeding": "manual", "best_of": 3})
    while not T.is_finished(state):
        state, ps = T.next_pairings(state)
        for p in ps:
            a, b = p["players"]
            g = results[a + b] if a + b in results else results[b + a][::-1]
            state = T.report(state, p["id"], {"games": g})
    return state


def test_round_robin_head_to_head_beats_game_wins():
    # Berger for 4: A-D, B-C / D-C, A-B / B-D, C-A
    state = _rr({"AD": [2, 0], "BC": [2, 1], "DC": [0, 2], "AB": [1, 2], "BD": [0, 2], "CA": [0, 2]})
    rows = [(r["player"], r["points"], r["h2h"], r["game_wins"]) for r in T.standings(state)]
    # A and B have 6 points; B beat A, so B is first although A won more games (5 to 4)
    assert rows == [("B", 6, 3, 4), ("A", 6, 0, 5), ("C", 3, 3, 3), ("D", 3, 0, 2)]
    assert T.champion(state) == "B"


def test_round_robin_game_wins_then_seed():
    # A beats B, B beats C, C beats A (3 points each among them); everyone beats D
    state = _rr({"AD": [2, 0], "BC": [2, 0], "DC": [0, 2], "AB": [2, 1], "BD": [2, 0], "CA": [2, 0]})
    rows = [(r["player"], r["points"], r["h2h"], r["game_wins"]) for r in T.standings(state)]
    assert rows == [("B", 6, 3, 5), ("A", 6, 3, 4), ("C", 6, 3, 4), ("D", 0, 0, 0)]


def test_round_robin_three_players_and_drop():
    state = T.create("round_robin", [{"id": x} for x in "abc"], {"seeding": "manual"})
    state, ps = T.next_pairings(state)  # Berger 4: 1-4 (a bye), 2-3
    assert [(p["players"], p["bye"]) for p in ps] == [(["a", None], True), (["b", "c"], False)]
    state = T.drop(state, "c")  # forfeits b-c now, and c's later game
    assert T.get_pairing(state, ps[1]["id"])["winner"] == "b"
    state, ps = T.next_pairings(state)  # 4-3 (c bye), 1-2
    state = T.report(state, next(p for p in ps if p["status"] == "pending")["id"], {"winner": "a"})
    state, ps = T.next_pairings(state)  # 2-4 (b bye), 3-1: walkover for a
    assert [(p["players"], p["forfeit"], p["winner"]) for p in ps if not p["bye"]] == [(["c", "a"], True, "a")]
    assert T.is_finished(state) and T.champion(state) == "a"


def test_every_pairing_combination_of_four_is_a_valid_result_table():
    for outcome in itertools.product([0, 1, None], repeat=6):
        it = iter(outcome)
        state = T.create("round_robin", [{"id": i} for i in range(4)])
        while not T.is_finished(state):
            state, ps = T.next_pairings(state, copy=False)
            for p in ps:
                w = next(it)
                T.report(state, p["id"], {"winner": None if w is None else p["players"][w]}, copy=False)
        rows = T.standings(state)
        assert sum(r["points"] for r in rows) == sum(3 if w is not None else 2 for w in outcome)
