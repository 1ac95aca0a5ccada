"""What a lab run is, checked once, the same for the command line and the web page.

A run plays ``games`` matches of one game. Match ``i`` is a pure function of the spec and
``i``: its seed is derived from (seed, i), the bots' generators from the match seed and the seat
(``games.bots.seat_rng``), its lineup and varied options are picked by ``i``. So the report is
the same whatever the number of worker processes.

* ``bots``: one level per seat (``strong,random``); with ``rotate`` (the default) match ``i``
  shifts them by ``i`` seats, so every bot plays every seat equally often.
* ``options``: the rule options of every match; ``vary``: option -> list of values, cycled
  over the matches (every combination, in order), reported as separate variants.
* ``lineups``: what each seat brings, assigned by the lab rather than chosen by the bot —
  Duel duellists, Párbaj starter decks (the game's lab profile, ``GameInfo.lab``). ``None``
  lets the bots choose (a game measured "against the field", Párbaj: every lineup); match
  ``i`` takes ordered pairing ``i mod (number of pairings)``. Mirror pairings are left out
  against the field and kept otherwise (Duel).
* ``compare``: a second options object; the run is then played twice (same seeds, same
  lineups) and the report shows both and their differences.
* ``budget``: the strong bots' thinking budget (``None``: each game's default).
"""
from __future__ import annotations

import hashlib
import itertools
import json
from dataclasses import asdict, dataclass, field
from typing import Any

from games.base import GameError, seat_names
from games.bots import levels
from games.registry import get_info

MAX_GAMES = 100_000  # the command line; the web page has its own, lower limit (settings)


class SpecError(ValueError):
    """A run that cannot be played, with a sentence that says why."""


@dataclass
class LabSpec:
    game: str
    games: int = 1000
    bots: list[str] = field(default_factory=lambda: ["strong", "random"])
    seed: int = 1
    options: dict = field(default_factory=dict)
    vary: dict[str, list] = field(default_factory=dict)
    lineups: list[str] | None = None
    compare: dict | None = None
    budget: int | None = None
    rotate: bool = True
    seats: int = 2

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict) -> LabSpec:
        return cls(**d)

    # ---- derived, per match ---------------------------------------------------------
    def seat_list(self) -> list[str]:
        return seat_names(self.seats)

    def match_seed(self, i: int) -> int:
        digest = hashlib.sha256(f"lab:{self.seed}:{i}".encode()).digest()
        return int.from_bytes(digest[:8], "big") >> 2

    def bots_for(self, i: int) -> dict[str, str]:
        seats = self.seat_list()
        levels = [self.bots[k % len(self.bots)] for k in range(len(seats))]
        shift = i % len(seats) if self.rotate else 0
        return {s: levels[(k - shift) % len(seats)] for k, s in enumerate(seats)}

    def variants(self) -> list[dict]:
        """The option sets the matches cycle through (one, when nothing is varied)."""
        if not self.vary:
            return [{}]
        keys = sorted(self.vary)
        return [dict(zip(keys, combo)) for combo in itertools.product(*(self.vary[k] for k in keys))]

    def options_for(self, i: int, base: dict | None = None) -> tuple[dict, str]:
        """(options of match ``i``, its variant label)."""
        variants = self.variants()
        v = variants[(i // self._pairings_count()) % len(variants)]
        opts = {**(self.options if base is None else base), **v}
        label = ", ".join(f"{k}={json.dumps(v[k])}" for k in sorted(v)) or "as given"
        return opts, label

    def pairings(self) -> list[tuple[str, ...]]:
        """Ordered lineups, one entry per seat; [()] when the game has none."""
        lab = get_info(self.game).lab
        if lab.lineup is None or self.seats != 2:
            return [()]
        names = self.lineups if self.lineups is not None else (
            lab.lineups() if lab.lineups_against_field else None)
        if not names:
            return [()]
        mirrors = not lab.lineups_against_field or len(names) == 1
        return [(a, b) for a in names for b in names if mirrors or a != b]

    def _pairings_count(self) -> int:
        return len(self.pairings())

    def lineup_for(self, i: int) -> dict[str, str]:
        pairs = self.pairings()
        pair = pairs[i % len(pairs)]
        return dict(zip(self.seat_list(), pair)) if pair else {}


def all_lineups(game_id: str) -> list[str]:
    info = get_info(game_id)
    return info.lab.lineups() if info is not None else []


def _options_error(game, opts: dict, n_seats: int, what: str) -> None:
    hidden = {o.name for o in game.options if o.secret}
    bad = sorted(k for k in opts if k in hidden)
    if bad:
        raise SpecError(f"{what}: the lab sets {', '.join(bad)} itself (use lineups).")
    try:
        game.validate_options(opts, n_seats)
    except GameError as e:
        raise SpecError(f"{what}: {e.message}") from None


def check(spec: LabSpec, max_games: int = MAX_GAMES) -> LabSpec:
    """Raise ``SpecError`` with a clear sentence for anything that cannot be run."""
    info = get_info(spec.game)
    if info is None:
        raise SpecError(f"There is no game '{spec.game}'.")
    game = info.game
    if not isinstance(spec.games, int) or not 1 <= spec.games <= max_games:
        raise SpecError(f"The number of games must be from 1 to {max_games}.")
    if not isinstance(spec.seats, int) or not game.min_players <= spec.seats <= game.max_players:
        raise SpecError(f"{game.name} is for {game.min_players}-{game.max_players} players.")
    if not spec.bots or len(spec.bots) > spec.seats:
        raise SpecError(f"Give one bot level per seat ({spec.seats}), or one for all.")
    known = levels(spec.game)
    for b in spec.bots:
        if b not in known:
            raise SpecError(f"Unknown bot level '{b}': use one of {', '.join(known)}.")
    if spec.budget is not None and (not isinstance(spec.budget, int) or not 1 <= spec.budget <= 10_000):
        raise SpecError("The budget must be a whole number from 1 to 10000.")
    if not isinstance(spec.seed, int):
        raise SpecError("The seed must be a whole number.")
    if not isinstance(spec.options, dict):
        raise SpecError("Options must be a JSON object.")
    if not isinstance(spec.vary, dict) or any(not isinstance(v, list) or not v for v in spec.vary.values()):
        raise SpecError("'vary' maps an option to a non-empty list of values.")
    for variant in spec.variants():
        _options_error(game, {**spec.options, **variant}, spec.seats, "Options")
        if spec.compare is not None:
            if not isinstance(spec.compare, dict):
                raise SpecError("The rule set to compare must be a JSON object.")
            _options_error(game, {**spec.compare, **variant}, spec.seats, "Compared options")
    if spec.lineups is not None:
        kind = info.lab.lineup
        if kind is None:
            raise SpecError(f"{game.name} has no lineups (duellists or decks) to assign.")
        known = all_lineups(spec.game)
        for name in spec.lineups:
            if name not in known:
                raise SpecError(f"Unknown {kind} '{name}': use one of {', '.join(known)}.")
        if not spec.lineups:
            raise SpecError(f"Name at least one {kind}.")
    return spec


def parse_list(text: str | None) -> list[str] | None:
    if text is None or text == "":
        return None
    return [x.strip() for x in text.split(",") if x.strip()]


def parse_json(text: str | None, what: str) -> Any:
    if text is None or text == "":
        return None
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise SpecError(f"{what} is not valid JSON: {e.msg} (column {e.colno}).") from None
