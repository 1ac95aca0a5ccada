"""From the games of one pairing to its result, and the rules for matches that do not end by
themselves (no-show, time called). Pure: the service hands in plain data read from the match
documents; nothing here reads a clock or a store.

A pairing's **ledger** is the list of its finished games, each the winner's player id or
``None`` for a drawn game, plus what ended it early (a concession, a no-show).

* Párbaj plays a whole best-of in one match (its own ``best_of`` option, starters alternate in
  the engine), so one match gives all the games of the pairing. Other games play one game per
  match; the service opens the next match while the pairing is undecided.
* A match that ends level (equal game wins after ``best_of`` games) is a **drawn match** in
  Swiss and round robin. In an elimination stage there are no draws: one more game is played
  at a time (sudden death) until someone wins one; drawn games are then left out of the
  reported score where they would not fit the best-of.
"""
from __future__ import annotations

from typing import Any

from .standings import need

# Games whose engine plays a whole best-of match (one match per pairing).
IN_ENGINE_BEST_OF = frozenset({"parbaj"})
ELIMINATION_STAGES = ("bracket", "cut")


def is_elimination(pairing: dict) -> bool:
    return pairing["stage"] in ELIMINATION_STAGES


def match_games(game_id: str, result: dict | None, state: dict | None, seats: dict[str, Any]) -> list:
    """The finished games of one match, each the winner's player id or ``None`` (drawn).
    ``seats``: seat -> player id. Párbaj: the games of the engine's best-of that were played to
    the end (from the result, or from the state when the match was cut short); other games:
    the match is one game, when it ended with a result."""
    if game_id in IN_ENGINE_BEST_OF:
        src = (result or {}).get("games")
        if src is None and state is not None:
            src = state.get("games")
        return [seats.get(g.get("winner")) if g.get("winner") else None for g in src or []]
    if not result or result.get("reason") in CUT_SHORT:
        return []
    return [None if result.get("draw") else seats.get(result.get("winner"))]


# Reasons a match is ended from outside the game (the service's rules), not by play.
CUT_SHORT = ("no_show", "time", "decided")


def conceded(game_id: str, result: dict, games: list, seats: dict[str, Any], best_of: int) -> Any:
    """The player who won the whole pairing by the opponent's concession, if any: in Párbaj a
    resignation or forfeit on time concedes the engine's whole best-of match (``best_of`` is the
    match's own); in other games a resignation loses that game only."""
    if game_id not in IN_ENGINE_BEST_OF or result.get("reason") in CUT_SHORT:
        return None
    winner = seats.get(result.get("winner")) if result.get("winner") else None
    if winner is None:
        return None
    wins = sum(1 for g in games if g == winner)
    others = sum(1 for g in games if g is not None and g != winner)
    decided = wins > others and (wins >= need(best_of) or len(games) >= best_of)
    return None if decided else winner


def outcome(pairing: dict, games: list, conceded_to: Any = None, walkover: bool = False
            ) -> dict | None:
    """The pairing's result for ``core.report``, or ``None`` while another game must be played.

    ``pairing``: the core pairing (``players``, ``best_of``, ``stage``). ``games``: the ledger.
    ``conceded_to``: a player who won the whole pairing by concession or no-show; the score is
    the games so far with the winner raised to the games needed (``walkover`` marks a no-show)."""
    a, b = pairing["players"]
    bo = pairing["best_of"]
    n = need(bo)
    wins = [sum(1 for g in games if g == a), sum(1 for g in games if g == b)]
    draws = sum(1 for g in games if g is None)
    if conceded_to is not None:
        i = 0 if conceded_to == a else 1
        wins[i] = n
        return _result(conceded_to, wins, draws, bo, walkover)
    if max(wins) >= n:
        return _result(a if wins[0] > wins[1] else b, wins, draws, bo)
    if len(games) >= bo:
        if wins[0] != wins[1]:
            return _result(a if wins[0] > wins[1] else b, wins, draws, bo)
        if not is_elimination(pairing):
            return _result(None, wins, draws, bo)
    return None  # undecided: play another game (sudden death after a level elimination match)


def _result(winner: Any, wins: list[int], draws: int, bo: int, forfeit: bool = False) -> dict:
    # Drawn games beyond what fits the best-of are left out (sudden death, concessions).
    draws = max(0, min(draws, bo - sum(wins)))
    return {"winner": winner, "games": list(wins), "draws": draws, "forfeit": forfeit}


def time_called(pairing: dict, games: list) -> dict:
    """The end-of-round rule. When the round's time is up, a match still running ends now and
    the game in progress does not count: the player with more game wins takes the match. Level
    (e.g. 0-0, 1-1): a drawn match in Swiss and round robin; in an elimination stage the higher
    seed of the pairing advances, credited with the deciding game."""
    a, b = pairing["players"]
    wins = [sum(1 for g in games if g == a), sum(1 for g in games if g == b)]
    draws = sum(1 for g in games if g is None)
    bo = pairing["best_of"]
    if wins[0] != wins[1]:
        return _result(a if wins[0] > wins[1] else b, wins, draws, bo)
    if not is_elimination(pairing):
        return _result(None, wins, draws, bo)
    w = higher_seed(pairing)
    wins[0 if w == a else 1] += 1
    return _result(w, wins, draws, bo)


def higher_seed(pairing: dict) -> Any:
    """The better-seeded player of a pairing (the lower seed number; an unknown seed is worse)."""
    a, b = pairing["players"]
    sa, sb = pairing.get("seeds") or (None, None)
    if sb is None or (sa is not None and sa <= sb):
        return a
    return b


def no_show(pairing: dict, absent: list) -> dict:
    """The result when players made no move in the no-show window. One absent player loses the
    match as a walkover (the opponent takes the games needed). Both absent: a drawn match in
    Swiss and round robin, and in an elimination stage the higher seed advances (walkover)."""
    a, b = pairing["players"]
    present = [p for p in (a, b) if p not in absent]
    if len(present) == 1:
        return outcome(pairing, [], conceded_to=present[0], walkover=True)
    if not is_elimination(pairing):
        return _result(None, [0, 0], 0, pairing["best_of"])
    return outcome(pairing, [], conceded_to=higher_seed(pairing), walkover=True)


def starter_of_game(pairing: dict, game: int) -> Any:
    """Who sits in seat A for game ``game`` (1-based) of a one-game-per-match pairing: the core's
    ``starts`` list, alternating on past the best-of (sudden death)."""
    starts = pairing["starts"]
    if game <= len(starts):
        return starts[game - 1]
    a, b = starts[0], starts[1] if len(starts) > 1 else _other(pairing, starts[0])
    return a if game % 2 == 1 else b


def _other(pairing: dict, player: Any) -> Any:
    a, b = pairing["players"]
    return b if player == a else a


def match_places(pairing_result: dict, seats: dict[str, Any]) -> dict[str, int]:
    """Places for ending a match that the pairing's result decided (``seats``: seat -> player)."""
    w = pairing_result["winner"]
    if w is None:
        return dict.fromkeys(seats, 1)
    return {s: 1 if p == w else 2 for s, p in seats.items()}


def after_match(game_id: str, pairing: dict, ledger: list, result: dict, state: dict | None,
                seats: dict[str, Any], match_best_of: int) -> tuple[list, dict | None]:
    """What a finished match means for its pairing: ``(ledger with the match's games, the
    pairing's result or None while another game must be played)``.

    ``result`` is the match's result; a match the service ended carries its reason: ``no_show``
    (with ``absent``, the seats that made no move), ``time`` (round over) or ``decided`` (the
    pairing was already decided by an override or a drop; nothing to add)."""
    games = match_games(game_id, result, state, seats)
    ledger = list(ledger) + games
    reason = result.get("reason")
    if reason == "decided":
        return ledger, None
    if reason == "no_show":
        return ledger, no_show(pairing, [seats[s] for s in result.get("absent", ()) if s in seats])
    if reason == "time":
        return ledger, time_called(pairing, ledger)
    won = conceded(game_id, result, games, seats, match_best_of)
    return ledger, outcome(pairing, ledger, conceded_to=won)
