"""The one error type of the tournament core."""
from __future__ import annotations


class TournamentError(Exception):
    """An operation the tournament cannot accept. ``code`` is stable and machine-readable
    (snake_case, like the protocol's error codes); ``message`` is a sentence for a person."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code
        self.message = message

    def to_dict(self) -> dict:
        return {"code": self.code, "message": self.message}

    def __repr__(self) -> str:
        return f"TournamentError({self.code!r}, {self.message!r})"


# Every code the core raises, with when. The service layer maps them to HTTP statuses.
CODES = {
    "invalid_format": "the format name is not one of FORMATS",
    "invalid_options": "an option is unknown or out of range",
    "invalid_player": "a player entry is malformed (missing id, bad rating)",
    "duplicate_player": "two entries share an id, or a late entry reuses one",
    "too_few_players": "fewer than two players at creation",
    "unknown_player": "no player with that id in this tournament",
    "unknown_pairing": "no pairing with that id in this tournament",
    "not_pending": "the pairing is a bye, a walkover or otherwise needs no result",
    "already_reported": "the pairing already has a result",
    "invalid_result": "the result does not fit the pairing (players, game counts, best-of)",
    "invalid_game": "a game number outside the pairing's best-of",
    "draw_not_allowed": "a drawn match in an elimination bracket",
    "round_incomplete": "next pairings asked for while the current round has open matches",
    "tournament_finished": "the tournament is over",
    "not_finished": "the champion asked for before the tournament is over",
    "already_dropped": "the player has already dropped",
    "late_entry_closed": "a late entry after half the Swiss rounds have started",
    "late_entry_not_allowed": "a late entry in a format other than Swiss",
    "correction_closed": "a result correction after the next round was paired (corrections.py)",
}
