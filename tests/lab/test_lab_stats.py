"""The lab's intervals against published values, and the flags' thresholds."""
from __future__ import annotations

import pytest

from app.lab import stats


def test_wilson_matches_published_values():
    lo, hi = stats.wilson(0, 10)
    assert lo == 0 and hi == pytest.approx(0.2775, abs=1e-4)
    lo, hi = stats.wilson(5, 10)
    assert (lo, hi) == (pytest.approx(0.2366, abs=1e-4), pytest.approx(0.7634, abs=1e-4))
    lo, hi = stats.wilson(81, 263)  # Newcombe (1998), Table I example: 0.2553-0.3662
    assert (lo, hi) == (pytest.approx(0.2553, abs=1e-4), pytest.approx(0.3662, abs=1e-4))
    assert stats.wilson(0, 0) == (0.0, 1.0)


def test_newcombe_difference_matches_the_paper():
    # Newcombe (1998), method 10: 56/70 - 48/80 = 0.2000 (0.0524, 0.3339);
    # 9/10 - 3/10 = 0.6000 (0.1705, 0.8090).
    d = stats.newcombe(56, 70, 48, 80)
    assert d["diff"] == pytest.approx(0.2)
    assert (d["lo"], d["hi"]) == (pytest.approx(0.0524, abs=1e-4), pytest.approx(0.3339, abs=1e-4))
    d = stats.newcombe(9, 10, 3, 10)
    assert (d["lo"], d["hi"]) == (pytest.approx(0.1705, abs=1e-4), pytest.approx(0.8090, abs=1e-4))
    assert stats.newcombe(1, 0, 1, 2)["diff"] is None


def test_percentiles_and_means():
    vals = list(range(1, 11))
    assert stats.percentile(vals, 50) == 5 and stats.percentile(vals, 90) == 9
    m = stats.mean_ci([2.0, 4.0, 6.0])
    assert m["mean"] == 4.0 and m["lo"] < 4.0 < m["hi"]
    d = stats.mean_diff(stats.mean_ci([5.0, 6.0, 7.0]), m)
    assert d["diff"] == pytest.approx(2.0) and d["lo"] < 2.0 < d["hi"]


def _records(used_by_winner: int, n: int) -> list[dict]:
    """n matches of two seats; seat A always wins; "x" is used by A in ``used_by_winner`` of
    them and by B in all; "y" by both always; "z" never."""
    out = []
    for i in range(n):
        out.append({"i": i, "variant": "as given", "bots": {"A": "random", "B": "random"},
                    "lineup": {"A": None, "B": None}, "outcome": {"A": "win", "B": "loss"},
                    "draw": False, "reason": "test", "first": None, "length": 3, "decisions": 6,
                    "moves": {"A": {"y": 1, **({"x": 2} if i < used_by_winner else {})},
                              "B": {"y": 1, "x": 1}},
                    "actions": {"A": {"go": 3}, "B": {"go": 3}}})
    return out


def test_flags_never_rare_dominant(monkeypatch):
    monkeypatch.setattr(stats, "catalogue", lambda game, lineups: ["x", "y", "z"])
    r = stats.aggregate(_records(0, 100), "duell", ["A", "B"])
    items = r["moves"]["items"]
    assert items["z"]["flags"] == ["never"]
    # "x" only by the loser: using it "costs" a win; "y" by everyone: no contribution measurable.
    assert "dominant" not in items["x"]["flags"] and items["x"]["contribution"]["diff"] < 0
    assert items["y"]["contribution"]["diff"] is None
    # Used by the winner alone in every match: dominant.
    recs = _records(0, 100)
    for rec in recs:
        rec["moves"]["A"]["w"] = 1
    monkeypatch.setattr(stats, "catalogue", lambda game, lineups: ["w"])
    items = stats.aggregate(recs, "duell", ["A", "B"])["moves"]["items"]
    assert "dominant" in items["w"]["flags"]
    # Used once in 200 seat-matches: rare.
    recs = _records(0, 100)
    recs[0]["moves"]["B"]["r"] = 1
    items = stats.aggregate(recs, "duell", ["A", "B"])["moves"]["items"]
    assert "rare" in items["r"]["flags"]
