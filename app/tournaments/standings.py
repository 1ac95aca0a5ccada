"""Standings and tie-breakers, computed from the match records (never stored).

Swiss (the usual card-game rules, after the MTG tournament rules, Appendix C):

* match points: 3 per match win (a bye is a win), 1 per drawn match, 0 per loss;
* MW% = match points / (3 x rounds played), at least 0.33;
* GW% = game points / (3 x games played), game points being 3 per game won and 1 per drawn
  game, at least 0.33; a bye counts as a match won by the minimum games (2-0 in best-of-3);
* OMW% / OGW% = the average of the opponents' MW% / GW%, each already floored at 0.33.
  Bye rounds are left out (a bye is not an opponent); an opponent met twice counts twice;
  dropped opponents still count with the rounds they played;
* order: match points, OMW%, GW%, OGW%, then seed.

Round robin: match points (3/1/0: with no drawn matches that is match wins), then
head-to-head (match points scored in the matches among the players tied on match points),
then game wins, then seed. A round-robin bye scores nothing (everyone gets exactly one when
the count is odd).

Elimination: players are placed by how far they got. ``place`` is shared by everybody
knocked out at the same stage (for 8 players: 1, 2, 3-4, 5-8 in single elimination; 1, 2,
3, 4, 5-6, 7-8 in double elimination) and is ``None`` for players still in.

Ratios are exact ``Fraction``s for sorting and shown rounded to four decimals.
"""
from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from .elimination import finished, reset_needed

FLOOR = Fraction(33, 100)
WIN, DRAW = 3, 1


def need(best_of: int) -> int:
    return best_of // 2 + 1


def _r(x: Fraction) -> float:
    return round(float(x), 4)


# ---------------------------------------------------------------------------------- Swiss


def _floored(num: int, den: int) -> tuple[int, int]:
    """``max(0.33, num/den)`` as a (numerator, denominator) pair; 0.33 when ``den`` is 0."""
    if den == 0 or 100 * num < 33 * den:
        return 33, 100
    return num, den


def _means(values: dict, groups: dict) -> dict:
    """Exact mean of ``values`` (ratios as pairs) over each key's group (``FLOOR`` for an
    empty group). Summed over one common denominator: one ``Fraction`` per player instead
    of one per term, which is what makes 1,000-player standings cheap."""
    dens = {d for _, d in values.values()}
    common = 1
    for d in dens:
        common = common * d // math.gcd(common, d)
    scaled = {k: n * (common // d) for k, (n, d) in values.items()}
    out = {}
    for k, members in groups.items():
        if members:
            out[k] = Fraction(sum(scaled[o] for o in members), common * len(members))
        else:
            out[k] = FLOOR
    return out


def swiss_table(state: dict) -> list[dict]:
    """Swiss standings rows (best first). Each row carries every tie-breaker value."""
    players = state["players"]
    st: dict[Any, dict] = {}
    for p in players:
        missed = p.get("missed_rounds", 0)
        st[p["id"]] = {
            "points": 0, "wins": 0, "draws": 0, "losses": missed, "byes": 0,
            "rounds": missed, "game_wins": 0, "game_losses": 0, "game_draws": 0,
            "opponents": [], "seed": p["seed"], "dropped": p["dropped"],
        }
    for mid in _stage_ids(state, "swiss"):
        m = state["matches"][mid]
        if m["status"] != "done" or m["void"]:
            continue
        if m["bye"]:
            s = st[m["players"][0]]
            s["points"] += WIN
            s["wins"] += 1
            s["byes"] += 1
            s["rounds"] += 1
            s["game_wins"] += need(m["best_of"])
            continue
        a, b = m["players"]
        res = m["result"]
        ga, gb = res["games"]
        for me, them, gw, gl in ((a, b, ga, gb), (b, a, gb, ga)):
            s = st[me]
            s["rounds"] += 1
            s["opponents"].append(them)
            s["game_wins"] += gw
            s["game_losses"] += gl
            s["game_draws"] += res["draws"]
            if m["winner"] is None:
                s["points"] += DRAW
                s["draws"] += 1
            elif m["winner"] == me:
                s["points"] += WIN
                s["wins"] += 1
            else:
                s["losses"] += 1
    mw, gwp = {}, {}  # exact ratios as (numerator, denominator), floored
    for pid, s in st.items():
        mw[pid] = _floored(s["points"], 3 * s["rounds"])
        games = s["game_wins"] + s["game_losses"] + s["game_draws"]
        gwp[pid] = _floored(WIN * s["game_wins"] + DRAW * s["game_draws"], 3 * games)
    opps_of = {pid: s["opponents"] for pid, s in st.items()}
    omw = _means(mw, opps_of)
    ogw = _means(gwp, opps_of)
    rows = []
    for pid, s in st.items():
        mw_p, gw_p = Fraction(*mw[pid]), Fraction(*gwp[pid])
        rows.append((
            (-s["points"], -omw[pid], -gw_p, -ogw[pid], s["seed"]),
            {
                "player": pid, "seed": s["seed"], "points": s["points"],
                "wins": s["wins"], "draws": s["draws"], "losses": s["losses"], "byes": s["byes"],
                "rounds": s["rounds"], "mw": _r(mw_p), "omw": _r(omw[pid]), "gw": _r(gw_p),
                "ogw": _r(ogw[pid]), "game_wins": s["game_wins"], "game_losses": s["game_losses"],
                "game_draws": s["game_draws"], "opponents": list(s["opponents"]), "dropped": s["dropped"],
            },
        ))
    rows.sort(key=lambda kr: kr[0])
    out = []
    for i, (_, row) in enumerate(rows):
        row["rank"] = i + 1
        out.append(row)
    return out


# ---------------------------------------------------------------------------- round robin


def round_robin_table(state: dict) -> list[dict]:
    st: dict[Any, dict] = {}
    for p in state["players"]:
        st[p["id"]] = {
            "points": 0, "wins": 0, "draws": 0, "losses": 0, "played": 0,
            "game_wins": 0, "game_losses": 0, "seed": p["seed"], "dropped": p["dropped"],
        }
    pair_points: dict[tuple, int] = {}  # (me, them) -> points me took from them
    for mid in _stage_ids(state, "round_robin"):
        m = state["matches"][mid]
        if m["status"] != "done" or m["bye"] or m["void"]:
            continue
        a, b = m["players"]
        ga, gb = m["result"]["games"]
        for me, them, gw, gl in ((a, b, ga, gb), (b, a, gb, ga)):
            s = st[me]
            s["played"] += 1
            s["game_wins"] += gw
            s["game_losses"] += gl
            if m["winner"] is None:
                pts = DRAW
                s["draws"] += 1
            elif m["winner"] == me:
                pts = WIN
                s["wins"] += 1
            else:
                pts = 0
                s["losses"] += 1
            s["points"] += pts
            pair_points[(me, them)] = pair_points.get((me, them), 0) + pts
    by_points: dict[int, list] = {}
    for pid, s in st.items():
        by_points.setdefault(s["points"], []).append(pid)
    rows = []
    for pid, s in st.items():
        tied = by_points[s["points"]]
        h2h = sum(pair_points.get((pid, o), 0) for o in tied if o != pid) if len(tied) > 1 else 0
        rows.append((
            (-s["points"], -h2h, -s["game_wins"], s["seed"]),
            {
                "player": pid, "seed": s["seed"], "points": s["points"], "wins": s["wins"],
                "draws": s["draws"], "losses": s["losses"], "played": s["played"], "h2h": h2h,
                "game_wins": s["game_wins"], "game_losses": s["game_losses"],
                "game_diff": s["game_wins"] - s["game_losses"], "dropped": s["dropped"],
            },
        ))
    rows.sort(key=lambda kr: kr[0])
    out = []
    for i, (_, row) in enumerate(rows):
        row["rank"] = i + 1
        out.append(row)
    return out


# ---------------------------------------------------------------------------- elimination


def bracket_table(state: dict, summary: dict) -> list[dict]:
    """Rows for a bracket's entrants: placement by elimination stage (later is better)."""
    matches = state["matches"]
    double = summary["double"]
    dropped = {p["id"]: p["dropped"] for p in state["players"]}
    st: dict[Any, dict] = {}
    for i, pid in enumerate(summary["entrants"]):
        st[pid] = {
            "wins": 0, "losses": 0, "byes": 0, "game_wins": 0, "game_losses": 0,
            "out": None, "out_in": None, "seed": i + 1,
        }
    for rnd in summary["schedule"]:
        for mid in rnd:
            m = matches[mid]
            if m["status"] != "done":
                continue
            if m["void"]:
                for p in m["players"]:
                    if p is not None and st[p]["out"] is None:
                        st[p]["out"], st[p]["out_in"] = m["stage_rank"], _short(mid, summary)
                continue
            if m["bye"]:
                st[m["winner"]]["byes"] += 1
                continue
            a, b = m["players"]
            ga, gb = m["result"]["games"]
            for me, gw, gl in ((a, ga, gb), (b, gb, ga)):
                st[me]["game_wins"] += gw
                st[me]["game_losses"] += gl
            st[m["winner"]]["wins"] += 1
            lo = st[m["loser"]]
            lo["losses"] += 1
            last = mid == summary["reset_match"] or (mid == summary["final"] and not reset_needed(summary, matches))
            if lo["out"] is None and (last or lo["losses"] >= (2 if double else 1)):
                lo["out"], lo["out_in"] = m["stage_rank"], _short(mid, summary)
    done = finished(summary, matches)
    rows = list(st.items())
    outs = sorted((s["out"] for _, s in rows if s["out"] is not None), reverse=True)
    alive = sum(1 for _, s in rows if s["out"] is None)

    def place(s):
        if s["out"] is None:
            return (1, alive) if done else (None, None)
        better = alive + sum(1 for o in outs if o > s["out"])
        same = sum(1 for o in outs if o == s["out"])
        return better + 1, better + same

    out = []
    for pid, s in rows:
        p_from, p_to = place(s)
        out.append({
            "player": pid, "seed": s["seed"], "place": p_from, "place_to": p_to,
            "wins": s["wins"], "losses": s["losses"], "byes": s["byes"],
            "game_wins": s["game_wins"], "game_losses": s["game_losses"],
            "eliminated": s["out"] is not None, "eliminated_in": s["out_in"],
            "dropped": dropped.get(pid, False),
        })
    out.sort(key=lambda r: (r["place"] is not None, r["place"] or 0, r["seed"]))
    for i, row in enumerate(out):
        row["rank"] = i + 1
    return out


def _short(mid: str, summary: dict) -> str:
    return mid[len(summary["prefix"]):] if mid.startswith(summary["prefix"]) else mid


def _stage_ids(state: dict, stage: str):
    for rnd in state["rounds"]:
        for mid in rnd:
            if state["matches"][mid]["stage"] == stage:
                yield mid
