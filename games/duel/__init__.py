"""Duel: a two-player Japanese sword duel with secret three-slot plans (game id ``duel``)."""
from games.info import BotLevel, GameInfo, random_level

from . import bots, lab, secrets
from .engine import GAME, Duel


def _strong(budget: int | None = None):
    from .strong import make_bot

    return make_bot(budget)


INFO = GameInfo(
    game=GAME,
    rules="docs/rules/duel.md",
    board="duel",
    simultaneous=True,  # the duellists, stances, plans, footwork and dodges
    bots=(random_level(bots.random_action), BotLevel("strong", _strong, budgeted=True)),
    lab=lab.PROFILE,
    option_variants=({"max_slots": 24}, {"health": 2, "track_length": 9}),
    secret_variant=secrets.secret_variant,
    reveals=secrets.reveals,
)

__all__ = ["GAME", "INFO", "Duel"]
