"""The tournament state machine: a plain JSON dict in, a plain JSON dict out.

Every operation that changes the tournament takes ``copy=True`` by default and then works on
a private copy, so the caller's state is never mutated and a refused operation (a
``TournamentError``) leaves nothing half-done - the same contract as the game engines'
``apply``. With ``copy=False`` the state is changed in place (for simulations and the
benchmark); errors are still raised before anything is changed.

The private copy is copy-on-write, so it costs O(matches) pointer copies rather than a deep
copy of a multi-megabyte state: the containers (the state, its ``matches`` dict, the
``players`` and ``rounds`` lists, ``brackets``) are copied, while match and player records
are shared and never changed in place - every write replaces the record (``_writable``).
Bracket summaries, the round-robin schedule and the options never change after creation.
"""
from __future__ import annotations

import math
import pickle
from typing import Any

from . import elimination, round_robin
from . import standings as st
from .errors import TournamentError
from .seeding import SEEDINGS, first_player, seed_order, starts
from .swiss import pair_round

FORMATS = ("single_elimination", "double_elimination", "round_robin", "swiss")
FIRST_PLAYER = ("higher_seed", "coin", "table")
BEST_OF = (1, 3, 5, 7)
TOP_CUTS = (0, 2, 4, 8, 16, 32, 64)
STATE_KIND = "duelhall.tournament"
STATE_SCHEMA = 1

_COMMON_OPTIONS = {"best_of", "seeding", "seed", "first_player"}
_FORMAT_OPTIONS = {
    "single_elimination": set(),
    "double_elimination": {"grand_final_reset"},
    "round_robin": set(),
    "swiss": {"rounds", "top_cut", "top_cut_best_of"},
}
_ALL_OPTIONS = _COMMON_OPTIONS.union(*_FORMAT_OPTIONS.values())
_RESULT_KEYS = {"winner", "games", "draws", "forfeit"}
_MISSING = object()


def _clone(value: Any) -> Any:
    return pickle.loads(pickle.dumps(value, pickle.HIGHEST_PROTOCOL))


def _fork(state: dict) -> dict:
    """A copy that shares the (never mutated in place) match and player records."""
    new = dict(state)
    new["matches"] = dict(state["matches"])
    new["players"] = list(state["players"])
    new["rounds"] = list(state["rounds"])
    new["brackets"] = dict(state["brackets"])
    return new


def _writable(state: dict, mid: str) -> dict:
    """The match ``mid``, replaced by a private copy that may be changed."""
    m = dict(state["matches"][mid])
    state["matches"][mid] = m
    return m


def _err(code: str, message: str) -> TournamentError:
    return TournamentError(code, message)


# ----------------------------------------------------------------------------- creation


def create(format: str, players: list[dict], options: dict | None = None) -> dict:
    """A new tournament (nothing paired yet). ``players``: ``[{"id": str|int, "rating":
    number (optional)}, ...]``. ``options`` (all optional):

    ``best_of`` 1/3/5/7 (default 1); ``seeding`` "rating" (default) | "manual" | "random";
    ``seed`` int for every random choice (default 0); ``first_player`` "higher_seed"
    (default) | "coin" | "table"; Swiss: ``rounds`` (default ceil(log2 n), at least 1),
    ``top_cut`` 0 (default) or 2/4/8/16/32/64, ``top_cut_best_of`` (default ``best_of``);
    double elimination: ``grand_final_reset`` (default true).
    """
    if format not in FORMATS:
        raise _err("invalid_format", f"Unknown format {format!r}; choose one of {', '.join(FORMATS)}.")
    entries = _validate_players(players)
    if len(entries) < 2:
        raise _err("too_few_players", f"A tournament needs at least two players; {len(entries)} given.")
    opts = _validate_options(format, options or {}, len(entries))
    seeded = seed_order(entries, opts["seeding"], opts["seed"])
    state: dict = {
        "kind": STATE_KIND,
        "schema": STATE_SCHEMA,
        "revision": 0,  # +1 per accepted operation, for optimistic concurrency in a store
        "format": format,
        "options": opts,
        "players": [
            {"id": p["id"], "rating": p.get("rating"), "seed": i + 1, "dropped": False,
             "dropped_round": None, "late": False, "missed_rounds": 0}
            for i, p in enumerate(seeded)
        ],
        "round": 0,
        "rounds": [],
        "matches": {},
        "phase": None,
        "brackets": {},
        "finished": False,
        "champion": None,
    }
    ids = [p["id"] for p in state["players"]]
    if format in ("single_elimination", "double_elimination"):
        double = format == "double_elimination"
        matches, summary = elimination.build(
            "", ids, double=double, reset=opts.get("grand_final_reset", False),
            first_round=1, best_of=opts["best_of"], stage="bracket",
        )
        state["matches"] = matches
        state["brackets"]["main"] = summary
        state["phase"] = "bracket"
    elif format == "round_robin":
        state["schedule"] = round_robin.schedule(len(ids))
        state["phase"] = "round_robin"
    else:
        state["phase"] = "swiss"
    return state


def _validate_players(players: Any) -> list[dict]:
    if not isinstance(players, list):
        raise _err("invalid_player", "Players must be a list of {\"id\", \"rating\"} entries.")
    seen = set()
    out = []
    for i, p in enumerate(players):
        out.append(_validate_player(p, f"Player entry {i + 1}"))
        if out[-1]["id"] in seen:
            raise _err("duplicate_player", f"Player {out[-1]['id']!r} is listed twice.")
        seen.add(out[-1]["id"])
    return out


def _validate_player(p: Any, where: str) -> dict:
    if not isinstance(p, dict) or "id" not in p:
        raise _err("invalid_player", f"{where} needs an \"id\".")
    pid = p["id"]
    if isinstance(pid, bool) or not isinstance(pid, (str, int)) or pid == "":
        raise _err("invalid_player", f"{where}: the id must be a non-empty string or an integer.")
    rating = p.get("rating")
    if rating is not None and (
        isinstance(rating, bool) or not isinstance(rating, (int, float)) or not math.isfinite(rating)
    ):
        raise _err("invalid_player", f"{where}: the rating must be a number.")
    return {"id": pid, "rating": rating}


def _validate_options(fmt: str, options: dict, n: int) -> dict:
    if not isinstance(options, dict):
        raise _err("invalid_options", "Options must be an object.")
    unknown = sorted(set(options) - _ALL_OPTIONS)
    if unknown:
        raise _err("invalid_options", f"Unknown option {unknown[0]!r}.")
    allowed = _COMMON_OPTIONS | _FORMAT_OPTIONS[fmt]
    for k, v in options.items():
        if k not in allowed and v is not None:
            raise _err("invalid_options", f"The option {k!r} does not apply to {fmt.replace('_', ' ')}.")
    o = {k: v for k, v in options.items() if v is not None}
    out = {
        "best_of": o.get("best_of", 1),
        "seeding": o.get("seeding", "rating"),
        "seed": o.get("seed", 0),
        "first_player": o.get("first_player", "higher_seed"),
    }
    if out["best_of"] not in BEST_OF or isinstance(out["best_of"], bool):
        raise _err("invalid_options", f"The option best_of must be one of {', '.join(map(str, BEST_OF))}.")
    if out["seeding"] not in SEEDINGS:
        raise _err("invalid_options", f"The option seeding must be one of {', '.join(SEEDINGS)}.")
    if not isinstance(out["seed"], int) or isinstance(out["seed"], bool):
        raise _err("invalid_options", "The option seed must be an integer.")
    if out["first_player"] not in FIRST_PLAYER:
        raise _err("invalid_options", f"The option first_player must be one of {', '.join(FIRST_PLAYER)}.")
    if fmt == "double_elimination":
        reset = o.get("grand_final_reset", True)
        if not isinstance(reset, bool):
            raise _err("invalid_options", "The option grand_final_reset must be true or false.")
        out["grand_final_reset"] = reset
    if fmt == "swiss":
        rounds = o.get("rounds", max(1, math.ceil(math.log2(n))))
        if not isinstance(rounds, int) or isinstance(rounds, bool) or not 1 <= rounds <= 64:
            raise _err("invalid_options", "The option rounds must be an integer from 1 to 64.")
        cut = o.get("top_cut", 0)
        if cut not in TOP_CUTS or isinstance(cut, bool):
            raise _err("invalid_options", f"The option top_cut must be one of {', '.join(map(str, TOP_CUTS))}.")
        if cut > n:
            raise _err("invalid_options", f"A top {cut} cut needs at least {cut} players; {n} registered.")
        cut_bo = o.get("top_cut_best_of", out["best_of"])
        if cut_bo not in BEST_OF or isinstance(cut_bo, bool):
            raise _err("invalid_options", f"The option top_cut_best_of must be one of {', '.join(map(str, BEST_OF))}.")
        out.update(rounds=rounds, top_cut=cut, top_cut_best_of=cut_bo)
    return out


# ------------------------------------------------------------------------------ queries


def is_finished(state: dict) -> bool:
    return bool(state["finished"])


def champion(state: dict) -> Any:
    """The winner: the bracket champion (elimination, top cut), else the top of the final
    standings among players who did not drop (everybody if all dropped). ``None`` only when
    a bracket final was void (both finalists dropped) or nobody was left for a top cut."""
    if not state["finished"]:
        raise _err("not_finished", "The tournament is not over yet, so there is no champion.")
    return state.get("champion")


def standings(state: dict) -> list[dict]:
    """Rows best first; every row has ``rank`` and ``player`` plus the values that decided
    the order (see ``app/tournaments/standings.py`` and docs/tournaments.md)."""
    phase_cut = "cut" in state["brackets"]
    if state["format"] == "swiss":
        swiss = st.swiss_table(state)
        if not phase_cut:
            return swiss
        summary = state["brackets"]["cut"]
        cut_rows = st.bracket_table(state, summary)
        by_player = {r["player"]: r for r in swiss}
        out = []
        for r in cut_rows:
            row = dict(by_player[r["player"]])
            row.update(
                swiss_rank=row["rank"], cut=True, cut_seed=r["seed"], place=r["place"],
                place_to=r["place_to"], cut_wins=r["wins"], cut_losses=r["losses"],
                eliminated_in=r["eliminated_in"],
            )
            out.append(row)
        in_cut = {r["player"] for r in cut_rows}
        size = len(cut_rows)
        rest = [r for r in swiss if r["player"] not in in_cut]
        for i, r in enumerate(rest):
            row = dict(r)
            row.update(swiss_rank=r["rank"], cut=False, place=size + i + 1, place_to=size + i + 1)
            out.append(row)
        for i, row in enumerate(out):
            row["rank"] = i + 1
        return out
    if state["format"] == "round_robin":
        return st.round_robin_table(state)
    return st.bracket_table(state, state["brackets"]["main"])


def current_pairings(state: dict) -> list[dict]:
    """The pairings of the current round (byes and walkovers included; void slots of a
    bracket, where both sides were empty, left out)."""
    if not state["rounds"]:
        return []
    return [_public(state["matches"][mid]) for mid in state["rounds"][-1] if not state["matches"][mid]["void"]]


def pairings(state: dict, round: int | None = None) -> list[dict]:
    """All opened pairings, or those of one round."""
    out = []
    for i, rnd in enumerate(state["rounds"]):
        if round is None or i + 1 == round:
            out.extend(_public(state["matches"][mid]) for mid in rnd if not state["matches"][mid]["void"])
    return out


def get_pairing(state: dict, pairing_id: str) -> dict:
    m = state["matches"].get(pairing_id) if isinstance(pairing_id, str) else None
    if m is None:
        raise _err("unknown_pairing", f"There is no pairing {pairing_id!r} in this tournament.")
    return _public(m)


def bracket(state: dict, which: str = "main") -> dict:
    """The whole bracket (elimination formats; ``"cut"`` for a Swiss top cut), every match
    including those not opened yet, for drawing: ``{"size", "double", "rounds": [[match]]}``."""
    summary = state["brackets"].get(which)
    if summary is None:
        raise _err("unknown_pairing", f"This tournament has no {which!r} bracket.")
    return {
        "size": summary["size"],
        "double": summary["double"],
        "reset": summary["reset"],
        "entrants": list(summary["entrants"]),
        "rounds": [[_public(state["matches"][mid]) for mid in rnd] for rnd in summary["schedule"]],
    }


def starting_player(state: dict, pairing_id: str, game: int) -> Any:
    """Who starts game ``game`` (1-based) of a pairing: the game-1 starter is the higher
    seed (or a seeded coin flip, or the first-listed player, per ``first_player``), then
    the players alternate."""
    m = get_pairing(state, pairing_id)
    if not m["starts"]:
        raise _err("not_pending", f"Pairing {pairing_id} is not played, so nobody starts.")
    if not isinstance(game, int) or not 1 <= game <= m["best_of"]:
        raise _err("invalid_game", f"Game {game} is outside a best-of-{m['best_of']} match.")
    return m["starts"][game - 1]


def _public(m: dict) -> dict:
    return _clone(m)


# --------------------------------------------------------------------------- operations


def next_pairings(state: dict, copy: bool = True) -> tuple[dict, list[dict]]:
    """Start the next round: returns ``(state, pairings)``. Pairings are dicts with ``id``,
    ``round``, ``table`` (``None`` for a bye or walkover), ``players`` ``[a, b]`` (``b`` is
    ``None`` for a bye), ``bye``, ``forfeit``, ``status`` ("pending" or "done"), ``best_of``
    and ``starts`` (the starter of each game). Raises ``round_incomplete`` while the current
    round has unreported pairings and ``tournament_finished`` at the end. A bracket round in
    which nothing is left to play (only byes) is passed through to the next one."""
    if state["finished"]:
        raise _err("tournament_finished", "The tournament is over; there are no more rounds to pair.")
    _require_round_complete(state)
    if copy:
        state = _fork(state)
    phase = state["phase"]
    if phase == "swiss":
        if state["round"] < state["options"]["rounds"]:
            opened = _open_swiss_round(state)
        else:
            opened = _start_cut(state)
    elif phase == "round_robin":
        opened = _open_round_robin_round(state)
    else:
        opened = _open_bracket_rounds(state, state["brackets"]["cut" if phase == "cut" else "main"])
    _settle(state)
    state["revision"] += 1
    return state, [_public(state["matches"][mid]) for mid in opened if not state["matches"][mid]["void"]]


def report(state: dict, pairing_id: str, result: dict, copy: bool = True) -> dict:
    """Record a result: ``{"winner": id | None, "games": [wins of players[0], wins of
    players[1]], "draws": drawn games}``. ``games`` may be left out (the winner then takes
    the minimum number of games, 2-0 in best-of-3; a draw is 0-0); ``winner`` may be left
    out when ``games`` decide it; ``"forfeit": true`` marks a walkover. ``winner: None``
    is a drawn match (not allowed in a bracket)."""
    m = state["matches"].get(pairing_id) if isinstance(pairing_id, str) else None
    if m is None:
        raise _err("unknown_pairing", f"There is no pairing {pairing_id!r} in this tournament.")
    if m["status"] == "waiting":
        raise _err("not_pending", f"Pairing {pairing_id} has not started yet; its players are not known.")
    if m["status"] == "skipped":
        raise _err("not_pending", f"Pairing {pairing_id} was not needed and is not played.")
    if m["status"] == "done":
        if m["bye"] or m["void"]:
            raise _err("not_pending", f"Pairing {pairing_id} is a bye; it has no result to report.")
        raise _err("already_reported", f"Pairing {pairing_id} already has a result.")
    res = _normalise_result(m, result, allow_draw=m["stage"] in ("swiss", "round_robin"))
    if copy:
        state = _fork(state)
    _record(_writable(state, pairing_id), res)
    _settle(state)
    state["revision"] += 1
    return state


def drop(state: dict, player_id: Any, copy: bool = True) -> dict:
    """Withdraw a player. They are not paired again (in a bracket their next opponent wins by
    walkover). An unreported pairing of theirs in the current round is recorded at once as a
    forfeit loss (report the real result first if the match was played)."""
    player = _find_player(state, player_id)
    if state["finished"]:
        raise _err("tournament_finished", "The tournament is over; players can no longer drop.")
    if player["dropped"]:
        raise _err("already_dropped", f"Player {player_id!r} has already dropped.")
    if copy:
        state = _fork(state)
    i = state["players"].index(player)
    state["players"][i] = player = dict(player)
    player["dropped"] = True
    player["dropped_round"] = state["round"]
    for mid in state["rounds"][-1] if state["rounds"] else ():
        m = state["matches"][mid]
        if m["status"] == "pending" and any(_same(player_id, x) for x in m["players"]):
            other = m["players"][1] if _same(m["players"][0], player_id) else m["players"][0]
            m = _writable(state, mid)
            _record(m, _forfeit_result(m, other))
    _settle(state)
    state["revision"] += 1
    return state


def add_late(state: dict, player: dict, copy: bool = True) -> dict:
    """Add a late entry (Swiss only, while fewer than half the rounds have started). The
    newcomer takes the next seed and a match loss for every round already started; they
    are paired from the next round on."""
    if state["format"] != "swiss":
        raise _err("late_entry_not_allowed", "Late entries are only possible in Swiss tournaments.")
    if state["finished"]:
        raise _err("tournament_finished", "The tournament is over.")
    rounds = state["options"]["rounds"]
    if state["phase"] != "swiss" or 2 * state["round"] >= rounds:
        raise _err(
            "late_entry_closed",
            f"Late entry closed once half of the {rounds} Swiss rounds had started ({state['round']} have).",
        )
    entry = _validate_player(player, "The late entry")
    if any(_same(p["id"], entry["id"]) for p in state["players"]):
        raise _err("duplicate_player", f"Player {entry['id']!r} is already in this tournament.")
    if copy:
        state = _fork(state)
    state["players"].append({
        "id": entry["id"], "rating": entry["rating"], "seed": len(state["players"]) + 1,
        "dropped": False, "dropped_round": None, "late": True, "missed_rounds": state["round"],
    })
    state["revision"] += 1
    return state


# ---------------------------------------------------------------------------- internals


def _same(a: Any, b: Any) -> bool:
    """Player ids are typed: 1 and "1" are different players."""
    return a == b and type(a) is type(b)


def _find_player(state: dict, player_id: Any) -> dict:
    for p in state["players"]:
        if _same(p["id"], player_id):
            return p
    raise _err("unknown_player", f"There is no player {player_id!r} in this tournament.")


def _require_round_complete(state: dict) -> None:
    if not state["rounds"]:
        return
    open_ = [mid for mid in state["rounds"][-1] if state["matches"][mid]["status"] == "pending"]
    if open_:
        listed = ", ".join(open_[:5]) + (", ..." if len(open_) > 5 else "")
        raise _err(
            "round_incomplete",
            f"Round {state['round']} still has {len(open_)} unreported pairing"
            f"{'s' if len(open_) > 1 else ''} ({listed}).",
        )


def _normalise_result(m: dict, result: Any, allow_draw: bool) -> dict:
    if not isinstance(result, dict):
        raise _err("invalid_result", "A result must be an object with a winner and/or games.")
    extra = sorted(set(result) - _RESULT_KEYS)
    if extra:
        raise _err("invalid_result", f"Unknown result field {extra[0]!r}.")
    a, b = m["players"]
    bo = m["best_of"]
    need = st.need(bo)
    winner = result.get("winner", _MISSING)
    if winner is not _MISSING and winner is not None and not any(
        winner == p and type(winner) is type(p) for p in (a, b)
    ):
        raise _err("invalid_result", f"Player {winner!r} is not in pairing {m['id']}.")
    forfeit = result.get("forfeit", False)
    if not isinstance(forfeit, bool):
        raise _err("invalid_result", "The field forfeit must be true or false.")
    draws = result.get("draws", 0)
    if isinstance(draws, bool) or not isinstance(draws, int) or draws < 0:
        raise _err("invalid_result", "The field draws must be a whole number, 0 or more.")
    games = result.get("games")
    if games is None:
        if winner is _MISSING:
            raise _err("invalid_result", "Give the winner (null for a draw) or the games won by each player.")
        games = [0, 0] if winner is None else ([need, 0] if winner == a else [0, need])
    else:
        if (
            not isinstance(games, list) or len(games) != 2
            or any(isinstance(g, bool) or not isinstance(g, int) or g < 0 for g in games)
        ):
            raise _err(
                "invalid_result",
                "The field games must be two whole numbers: the games won by each player, in pairing order.",
            )
        if max(games) > need:
            raise _err("invalid_result", f"Nobody wins more than {need} games of a best-of-{bo} match.")
        decided = a if games[0] > games[1] else b if games[1] > games[0] else None
        if winner is _MISSING:
            winner = decided
        elif winner != decided:
            said = "a draw" if winner is None else f"a win for {winner!r}"
            raise _err("invalid_result", f"The games ({games[0]}-{games[1]}) do not match {said}.")
    if sum(games) + draws > bo:
        raise _err("invalid_result", f"More than {bo} games in a best-of-{bo} match.")
    if winner is None and forfeit:
        raise _err("invalid_result", "A forfeit needs a winner.")
    if winner is None and not allow_draw:
        raise _err("draw_not_allowed", f"Pairing {m['id']} is an elimination match; it needs a winner.")
    return {"winner": winner, "games": list(games), "draws": draws, "forfeit": forfeit}


def _forfeit_result(m: dict, winner: Any) -> dict:
    need = st.need(m["best_of"])
    games = [need, 0] if m["players"][0] == winner else [0, need]
    return {"winner": winner, "games": games, "draws": 0, "forfeit": True}


def _record(m: dict, res: dict) -> None:
    a, b = m["players"]
    m["result"] = res
    m["winner"] = res["winner"]
    m["loser"] = None if res["winner"] is None else (b if res["winner"] == a else a)
    m["forfeit"] = res["forfeit"]
    m["status"] = "done"


def _dropped_ids(state: dict) -> set:
    return {p["id"] for p in state["players"] if p["dropped"]}


def _seed_map(state: dict) -> dict:
    return {p["id"]: p["seed"] for p in state["players"]}


def _new_match(mid: str, stage: str, rnd: int, best_of: int) -> dict:
    return {
        "id": mid, "stage": stage, "bracket": None, "level": None, "round": rnd, "table": None,
        "players": [None, None], "seeds": [None, None], "status": "pending", "bye": False,
        "forfeit": False, "void": False, "best_of": best_of, "starts": [], "result": None,
        "winner": None, "loser": None,
    }


def _set_players(
    state: dict, m: dict, a: Any, b: Any, seeds: list, higher: Any = None, dropped: set | None = None
) -> None:
    """Fill a match's players and settle byes, walkovers and voids. ``higher`` is the higher
    seed (``a`` by default)."""
    m["players"] = [a, b]
    m["seeds"] = seeds
    if dropped is None:
        dropped = _dropped_ids(state)
    if a is None or b is None:
        m["status"] = "done"
        if a is None and b is None:
            m["void"] = True
            return
        m["bye"] = True
        w = a if a is not None else b
        if w in dropped:  # an absent player cannot take a bye: nobody advances
            m["void"] = True
            return
        need = st.need(m["best_of"])
        m["winner"] = w
        m["result"] = {"winner": w, "games": [need, 0] if w == a else [0, need], "draws": 0, "forfeit": False}
        return
    if a in dropped or b in dropped:
        if a in dropped and b in dropped:
            m["status"] = "done"
            m["void"] = True
            return
        _record(m, _forfeit_result(m, b if a in dropped else a))
        return
    opts = state["options"]
    hi = a if higher is None else higher
    lo = b if hi == a else a
    if opts["first_player"] == "table":
        hi, lo = a, b
    first = first_player("coin" if opts["first_player"] == "coin" else "higher_seed", opts["seed"], m["id"], hi, lo)
    m["starts"] = starts(first, b if first == a else a, m["best_of"])
    m["status"] = "pending"


def _open_swiss_round(state: dict) -> list[str]:
    r = state["round"] + 1
    rows = st.swiss_table(state)
    dropped = _dropped_ids(state)
    ranked = [row["player"] for row in rows if row["player"] not in dropped]
    score = {row["player"]: row["points"] for row in rows}
    byes = {row["player"]: row["byes"] for row in rows}
    opponents = {row["player"]: set(row["opponents"]) for row in rows}
    seeds = _seed_map(state)
    pairs, bye = pair_round(ranked, score, opponents, byes)
    bo = state["options"]["best_of"]
    ids = []
    for t, (a, b) in enumerate(pairs, start=1):
        m = _new_match(f"S{r}.{t}", "swiss", r, bo)
        m["table"] = t
        _set_players(state, m, a, b, [seeds[a], seeds[b]], dropped=dropped)
        state["matches"][m["id"]] = m
        ids.append(m["id"])
    if bye is not None:
        m = _new_match(f"S{r}.bye", "swiss", r, bo)
        _set_players(state, m, bye, None, [seeds[bye], None], dropped=dropped)
        state["matches"][m["id"]] = m
        ids.append(m["id"])
    state["round"] = r
    state["rounds"].append(ids)
    return ids


def _open_round_robin_round(state: dict) -> list[str]:
    r = state["round"] + 1
    by_seed = {p["seed"]: p["id"] for p in state["players"]}
    bo = state["options"]["best_of"]
    dropped = _dropped_ids(state)
    ids = []
    table = k = 0
    for a, sa, b, sb in round_robin.round_pairs(state["schedule"], r, by_seed):
        if b is None:  # the bye (odd player count)
            m = _new_match(f"R{r}.bye", "round_robin", r, bo)
            m["players"], m["seeds"], m["bye"], m["status"] = [a, None], [sa, None], True, "done"
        else:
            k += 1  # ids count games; tables count games actually played (not walkovers)
            m = _new_match(f"R{r}.{k}", "round_robin", r, bo)
            higher = a if sa < sb else b
            _set_players(state, m, a, b, [sa, sb], higher=higher, dropped=dropped)
            if m["status"] == "pending":
                table += 1
                m["table"] = table
        state["matches"][m["id"]] = m
        ids.append(m["id"])
    state["round"] = r
    state["rounds"].append(ids)
    return ids


def _start_cut(state: dict) -> list[str]:
    opts = state["options"]
    rows = st.swiss_table(state)
    dropped = _dropped_ids(state)
    entrants = [row["player"] for row in rows if row["player"] not in dropped][: opts["top_cut"]]
    state["phase"] = "cut"
    if not entrants:  # not reached in practice: with nobody active the Swiss part ends the event
        state["finished"] = True
        state["champion"] = rows[0]["player"]
        return []
    matches, summary = elimination.build(
        "C", entrants, double=False, reset=False, first_round=state["round"] + 1,
        best_of=opts["top_cut_best_of"], stage="cut",
    )
    state["matches"].update(matches)
    state["brackets"]["cut"] = summary
    return _open_bracket_rounds(state, summary)


def _open_bracket_rounds(state: dict, summary: dict) -> list[str]:
    matches = state["matches"]
    dropped = _dropped_ids(state)
    opened: list[str] = []
    while state["round"] < summary["last_round"]:
        r = state["round"] + 1
        ids = []
        table = 0
        for mid in summary["schedule"][r - summary["first_round"]]:
            m = _writable(state, mid)
            if m["bracket"] == "reset" and not elimination.reset_needed(summary, matches):
                m["status"] = "skipped"
                continue
            a = elimination.resolve(m["sources"][0], summary, matches)
            b = elimination.resolve(m["sources"][1], summary, matches)
            sa, sb = elimination.seed_of(a, summary), elimination.seed_of(b, summary)
            higher = a if sb is None or (sa is not None and sa <= sb) else b
            _set_players(state, m, a, b, [sa, sb], higher=higher, dropped=dropped)
            if m["status"] == "pending":
                table += 1
                m["table"] = table
            ids.append(mid)
        state["round"] = r
        state["rounds"].append(ids)
        opened.extend(ids)
        if any(matches[mid]["status"] == "pending" for mid in ids) or elimination.finished(summary, matches):
            break
    return opened


def _settle(state: dict) -> None:
    """Mark the tournament finished (and its champion) when nothing is left to play."""
    if state["finished"]:
        return
    matches = state["matches"]
    complete = all(matches[mid]["status"] != "pending" for mid in (state["rounds"][-1] if state["rounds"] else ()))
    phase = state["phase"]
    if phase in ("bracket", "cut"):
        summary = state["brackets"]["main" if phase == "bracket" else "cut"]
        reset = summary["reset_match"]
        if (reset and matches[summary["final"]]["status"] == "done"
                and not elimination.reset_needed(summary, matches)
                and matches[reset]["status"] == "waiting"):
            _writable(state, reset)["status"] = "skipped"
        if elimination.finished(summary, matches):
            state["finished"] = True
            state["champion"] = elimination.champion(summary, matches)
        return
    if not complete:
        return
    active = [p for p in state["players"] if not p["dropped"]]
    if phase == "swiss":
        total = state["options"]["rounds"]
        done = state["round"] >= total and not state["options"]["top_cut"]
    else:
        total = len(state["schedule"])
        done = state["round"] >= total
    if done or not active:
        state["finished"] = True
        rows = standings(state)
        stayed = [r for r in rows if not r["dropped"]]
        state["champion"] = (stayed or rows)[0]["player"] if rows else None
