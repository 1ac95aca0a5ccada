"""One lab match and what it says, in the worker process.

Everything here reads the engine's events and the actions (never the bots' internals), so the
same numbers come out whichever bots play. A match record (``play_one``) is small, JSON-able
and holds everything the report needs::

    {"i", "variant", "bots": {seat: level}, "lineup": {seat: name|None}, "outcome":
     {seat: "win"|"loss"|"draw"}, "draw", "first": seat|None, "length", "decisions",
     "reason", "moves": {seat: {move: uses}}, "actions": {seat: {action: uses}}}

What a "move", the "length" and the "first player" are depends on the game: its lab profile
(``GameInfo.lab``, games/lab.py) and the ``Tracker`` that reads its events, in the game's
package (``games/<game>/lab.py``).
"""
from __future__ import annotations

from app.lab.spec import LabSpec
from games.bots import get_bot, play_match
from games.registry import get_info


def _setup_actions(info, lineup: dict[str, str]) -> list[tuple[str, dict]]:
    """The choices the lab makes for the seats before the bots play (their lineups)."""
    bring = info.lab.lineup_action
    if bring is None:
        return []
    return [(s, bring(name)) for s, name in lineup.items()]


def outcomes(result: dict, seats: list[str]) -> dict[str, str]:
    """win / loss / draw per seat: a draw when every seat shares first place; otherwise the
    seats in first place win (several, if they tie for it) and the rest lose."""
    places = result["places"]
    if all(places[s] == 1 for s in seats):
        return dict.fromkeys(seats, "draw")
    return {s: "win" if places[s] == 1 else "loss" for s in seats}


def play_one(spec: LabSpec, i: int, options: dict | None = None) -> dict:
    """Play match ``i`` of the run (with ``options`` instead of the spec's, for the compared
    rule set) and return its record."""
    info = get_info(spec.game)
    game = info.game
    seats = spec.seat_list()
    levels = spec.bots_for(i)
    # A level without a thinking budget ignores spec.budget (games.bots.get_bot).
    bots = {s: get_bot(spec.game, levels[s], spec.budget) for s in seats}
    opts, variant = spec.options_for(i, options)
    lineup = spec.lineup_for(i)
    tracker = info.lab.tracker(seats)
    for s, name in lineup.items():
        tracker.lineup[s] = name
    seed = spec.match_seed(i)
    setup = _setup_actions(info, lineup)
    tracker.setup_left = len(setup)
    state = play_match(game, bots, seed, opts, setup_actions=setup, on_step=tracker.step)
    result = game.result(state)
    tracker.result = result
    return {
        "i": i,
        "seed": seed,
        "variant": variant,
        "bots": levels,
        "lineup": dict(tracker.lineup),
        "outcome": outcomes(result, seats),
        "draw": bool(result["draw"]),
        "reason": result.get("reason"),
        "first": tracker.first,
        "length": tracker.length(),
        "decisions": tracker.decisions,
        "moves": {s: dict(c) for s, c in tracker.moves.items()},
        "actions": {s: dict(c) for s, c in tracker.actions.items()},
    }


def play_chunk(spec_dict: dict, indices: list[int], options: dict | None = None) -> list[dict]:
    """Worker entry point (module level, so a process pool can pickle it)."""
    spec = LabSpec.from_dict(spec_dict)
    return [play_one(spec, i, options) for i in indices]
