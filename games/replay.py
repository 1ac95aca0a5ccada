"""Re-run a match record through its engine: the record is (game, options, seats, seed,
steps) and nothing else, so the result must be the stored final state."""
from __future__ import annotations

from collections.abc import Iterable

from games.base import State
from games.registry import get_game


def replay(game_id: str, options: dict, seats: list[str], seed: int,
           steps: Iterable[dict]) -> State:
    """``steps``: dicts with ``seat``, ``kind`` (action | resign | timeout) and ``action``."""
    game = get_game(game_id)
    if game is None:
        raise ValueError(f"unknown game {game_id!r}")
    state = game.setup(options, seats, seed)
    for step in steps:
        if step["kind"] == "timeout":
            state, _ = game.timeout(state, step["seat"])
        else:
            state, _ = game.apply(state, step["seat"], step["action"])
    return state


def replay_record(record: dict) -> State:
    """Replay the JSON of ``GET /api/matches/{id}/record``."""
    seats = [s["seat"] for s in record["seats"]]
    return replay(record["game"], record["options"], seats, record["seed"], record["actions"])
