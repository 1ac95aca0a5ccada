"""Every playable game, by id. A new game is a new package plus one line in ``_MODULES``.

A game package exports ``INFO``, its ``GameInfo`` (games/info.py): the engine and everything
else about the game. Nothing outside this module keeps a list of games.

``register(game_id, module)`` adds a game at run time (the ``EXTRA_GAMES`` setting does it at
start-up, see app/config.py; tests add a copied package this way). Processes started with
``spawn`` (lab and bot workers) get the run-time entries through ``restore(added())``.
"""
from __future__ import annotations

import importlib
import re
from typing import Any

from games.base import Game
from games.info import GameInfo

# id -> package. Imported lazily so a broken engine under development cannot take the others
# down at import.
_MODULES = {
    "duell": "games.duell",
    "combat": "games.combat",
    "duel": "games.duel",
    "parbaj": "games.parbaj",
}

# Added at run time: id -> (package, overrides of its GameInfo fields).
_added: dict[str, tuple[str, dict[str, Any]]] = {}
_cache: dict[str, GameInfo] = {}

# What the API accepts as a game id (app/api: max_length=20).
GAME_ID = re.compile(r"^[a-z][a-z0-9_]{0,19}$")


def _load(game_id: str) -> GameInfo:
    if game_id in _MODULES:
        module, overrides = _MODULES[game_id], dict[str, Any]()
    else:
        module, overrides = _added[game_id]
    info = importlib.import_module(module).INFO
    if not isinstance(info, GameInfo):
        raise TypeError(f"{module}.INFO is not a GameInfo")
    if info.id != game_id or overrides:
        info = info.as_game(game_id, **overrides)
    return info


def get_info(game_id: str) -> GameInfo | None:
    if game_id not in _MODULES and game_id not in _added:
        return None
    if game_id not in _cache:
        _cache[game_id] = _load(game_id)
    return _cache[game_id]


def get_game(game_id: str) -> Game | None:
    info = get_info(game_id)
    return info.game if info is not None else None


def ids() -> list[str]:
    return [*_MODULES, *_added]


def all_infos() -> list[GameInfo]:
    return [get_info(g) for g in ids()]  # type: ignore[misc]


def all_games() -> list[Game]:
    return [i.game for i in all_infos()]


# ------------------------------------------------------------------------------------------
# Run-time entries
# ------------------------------------------------------------------------------------------
def register(game_id: str, module: str, **overrides: Any) -> GameInfo:
    """Add the game package ``module`` (importable by name) as ``game_id``. ``overrides``
    replace fields of its ``GameInfo`` (``name``, ``board=None``, ...): the same rules under
    another id are another game. Registering the same entry again is a no-op; another
    entry under a known id is refused."""
    if not isinstance(game_id, str) or not GAME_ID.match(game_id):
        raise ValueError(f"{game_id!r} is not a game id (a-z, 0-9, _; at most 20).")
    entry = (module, dict(overrides))
    if game_id in _MODULES or (game_id in _added and _added[game_id] != entry):
        raise ValueError(f"There already is a game '{game_id}'.")
    if game_id not in _added:
        _added[game_id] = entry
        try:
            _cache[game_id] = _load(game_id)
        except BaseException:
            del _added[game_id]
            raise
    return _cache[game_id]


def register_all(entries: dict[str, Any]) -> None:
    """``{id: "package"}`` or ``{id: {"module": "package", **overrides}}`` (EXTRA_GAMES)."""
    for game_id, entry in entries.items():
        if isinstance(entry, str):
            register(game_id, entry)
        else:
            entry = dict(entry)
            register(game_id, entry.pop("module"), **entry)


def unregister(game_id: str) -> None:
    """Remove a run-time entry (a test's, when it is done)."""
    if game_id in _added:
        del _added[game_id]
        _cache.pop(game_id, None)


def added() -> dict[str, dict[str, Any]]:
    """The run-time entries, in ``register_all``'s shape (picklable: for worker processes)."""
    return {g: {"module": m, **o} for g, (m, o) in _added.items()}


def restore(entries: dict[str, Any]) -> None:
    """A worker process's initializer: the run-time entries of the process that started it."""
    register_all(entries)
