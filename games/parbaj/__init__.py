"""Párbaj: the tournament mode of a creature card game (see docs/rules/parbaj.md)."""
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
