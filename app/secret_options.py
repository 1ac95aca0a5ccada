"""Secret match options (``Option.secret``: Párbaj's fixed decks): who may fix one, and what of
it a reader of a match gets. docs/security.md has the table and the tests for each line.

* Fixing: in the lobby a creator fixes at most their own seat's value; only a tournament
  (``MatchStore.create_seated``) fixes every seat.
* Copying: a rematch never carries a secret option; the players choose again.
* Reading: views, summaries and lists show ``Game.public_options``; SQL history keeps the options
  whole, so every match replays for admins; a player's record holds what the engine lets them
  read after the end (``Game.record_options`` and ``Game.record_action``).
"""
from __future__ import annotations

from app.errors import ApiError
from games.base import OMNISCIENT
from games.registry import get_game


def check_lobby_options(game, options: dict, seat: str) -> None:
    """Refuse a secret option that fixes anything but the creator's own ``seat``: a host who
    chose the joiner's deck would know their whole hand."""
    for o in game.options:
        value = options.get(o.name)
        if not o.secret or value is None:
            continue
        others = sorted(set(value) - {seat}) if isinstance(value, dict) else None
        if others is None:
            raise ApiError("invalid_options", f"Option '{o.name}' is fixed by a tournament only.")
        if others:
            raise ApiError("invalid_options",
                           f"Option '{o.name}' may fix your own seat ({seat}) only, not "
                           f"{', '.join(others)}: every other player chooses for themselves.")


def without_secrets(game, options: dict) -> dict:
    """``options`` with every secret option back at its default (for a rematch: what was fixed
    for one match and its seats is not carried into another)."""
    out = dict(options or {})
    for o in game.options if game else ():
        if o.secret and o.name in out:
            out[o.name] = o.default
    return out


def record_for(record: dict, viewer: str) -> dict:
    """A finished match's stored record (``app.db.history.match_record``) as ``viewer`` (a seat,
    or ``OMNISCIENT`` for admins) may read it. ``replayable``: nothing was held back, so
    ``games.replay.replay_record`` re-runs it."""
    game = get_game(record["game"])
    if viewer == OMNISCIENT or game is None:
        return {**record, "replayable": True}
    stored = record["options"] or {}
    options = game.record_options(stored, viewer)
    actions = [{**a, "action": game.record_action(stored, a["seat"], a["action"], viewer)}
               for a in record["actions"]]
    return {**record, "options": options, "actions": actions,
            "replayable": options == stored and actions == record["actions"]}
