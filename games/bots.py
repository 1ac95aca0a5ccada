"""The bot registry: computer players for every game, at named levels.

A bot plays like a person at the same seat: it is given only that seat's view document and
answers with one action, which then goes through the same ``apply`` (and, live, the same API)
as anybody's. It never sees the engine state.

    bot = get_bot("duel", "strong")            # or get_bot("duel", "strong", budget=64)
    action = bot(view_doc(game, state, "A"), random.Random(7))

Levels: each game declares its own (``GameInfo.bots``, games/info.py), weakest first; the
project's games all have ``LEVELS``:

* ``random``: a uniformly random legal action (each game's ``random_action``; none of them
  resigns or concedes).
* ``strong``: ``games/<game>/strong.py``; each beats ``random`` by the rates recorded in
  docs/lab.md. ``budget`` (an int, the game's own unit: samples or playouts per decision) sets
  how hard it thinks; the default keeps a move well under 200 ms on the reference machine.
  Budgets are counts, never clock time (``games/`` reads no clock), so a bot is a pure function
  of its input and ``rnd``.

``view_doc`` holds exactly the keys of the live view document (``app/live/views.py``) that a
bot may read; the live server passes its rendered document, which has these and a few more
(``choose`` keeps only these).

``play_match`` runs one whole match between bots (the lab, tests and benchmarks use it).
"""
from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from typing import Any

from games.base import Game
from games.info import BotLevel
from games.registry import get_info

# What a bot reads of the seat's view document.
VIEW_KEYS = ("seat", "state", "legal", "pending", "options")
# The levels every game of the project comes in (a game may declare others).
LEVELS = ("random", "strong")


Bot = Callable[[dict, random.Random], dict]


def view_doc(game: Game, state: dict, seat: str, keys: tuple[str, ...] = VIEW_KEYS) -> dict:
    """The bot's input for ``seat``: what that seat's view document carries, nothing more.
    ``keys``: only these of it (a bot that declares what it reads, see ``reads``)."""
    if keys is VIEW_KEYS or keys == VIEW_KEYS:
        return {
            "seat": seat,
            "state": game.view(state, seat),
            "legal": game.legal(state, seat),
            "pending": sorted(game.pending(state)),
            # As the live view document has them: a secret option (Párbaj's fixed decks, naming
            # the opponent's list) shows only that it is set (Game.public_options).
            "options": game.public_options(state["options"]),
        }
    full = {"seat": lambda: seat, "state": lambda: game.view(state, seat),
            "legal": lambda: game.legal(state, seat),
            "pending": lambda: sorted(game.pending(state)),
            "options": lambda: game.public_options(state["options"])}
    return {k: full[k]() for k in keys}


def reads(bot: Bot) -> tuple[str, ...]:
    """The keys of the view document ``bot`` reads: its ``reads`` attribute, else all of them.
    Simulations (``play_match``) build only those; the random level reads ``legal`` alone,
    which spares the lab a view per decision (a third of a random Duel match's cost)."""
    return getattr(bot, "reads", VIEW_KEYS)


# Level -> its bot at the default budget, built on first use (a strong module is only
# imported when somebody asks for it).
_BOTS: dict[BotLevel, Bot] = {}


def levels(game_id: str) -> tuple[str, ...]:
    """The levels a game's bots come in, weakest first."""
    info = get_info(game_id)
    return info.levels if info is not None else ()


def get_bot(game_id: str, level: str, budget: int | None = None) -> Bot:
    """The bot for ``game_id`` at ``level``; ``KeyError`` when there is none. ``budget``
    overrides the default thinking budget of a level that takes one (ignored otherwise)."""
    info = get_info(game_id)
    lv = info.level(level) if info is not None else None
    if lv is None:
        raise KeyError(f"no {level!r} bot for {game_id!r}")
    if budget is not None and lv.budgeted:
        return lv.make(budget)
    if lv not in _BOTS:
        _BOTS[lv] = lv.make()
    return _BOTS[lv]


def choose(game_id: str, level: str, doc: dict[str, Any], rnd: random.Random,
           budget: int | None = None) -> dict:
    """One action from the bot, given only the keys a bot may read of ``doc``."""
    return get_bot(game_id, level, budget)({k: doc[k] for k in VIEW_KEYS}, rnd)


# ------------------------------------------------------------------------------------------
# Whole matches between bots
# ------------------------------------------------------------------------------------------
def seat_rng(seed: int, seat: str) -> random.Random:
    """The generator a seat's bot draws from in match ``seed``: fixed by the seed and the
    seat, so a match between bots is a pure function of its inputs."""
    return random.Random(f"bot:{seed}:{seat}")


Step = Callable[[dict, str, dict, list], None]


def play_match(game: Game, bots: dict[str, Bot], seed: int, options: dict | None = None,
               *, setup_actions: Iterable[tuple[str, dict]] = (),
               on_step: Step | None = None, max_steps: int = 100_000) -> dict:
    """Play one match to its end; returns the final state.

    ``bots``: seat -> bot. ``setup_actions``: (seat, action) pairs applied first, on behalf of
    the seats (the lab fixes each seat's Párbaj deck this way, so no deck list sits in the
    options). When several seats are pending (simultaneous decisions), they are asked in seat
    order, each with its own view at that moment (the keys it ``reads``). ``on_step(state,
    seat, action, events)`` is called after every applied action, with the state after it
    (actions apply in place: the state is the one object throughout, so copy what must outlive
    the call).
    """
    seats = list(bots)
    state = game.setup(options or {}, seats, seed)
    for seat, action in setup_actions:
        state, events = game.apply(state, seat, action, copy=False)
        if on_step is not None:
            on_step(state, seat, action, events)
    rngs = {s: seat_rng(seed, s) for s in seats}
    keys = {s: reads(b) for s, b in bots.items()}
    for _ in range(max_steps):
        pending = game.pending(state)
        if not pending:
            return state
        seat = min(pending)
        bot = bots[seat]
        action = bot(view_doc(game, state, seat, keys[seat]), rngs[seat])
        state, events = game.apply(state, seat, action, copy=False)
        if on_step is not None:
            on_step(state, seat, action, events)
    raise RuntimeError(f"{game.id}: no result after {max_steps} decisions (seed {seed})")
