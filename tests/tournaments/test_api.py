"""The API contract: typed errors with readable messages, result validation, who starts,
JSON round trips and purity (copy=True never mutates the caller's state)."""
from __future__ import annotations

import copy
import json

import pytest

import app.tournaments as T
from tests.tournaments.support import run


def code_of(fn, *args, **kwargs) -> str:
    with pytest.raises(T.TournamentError) as e:
        fn(*args, **kwargs)
    assert e.value.message and e.value.message[0].isupper() and e.value.message.endswith(".")
    assert e.value.code in T.CODES
    assert e.value.to_dict() == {"code": e.value.code, "message": e.value.message}
    return e.value.code


P4 = [{"id": i, "rating": 100 - i} for i in range(4)]


def test_creation_errors():
    assert code_of(T.create, "knockout", P4) == "invalid_format"
    for fmt in T.FORMATS:
        assert code_of(T.create, fmt, []) == "too_few_players"
        assert code_of(T.create, fmt, [{"id": "solo"}]) == "too_few_players"
    assert code_of(T.create, "swiss", [{"id": 1}, {"id": 1}]) == "duplicate_player"
    assert code_of(T.create, "swiss", [{"name": "x"}, {"id": 2}]) == "invalid_player"
    assert code_of(T.create, "swiss", [{"id": True}, {"id": 2}]) == "invalid_player"
    assert code_of(T.create, "swiss", [{"id": 1, "rating": "high"}, {"id": 2}]) == "invalid_player"
    assert code_of(T.create, "swiss", "ab") == "invalid_player"
    bad = [{"best_of": 2}, {"seeding": "alphabetical"}, {"rounds": 0}, {"top_cut": 3}, {"top_cut": 8},
           {"colour": "red"}, {"seed": "x"}, {"first_player": "loser"}]
    for opts in bad:
        assert code_of(T.create, "swiss", P4, opts) == "invalid_options", opts
    assert code_of(T.create, "single_elimination", P4, {"rounds": 3}) == "invalid_options"
    assert code_of(T.create, "double_elimination", P4, {"grand_final_reset": "yes"}) == "invalid_options"
    # options that do not apply are accepted when null (a service may send every key)
    T.create("single_elimination", P4, {"rounds": None, "top_cut": None, "grand_final_reset": None})


def test_operation_errors():
    s = T.create("swiss", P4, {"best_of": 3})
    assert code_of(T.report, s, "S1.1", {"winner": 0}) == "unknown_pairing"
    assert code_of(T.champion, s) == "not_finished"
    s, ps = T.next_pairings(s)
    assert code_of(T.next_pairings, s) == "round_incomplete"
    assert code_of(T.drop, s, 99) == "unknown_player"
    assert code_of(T.drop, s, "0") == "unknown_player"  # ids are typed: 0 is not "0"
    a, b = ps[0]["players"]
    assert code_of(T.report, s, ps[0]["id"], {"winner": 99}) == "invalid_result"
    assert code_of(T.report, s, ps[0]["id"], {"winner": a, "games": [1, 2]}) == "invalid_result"
    assert code_of(T.report, s, ps[0]["id"], {"games": [3, 0]}) == "invalid_result"
    assert code_of(T.report, s, ps[0]["id"], {"games": [2, 1], "draws": 1}) == "invalid_result"
    assert code_of(T.report, s, ps[0]["id"], {"games": [2]}) == "invalid_result"
    assert code_of(T.report, s, ps[0]["id"], {}) == "invalid_result"
    assert code_of(T.report, s, ps[0]["id"], {"winner": a, "score": 3}) == "invalid_result"
    assert code_of(T.report, s, ps[0]["id"], "a won") == "invalid_result"
    assert code_of(T.report, s, ps[0]["id"], {"winner": None, "forfeit": True}) == "invalid_result"
    s = T.report(s, ps[0]["id"], {"winner": a, "games": [2, 1]})
    assert code_of(T.report, s, ps[0]["id"], {"winner": a}) == "already_reported"
    s = T.drop(s, b)
    assert code_of(T.drop, s, b) == "already_dropped"
    s = T.report(s, ps[1]["id"], {"winner": None, "games": [1, 1], "draws": 1})
    while not T.is_finished(s):
        s, ps = T.next_pairings(s)
        for p in ps:
            if p["status"] == "pending":
                s = T.report(s, p["id"], {"winner": p["players"][0]})
            elif p["bye"]:
                assert code_of(T.report, s, p["id"], {"winner": p["players"][0]}) == "not_pending"
    assert code_of(T.next_pairings, s) == "tournament_finished"
    assert code_of(T.drop, s, a) == "tournament_finished"
    # brackets: no draws, no reporting a match that has not started
    e = T.create("single_elimination", P4)
    e, ps = T.next_pairings(e)
    assert code_of(T.report, e, ps[0]["id"], {"winner": None}) == "draw_not_allowed"
    assert code_of(T.report, e, "W2.1", {"winner": 0}) == "not_pending"


def test_result_forms():
    s = T.create("swiss", P4, {"best_of": 3, "seeding": "manual"})
    s, ps = T.next_pairings(s)  # 0-2, 1-3
    s = T.report(s, "S1.1", {"winner": 2})  # games default to the minimum win
    assert T.get_pairing(s, "S1.1")["result"] == {"winner": 2, "games": [0, 2], "draws": 0, "forfeit": False}
    s = T.report(s, "S1.2", {"games": [1, 1], "draws": 1})  # winner derived: a draw
    m = T.get_pairing(s, "S1.2")
    assert m["winner"] is None and m["loser"] is None
    rows = {r["player"]: r for r in T.standings(s)}
    assert rows[1]["points"] == rows[3]["points"] == 1 and rows[2]["points"] == 3


def test_who_starts():
    s = T.create("single_elimination", [{"id": x} for x in "abcd"], {"best_of": 3, "seeding": "manual"})
    s, ps = T.next_pairings(s)
    assert [p["starts"] for p in ps] == [["a", "d", "a"], ["b", "c", "b"]]  # higher seed first
    assert T.starting_player(s, "W1.1", 2) == "d"
    assert code_of(T.starting_player, s, "W1.1", 4) == "invalid_game"
    s = T.report(s, "W1.1", {"winner": "d"})
    s = T.report(s, "W1.2", {"winner": "b"})
    s, ps = T.next_pairings(s)
    assert ps[0]["players"] == ["d", "b"] and ps[0]["starts"] == ["b", "d", "b"]  # seed 2 over seed 4
    # coin: seeded, reproducible, and both outcomes occur
    firsts = []
    for seed in range(40):
        c = T.create("swiss", [{"id": x} for x in "ab"], {"first_player": "coin", "seed": seed, "best_of": 3})
        c, ps = T.next_pairings(c)
        again = T.next_pairings(T.create("swiss", [{"id": x} for x in "ab"],
                                         {"first_player": "coin", "seed": seed, "best_of": 3}))[1]
        assert ps[0]["starts"] == again[0]["starts"]
        assert ps[0]["starts"][1] != ps[0]["starts"][0] == ps[0]["starts"][2]
        firsts.append(ps[0]["starts"][0])
    assert set(firsts) == {"a", "b"}
    # table: the first-listed player (Berger colours in a round robin)
    r = T.create("round_robin", [{"id": x} for x in "abcd"], {"first_player": "table", "seeding": "manual"})
    r, ps = T.next_pairings(r)
    r, _ = T.next_pairings(T.report(T.report(r, ps[0]["id"], {"winner": "a"}), ps[1]["id"], {"winner": "b"}))
    assert [p["starts"][0] for p in T.current_pairings(r)] == ["d", "a"]  # round 2: 4-3, 1-2


@pytest.mark.parametrize("fmt,opts", [
    ("swiss", {"top_cut": 4, "best_of": 3}), ("double_elimination", {}), ("round_robin", {}),
    ("single_elimination", {}),
])
def test_state_is_json_and_copy_is_pure(fmt, opts):
    s = T.create(fmt, [{"id": f"p{i}", "rating": i} for i in range(7)], opts)
    assert json.loads(json.dumps(s)) == s
    while not T.is_finished(s):
        before = copy.deepcopy(s)
        s2, ps = T.next_pairings(s)
        assert s == before  # the caller's state is untouched
        s = json.loads(json.dumps(s2))  # and the state survives storage as JSON
        assert s == s2
        for p in ps:
            json.dumps(p)
            if p["status"] == "pending":
                before = copy.deepcopy(s)
                s2 = T.report(s, p["id"], {"winner": p["players"][1]})
                assert s == before
                s = s2
        json.dumps(T.standings(s))
    # a refused operation leaves the state as it was, even in place
    before = copy.deepcopy(s)
    with pytest.raises(T.TournamentError):
        T.next_pairings(s, copy=False)
    assert s == before


@pytest.mark.parametrize("fmt", ["swiss", "double_elimination", "round_robin", "single_elimination"])
def test_in_place_work_on_a_copy_never_reaches_the_original(fmt):
    """copy=True shares unchanged records with its input (copy-on-write); copy=False calls
    made later on the copy must still leave every earlier state alone."""
    s = T.create(fmt, [{"id": i} for i in range(7)], {"best_of": 3})
    s, _ = T.next_pairings(s)
    history = []
    dropped = False
    while not T.is_finished(s):
        history.append((s, copy.deepcopy(s)))
        pending = [p for p in T.current_pairings(s) if p["status"] == "pending"]
        if not pending:
            s, _ = T.next_pairings(s)
            continue
        w = T.report(s, pending[0]["id"], {"winner": pending[0]["players"][0]})  # a copy
        for p in pending[1:]:
            T.report(w, p["id"], {"winner": p["players"][1]}, copy=False)
        if not dropped and not T.is_finished(w):
            T.drop(w, pending[0]["players"][1], copy=False)
            dropped = True
        if not T.is_finished(w):
            T.next_pairings(w, copy=False)
        for original, frozen in history:
            assert original == frozen
        s = w
    assert len(history) >= 3


def test_int_and_str_ids_survive_json():
    s = T.create("swiss", [{"id": 1}, {"id": "1"}, {"id": 2}])
    s = json.loads(json.dumps(s))
    s, ps = T.next_pairings(s)
    assert {x for p in ps for x in p["players"]} == {1, "1", 2, None}


def test_drop_before_start_and_everyone_dropping():
    s = T.create("swiss", P4)
    s = T.drop(s, 3)
    s, ps = T.next_pairings(s)
    assert 3 not in {x for p in ps for x in p["players"]}
    s = T.create("swiss", P4, {"rounds": 3})
    s, ps = T.next_pairings(s)
    for pid in (0, 1, 2, 3):
        s = T.drop(s, pid)  # pending matches become forfeits; the event ends
    assert T.is_finished(s)
    assert T.champion(s) == T.standings(s)[0]["player"]


def test_bracket_view():
    s = T.create("double_elimination", [{"id": i} for i in range(6)])
    b = T.bracket(s)
    assert b["size"] == 8 and b["double"] and b["reset"]
    ids = [m["id"] for r in b["rounds"] for m in r]
    assert ids[:4] == ["W1.1", "W1.2", "W1.3", "W1.4"] and ids[-2:] == ["GF", "GF2"]
    assert all(m["status"] == "waiting" for r in b["rounds"] for m in r)
    assert code_of(T.bracket, s, "cut") == "unknown_pairing"


def test_simulation_helper_smoke():
    state, log = run("swiss", 5, {"top_cut": 2}, seed=1)
    assert T.is_finished(state) and log


def test_revision_counts_accepted_operations():
    s = T.create("swiss", P4, {"rounds": 3})
    assert s["revision"] == 0 and s["schema"] == 1
    s, ps = T.next_pairings(s)
    s = T.report(s, ps[0]["id"], {"winner": ps[0]["players"][0]})
    with pytest.raises(T.TournamentError):
        T.report(s, ps[0]["id"], {"winner": ps[0]["players"][0]}, copy=False)
    s = T.drop(s, ps[1]["players"][0])
    s = T.add_late(s, {"id": 9})
    assert s["revision"] == 4


def test_late_entry_needs_a_new_id():
    s = T.create("swiss", [{"id": 1}, {"id": 2}, {"id": 3}], {"rounds": 4})
    assert code_of(T.add_late, s, {"id": 2}) == "duplicate_player"
    assert code_of(T.add_late, s, {"rating": 5}) == "invalid_player"
    s = T.add_late(s, {"id": "2"})  # a different player: ids are typed
    assert [p["seed"] for p in s["players"]] == [1, 2, 3, 4]
