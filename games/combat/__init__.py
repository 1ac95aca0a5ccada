"""Combat (game id ``combat``): a "War"-family battle game for 2-6 players. See
docs/rules/combat.md."""
from games.info import BotLevel, GameInfo, random_level

from . import bots, lab, secrets
from .engine import GAME, CombatGame


def _strong(budget: int | None = None):
    from .strong import make_bot

    return make_bot(budget)


INFO = GameInfo(
    game=GAME,
    rules="docs/rules/combat.md",
    board="combat",
    simultaneous=True,
    bots=(random_level(bots.random_action), BotLevel("strong", _strong, budgeted=True)),
    lab=lab.PROFILE,
    option_variants=({}, {"variant": "versus", "ending": "surrender"},
                     {"variant": "advanced", "advanced_cards": 4, "decks": 2},
                     {"variant": "multiply", "ending": "surrender", "max_battles": 40}),
    secret_variant=secrets.secret_variant,
    reveals=secrets.reveals,
)

__all__ = ["GAME", "INFO", "CombatGame"]
