"""The lab's numbers: from match records (app/lab/play.py) to the report (a JSON-able dict).

Confidence intervals are 95%:

* a proportion k/n: the Wilson score interval (sound for small n and for rates near 0 or 1);
* a difference of two proportions: Newcombe's hybrid score interval (built from the two
  Wilson intervals; the two runs of a comparison are treated as independent samples, which
  is conservative: they share seeds);
* a mean: mean ± 1.96 · sd / √n; a difference of means: the same with both variances.

Flags on moves (techniques, cards), documented in docs/lab.md:

* ``never``: no seat used it in any match (among the moves the game could have used);
* ``rare``: used in fewer than ``RARE_SHARE`` (2%) of the seat-matches that could use it;
* ``dominant``: seats that used it won more often than seats that did not, and the lower
  end of the 95% interval of that difference is above ``DOMINANT_MARGIN`` (10 points) —
  strong evidence the move is worth at least ten points of win rate.
"""
from __future__ import annotations

import math
from collections import Counter, defaultdict

from games.registry import get_info

Z = 1.959963984540054  # two-sided 95%
RARE_SHARE = 0.02
DOMINANT_MARGIN = 0.10
HISTOGRAM_BINS = 20


# ------------------------------------------------------------------------------------------
# Intervals
# ------------------------------------------------------------------------------------------
def wilson(k: int, n: int, z: float = Z) -> tuple[float, float]:
    if n <= 0:
        return 0.0, 1.0
    p = k / n
    den = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / den
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    return max(0.0, centre - half), min(1.0, centre + half)


def proportion(k: int, n: int) -> dict:
    lo, hi = wilson(k, n)
    return {"k": k, "n": n, "rate": k / n if n else None, "lo": lo, "hi": hi}


def newcombe(k1: int, n1: int, k2: int, n2: int) -> dict:
    """p1 - p2 with its 95% interval (Newcombe's method 10)."""
    if not n1 or not n2:
        return {"diff": None, "lo": None, "hi": None}
    p1, p2 = k1 / n1, k2 / n2
    l1, u1 = wilson(k1, n1)
    l2, u2 = wilson(k2, n2)
    d = p1 - p2
    return {"diff": d, "lo": d - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2),
            "hi": d + math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)}


def mean_ci(values: list[float]) -> dict:
    n = len(values)
    if not n:
        return {"n": 0, "mean": None, "lo": None, "hi": None, "sd": None}
    m = sum(values) / n
    sd = math.sqrt(sum((v - m) ** 2 for v in values) / (n - 1)) if n > 1 else 0.0
    half = Z * sd / math.sqrt(n)
    return {"n": n, "mean": m, "lo": m - half, "hi": m + half, "sd": sd}


def mean_diff(a: dict, b: dict) -> dict:
    if not a["n"] or not b["n"]:
        return {"diff": None, "lo": None, "hi": None}
    d = a["mean"] - b["mean"]
    half = Z * math.sqrt(a["sd"] ** 2 / a["n"] + b["sd"] ** 2 / b["n"])
    return {"diff": d, "lo": d - half, "hi": d + half}


def percentile(sorted_values: list[float], q: float) -> float | None:
    """Nearest-rank percentile (q in 0..100)."""
    if not sorted_values:
        return None
    k = max(0, math.ceil(q / 100 * len(sorted_values)) - 1)
    return sorted_values[k]


# ------------------------------------------------------------------------------------------
# Aggregation
# ------------------------------------------------------------------------------------------
def _wld() -> dict:
    return {"win": 0, "loss": 0, "draw": 0}


def _record(c: dict) -> dict:
    n = c["win"] + c["loss"] + c["draw"]
    return {"games": n, "wins": c["win"], "losses": c["loss"], "draws": c["draw"],
            "win_rate": proportion(c["win"], n),
            # Draws as half a win: the usual "score" of a seat or a player.
            "score": (c["win"] + 0.5 * c["draw"]) / n if n else None}


def catalogue(game_id: str, lineups: set[str]) -> list[str]:
    """The moves a match of this game could have used (for the "never used" flag): the
    game's lab profile says (``GameInfo.lab.catalogue``)."""
    info = get_info(game_id)
    return info.lab.catalogue(lineups) if info is not None else []


def _usage(records: list[dict], key: str, known: list[str]) -> dict:
    """Use and win contribution of each move (``key`` "moves") or action (``key`` "actions").

    Per move: ``uses`` and its ``share`` of all uses (Wilson interval over uses); ``used_in``:
    the seat-matches that used it at least once, out of all seat-matches; ``win_when_used``
    and ``win_when_not``: win rates of those seat-matches and of the others; ``contribution``:
    their difference (Newcombe interval); ``flags``.
    """
    uses: Counter = Counter()
    used_in: Counter = Counter()
    wins_used: Counter = Counter()
    seat_games = 0
    seat_wins = 0
    for r in records:
        for seat, moves in r[key].items():
            seat_games += 1
            won = r["outcome"][seat] == "win"
            seat_wins += won
            for m, n in moves.items():
                uses[m] += n
                used_in[m] += 1
                wins_used[m] += won
    total = sum(uses.values())
    out = {}
    for m in sorted(set(uses) | set(known), key=lambda x: (-uses[x], x)):
        k, w = used_in[m], wins_used[m]
        not_n, not_w = seat_games - k, seat_wins - w
        contribution = newcombe(w, k, not_w, not_n)
        flags = []
        if uses[m] == 0:
            flags.append("never")
        elif seat_games and k / seat_games < RARE_SHARE:
            flags.append("rare")
        if contribution["lo"] is not None and contribution["lo"] > DOMINANT_MARGIN:
            flags.append("dominant")
        out[m] = {"uses": uses[m], "share": proportion(uses[m], total),
                  "used_in": proportion(k, seat_games),
                  "win_when_used": proportion(w, k), "win_when_not": proportion(not_w, not_n),
                  "contribution": contribution, "flags": flags}
    return {"total": total, "seat_games": seat_games, "items": out}


def _histogram(values: list[int]) -> dict:
    if not values:
        return {"edges": [], "counts": []}
    lo, hi = min(values), max(values)
    width = max(1, math.ceil((hi - lo + 1) / HISTOGRAM_BINS))
    edges = list(range(lo, hi + width + 1, width))
    counts = [0] * (len(edges) - 1)
    for v in values:
        counts[min(len(counts) - 1, (v - lo) // width)] += 1
    return {"edges": edges, "counts": counts}


def _lengths(records: list[dict], key: str) -> dict:
    vals = sorted(r[key] for r in records)
    out = mean_ci(vals)
    out.update(p50=percentile(vals, 50), p90=percentile(vals, 90),
               min=vals[0] if vals else None, max=vals[-1] if vals else None)
    return out


def aggregate(records: list[dict], game_id: str, seats: list[str]) -> dict:
    """The report of one rule set's matches."""
    n = len(records)
    per_seat = {s: _wld() for s in seats}
    per_bot: dict[str, dict] = defaultdict(_wld)
    per_lineup: dict[str, dict] = defaultdict(_wld)
    matrix: dict[tuple, dict] = defaultdict(_wld)
    variants: dict[str, list] = defaultdict(list)
    draws = 0
    first_n = first_w = first_d = 0
    reasons: Counter = Counter()
    for r in records:
        draws += r["draw"]
        reasons[r["reason"]] += 1
        variants[r["variant"]].append(r)
        for s in seats:
            o = r["outcome"][s]
            per_seat[s][o] += 1
            per_bot[r["bots"][s]][o] += 1
            name = r["lineup"].get(s)
            if name is not None:
                per_lineup[name][o] += 1
                if len(seats) == 2:
                    other = r["lineup"].get(seats[1] if s == seats[0] else seats[0])
                    if other is not None:
                        matrix[(name, other)][o] += 1
        if r["first"] is not None:
            first_n += 1
            o = r["outcome"][r["first"]]
            first_w += o == "win"
            first_d += o == "draw"
    lineup_names = sorted(per_lineup)
    report = {
        "games": n,
        "seats": {s: _record(c) for s, c in per_seat.items()},
        "bots": {b: _record(c) for b, c in sorted(per_bot.items())},
        "lineups": {name: _record(per_lineup[name]) for name in lineup_names},
        "lineup_matrix": {a: {b: _record(matrix[(a, b)]) for b in lineup_names
                              if (a, b) in matrix} for a in lineup_names},
        "draws": proportion(draws, n),
        "first_player": {"games": first_n, "win_rate": proportion(first_w, first_n),
                         "draws": first_d} if first_n else None,
        "length": _lengths(records, "length"),
        "decisions": _lengths(records, "decisions"),
        "length_histogram": _histogram([r["length"] for r in records]),
        "reasons": dict(reasons.most_common()),
        "moves": _usage(records, "moves", catalogue(game_id, set(lineup_names))),
        "actions": _usage(records, "actions", []),
        "variants": {},
    }
    if len(variants) > 1:
        for label, recs in variants.items():
            report["variants"][label] = {
                "games": len(recs),
                "seats": {s: _record(_count(recs, s)) for s in seats},
                "draws": proportion(sum(r["draw"] for r in recs), len(recs)),
                "length": _lengths(recs, "length"),
            }
    return report


def _count(records: list[dict], seat: str) -> dict:
    c = _wld()
    for r in records:
        c[r["outcome"][seat]] += 1
    return c


# ------------------------------------------------------------------------------------------
# Comparing two rule sets
# ------------------------------------------------------------------------------------------
def _pdiff(a: dict, b: dict) -> dict:
    return newcombe(a["k"], a["n"], b["k"], b["n"])


def compare(a: dict, b: dict) -> dict:
    """Differences (second rule set minus first) with 95% intervals."""
    out = {
        "seats": {s: _pdiff(b["seats"][s]["win_rate"], a["seats"][s]["win_rate"])
                  for s in a["seats"]},
        "bots": {k: _pdiff(b["bots"][k]["win_rate"], a["bots"][k]["win_rate"])
                 for k in a["bots"] if k in b["bots"]},
        "lineups": {k: _pdiff(b["lineups"][k]["win_rate"], a["lineups"][k]["win_rate"])
                    for k in a["lineups"] if k in b["lineups"]},
        "draws": _pdiff(b["draws"], a["draws"]),
        "first_player": (_pdiff(b["first_player"]["win_rate"], a["first_player"]["win_rate"])
                         if a["first_player"] and b["first_player"] else None),
        "length": mean_diff(b["length"], a["length"]),
        "moves": {},
    }
    for m in sorted(set(a["moves"]["items"]) | set(b["moves"]["items"])):
        ia, ib = a["moves"]["items"].get(m), b["moves"]["items"].get(m)
        if ia and ib:
            out["moves"][m] = {"share": _pdiff(ib["share"], ia["share"]),
                               "used_in": _pdiff(ib["used_in"], ia["used_in"])}
    return out
