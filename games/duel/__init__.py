"""Duel: a two-player Japanese sword duel with secret three-slot plans (game id ``duel``)."""
from games.duel.engine import GAME, Duel

__all__ = ["GAME", "Duel"]
