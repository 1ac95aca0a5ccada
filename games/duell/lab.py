"""What the balance lab counts in a Duell match: movement cards played, by value; the length
in duels; the first player is the starter of duel 1."""
from __future__ import annotations

from games.lab import LabProfile, Tracker

from . import tables as T


class DuellTracker(Tracker):
    def __init__(self, seats):
        super().__init__(seats)
        self.duels = 0

    def step(self, state, seat, action, events):
        # The first duel starts inside setup (its events are not kept): its starter is the
        # seat that makes the match's first decision (public: the view's "starter").
        if self.first is None and self.decisions == 0:
            self.first = seat
        super().step(state, seat, action, events)

    def event(self, state, seat, action, e):
        t = e["type"]
        if t == "duel_end":
            self.duels += 1
        elif t in ("move", "retreat"):
            self.moves[e["seat"]][str(e["card"])] += 1
        elif t in ("attack", "parry"):
            for c in e["cards"]:
                self.moves[e["seat"]][str(c)] += 1
        elif t == "advance_attack":
            for c in [e["move"]] + list(e["cards"]):
                self.moves[e["seat"]][str(c)] += 1

    def length(self) -> int:
        return self.duels


def catalogue(lineups: set[str]) -> list[str]:
    return [str(v) for v in T.CARD_VALUES]


PROFILE = LabProfile(length_unit="duels", moves="cards played", tracker=DuellTracker,
                     catalogue=catalogue)
