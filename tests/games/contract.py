"""The contract every game meets, checked from its self-description alone (after OpenSpiel's
``random_sim_test``). tests/games/test_contract.py runs every check for every registered game;
a test that registers a game of its own (tests/test_new_game.py) runs them for it.

Each ``check_*`` takes a ``GameInfo`` and raises AssertionError when the game breaks the
contract. The playouts are random matches to the end for every option set of
``info.option_variants`` and every seat count from ``min_players`` to ``max_players``, a few
seeds each (``PLAYOUTS`` matches in all, at least one per set and count), moves from the
game's ``random`` bot (else ``sample_action``) with an occasional timeout.
"""
from __future__ import annotations

import json
import random
import re
from collections.abc import Callable, Iterator
from pathlib import Path

from games.base import (
    OMNISCIENT,
    SPECTATOR,
    GameError,
    MatchOver,
    clone,
    expand_one_of,
    filter_events,
    seat_names,
)
from games.bots import get_bot, play_match
from games.info import GameInfo
from games.replay import replay

ROOT = Path(__file__).resolve().parents[2]
PLAYOUTS = 8
TIMEOUT_P = 0.03
MAX_STEPS = 20_000
LANGS = ("it", "pt", "hu")
PLURAL = re.compile(r"_(zero|one|two|few|many|other)$")


def dumps(x) -> str:
    return json.dumps(x, sort_keys=True)


# ------------------------------------------------------------------------------------------
# Playouts
# ------------------------------------------------------------------------------------------
def configs(info: GameInfo) -> Iterator[tuple[dict, list[str], int]]:
    """(options, seats, seed) of every playout."""
    counts = range(info.min_players, info.max_players + 1)
    seeds = range(1, 1 + max(1, PLAYOUTS // (len(info.option_variants) * len(counts))))
    for options in info.option_variants:
        for n in counts:
            for seed in seeds:
                yield options, seat_names(n), seed


def _chooser(info: GameInfo) -> Callable[[dict, str, random.Random], dict]:
    game = info.game
    if info.level("random") is not None:
        bot = get_bot(info.id, "random")
        return lambda st, seat, rnd: bot({"legal": game.legal(st, seat)}, rnd)
    return game.sample_action


Step = Callable[[dict, str, "dict | None", dict, list], None]


def playout(info: GameInfo, options: dict, seats: list[str], seed: int,
            on_step: Step | None = None) -> tuple[dict, list[dict]]:
    """One random match to its end: (final state, steps as games.replay takes them).
    ``on_step(state, seat, action or None for a timeout, new_state, events)`` after each."""
    game = info.game
    choose = _chooser(info)
    rnd = random.Random(f"contract:{seed}")
    state = game.setup(options, seats, seed)
    steps: list[dict] = []
    for _ in range(MAX_STEPS):
        pending = game.pending(state)
        if not pending:
            return state, steps
        seat = rnd.choice(sorted(pending))
        if rnd.random() < TIMEOUT_P:
            action = None
            new, events = game.timeout(state, seat)
            steps.append({"seat": seat, "kind": "timeout", "action": None})
        else:
            action = choose(state, seat, rnd)
            new, events = game.apply(state, seat, action)
            steps.append({"seat": seat, "kind": "action", "action": action})
        if on_step is not None:
            on_step(state, seat, action, new, events)
        state = new
    raise AssertionError(f"{info.id}: no result after {MAX_STEPS} steps (seed {seed})")


def every_playout(info: GameInfo, on_step: Step | None = None
                  ) -> Iterator[tuple[dict, list[str], int, dict, list[dict]]]:
    for options, seats, seed in configs(info):
        final, steps = playout(info, options, seats, seed, on_step)
        yield options, seats, seed, final, steps


def viewers(state: dict) -> list[str]:
    return [*state["seats"], SPECTATOR]


# ------------------------------------------------------------------------------------------
# The checks
# ------------------------------------------------------------------------------------------
def check_playouts_end_with_a_result(info: GameInfo) -> None:
    game = info.game
    played = 0
    for options, seats, seed, final, _steps in every_playout(info):
        res = game.result(final)
        assert res is not None, (options, seats, seed)
        assert set(res["places"]) == set(seats)
        assert all(isinstance(p, int) and 1 <= p <= len(seats) for p in res["places"].values())
        assert res["draw"] == (len(set(res["places"].values())) == 1)
        assert game.pending(final) == {}
        assert all(game.legal(final, s) == [] for s in seats)
        try:
            game.apply(final, seats[0], {"type": "resign"})
        except MatchOver:
            pass
        else:
            raise AssertionError("a finished match took an action")
        played += 1
    assert played >= len(info.option_variants)


def check_apply_never_mutates_its_input(info: GameInfo) -> None:
    """Nor do ``timeout``, ``pending``, ``legal``, ``view`` and ``sample_action``."""
    game = info.game
    checked = [0]

    def step(state, seat, action, new, events):
        before = clone(state)
        rnd = random.Random(checked[0])
        if action is None:
            game.timeout(state, seat)
        else:
            game.apply(state, seat, action)
        for s in sorted(game.pending(state)):
            game.legal(state, s)
            game.sample_action(state, s, rnd)
        for v in [*viewers(state), OMNISCIENT]:
            game.view(state, v)
        assert state == before, (seat, action)
        checked[0] += 1

    for _ in every_playout(info, step):
        pass
    assert checked[0] > 20


def check_state_views_and_events_are_json(info: GameInfo) -> None:
    """The state survives a JSON round trip at every step, and so do views and events."""
    game = info.game
    checked = [0]

    def step(state, seat, action, new, events):
        assert json.loads(json.dumps(new)) == new, (seat, action)
        assert json.loads(json.dumps(events)) == events
        checked[0] += 1
        if checked[0] % 3:
            return
        for v in [*viewers(new), OMNISCIENT]:
            view = game.view(new, v)
            assert json.loads(json.dumps(view)) == view
        # An engine that reads its state back from JSON carries on the same.
        if game.pending(new):
            s = min(game.pending(new))
            parsed = json.loads(json.dumps(new))
            assert dumps(game.legal(parsed, s)) == dumps(game.legal(new, s))
            assert dumps(game.view(parsed, s)) == dumps(game.view(new, s))

    for _ in every_playout(info, step):
        pass
    assert checked[0] > 20


def check_replay_is_deterministic(info: GameInfo) -> None:
    """The same seed and steps give the same events and states, step by step, and
    games.replay reaches the same final state."""
    game = info.game
    for options, seats, seed in configs(info):
        trail: list[tuple[str, str]] = []
        final, steps = playout(info, options, seats, seed,
                               lambda st, s, a, new, ev, trail=trail: trail.append((dumps(new), dumps(ev))))
        state = game.setup(options, seats, seed)
        for k, st in enumerate(steps):
            if st["kind"] == "timeout":
                state, events = game.timeout(state, st["seat"])
            else:
                state, events = game.apply(state, st["seat"], st["action"])
            assert (dumps(state), dumps(events)) == trail[k], (options, seats, seed, k)
        assert dumps(replay(info.id, options, seats, seed, steps)) == dumps(final)


def _pending_seats(state: dict, game) -> list[str]:
    return sorted(game.pending(state))


def check_every_legal_entry_applies(info: GameInfo) -> None:
    """Every ``legal`` entry is accepted, each ``one_of`` expanded by sampling (at every
    third step; at most 40 entries a seat, sampled)."""
    game = info.game
    counts = {"states": 0, "entries": 0}

    def step(state, seat, action, new, events):
        counts["states"] += 1
        if counts["states"] % 3:
            return
        rnd = random.Random(counts["states"])
        for s in _pending_seats(state, game):
            legal = game.legal(state, s)
            assert legal, f"{s} is pending with nothing legal"
            for entry in rnd.sample(legal, min(40, len(legal))):
                for _ in range(2):
                    concrete = expand_one_of(entry, rnd)
                    try:
                        game.apply(state, s, concrete)
                    except GameError as e:
                        raise AssertionError(f"legal {entry} as {concrete} refused: {e.message}") from e
                    counts["entries"] += 1

    for _ in every_playout(info, step):
        pass
    assert counts["entries"] > 50


def matches(action, template) -> bool:
    """Whether ``action`` is ``template`` with every ``one_of`` replaced by one of its values."""
    if isinstance(template, dict) and set(template) == {"one_of"}:
        return any(matches(action, t) for t in template["one_of"])
    if isinstance(template, dict):
        return (isinstance(action, dict) and set(action) == set(template)
                and all(matches(action[k], v) for k, v in template.items()))
    if isinstance(template, list):
        return (isinstance(action, list) and len(action) == len(template)
                and all(matches(a, t) for a, t in zip(action, template)))
    return type(action) is type(template) and action == template


def check_sample_action_draws_only_legal_actions(info: GameInfo) -> None:
    game = info.game
    counts = {"drawn": 0, "kinds": set()}

    def step(state, seat, action, new, events):
        rnd = random.Random(counts["drawn"])
        for s in _pending_seats(state, game):
            drawn = game.sample_action(state, s, rnd)
            legal = game.legal(state, s)
            assert any(matches(drawn, t) for t in legal), (s, drawn)
            game.apply(state, s, drawn)
            counts["drawn"] += 1
            counts["kinds"].add(drawn["type"])

    for _ in every_playout(info, step):
        pass
    assert counts["drawn"] > 20


def check_simultaneous_as_declared(info: GameInfo) -> None:
    """Several seats are pending at once in some playout if and only if the game says its
    decisions can be simultaneous."""
    game = info.game
    most = [0]

    def step(state, seat, action, new, events):
        most[0] = max(most[0], len(game.pending(state)))

    for _ in every_playout(info, step):
        pass
    assert (most[0] > 1) == info.simultaneous, most[0]


def _first_difference(a: list, b: list) -> list:
    """The entries at the first index where two event lists differ (one when a list ended)."""
    for i in range(max(len(a), len(b))):
        x = a[i] if i < len(a) else None
        y = b[i] if i < len(b) else None
        if dumps(x) != dumps(y):
            return [e for e in (x, y) if e is not None]
    return []


def check_no_leak(info: GameInfo, per_playout: int = 12, follow: int = 20) -> None:
    """Differential: a state and its ``secret_variant`` for a viewer give that viewer the same
    view (and legal actions) byte for byte; played forward with the same actions, the same
    filtered events and views, until the first filtered event that differs, which must be one
    the game's rules reveal (``info.reveals``). What a finished match shows is each game's own
    rule (Párbaj opens the deck lists): the views after the last step are not compared.
    A few states of each playout (``per_playout``), each for one viewer in turn."""
    game = info.game
    counts = {"asked": 0, "variants": 0, "steps": 0, "revealed": 0}

    def compare(a: dict, b: dict, viewer: str, rnd: random.Random) -> None:
        for _ in range(follow):
            pending = game.pending(a)
            if not pending:
                return
            assert game.pending(b) == pending
            seat = rnd.choice(sorted(pending))
            action = game.sample_action(a, seat, rnd)
            try:
                b2, eb = game.apply(b, seat, action)
            except GameError:
                assert seat != viewer, "the viewer's own legal move was refused"
                return  # what the hidden cards allow differs: nothing more to compare
            a2, ea = game.apply(a, seat, action)
            fa, fb = filter_events(ea, viewer), filter_events(eb, viewer)
            if dumps(fa) != dumps(fb):
                first = _first_difference(fa, fb)
                assert all(info.reveals(e, viewer) for e in first), (viewer, action, first)
                counts["revealed"] += 1
                return
            if game.result(a2) is not None:
                return
            assert dumps(game.view(a2, viewer)) == dumps(game.view(b2, viewer)), (viewer, action)
            counts["steps"] += 1
            a, b = a2, b2

    for options, seats, seed in configs(info):
        rnd = random.Random(f"leak:{seed}")
        states: list[dict] = []
        playout(info, options, seats, seed, lambda st, s, a, new, ev, states=states: states.append(new))
        live = [st for st in states if game.result(st) is None]
        for k, state in enumerate(rnd.sample(live, min(per_playout, len(live)))):
            viewer = viewers(state)[k % len(viewers(state))]
            counts["asked"] += 1
            alt = info.secret_variant(clone(state), viewer, rnd)
            if alt is None:
                continue
            assert alt != state, "a variant must differ"
            counts["variants"] += 1
            assert dumps(game.view(state, viewer)) == dumps(game.view(alt, viewer)), viewer
            assert game.pending(state) == game.pending(alt)
            if viewer != SPECTATOR:
                assert dumps(game.legal(state, viewer)) == dumps(game.legal(alt, viewer))
            compare(state, alt, viewer, rnd)
    # Not vacuous: most states had something to vary, and the worlds were compared forward.
    assert counts["variants"] > 0.5 * counts["asked"], counts
    assert counts["steps"] > 30, counts


def check_bots_play_legal_matches(info: GameInfo) -> None:
    """Every declared level finishes a match against the weakest (the smallest budget)."""
    game = info.game
    weakest = info.bots[0].name if info.bots else None
    for level in info.bots:
        bot = get_bot(info.id, level.name, 2 if level.budgeted else None)
        base = get_bot(info.id, weakest)
        for seed in (1, 2):
            seats = seat_names(info.min_players)
            bots = {s: (bot if k % 2 == seed % 2 else base) for k, s in enumerate(seats)}
            final = play_match(game, bots, seed, info.option_variants[0])
            assert game.result(final) is not None


def check_self_description(info: GameInfo) -> None:
    """The rules page and the board module exist; the lab's lineups can be brought."""
    game = info.game
    assert (ROOT / info.rules).is_file(), info.rules
    if info.board is not None:
        assert (ROOT / "static" / "games" / f"{info.board}.js").is_file(), info.board
    assert info.levels == tuple(dict.fromkeys(info.levels)), "a level twice"
    lab = info.lab
    assert (lab.lineup is None) == (lab.lineup_action is None)
    for name in lab.lineups():
        seats = seat_names(info.min_players)
        state = game.setup(info.option_variants[0], seats, 1)
        for s in seats:
            state, _ = game.apply(state, s, lab.lineup_action(name))
    schema = game.options_schema()
    assert {"clock_seconds", "max_timeouts"} <= set(schema["properties"])
    for options in info.option_variants:
        game.validate_options(options, info.min_players)


def _flat(d: dict, prefix: str = "") -> dict:
    out = {}
    for k, v in d.items():
        if isinstance(v, dict):
            out.update(_flat(v, f"{prefix}{k}."))
        else:
            out[prefix + k] = v
    return out


def _catalogue(lang: str, name: str) -> dict:
    return _flat(json.loads((ROOT / "static" / "i18n" / lang / f"{name}.json").read_text("utf-8")))


def check_i18n_catalogues(info: GameInfo) -> None:
    """Every key of the board's English catalogue is in it, pt and hu with the same
    placeholders (plural variants, ``_one`` and such, are each language's own)."""
    if info.board is None:
        return
    en = _catalogue("en", info.board)
    assert en
    holes = lambda s: sorted(set(re.findall(r"\{(\w+)\}", s)))  # noqa: E731
    for lang in LANGS:
        cat = _catalogue(lang, info.board)
        for key, text in en.items():
            if key not in cat:
                base = PLURAL.sub("", key)
                plural = base in cat or any(PLURAL.sub("", k) == base for k in cat)
                assert base != key and plural, (lang, key)
                continue
            assert holes(cat[key]) == holes(text), (lang, key)


CHECKS = [
    check_self_description,
    check_playouts_end_with_a_result,
    check_apply_never_mutates_its_input,
    check_state_views_and_events_are_json,
    check_replay_is_deterministic,
    check_every_legal_entry_applies,
    check_sample_action_draws_only_legal_actions,
    check_simultaneous_as_declared,
    check_no_leak,
    check_bots_play_legal_matches,
    check_i18n_catalogues,
]
