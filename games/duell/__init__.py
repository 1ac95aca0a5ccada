"""Duell: Reiner Knizia's fencing card game (Prologo and Tenzone). Rules: docs/rules/duell.md."""
from games.info import BotLevel, GameInfo, random_level

from . import bots, lab, secrets
from .engine import OPTIONS, Duell

GAME = Duell(id="duell", name="Duell", min_players=2, max_players=2, options=OPTIONS)


def _strong(budget: int | None = None):
    from .strong import make_bot

    return make_bot(budget)


INFO = GameInfo(
    game=GAME,
    rules="docs/rules/duell.md",
    board="duell",
    simultaneous=False,
    bots=(random_level(bots.random_action), BotLevel("strong", _strong, budgeted=True)),
    lab=lab.PROFILE,
    option_variants=({}, {"mode": "tenzone"}, {"mode": "tenzone", "special_cards": False}),
    secret_variant=secrets.secret_variant,
    reveals=secrets.reveals,
)

__all__ = ["GAME", "INFO", "Duell"]
