"""The bot registry: computer players for every game, at named levels.

A bot plays like a person at the same seat: it is given only that seat's view document and
answers with one action, which then goes through the same ``apply`` (and, live, the same API)
as anybody's. It never sees the engine state.

    bot = get_bot("duel", "random")
    action = bot(view_doc(game, state, "A"), random.Random(7))

``view_doc`` holds exactly the keys of the live view document (``app/live/views.py``) that a
bot may read; the live server passes its rendered document, which has these and a few more.
"""
from __future__ import annotations

import random
from typing import Any, Callable

from games.base import Game

# What a bot reads of the seat's view document.
VIEW_KEYS = ("seat", "state", "legal", "pending", "options")

Bot = Callable[[dict, random.Random], dict]


def view_doc(game: Game, state: dict, seat: str) -> dict:
    """The bot's input for ``seat``: what that seat's view document carries, nothing more."""
    return {
        "seat": seat,
        "state": game.view(state, seat),
        "legal": game.legal(state, seat),
        "pending": sorted(game.pending(state)),
        "options": state["options"],
    }


def _random_level(random_action: Callable[[list, random.Random], dict]) -> Bot:
    def bot(doc: dict, rnd: random.Random) -> dict:
        return random_action(doc["legal"], rnd)

    return bot


def _registry() -> dict[str, dict[str, Bot]]:
    from games.combat import bots as combat
    from games.duel import bots as duel
    from games.duell import bots as duell
    from games.parbaj import bots as parbaj

    return {
        "duell": {"random": _random_level(duell.random_action)},
        "duel": {"random": _random_level(duel.random_action)},
        "combat": {"random": _random_level(combat.random_action)},
        "parbaj": {"random": _random_level(parbaj.random_action)},
    }


_BOTS: dict[str, dict[str, Bot]] | None = None


def levels(game_id: str) -> tuple[str, ...]:
    """The levels a game's bots come in, weakest first."""
    global _BOTS
    _BOTS = _BOTS or _registry()
    return tuple(_BOTS.get(game_id, {}))


def get_bot(game_id: str, level: str) -> Bot:
    """The bot for ``game_id`` at ``level``; ``KeyError`` when there is none."""
    global _BOTS
    _BOTS = _BOTS or _registry()
    try:
        return _BOTS[game_id][level]
    except KeyError:
        raise KeyError(f"no {level!r} bot for {game_id!r}") from None


def choose(game_id: str, level: str, doc: dict[str, Any], rnd: random.Random) -> dict:
    """One action from the bot, given only the keys a bot may read of ``doc``."""
    return get_bot(game_id, level)({k: doc[k] for k in VIEW_KEYS}, rnd)
