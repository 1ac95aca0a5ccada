"""Every playable game, by id. A new game is a new package plus one line here."""
from __future__ import annotations

from games.base import Game

# Imported lazily so a broken engine under development cannot take the others down at import.
_MODULES = {
    "duell": "games.duell",
    "combat": "games.combat",
    "duel": "games.duel",
    "parbaj": "games.parbaj",
}

_cache: dict[str, Game] = {}


def get_game(game_id: str) -> Game | None:
    if game_id not in _MODULES:
        return None
    if game_id not in _cache:
        import importlib

        _cache[game_id] = importlib.import_module(_MODULES[game_id]).GAME
    return _cache[game_id]


def all_games() -> list[Game]:
    return [get_game(g) for g in _MODULES]  # type: ignore[misc]
