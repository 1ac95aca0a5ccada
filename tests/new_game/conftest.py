"""A fifth game made the way a real one is: a copy of the games/duell package under a new
package name, in a folder outside the repository, and one registry entry. Nothing else in the
code base knows about it.

* ``new_game_package``: the copy (session scope): ``(folder on sys.path, package name)``.
* ``new_game``: the copy registered as ``GAME_ID`` for one test module (a run-time registry
  entry, ``games.registry.register``), removed again afterwards, so the other tests see the
  project's own games only. It has no board module of its own (``board=None``): the client
  shows it on the generic board.
"""
from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from games import registry

ROOT = Path(__file__).resolve().parents[2]
GAME_ID = "rapier"
PACKAGE = "duelhall_rapier"
ENTRY = {"module": PACKAGE, "name": "Rapier", "board": None}


@pytest.fixture(scope="session")
def new_game_package(tmp_path_factory) -> tuple[Path, str]:
    folder = tmp_path_factory.mktemp("new-game")
    shutil.copytree(ROOT / "games" / "duell", folder / PACKAGE,
                    ignore=shutil.ignore_patterns("__pycache__"))
    return folder, PACKAGE


@pytest.fixture(scope="module")
def new_game(new_game_package):
    folder, _ = new_game_package
    sys.path.insert(0, str(folder))
    try:
        yield registry.register(GAME_ID, **ENTRY)
    finally:
        registry.unregister(GAME_ID)
        sys.path.remove(str(folder))
