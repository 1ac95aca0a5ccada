"""Lab runs end to end (in-process and over worker processes), the command line, the HTML
report and the comparison of two rule sets."""
from __future__ import annotations

import json

import pytest

from app.cli import main
from app.lab import render
from app.lab.runner import run
from app.lab.spec import LabSpec, SpecError, check


def _strip(report: dict) -> dict:
    return {k: v for k, v in report.items() if k != "timing"}


@pytest.mark.parametrize("game_id,extra", [
    ("duell", {}),
    ("combat", {"seats": 3, "bots": ["random"]}),
    ("parbaj", {"lineups": ["wildfire", "tidecaller", "stonewall"]}),
    ("duel", {"lineups": ["brute", "samurai"], "options": {"max_slots": 9}}),
])
def test_report_counts_add_up(game_id, extra):
    spec = LabSpec(game=game_id, games=24, bots=extra.pop("bots", ["random", "random"]), seed=3,
                   **extra)
    rep = run(spec)
    r = rep["rule_sets"][0]["report"]
    assert r["games"] == 24
    for group in ("seats", "bots", "lineups"):
        for name, c in r[group].items():
            assert c["wins"] + c["losses"] + c["draws"] == c["games"], (group, name)
    for c in r["seats"].values():
        assert c["games"] == 24
    assert sum(c["games"] for c in r["bots"].values()) == 24 * spec.seats
    if spec.lineups:
        assert sum(c["games"] for c in r["lineups"].values()) == 24 * 2
        assert set(r["lineups"]) == set(spec.lineups)
        for row in r["lineup_matrix"].values():
            for c in row.values():
                assert c["wins"] + c["losses"] + c["draws"] == c["games"]
    # Every draw is a draw for every seat; a decided match has a winner.
    draws = r["draws"]["k"]
    assert all(c["draws"] == draws for c in r["seats"].values())
    for key in ("moves", "actions"):
        u = r[key]
        assert sum(v["uses"] for v in u["items"].values()) == u["total"]
        assert u["seat_games"] == 24 * spec.seats
    # One action per decision.
    assert r["actions"]["total"] == round(r["decisions"]["mean"] * 24)
    assert r["length"]["p50"] <= r["length"]["p90"] <= r["length"]["max"]


@pytest.mark.slow
def test_same_report_whatever_the_worker_count():
    spec = LabSpec(game="duell", games=30, bots=["strong", "random"], seed=7,
                   options={"mode": "tenzone"}, compare={"mode": "tenzone", "duels_to_win": 2})
    one = run(spec, workers=1)
    two = run(spec, workers=2)
    assert json.dumps(_strip(one), sort_keys=True) == json.dumps(_strip(two), sort_keys=True)
    # ...and another seed gives another run.
    other = run(LabSpec(**{**spec.to_dict(), "seed": 8}), workers=1)
    assert _strip(other) != _strip(one)


def test_compare_reports_both_rule_sets_and_their_differences():
    spec = LabSpec(game="duell", games=60, bots=["random", "random"], seed=2,
                   options={"duels_to_win": 1}, compare={"duels_to_win": 4})
    rep = run(spec)
    a, b = (rs["report"] for rs in rep["rule_sets"])
    assert [rs["options"] for rs in rep["rule_sets"]] == [{"duels_to_win": 1}, {"duels_to_win": 4}]
    d = rep["compare"]["length"]
    # Matches to four duels are longer; the interval says so.
    assert d["diff"] == pytest.approx(b["length"]["mean"] - a["length"]["mean"])
    assert d["lo"] > 0
    for s in ("A", "B"):
        x = rep["compare"]["seats"][s]
        assert x["lo"] <= x["diff"] <= x["hi"]
    text = render.text(rep)
    assert "Rule set B minus rule set A" in text and "mean length: +" in text


def test_html_report_has_its_charts(tmp_path):
    spec = LabSpec(game="parbaj", games=12, bots=["strong", "random"], seed=1,
                   lineups=["wildfire", "nightfall"], compare={"max_rounds": 10})
    page = render.html_page(run(spec))
    assert page.startswith("<!doctype html>") and page.count("<svg") >= 6
    for title in ("Win rate (rule set A)", "Game length (rule set A)", "Share of cards used",
                  "Win rate differences, B − A"):
        assert title in page
    assert "<rect" in page and "95%" in page
    # Self-contained: nothing to run, nothing to fetch.
    assert "<script" not in page and 'src="' not in page and 'href="http' not in page


def test_cli_simulate_writes_text_json_and_html(tmp_path, capsys):
    out = tmp_path / "rep" / "duel"
    code = main(["simulate", "duell", "--games", "8", "--bots", "strong,random", "--seed", "4",
                 "--workers", "1", "--options", '{"duels_to_win": 2}', "--out", str(out), "--quiet"])
    assert code == 0
    printed = capsys.readouterr().out
    assert "bot strong" in printed and "95% CI" in printed and "first player wins" in printed
    data = json.loads((tmp_path / "rep" / "duel.json").read_text())
    assert data["spec"]["games"] == 8 and data["rule_sets"][0]["options"] == {"duels_to_win": 2}
    assert "<svg" in (tmp_path / "rep" / "duel.html").read_text()


def test_cli_refuses_a_bad_run_with_a_sentence(capsys):
    assert main(["simulate", "duell", "--options", "{nope"]) == 2
    assert "--options is not valid JSON" in capsys.readouterr().err
    assert main(["simulate", "chess"]) == 2
    assert "There is no game 'chess'" in capsys.readouterr().err


@pytest.mark.parametrize("kwargs,words", [
    ({"game": "duel", "games": 0}, "number of games"),
    ({"game": "duel", "bots": ["genius"]}, "Unknown bot level 'genius'"),
    ({"game": "duel", "options": {"health": 0}}, "Option 'health' must be at least 1"),
    ({"game": "duel", "compare": {"colour": 1}}, "Compared options: Unknown option: colour"),
    ({"game": "duell", "lineups": ["brute"]}, "has no lineups"),
    ({"game": "parbaj", "lineups": ["chess"]}, "Unknown deck 'chess'"),
    ({"game": "parbaj", "options": {"decks": None}}, "the lab sets decks itself"),
    ({"game": "combat", "seats": 7}, "2-6 players"),
])
def test_spec_errors_say_what_is_wrong(kwargs, words):
    with pytest.raises(SpecError) as e:
        check(LabSpec(**kwargs))
    assert words in str(e.value)


def test_every_bot_plays_every_seat_and_lineups_cycle():
    spec = LabSpec(game="parbaj", games=60, bots=["strong", "random"], seed=1)
    seen = {(spec.bots_for(i)["A"], spec.lineup_for(i)["A"], spec.lineup_for(i)["B"])
            for i in range(spec.games)}
    assert {b for b, _, _ in seen} == {"strong", "random"}
    assert len({(a, b) for _, a, b in seen}) == 30  # 6 decks, ordered pairs, no mirrors
    assert all(a != b for _, a, b in seen)
