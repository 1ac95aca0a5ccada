"""Tournament core: pure functions over a JSON-able state dict (no I/O, no clock, no global
randomness). Formats: single and double elimination, round robin (Berger tables), Swiss
(maximum-weight matching) with an optional single-elimination top cut.

    state = create("swiss", [{"id": "ann", "rating": 1710}, ...], {"best_of": 3, "top_cut": 8})
    state, pairings = next_pairings(state)
    state = report(state, "S1.1", {"winner": "ann", "games": [2, 1]})
    state = drop(state, "bob")
    standings(state); is_finished(state); champion(state)

See docs/tournaments.md for the rulings.
"""
from .core import (
    FORMATS,
    add_late,
    bracket,
    champion,
    create,
    current_pairings,
    drop,
    get_pairing,
    is_finished,
    next_pairings,
    pairings,
    report,
    standings,
    starting_player,
)
from .errors import CODES, TournamentError

__all__ = [
    "CODES",
    "FORMATS",
    "TournamentError",
    "add_late",
    "bracket",
    "champion",
    "create",
    "current_pairings",
    "drop",
    "get_pairing",
    "is_finished",
    "next_pairings",
    "pairings",
    "report",
    "standings",
    "starting_player",
]
