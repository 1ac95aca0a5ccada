"""How a pairing gets its result, as changes for the write path (``writes.change``): a finished
match records itself, the organiser sets or corrects a result (override), a player disputes one
and the organiser resolves the dispute.

**Results report themselves**: a match observer (:func:`on_match_change`, registered in
``Services.start``) records a finished tournament match in the process that finished it, and the
sweep (``sweep.py``) records what the observer missed. Recording is idempotent: each match is
recorded once (``recorded`` in its pairing entry, set in the same compare-and-set as the result).
Overrides and resolutions are audited in the transaction of the change itself.
"""
from __future__ import annotations

from app.errors import ApiError
from app.tournaments import core, corrections
from app.tournaments import matchplay as MP
from app.tournaments.errors import TournamentError
from app.tournaments.lifecycle_changes import advance, mark_decided, open_game
from app.tournaments.writes import audit_entry, change

# ------------------------------------------------------------------------------ finished matches


def record_fn(doc: dict):
    """Record a finished tournament match (from the observer, the sweep or a player's nudge):
    its games go into the pairing's ledger; a decided pairing is reported to the core, an
    undecided one gets its next game. Recording the same match again changes nothing."""
    tag = doc["tournament"]

    def fn(ev, fx, t):
        if ev["status"] != "running":
            return False
        mp = ev["meta"]["pairings"].get(tag["pairing"])
        entry = next((m for m in mp["matches"] if m["id"] == doc["id"]), None) if mp else None
        if entry is None or entry["recorded"] or doc.get("status") != "finished":
            return False
        result = doc.get("result") or {}
        entry["recorded"] = True
        entry["result"] = {k: result.get(k) for k in ("places", "winner", "draw", "reason", "wins", "absent")
                           if k in result}
        p = ev["state"]["matches"][tag["pairing"]]
        if p["status"] != "pending":
            return True  # decided already (override, drop, time): only the bookkeeping
        seats = {s["seat"]: s["user"]["id"] for s in doc["seats"] if s.get("user")}
        match_bo = int((doc.get("options") or {}).get("best_of") or 1)
        mp["ledger"], res = MP.after_match(ev["game"], p, mp["ledger"], result, doc.get("state"), seats, match_bo)
        if res is None:
            if result.get("reason") != "decided":
                open_game(ev, fx, p, t)
            return True
        how = {"no_show": "no_show", "time": "time"}.get(result.get("reason"), "played")
        ev["state"] = core.report(ev["state"], p["id"], res)
        mp["how"], mp["reported_at"] = how, t
        advance(ev, fx, t)
        return True

    return fn


async def record_match(svc, doc: dict) -> dict | None:
    tag = doc.get("tournament")
    if not tag or doc.get("status") != "finished":
        return None
    try:
        return await change(svc, tag["id"], record_fn(doc))
    except ApiError as e:
        if e.code == "not_found":
            return None
        raise


async def on_match_change(svc, doc: dict) -> None:
    """The match observer (``Services.observers``): a finished tournament match reports itself."""
    if doc.get("tournament") and doc.get("status") == "finished":
        await record_match(svc, doc)


# ------------------------------------------------------------------------------ overrides and disputes


def override_fn(actor, pid: str, result: dict, reason: str, dispute_id: int | None = None):
    """The organiser sets a pairing's result (pending: reported; already reported in the current
    round: corrected). Audited with the old and new result and the reason."""
    def fn(ev, fx, t):
        if ev["status"] not in ("running", "finished"):
            raise TournamentError("wrong_status", f"The tournament is {ev['status'].replace('_', '-')}.")
        state = ev["state"]
        old = state["matches"].get(pid, {}).get("result") if isinstance(pid, str) else None
        was_finished = ev["status"] == "finished"
        ev["state"] = corrections.correct(state, pid, result)
        if was_finished:
            ev["status"], ev["finished_at"] = "running", None
        mark_decided(ev, fx, pid, "override", t)
        mp = ev["meta"]["pairings"].get(pid)
        if mp is not None:
            mp["override"] = {"by": actor.id, "reason": reason, "at": t}
        for d in ev["meta"]["disputes"]:
            if d["pairing"] == pid and d["status"] == "open":
                d.update(status="overridden", resolved_by=actor.id, resolved_at=t, resolution=reason)
        fx.audits.append(audit_entry(actor, "tournament_override", ev, {
            "pairing": pid, "old": old, "new": ev["state"]["matches"][pid]["result"], "reason": reason,
            "dispute": dispute_id}))
        advance(ev, fx, t)
    return fn


def dispute_fn(user_id: str, pid: str, reason: str):
    """A player disputes their pairing's result while it can still change (its round is the
    current one). An open dispute holds automatic pairing until the organiser resolves it."""
    def fn(ev, fx, t):
        if ev["status"] not in ("running", "finished"):
            raise TournamentError("wrong_status", f"The tournament is {ev['status'].replace('_', '-')}.")
        state = ev["state"]
        p = state["matches"].get(pid)
        if p is None:
            raise TournamentError("unknown_pairing", f"There is no pairing {pid!r} in this tournament.")
        if user_id not in p["players"]:
            raise TournamentError("forbidden", "You can only dispute the result of your own match.")
        if p["status"] != "done" or p["bye"]:
            raise TournamentError("not_pending", f"Pairing {pid} has no result to dispute yet.")
        if pid not in state["rounds"][-1]:
            raise TournamentError("dispute_closed", "The next round has been paired; this result can "
                                  "no longer be disputed.")
        if any(d["pairing"] == pid and d["status"] == "open" for d in ev["meta"]["disputes"]):
            raise TournamentError("dispute_open", "This result is already disputed; the organiser will decide.")
        ev["meta"]["disputes"].append({
            "id": len(ev["meta"]["disputes"]) + 1, "pairing": pid, "by": user_id, "reason": reason,
            "status": "open", "at": t, "resolved_by": None, "resolved_at": None, "resolution": None})
    return fn


def resolve_fn(actor, dispute_id: int, decision: str, result: dict | None, reason: str):
    def fn(ev, fx, t):
        d = next((d for d in ev["meta"]["disputes"] if d["id"] == dispute_id), None)
        if d is None:
            raise TournamentError("not_found", "There is no dispute with that number.")
        if d["status"] != "open":
            raise TournamentError("dispute_closed", "That dispute is already resolved.")
        if decision == "override":
            if result is None:
                raise TournamentError("invalid_result", "An override needs the result.")
            override_fn(actor, d["pairing"], result, reason, dispute_id)(ev, fx, t)
            return
        d.update(status="upheld", resolved_by=actor.id, resolved_at=t, resolution=reason)
        fx.audits.append(audit_entry(actor, "tournament_dispute_upheld", ev,
                                     {"pairing": d["pairing"], "dispute": dispute_id, "reason": reason}))
        advance(ev, fx, t)
    return fn
