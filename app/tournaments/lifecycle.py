"""The event around the core: settings, registration, waitlist, check-in and who plays.

Pure, like the core: the service loads an *event* (a plain dict: ``status``, ``settings``,
``entrants``, ...), calls one of these functions with the time as an argument, and stores the
result with a compare-and-set. Refusals raise ``TournamentError(code, message)``; the service
maps the code to its HTTP status (``app/errors.py``).

Life cycle: ``draft`` -> ``registration`` -> ``check_in`` -> ``running`` -> ``finished``, and
``cancelled`` from any status before ``finished``.

Entrant statuses: ``registered`` (has a place), ``waitlisted`` (the event was full when they
joined), ``checked_in`` (has a place and confirmed), ``withdrawn`` (left before the start),
``not_checked_in`` (had a place but did not check in: removed at the start), ``playing`` (in
the running event; ``late`` marks a Swiss late entry).
"""
from __future__ import annotations

from typing import Any

from games.base import GameError
from games.registry import get_game

from . import core
from .errors import TournamentError
from .matchplay import IN_ENGINE_BEST_OF

STATUSES = ("draft", "registration", "check_in", "running", "finished", "cancelled")
OPEN_FOR_ENTRY = ("registration", "check_in")
PAIRING_MODES = ("auto", "manual")
SEEDINGS = ("rating", "manual", "random")
# Engine options a tournament sets per match; an organiser cannot fix them for the event.
RESERVED_GAME_OPTIONS = {"parbaj": {"best_of", "decks", "open_deck_lists"}}
PARBAJ_BEST_OF = (1, 3, 5)

DEFAULTS: dict[str, Any] = {
    "best_of": 1,
    "seeding": "rating",
    "first_player": "higher_seed",
    "rounds": None,              # Swiss: null = ceil(log2 players) at the start
    "top_cut": 0,                # Swiss: 0 or 2/4/8/16/32/64
    "top_cut_best_of": None,     # Swiss: null = best_of
    "grand_final_reset": True,   # double elimination
    "cap": None,                 # places; null = no limit. Later sign-ups go on the waitlist
    "pairing": "auto",           # "auto": next round pairs itself; "manual": organiser's click
    "round_break_seconds": 60,   # auto pairing waits this long after a round ends (disputes)
    "noshow_seconds": 300,       # null = no no-show rule
    "round_minutes": None,       # null = no round timer
    "open_lists": False,         # opponents see a Párbaj deck list after their match
    "late_entry": True,          # Swiss: sign-ups while fewer than half the rounds started
    "game_options": {},
    "description": "",
}
LIMITS = {
    "cap": (2, 1024),
    "round_break_seconds": (0, 3600),
    "noshow_seconds": (30, 3600),
    "round_minutes": (1, 600),
}


def _err(code: str, message: str) -> TournamentError:
    return TournamentError(code, message)


def supported_game(game_id: str):
    """The engine for ``game_id`` if tournaments can run it: exactly two seats."""
    game = get_game(game_id)
    if game is None:
        raise _err("unsupported_game", f"There is no game called '{game_id}'.")
    if not (game.min_players == game.max_players == 2):
        raise _err("unsupported_game", f"{game.name} is played at tables of "
                   f"{game.min_players}-{game.max_players}; tournaments are for two-player games.")
    return game


def validate_settings(game_id: str, fmt: str, settings: dict) -> dict:
    """Defaults filled in and every value checked (the core's options by a trial creation)."""
    game = supported_game(game_id)
    if fmt not in core.FORMATS:
        raise _err("invalid_format", f"Unknown format {fmt!r}; choose one of {', '.join(core.FORMATS)}.")
    unknown = sorted(set(settings) - set(DEFAULTS))
    if unknown:
        raise _err("invalid_options", f"Unknown setting {unknown[0]!r}.")
    out = {**DEFAULTS, **{k: v for k, v in settings.items() if v is not None or k in LIMITS}}
    out["game_options"] = dict(out["game_options"] or {})
    for key, (lo, hi) in LIMITS.items():
        v = out[key]
        if v is not None and (isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi):
            raise _err("invalid_options", f"The setting {key} must be a whole number from {lo} to {hi}, or null.")
    for key in ("open_lists", "late_entry", "grand_final_reset"):
        if not isinstance(out[key], bool):
            raise _err("invalid_options", f"The setting {key} must be true or false.")
    if out["pairing"] not in PAIRING_MODES:
        raise _err("invalid_options", "The setting pairing must be auto or manual.")
    if out["seeding"] not in SEEDINGS:
        raise _err("invalid_options", f"The setting seeding must be one of {', '.join(SEEDINGS)}.")
    if not isinstance(out["description"], str) or len(out["description"]) > 2000:
        raise _err("invalid_options", "The description is text of at most 2000 characters.")
    # The core checks the format's options; a trial field as large as the cut asks.
    size = max(2, out["top_cut"] if isinstance(out["top_cut"], int) else 0)
    core.create(fmt, [{"id": i} for i in range(size)], core_options(fmt, out, seed=0))
    if fmt != "swiss" and (out["rounds"] is not None or out["top_cut"] or out["top_cut_best_of"] is not None):
        raise _err("invalid_options", "Rounds and a top cut are settings of Swiss tournaments.")
    if game_id in IN_ENGINE_BEST_OF:
        for key in ("best_of", "top_cut_best_of"):
            if out[key] is not None and out[key] not in PARBAJ_BEST_OF:
                raise _err("invalid_options", f"{game.name} matches are best of 1, 3 or 5 ({key}).")
    reserved = sorted(set(out["game_options"]) & RESERVED_GAME_OPTIONS.get(game_id, set()))
    if reserved:
        raise _err("invalid_options", f"The game option {reserved[0]!r} is set by the tournament "
                   f"for each match; leave it out.")
    try:
        game.validate_options(out["game_options"], 2)
    except GameError as e:
        raise _err("invalid_options", e.message) from None
    return out


def core_options(fmt: str, settings: dict, seed: int, players: int | None = None) -> dict:
    """The core's options from the event settings. With ``players`` (at the start) a top cut
    larger than the field is lowered to the largest cut that fits (see ``fit_top_cut``)."""
    opts = {k: settings[k] for k in ("best_of", "seeding", "first_player")}
    opts["seed"] = seed
    if fmt == "swiss":
        opts["rounds"] = settings["rounds"]
        opts["top_cut"] = settings["top_cut"] if players is None else fit_top_cut(settings["top_cut"], players)
        opts["top_cut_best_of"] = settings["top_cut_best_of"]
    if fmt == "double_elimination":
        opts["grand_final_reset"] = settings["grand_final_reset"]
    return opts


def fit_top_cut(cut: int, players: int) -> int:
    """A top cut never larger than the field: top 8 with 6 players becomes top 4."""
    while cut > players:
        cut //= 2
    return cut if cut >= 2 else 0


# ------------------------------------------------------------------------------ entrants


def entrant(ev: dict, user_id: str) -> dict | None:
    for e in ev["entrants"]:
        if e["user"]["id"] == user_id:
            return e
    return None


def holds_place(e: dict) -> bool:
    return e["status"] in ("registered", "checked_in")


def places_taken(ev: dict) -> int:
    return sum(1 for e in ev["entrants"] if holds_place(e))


def needs_deck(ev: dict) -> bool:
    return ev["game"] == "parbaj"


def register(ev: dict, user: dict, deck: dict | None, t: float) -> dict:
    """Sign ``user`` up (registration or check-in open). Returns the entrant. A full event puts
    them on the waitlist. ``deck``: ``{"cards", "name"}`` already validated, or None (Párbaj
    players may register the deck later, before they check in)."""
    if ev["status"] not in OPEN_FOR_ENTRY:
        raise _err("registration_closed", _closed_message(ev))
    old = entrant(ev, user["id"])
    if old is not None and old["status"] not in ("withdrawn",):
        raise _err("already_registered", "You are already signed up for this tournament.")
    cap = ev["settings"]["cap"]
    status = "waitlisted" if cap is not None and places_taken(ev) >= cap else "registered"
    if old is not None:
        ev["entrants"].remove(old)  # signing up again after withdrawing: back of the queue
    e = {
        "user": {"id": user["id"], "name": user["name"]},
        "status": status,
        "registered_at": t,
        "checked_in_at": None,
        "deck": deck["cards"] if deck else None,
        "deck_name": deck["name"] if deck else None,
        "deck_locked": False,
        "late": False,
    }
    ev["entrants"].append(e)
    return e


def _closed_message(ev: dict) -> str:
    return {
        "draft": "Registration has not opened yet.",
        "running": "The tournament has started.",
        "finished": "The tournament is over.",
        "cancelled": "The tournament was cancelled.",
    }.get(ev["status"], "Registration is closed.")


def withdraw(ev: dict, user_id: str) -> dict | None:
    """Leave before the start. A freed place goes to the first player on the waitlist (their
    turn on the waitlist is their sign-up order); returns that entrant, if any."""
    if ev["status"] not in OPEN_FOR_ENTRY:
        if ev["status"] == "running":
            raise _err("registration_closed", "The tournament has started; drop instead.")
        raise _err("registration_closed", _closed_message(ev))
    e = entrant(ev, user_id)
    if e is None or e["status"] not in ("registered", "checked_in", "waitlisted"):
        raise _err("not_registered", "You are not signed up for this tournament.")
    had_place = holds_place(e)
    e["status"] = "withdrawn"
    e["checked_in_at"] = None
    e["deck_locked"] = False
    if had_place:
        return promote(ev)
    return None


def promote(ev: dict) -> dict | None:
    cap = ev["settings"]["cap"]
    if cap is not None and places_taken(ev) >= cap:
        return None
    for e in ev["entrants"]:  # in sign-up order
        if e["status"] == "waitlisted":
            # A waitlisted player who already checked in (ready to fill a place) keeps it.
            e["status"] = "checked_in" if e["checked_in_at"] is not None else "registered"
            return e
    return None


def check_in(ev: dict, user_id: str, t: float) -> dict:
    """Confirm attendance during check-in. Párbaj: needs a registered deck, which is then
    locked. A waitlisted player may check in too: they fill places left empty at the start."""
    if ev["status"] != "check_in":
        raise _err("check_in_closed", "Check-in is not open." if ev["status"] in ("draft", "registration")
                   else _closed_message(ev))
    e = entrant(ev, user_id)
    if e is None or e["status"] not in ("registered", "checked_in", "waitlisted"):
        raise _err("not_registered", "You are not signed up for this tournament.")
    if needs_deck(ev) and not e["deck"]:
        raise _err("deck_required", "Register your deck before you check in.")
    if e["checked_in_at"] is None:
        e["checked_in_at"] = t
    if e["status"] == "registered":
        e["status"] = "checked_in"
    e["deck_locked"] = True
    return e


def set_deck(ev: dict, user_id: str, deck: dict) -> dict:
    if not needs_deck(ev):
        raise _err("invalid_options", "This tournament's game has no decks to register.")
    e = entrant(ev, user_id)
    if e is None or e["status"] not in ("registered", "checked_in", "waitlisted"):
        raise _err("not_registered", "You are not signed up for this tournament.")
    if e["deck_locked"] or ev["status"] not in OPEN_FOR_ENTRY:
        raise _err("deck_locked", "Your deck is locked: decks cannot change after check-in.")
    e["deck"], e["deck_name"] = deck["cards"], deck["name"]
    return e


def select_players(ev: dict) -> list[dict]:
    """At the start: everyone checked in with a place plays, then checked-in waitlisted players
    fill the places left, in sign-up order. Registered players who did not check in become
    ``not_checked_in``; the waitlist that did not get in stays ``waitlisted``."""
    cap = ev["settings"]["cap"]
    playing = [e for e in ev["entrants"] if e["status"] == "checked_in"]
    for e in ev["entrants"]:
        if e["status"] == "waitlisted" and e["checked_in_at"] is not None and (cap is None or len(playing) < cap):
            playing.append(e)
    for e in ev["entrants"]:
        if e in playing:
            e["status"] = "playing"
        elif e["status"] == "registered":
            e["status"] = "not_checked_in"
    return playing


def transition(ev: dict, to: str) -> None:
    """Move the event along its life cycle (organiser actions)."""
    frm = ev["status"]
    allowed = {
        "registration": ("draft",),
        "check_in": ("registration",),
        "running": ("check_in",),
        "cancelled": ("draft", "registration", "check_in", "running"),
    }[to]
    if frm not in allowed:
        need = " or ".join(allowed)
        raise _err("wrong_status", f"The tournament is {frm.replace('_', '-')}; this needs it to be "
                   f"{need.replace('_', '-')}.")
    ev["status"] = to


def deck_visible(ev: dict, owner_id: str, viewer_id: str | None, viewer_role: str | None,
                 played_against: bool) -> bool:
    """Deck lists: a player sees their own, admins all of them; the organiser sees all of them
    only while they hold the organiser role (``viewer_role``: the current one, from the
    account's status) and have no entry in the event (any entry, withdrawn included: they could
    sign up again); an opponent sees a list after their match against its owner is over, only
    when the event opens lists."""
    if viewer_id is None:
        return False
    if viewer_id == owner_id or viewer_role == "admin":
        return True
    if (viewer_id == ev["organiser"]["id"] and viewer_role == "organiser"
            and entrant(ev, viewer_id) is None):
        return True
    return bool(ev["settings"]["open_lists"]) and played_against
