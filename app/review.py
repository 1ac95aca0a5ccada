"""Admins' match review: re-run a stored record to any step and show it as any viewer saw it.

Everything shown comes from the engine's own ``view`` and ``filter_events`` applied to the
replayed state, so "as seat A" is exactly what A's client received at that step.
"""
from __future__ import annotations

from datetime import datetime

from app.errors import ApiError
from games.base import OMNISCIENT, SPECTATOR, filter_events
from games.registry import get_game


def viewer_name(record: dict, viewer: str) -> str:
    seats = [s["seat"] for s in record["seats"]]
    if viewer in seats or viewer in (SPECTATOR, OMNISCIENT):
        return viewer
    raise ApiError("invalid_message", f"View as one of: {', '.join(seats + [SPECTATOR, OMNISCIENT])}.")


def step_view(record: dict, step: int, viewer: str) -> dict:
    """The state after ``step`` engine steps (0 = the deal), as ``viewer`` saw it."""
    game = get_game(record["game"])
    actions = record["actions"]
    if not 0 <= step <= len(actions):
        raise ApiError("not_found", f"This match has steps 0 to {len(actions)}.")
    viewer = viewer_name(record, viewer)
    seats = [s["seat"] for s in record["seats"]]
    state = game.setup(record["options"], seats, record["seed"])
    events: list = []
    for a in actions[:step]:
        if a["kind"] == "timeout":
            state, events = game.timeout(state, a["seat"])
        else:
            state, events = game.apply(state, a["seat"], a["action"])
    current = actions[step - 1] if step else None
    shown_action = None
    if current is not None:
        # The action itself may hold secrets (a locked plan): only the omniscient view shows it.
        shown_action = {"seat": current["seat"], "kind": current["kind"], "at": current["at"],
                        "action": current["action"] if viewer == OMNISCIENT else None}
    return {
        "match": record["id"], "step": step, "steps": len(actions), "as": viewer,
        "version": current["version"] if current else None,
        "pending": sorted(game.pending(state)),
        "state": game.view(state, viewer),
        "events": filter_events(events, viewer),
        "action": shown_action,
        "result": game.result(state),
    }


def _ts(iso: str | None) -> datetime | None:
    return datetime.fromisoformat(iso.replace("Z", "+00:00")) if iso else None


def action_log(record: dict) -> dict:
    """Every step with its time and how long the acting seat took: from the moment that seat
    became pending (not from the previous step, which in a simultaneous decision was the
    other seat's); totals per seat. The pending sets come from re-running the record."""
    game = get_game(record["game"])
    seats = [s["seat"] for s in record["seats"]]
    state = game.setup(record["options"], seats, record["seed"])
    start = _ts(record.get("started_at"))
    pending_since = dict.fromkeys(game.pending(state), start)
    rows, totals = [], dict.fromkeys(seats, 0.0)
    for i, a in enumerate(record["actions"], 1):
        at = _ts(a["at"])
        since = pending_since.get(a["seat"])
        took = (at - since).total_seconds() if at and since else None
        if took is not None and a["kind"] != "timeout":
            totals[a["seat"]] = totals.get(a["seat"], 0.0) + took
        rows.append({"step": i, "version": a["version"], "seat": a["seat"], "kind": a["kind"],
                     "action": a["action"], "at": a["at"],
                     "seconds": round(took, 3) if took is not None else None})
        if a["kind"] == "timeout":
            state, _ = game.timeout(state, a["seat"])
        else:
            state, _ = game.apply(state, a["seat"], a["action"])
        now_pending = game.pending(state)
        # A seat that keeps waiting keeps its start; one that just acted and is asked again
        # starts now.
        pending_since = {seat: (pending_since[seat] if seat in pending_since and seat != a["seat"]
                                else at) for seat in now_pending}
    return {"steps": rows, "seconds_per_seat": {k: round(v, 3) for k, v in totals.items()}}


def text_log(record: dict) -> str:
    """A readable log for people (the JSON export is the replayable one)."""
    names = {s["seat"]: (s["user"] or {}).get("name", "?") for s in record["seats"]}
    lines = [
        f"Duelhall match {record['id']} - {record['game']}",
        "Players: " + ", ".join(f"{seat} {name}" for seat, name in names.items()),
        f"Options: {record['options']}",
        f"Started: {record.get('started_at')}  Finished: {record.get('finished_at')}",
        "",
    ]
    for row in action_log(record)["steps"]:
        what = row["kind"] if row["action"] is None else \
            " ".join(f"{k}={v}" for k, v in row["action"].items())
        took = f" ({row['seconds']:.1f}s)" if row["seconds"] is not None else ""
        lines.append(f"{row['step']:>4}. {row['at']}  {row['seat']} {names.get(row['seat'])}: {what}{took}")
    res = record.get("result") or {}
    lines.append("")
    if res.get("draw"):
        lines.append(f"Result: draw ({res.get('reason')})")
    elif res.get("winner"):
        lines.append(f"Result: {res['winner']} {names.get(res['winner'])} wins ({res.get('reason')})")
    else:
        lines.append(f"Result: places {res.get('places')} ({res.get('reason')})")
    return "\n".join(lines) + "\n"
