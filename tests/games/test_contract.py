"""The contract suite: every check of tests/games/contract.py for every registered game. A new
game gets it by being registered (games/registry.py)."""
from __future__ import annotations

import pytest

from games.registry import get_info, ids
from tests.games.contract import CHECKS


@pytest.mark.parametrize("check", CHECKS, ids=lambda c: c.__name__.removeprefix("check_"))
@pytest.mark.parametrize("game_id", ids())
def test_contract(game_id, check):
    check(get_info(game_id))
