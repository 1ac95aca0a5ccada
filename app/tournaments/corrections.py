"""Result corrections: an organiser overrides a result that was already reported.

Pure, like ``core``: a state in, a new state out, ``TournamentError`` on refusal (nothing
changed). It extends the core, which refuses to change a reported result (``already_reported``).

A correction is allowed only while the pairing belongs to the **current round**: nothing paired
later can depend on it yet. Swiss and round-robin pairings of the next round are made from the
standings, and bracket matches of later rounds take their players from the results when their
round opens, so a result may change until the next ``next_pairings`` call and never after
(``correction_closed``). A tournament that ended with the corrected result is re-opened and
settled again: a grand final that is corrected in favour of the losers-bracket champion
un-skips the reset, and the champion is recomputed.
"""
from __future__ import annotations

from typing import Any

from . import core
from .errors import TournamentError


def correct(state: dict, pairing_id: str, result: dict, copy: bool = True) -> dict:
    """Record ``result`` for ``pairing_id`` whether or not it already has one (same result shape
    as ``core.report``). A pending pairing is simply reported."""
    m = state["matches"].get(pairing_id) if isinstance(pairing_id, str) else None
    if m is None:
        raise TournamentError("unknown_pairing", f"There is no pairing {pairing_id!r} in this tournament.")
    if m["status"] == "pending":
        return core.report(state, pairing_id, result, copy=copy)
    if m["status"] != "done":
        return core.report(state, pairing_id, result, copy=copy)  # raises the core's not_pending
    if m["bye"] or m["void"]:
        raise TournamentError("not_pending", f"Pairing {pairing_id} is a bye; it has no result to correct.")
    if not state["rounds"] or pairing_id not in state["rounds"][-1]:
        raise TournamentError(
            "correction_closed",
            f"Pairing {pairing_id} is from round {m['round']}; once the next round is paired its "
            f"result can no longer change (round {state['round']} is under way).",
        )
    res = core._normalise_result(m, result, allow_draw=m["stage"] in ("swiss", "round_robin"))
    if copy:
        state = core._fork(state)
    core._record(core._writable(state, pairing_id), res)
    _reopen(state)
    core._settle(state)
    state["revision"] += 1
    return state


def _reopen(state: dict) -> None:
    """Undo what settling the old result decided: the end of the event and a skipped reset."""
    state["finished"] = False
    state["champion"] = None
    opened = {mid for rnd in state["rounds"] for mid in rnd}
    for summary in state["brackets"].values():
        reset: Any = summary.get("reset_match")
        if reset and reset not in opened and state["matches"][reset]["status"] == "skipped":
            core._writable(state, reset)["status"] = "waiting"
