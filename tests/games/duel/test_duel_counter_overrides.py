"""The ``counter_overrides`` option (a balance-lab rule variation): a changed counter-table cell
decides the exchange through the engine's real slot resolution, bad entries are refused with a
sentence, matches without the option are untouched, and the lab compares the two rule sets."""
from __future__ import annotations

import json

import pytest
from duel_kit import make, of, play, pos
from test_duel_table import CELLS, COLS, placement

from app.lab import render
from app.lab.runner import run
from app.lab.spec import LabSpec
from games.base import GameError
from games.duel import GAME


def _damage(x, y, overrides=None):
    """(damage to A, damage to B, clash) when A plays x and B plays y, both reaching."""
    a, b = placement(x, y)
    options = {"health": 10}
    if overrides is not None:
        options["counter_overrides"] = overrides
    st = make("ronin", "ronin", pos=(a, b), options=options)
    st, ev = play(st, x, y)
    after = of(ev, "slot_end")[0]["health"]
    return 10 - after["A"], 10 - after["B"], bool(of(ev, "clash")), st


# ---- the overridden cell through the engine -------------------------------------------------
def test_seed_cell_before_the_override():
    # Downward Cut against Horizontal Cut is "0" in the seed's table.
    assert _damage("DC", "HC")[:3] == (0, 0, False)


def test_an_overridden_cell_changes_the_exchange():
    cut_wins = [{"attack": "downward_cut", "defence": "horizontal_cut", "result": "+5"}]
    dA, dB, clash, st = _damage("DC", "HC", cut_wins)
    assert (dA, dB, clash) == (0, 5, False)
    assert pos(st)[1] - pos(st)[0] == 2  # both really reached


def test_the_mirrored_cell_follows_so_seats_do_not_matter():
    cut_wins = [{"attack": "DC", "defence": "HC", "result": "+5"}]  # abbreviations work too
    assert _damage("HC", "DC", cut_wins)[:3] == (5, 0, False)


def test_a_clash_can_be_turned_into_a_trade_and_back():
    assert _damage("DC", "DC")[:3] == (0, 0, True)
    assert _damage("DC", "DC", [{"attack": "DC", "defence": "DC", "result": "2:2"}])[:3] == (2, 2, False)
    to_clash = [{"attack": "retreating_cut", "defence": "horizontal_cut", "result": "clash"}]
    assert _damage("RC", "HC")[:3] == (0, 2, False)
    assert _damage("RC", "HC", to_clash)[2] is True


def test_other_cells_keep_the_seed_values():
    cut_wins = [{"attack": "DC", "defence": "HC", "result": "+5"}]
    assert _damage("HC", "AT", cut_wins)[:3] == _damage("HC", "AT")[:3] == (5, 0, False)


def test_the_samurai_ability_still_comes_before_the_table():
    # A Samurai's Block stops an Advancing Cut whatever the table says about B against AC.
    overrides = [{"attack": "block", "defence": "advancing_cut", "result": "-5"}]
    a, b = placement("B", "AC")
    st = make("samurai", "ronin", pos=(a, b), options={"health": 10, "counter_overrides": overrides})
    st, ev = play(st, "B", "AC")
    assert of(ev, "slot_end")[0]["health"]["A"] == 10


# ---- validation ------------------------------------------------------------------------------
@pytest.mark.parametrize("value,words", [
    ("DC/HC=+5", "must be a list"),
    ([{"attack": "DC", "defence": "HC"}], "entry 1 must be an object with exactly"),
    ([["DC", "HC", "+5"]], "entry 1 must be an object"),
    ([{"attack": "spin", "defence": "HC", "result": "+5"}], "attack 'spin' is not a technique"),
    ([{"attack": "DC", "defence": "wait", "result": "+5"}], "defence 'wait' is not a technique"),
    ([{"attack": "DC", "defence": "HC", "result": "+3"}], "result '+3' is not a counter-table result"),
    ([{"attack": "DC", "defence": "HC", "result": 5}], "result 5 is not a counter-table result"),
    ([{"attack": "DC", "defence": "DC", "result": "+5"}], "needs a symmetric result"),
    ([{"attack": "DC", "defence": "HC", "result": "+5"},
      {"attack": "downward_cut", "defence": "horizontal_cut", "result": "-5"}],
     "entry 2 sets the cell downward_cut/horizontal_cut again"),
    ([{"attack": "DC", "defence": "HC", "result": "+5"},
      {"attack": "HC", "defence": "DC", "result": "-5"}], "entry 2 sets the cell"),
])
def test_bad_overrides_are_refused_with_a_sentence(value, words):
    with pytest.raises(GameError) as e:
        GAME.setup({"counter_overrides": value}, ["A", "B"], 1)
    assert words in e.value.message


def test_valid_overrides_are_stored_as_technique_ids():
    opts = GAME.validate_options({"counter_overrides": [{"attack": "AT", "defence": "B", "result": "+2"}]})
    assert opts["counter_overrides"] == [
        {"attack": "advancing_thrust", "defence": "block", "result": "+2"}]
    assert GAME.validate_options(opts) == opts  # validating again changes nothing
    json.dumps(GAME.setup(opts, ["A", "B"], 1))  # the state stays plain JSON
    schema = GAME.options_schema()["properties"]["counter_overrides"]
    assert schema["type"] == ["array", "null"] and schema["default"] is None


# ---- without the option nothing changes (the golden set pins the rest) -----------------------
def test_no_overrides_leave_the_options_and_state_as_before():
    assert "counter_overrides" not in GAME.validate_options({})
    assert GAME.setup({"counter_overrides": None}, ["A", "B"], 3) == GAME.setup({}, ["A", "B"], 3)
    assert GAME.setup({"counter_overrides": []}, ["A", "B"], 3)["options"]["counter_overrides"] == []


# ---- the lab compares the seed's table with a varied one -------------------------------------
def _inverted_table() -> list[dict]:
    """Every one-sided cell of the seed's table turned round (the winner of each exchange loses):
    a drastic variation, so the few exchanges where both random bots reach all change."""
    flip = {"+": "-", "-": "+"}
    return [{"attack": x, "defence": y, "result": flip[c[0]] + c[1:]}
            for i, x in enumerate(COLS) for y in COLS[i + 1:]
            if (c := CELLS[x, y])[0] in flip]


def test_lab_compare_reports_a_varied_counter_table_side_by_side():
    base = {"health": 1, "track_length": 9}  # short matches decided by the first exchanges
    spec = LabSpec(game="duel", games=20, bots=["random", "random"], seed=4,
                   lineups=["ronin", "samurai"], options=base,
                   compare={**base, "counter_overrides": _inverted_table()})
    rep = run(spec)
    a, b = (rs["report"] for rs in rep["rule_sets"])
    assert rep["rule_sets"][0]["options"] == base
    assert rep["rule_sets"][1]["options"]["counter_overrides"] == _inverted_table()
    assert a["games"] == b["games"] == 20
    # Same seeds and lineups: only the table differs, so equal outcomes would mean it was ignored.
    assert a["seats"] != b["seats"]
    assert set(rep["compare"]["seats"]) == {"A", "B"}
    text = render.text(rep)
    assert "Rule set B minus rule set A" in text and "counter_overrides" in text
