"""Combat (game id ``combat``): a "War"-family battle game for 2-6 players. See
docs/rules/combat.md."""
from games.combat.engine import GAME, CombatGame

__all__ = ["GAME", "CombatGame"]
