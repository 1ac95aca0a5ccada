"""The view document: the only shape in which match state leaves the server.

Everything game-specific in it comes from the engine's ``view`` and ``legal`` for this viewer,
and every event passes ``games.base.filter_events``. Nothing else of the stored document (seed,
engine state, other seats' client sequence numbers, the server's secret seed) is copied in:
``fairness`` is ``public_fairness``, which holds the server seed back until the match is over.
"""
from __future__ import annotations

from app.live.store import iso, public_fairness, seat_of
from games.base import OMNISCIENT, SPECTATOR, filter_events
from games.registry import get_game


def viewer_for(doc: dict, user_id: str | None, omniscient: bool = False) -> tuple[str | None, str]:
    """(seat or None, engine viewer name) for a user."""
    if omniscient:
        return None, OMNISCIENT
    seat = seat_of(doc, user_id) if user_id else None
    return seat, (seat or SPECTATOR)


def render(doc: dict, seat: str | None, viewer: str, batches: list[dict]) -> dict:
    game = get_game(doc["game"])
    assert game is not None  # a stored match's game is registered
    state = doc["state"]
    events: list[dict] = []
    for b in batches:
        for e in filter_events(b["events"], viewer):
            e["version"] = b["version"]
            events.append(e)
    legal: list[dict]
    if state is None:
        pending, legal, game_view = [], [], None
    else:
        pending = sorted(game.pending(state))
        legal = game.legal(state, seat) if seat else []
        game_view = game.view(state, viewer)
    deadlines = {s: iso(t) for s, t in sorted(doc["deadlines"].items())}
    own = doc["deadlines"].get(seat) if seat else None
    if own is None and not seat and doc["deadlines"]:
        own = min(doc["deadlines"].values())
    return {
        "match": doc["id"],
        "game": doc["game"],
        "version": doc["version"],
        "seq": doc["version"],
        "seat": seat,
        "status": doc["status"],
        "players": doc["seats"],
        "options": game.public_options(doc["options"]),
        "pending": pending,
        "legal": legal,
        "state": game_view,
        "events": events,
        "result": doc.get("result"),
        "abort_reason": doc.get("abort_reason"),
        "deadline": iso(own),
        "deadlines": deadlines,
        "client_seq": doc["cseq"].get(seat, 0) if seat else 0,
        "rematch": doc.get("rematch"),
        "fairness": public_fairness(doc),
    }
