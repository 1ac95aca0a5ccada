"""A game's self-description: one ``GameInfo`` per game package (its ``INFO``).

Everything outside the rule engine that the rest of Duelhall needs to know about a game is
here, so nothing else keeps a list of games: the server (lobby, bots, tournaments, review),
the balance lab, the browser client (through ``GET /api/games``) and the tests read the
registry (games/registry.py) and these fields.

* ``game``: the engine (games/base.py ``Game``): id, name, players min/max, options.
* ``board``: the board module, ``static/games/<board>.js``; it is also the name of the game's
  message catalogue, ``static/i18n/<lang>/<board>.json``. None: the generic board
  (static/games/generic.js), which shows the state as data and the legal actions as buttons.
* ``rules``: the rules page (a path in the repository, e.g. ``docs/rules/duell.md``).
* ``simultaneous``: whether several seats are ever pending at once (the contract suite checks
  it both ways).
* ``bots``: the computer players' levels, weakest first (``BotLevel``).
* ``lab``: how the balance lab reports it (games/lab.py ``LabProfile``).
* ``option_variants``: option sets that play differently; the contract suite plays each (with
  every seat count from ``min_players`` to ``max_players``).
* ``secret_variant(state, viewer, rnd)``: a copy of ``state`` that differs only in what
  ``viewer`` may not know (None when there is nothing to vary); ``reveals(event, viewer)``:
  whether a filtered event is one by which the rules show ``viewer`` something it did not
  know (its own draw, a card turned face up). The contract suite plays both worlds forward
  with the same actions: views and filtered events must stay byte-identical for ``viewer``
  until the first difference, which must be such an event.
"""
from __future__ import annotations

import copy
import dataclasses
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from games.base import Event, Game, State
from games.lab import LabProfile

Bot = Callable[[dict, random.Random], dict]


@dataclass(frozen=True)
class BotLevel:
    """A computer player's level. ``make()`` builds the bot at its default budget;
    ``make(budget)`` at another when ``budgeted`` (an int, the game's own unit: samples or
    playouts per decision). Budgets are counts, never clock time."""

    name: str
    make: Callable[..., Bot]
    budgeted: bool = False


def random_level(random_action: Callable[[list, random.Random], dict]) -> BotLevel:
    """The ``random`` level: ``random_action(legal, rnd)``. It reads ``legal`` alone, which
    spares simulations a view per decision (``games.bots.reads``)."""

    def make() -> Bot:
        def bot(doc: dict, rnd: random.Random) -> dict:
            return random_action(doc["legal"], rnd)

        bot.level = "random"  # type: ignore[attr-defined]
        bot.reads = ("legal",)  # type: ignore[attr-defined]
        return bot

    return BotLevel("random", make)


def _nothing_secret(state: State, viewer: str, rnd: random.Random) -> State | None:
    return None


def _no_reveals(event: Event, viewer: str) -> bool:
    return False


@dataclass(frozen=True)
class GameInfo:
    game: Game
    rules: str
    board: str | None = None
    simultaneous: bool = False
    bots: tuple[BotLevel, ...] = ()
    lab: LabProfile = field(default_factory=LabProfile)
    option_variants: tuple[dict, ...] = ({},)
    secret_variant: Callable[[State, str, random.Random], State | None] = _nothing_secret
    reveals: Callable[[Event, str], bool] = _no_reveals

    # ---- what the engine says of itself ---------------------------------------------------
    @property
    def id(self) -> str:
        return self.game.id

    @property
    def name(self) -> str:
        return self.game.name

    @property
    def min_players(self) -> int:
        return self.game.min_players

    @property
    def max_players(self) -> int:
        return self.game.max_players

    # ---- bots -------------------------------------------------------------------------------
    @property
    def levels(self) -> tuple[str, ...]:
        return tuple(b.name for b in self.bots)

    def level(self, name: str) -> BotLevel | None:
        return next((b for b in self.bots if b.name == name), None)

    # ---- registered under another id (games.registry.register) -----------------------------
    def as_game(self, game_id: str, **overrides: Any) -> GameInfo:
        """This description for the same rules registered as ``game_id``: the engine is a
        copy carrying that id (and ``name`` when given); other ``overrides`` replace fields
        (``board=None``: the generic board)."""
        game = copy.copy(self.game)
        game.id = game_id
        if "name" in overrides:
            game.name = overrides.pop("name")
        return dataclasses.replace(self, game=game, **overrides)
