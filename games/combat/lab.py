"""What the balance lab counts in a Combat match: no moves (there are no choices), the length
in battles, no first player (every decision is simultaneous)."""
from __future__ import annotations

from games.lab import LabProfile, Tracker


class CombatTracker(Tracker):
    def length(self) -> int:
        return self.result.get("battles", 0) if self.result else 0


PROFILE = LabProfile(length_unit="battles", moves="moves", tracker=CombatTracker)
