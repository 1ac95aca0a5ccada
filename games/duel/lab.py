"""What the balance lab counts in a Duel match: techniques performed (Wait and cancelled ones
left out); the length in slots; no first player (decisions are simultaneous). The lab assigns
each seat its duellist."""
from __future__ import annotations

from games.lab import LabProfile, Tracker

from . import tables as T


class DuelTracker(Tracker):
    def action_label(self, action: dict) -> str:
        t = action["type"]
        if t == "footwork":
            return f"footwork:{action['move']}"
        if t == "dodge":
            return "dodge:yes" if action["dodge"] else "dodge:no"
        return t

    def event(self, state, seat, action, e):
        t = e["type"]
        # A technique hidden by the sun is two events: the real one (for its owner) and one
        # with technique None (for the others); the real one is counted.
        if t == "technique" and e.get("technique") and e["status"] == "performed":
            self.moves[e["seat"]][e["technique"]] += 1
        elif t == "duellist":
            self.lineup[e["seat"]] = e["duellist"]

    def length(self) -> int:
        return self.result.get("slot", 0) if self.result else 0


def catalogue(lineups: set[str]) -> list[str]:
    return [t for t in T.TECHNIQUES if t != "wait"]


def duellists() -> list[str]:
    return list(T.DUELLISTS)


def bring(duellist: str) -> dict:
    return {"type": "duellist", "duellist": duellist}


PROFILE = LabProfile(length_unit="slots", moves="techniques performed", tracker=DuelTracker,
                     catalogue=catalogue, lineup="duellist", lineups=duellists,
                     lineup_action=bring)
