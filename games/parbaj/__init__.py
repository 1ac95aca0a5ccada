"""Párbaj: the tournament mode of a creature card game (see docs/rules/parbaj.md)."""
from games.info import BotLevel, GameInfo, random_level
from games.parbaj.cardpool import CARDS, POOL, CardDataError, card_text, load_pool  # noqa: F401
from games.parbaj.decks import (  # noqa: F401
    DeckTextError,
    Problem,
    deck_from_text,
    deck_to_text,
    starter_decks,
    validate_deck,
)
from games.parbaj.engine import GAME, ParbajGame  # noqa: F401

from . import bots, lab, secrets


def _strong(budget: int | None = None):
    from .strong import make_bot

    return make_bot(budget)


INFO = GameInfo(
    game=GAME,
    rules="docs/rules/parbaj.md",
    board="parbaj",
    simultaneous=True,  # the deck choice and the promotions
    bots=(random_level(bots.random_action), BotLevel("strong", _strong, budgeted=True)),
    lab=lab.PROFILE,
    option_variants=({}, {"best_of": 3, "open_deck_lists": False}),
    secret_variant=secrets.secret_variant,
    reveals=secrets.reveals,
)
