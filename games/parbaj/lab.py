"""What the balance lab counts in a Párbaj match: cards used (placed, evolved, attached, field
or coach placed, coach used, or whose ability was declared); the length in rounds; the first
player is the starter of game 1. The lab gives each seat a starter deck, measured against the
field (no mirror pairings; none named: every starter deck)."""
from __future__ import annotations

from games.lab import LabProfile, Tracker

from .cardpool import POOL


class ParbajTracker(Tracker):
    CARD_EVENTS = ("placed", "evolved", "attached", "field_placed", "coach_placed", "coach_used")

    def event(self, state, seat, action, e):
        t = e["type"]
        if t == "game_start" and e["game"] == 1:
            self.first = e["starter"]
        elif t in self.CARD_EVENTS:
            self.moves[e["seat"]][e["card"]] += 1
        elif t == "declared":
            # The declaring creature is still on the battlefield: a declaration never resolves
            # the round by itself (the other player's pass or declaration comes first).
            self.moves[e["seat"]][state["creatures"][e["creature"]]["card"]] += 1

    def length(self) -> int:
        if not self.result:
            return 0
        return sum(g["rounds"] for g in self.result.get("games", []))


def catalogue(lineups: set[str]) -> list[str]:
    cards: set[str] = set()
    for name in lineups:
        if name in POOL.decks:
            cards |= set(POOL.decks[name]["cards"])
    return sorted(cards)


def starter_decks() -> list[str]:
    return list(POOL.decks)


def bring(deck: str) -> dict:
    return {"type": "choose_deck", "deck": deck}


PROFILE = LabProfile(length_unit="rounds", moves="cards used", tracker=ParbajTracker,
                     catalogue=catalogue, lineup="deck", lineups=starter_decks,
                     lineup_action=bring, lineups_against_field=True)
