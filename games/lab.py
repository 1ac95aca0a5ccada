"""What the balance lab (app/lab/) reads of a game, declared by the game itself.

A game's ``LabProfile`` (in its ``GameInfo``, see games/info.py) says what a "move" and the
"length" of a match are, which moves a match could use (for the "never used" flag), and what a
seat may bring that the lab assigns (Duel duellists, Párbaj starter decks). Its ``Tracker``
reads the engine's events and the actions of one match, never the bots' internals, so the same
numbers come out whichever bots play.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass


class Tracker:
    """Per-match collector; a game's subclass reads its events (``event``), names its actions
    (``action_label``), says who moved first (``first``) and how long the match was
    (``length``). The base counts decisions: a game without a tracker of its own gets that."""

    def __init__(self, seats: list[str]):
        self.moves: dict[str, Counter[str]] = {s: Counter() for s in seats}
        self.actions: dict[str, Counter[str]] = {s: Counter() for s in seats}
        self.lineup: dict[str, str | None] = dict.fromkeys(seats)
        self.first: str | None = None
        self.result: dict | None = None
        self.decisions = 0
        self.setup_left = 0  # the lab's own setup actions: their events count, they do not

    def step(self, state: dict, seat: str, action: dict, events: list[dict]) -> None:
        if self.setup_left:
            self.setup_left -= 1
        else:
            self.decisions += 1
            self.actions[seat][self.action_label(action)] += 1
        for e in events:
            if e["type"] == "match_end":
                self.result = e["result"]
            self.event(state, seat, action, e)

    def action_label(self, action: dict) -> str:
        return action["type"]

    def event(self, state: dict, seat: str, action: dict, e: dict) -> None:
        pass

    def length(self) -> int:
        return self.decisions


def _no_moves(lineups: set[str]) -> list[str]:
    return []


def _no_lineups() -> list[str]:
    return []


@dataclass(frozen=True)
class LabProfile:
    """How the lab reports a game.

    * ``length_unit``: what ``Tracker.length`` counts, plural ("duels", "slots"); also the
      key ``lab.unit.<length_unit>`` of the lab page's catalogue.
    * ``moves``: what the report calls the moves the tracker counts ("cards played").
    * ``tracker``: the ``Tracker`` subclass.
    * ``catalogue(lineups)``: every move a match with these lineups could use.
    * ``lineup``: what a seat brings that the lab assigns ("duellist", "deck"), or None;
      ``lineups()`` lists them all, ``lineup_action(name)`` is the action that brings one.
    * ``lineups_against_field``: no lineups named means every one, and mirror pairings are
      left out (a deck is measured against the field; Párbaj). Otherwise none named means
      the bots choose, and mirrors are kept.
    """

    length_unit: str = "decisions"
    moves: str = "moves"
    tracker: type[Tracker] = Tracker
    catalogue: Callable[[set[str]], list[str]] = _no_moves
    lineup: str | None = None
    lineups: Callable[[], list[str]] = _no_lineups
    lineup_action: Callable[[str], dict] | None = None
    lineups_against_field: bool = False
