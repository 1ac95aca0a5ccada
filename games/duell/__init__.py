"""Duell: Reiner Knizia's fencing card game (Prologo and Tenzone). Rules: docs/rules/duell.md."""
from games.duell.engine import OPTIONS, Duell

GAME = Duell(id="duell", name="Duell", min_players=2, max_players=2, options=OPTIONS)

__all__ = ["GAME", "Duell"]
