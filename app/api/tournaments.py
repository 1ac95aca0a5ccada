"""Tournaments: ``/api/tournaments`` (docs/tournaments.md has the life cycle and the rules).

Public: the list, a tournament's detail, its rounds, bracket and exports (drafts only for their
organiser and admins). Running an event needs the organiser role (or admin) and being its
organiser (or an admin). Entering one needs a registered account: guests get 403
``account_required``. The rules live in ``app/tournaments`` (changes through ``writes.change``:
``lifecycle_changes.py`` and ``results.py``; ``views.py`` for what is shown); this module
checks who may call and shapes the answer.
"""
from __future__ import annotations

from typing import Literal

from fastapi import APIRouter, Depends, Query
from fastapi.responses import PlainTextResponse
from pydantic import Field, field_validator

from app.api.decks import InvalidDeck
from app.api.schemas import ERRORS, Strict
from app.auth import User, current_user, optional_user, require_role
from app.db import decks as decks_db
from app.db import history
from app.db import tournaments as db
from app.errors import ApiError
from app.live import bots as live_bots
from app.services import Services, get_services
from app.tournaments import core, results, views
from app.tournaments import lifecycle as L
from app.tournaments import lifecycle_changes as changes
from app.tournaments.writes import change
from games.parbaj.cardpool import POOL
from games.parbaj.decks import validate_deck

router = APIRouter(prefix="/api/tournaments", tags=["tournaments"], responses=ERRORS)
organiser_role = require_role("organiser", "admin")

Format = Literal["single_elimination", "double_elimination", "round_robin", "swiss"]
Status = Literal["draft", "registration", "check_in", "running", "finished", "cancelled"]


# ------------------------------------------------------------------------------ bodies
def _clean_text(v: str | None) -> str | None:
    if v is None:
        return None
    v = " ".join(v.split())
    if any(not ch.isprintable() for ch in v):
        raise ValueError("control characters are not allowed")
    return v


class SettingsIn(Strict):
    best_of: int | None = Field(default=None, description="1, 3, 5 or 7 (Párbaj: 1, 3 or 5)")
    seeding: Literal["rating", "manual", "random"] | None = None
    first_player: Literal["higher_seed", "coin", "table"] | None = None
    rounds: int | None = Field(default=None, description="Swiss rounds; null: ceil(log2 players)")
    top_cut: int | None = Field(default=None, description="Swiss top cut: 0, 2, 4, 8, 16, 32 or 64")
    top_cut_best_of: int | None = None
    grand_final_reset: bool | None = None
    cap: int | None = Field(default=None, description="Places (2-1024); null: no limit. "
                                                      "Later sign-ups wait on the waitlist")
    pairing: Literal["auto", "manual"] | None = None
    round_break_seconds: int | None = Field(default=None, description="Pause before automatic pairing (disputes)")
    noshow_seconds: int | None = Field(default=None, description="No move this long after the start: the match is lost")
    round_minutes: int | None = Field(default=None, description="Round timer; null: none")
    open_lists: bool | None = None
    late_entry: bool | None = None
    game_options: dict | None = None
    description: str | None = Field(default=None, max_length=2000)


def _settings_dict(s: SettingsIn | None) -> dict:
    # Only what was sent: an explicit null matters for cap and timers (null = none).
    return {} if s is None else s.model_dump(exclude_unset=True)


class CreateIn(Strict):
    name: str = Field(min_length=1, max_length=80)
    game: str = Field(max_length=20)
    format: Format
    settings: SettingsIn | None = None

    _n = field_validator("name")(classmethod(lambda cls, v: _clean_text(v)))


class UpdateIn(Strict):
    name: str | None = Field(default=None, min_length=1, max_length=80)
    game: str | None = Field(default=None, max_length=20)
    format: Format | None = None
    settings: SettingsIn | None = None

    _n = field_validator("name")(classmethod(lambda cls, v: _clean_text(v)))


class DeckChoiceIn(Strict):
    """One of: ``cards`` (card ids), ``deck_id`` (one of your saved decks), ``starter`` (a
    starter deck id, GET /api/parbaj/starter-decks)."""
    cards: list[str] | None = Field(default=None, max_length=200, description="Card ids, one per copy")
    deck_id: str | None = Field(default=None, max_length=40, description="One of your saved decks")
    starter: str | None = Field(default=None, max_length=60, description="A starter deck id")


class RegisterIn(Strict):
    deck: DeckChoiceIn | None = Field(default=None, description="Párbaj: the deck to play (or later, before check-in)")


class ReasonIn(Strict):
    reason: str = Field(min_length=3, max_length=500)


class OptionalReasonIn(Strict):
    reason: str | None = Field(default=None, max_length=500)


class BotsIn(Strict):
    level: str = Field(max_length=20, description="A computer player level of the event's game (random, strong, ...)")
    count: int = Field(default=1, ge=1, le=64, description="How many to add; they take free places")


class ResultIn(Strict):
    winner: str | None = Field(description="The winner's user id; null for a drawn match")
    games: list[int] | None = Field(default=None, min_length=2, max_length=2,
                                    description="Games won by each player, in pairing order")
    draws: int | None = Field(default=None, ge=0, le=7)


class OverrideIn(Strict):
    result: ResultIn
    reason: str = Field(min_length=3, max_length=500)


class ResolveIn(Strict):
    decision: Literal["uphold", "override"]
    result: ResultIn | None = None
    reason: str = Field(min_length=3, max_length=500)


# ------------------------------------------------------------------------------ checks
async def account(user: User = Depends(current_user)) -> User:
    if user.guest:
        raise ApiError("account_required", "Tournaments are for registered players: register or "
                                           "log in first.")
    return user


async def _event(svc: Services, tournament_id: str, viewer: User | None) -> dict:
    ev = await db.get(svc.maker, tournament_id)
    if ev is None or (ev["status"] == "draft" and not views.manages(ev, viewer)):
        raise ApiError("not_found", "There is no tournament with that id.")
    return ev


async def _managed(svc: Services, tournament_id: str, user: User) -> dict:
    ev = await db.get(svc.maker, tournament_id)
    if ev is None:
        raise ApiError("not_found", "There is no tournament with that id.")
    if not views.manages(ev, user):
        raise ApiError("forbidden", "Only this tournament's organiser (or an admin) can do that.")
    return ev


async def _detail(svc: Services, ev: dict, user: User | None) -> dict:
    final = None
    if ev["status"] == "finished" and ev.get("state"):
        r = ev["state"]["round"]
        final = (await db.standings_after(svc.maker, ev["id"], [r])).get(r)
    return views.detail(ev, user, final)


def _result(body: ResultIn) -> dict:
    out: dict = {"winner": body.winner}
    if body.games is not None:
        out["games"] = body.games
    if body.draws is not None:
        out["draws"] = body.draws
    return out


async def _deck(svc: Services, user: User, choice: DeckChoiceIn | None) -> dict | None:
    """A deck choice as ``{"cards", "name"}`` (name None for a list of cards), validated (422
    invalid_deck with the problems)."""
    given = [x for x in (choice.cards, choice.deck_id, choice.starter) if x is not None] if choice else []
    if not given:
        return None
    if len(given) > 1:
        raise ApiError("invalid_message", "Invalid request: send one of 'cards', 'deck_id' or 'starter'.")
    if choice.deck_id is not None:
        saved = await decks_db.get_deck(svc.maker, user.id, choice.deck_id)
        if saved is None:
            raise ApiError("not_found", "There is no such deck among yours.")
        cards, name = saved["cards"], saved["name"]
    elif choice.starter is not None:
        starter = POOL.decks.get(choice.starter)
        if starter is None:
            raise ApiError("not_found", f"There is no starter deck '{choice.starter}'.")
        cards, name = list(starter["cards"]), starter["name"]
    else:
        cards, name = list(choice.cards), None
    problems = validate_deck(cards)
    if problems:
        raise InvalidDeck(problems)
    return {"cards": cards, "name": name}


# ------------------------------------------------------------------------------ public
@router.get("", summary="Tournaments, newest first (drafts: only your own)")
async def list_tournaments(status: Status | None = None, game: str | None = Query(None, max_length=20),
                           limit: int = Query(100, ge=1, le=500),
                           user: User | None = Depends(optional_user),
                           svc: Services = Depends(get_services)):
    rows = await db.list_events(svc.maker, status=status, game=game, limit=limit,
                                drafts_of=user.id if user else None,
                                all_drafts=bool(user and user.role == "admin"))
    return [views.summary({**r, "state": None}) for r in rows]


@router.post("", status_code=201, summary="Create a tournament (a draft)")
async def create_tournament(body: CreateIn, user: User = Depends(organiser_role),
                            svc: Services = Depends(get_services)):
    ev = await changes.create_event(svc, user, body.name, body.game, body.format,
                                    _settings_dict(body.settings))
    return await _detail(svc, ev, user)


@router.get("/{tournament_id}", summary="A tournament: entrants, current round, standings, brackets")
async def get_tournament(tournament_id: str, user: User | None = Depends(optional_user),
                         svc: Services = Depends(get_services)):
    return await _detail(svc, await _event(svc, tournament_id, user), user)


@router.get("/{tournament_id}/rounds/{round_no}", summary="One round: pairings and the standings after it")
async def get_round(tournament_id: str, round_no: int, user: User | None = Depends(optional_user),
                    svc: Services = Depends(get_services)):
    ev = await _event(svc, tournament_id, user)
    state = ev.get("state")
    if not state or not 1 <= round_no <= state["round"]:
        raise ApiError("not_found", f"Round {round_no} has not been paired.")
    after = await db.standings_after(svc.maker, tournament_id, [round_no])
    return views.round_view(ev, round_no, after.get(round_no))


@router.get("/{tournament_id}/bracket", summary="The bracket (elimination formats; 'cut' for a Swiss top cut)")
async def get_bracket(tournament_id: str, which: Literal["main", "cut"] = "main",
                      user: User | None = Depends(optional_user), svc: Services = Depends(get_services)):
    ev = await _event(svc, tournament_id, user)
    if not ev.get("state") or which not in ev["state"]["brackets"]:
        raise ApiError("not_found", "This tournament has no such bracket (yet).")
    return core.bracket(ev["state"], which)


@router.get("/{tournament_id}/export.json", summary="Players, every round with results, standings")
async def export_json(tournament_id: str, user: User | None = Depends(optional_user),
                      svc: Services = Depends(get_services)):
    ev = await _event(svc, tournament_id, user)
    return views.export_json(ev, await db.standings_after(svc.maker, tournament_id))


@router.get("/{tournament_id}/export.csv", response_class=PlainTextResponse,
            summary="Standings and every pairing as CSV (a 'kind' column tells the rows apart)")
async def export_csv(tournament_id: str, user: User | None = Depends(optional_user),
                     svc: Services = Depends(get_services)):
    ev = await _event(svc, tournament_id, user)
    return PlainTextResponse(views.export_csv(ev), media_type="text/csv; charset=utf-8", headers={
        "Content-Disposition": f'attachment; filename="{ev["id"]}.csv"'})


# ------------------------------------------------------------------------------ organisers
@router.patch("/{tournament_id}", summary="Edit a draft (name, game, format, settings)")
async def update_tournament(tournament_id: str, body: UpdateIn, user: User = Depends(organiser_role),
                            svc: Services = Depends(get_services)):
    await _managed(svc, tournament_id, user)
    ev = await change(svc, tournament_id, changes.update_fn(
        body.name, body.game, body.format, _settings_dict(body.settings)))
    return await _detail(svc, ev, user)


async def _organiser_step(svc: Services, tournament_id: str, user: User, fn) -> dict:
    await _managed(svc, tournament_id, user)
    return await _detail(svc, await change(svc, tournament_id, fn), user)


@router.post("/{tournament_id}/open-registration", summary="Draft -> registration")
async def open_registration(tournament_id: str, user: User = Depends(organiser_role),
                            svc: Services = Depends(get_services)):
    return await _organiser_step(svc, tournament_id, user, changes.transition_fn("registration"))


@router.post("/{tournament_id}/open-check-in", summary="Registration -> check-in")
async def open_check_in(tournament_id: str, user: User = Depends(organiser_role),
                        svc: Services = Depends(get_services)):
    return await _organiser_step(svc, tournament_id, user, changes.transition_fn("check_in"))


@router.post("/{tournament_id}/start", summary="Check-in -> running: seat the checked-in players, pair round 1")
async def start(tournament_id: str, user: User = Depends(organiser_role),
                svc: Services = Depends(get_services)):
    ev = await _managed(svc, tournament_id, user)
    ids = [e["user"]["id"] for e in ev["entrants"] if e["status"] in ("checked_in", "waitlisted")]
    ratings = await changes.ratings_for(svc, ev["game"], ids) if ev["settings"]["seeding"] == "rating" else {}
    return await _organiser_step(svc, tournament_id, user, changes.start_fn(ratings, changes.new_seed()))


@router.post("/{tournament_id}/next-round", summary="Pair the next round now (manual pairing, or skip the break)")
async def next_round(tournament_id: str, user: User = Depends(organiser_role),
                     svc: Services = Depends(get_services)):
    return await _organiser_step(svc, tournament_id, user, changes.next_round_fn(user))


@router.post("/{tournament_id}/cancel", summary="Cancel the tournament (audited)")
async def cancel(tournament_id: str, body: OptionalReasonIn | None = None,
                 user: User = Depends(organiser_role), svc: Services = Depends(get_services)):
    return await _organiser_step(svc, tournament_id, user,
                                 changes.transition_fn("cancelled", user, body.reason if body else None))


@router.post("/{tournament_id}/pairings/{pairing_id}/override",
             summary="Set or correct a pairing's result, with a reason (audited)")
async def override(tournament_id: str, pairing_id: str, body: OverrideIn,
                   user: User = Depends(organiser_role), svc: Services = Depends(get_services)):
    return await _organiser_step(svc, tournament_id, user,
                                 results.override_fn(user, pairing_id, _result(body.result), body.reason))


@router.post("/{tournament_id}/disputes/{dispute_id}/resolve",
             summary="Uphold a disputed result or override it (audited)")
async def resolve_dispute(tournament_id: str, dispute_id: int, body: ResolveIn,
                          user: User = Depends(organiser_role), svc: Services = Depends(get_services)):
    result = _result(body.result) if body.result is not None else None
    return await _organiser_step(svc, tournament_id, user,
                                 results.resolve_fn(user, dispute_id, body.decision, result, body.reason))


@router.post("/{tournament_id}/players/{user_id}/drop",
             summary="Drop a player (running) or take them off the list (before the start); audited")
async def drop_player(tournament_id: str, user_id: str, body: OptionalReasonIn | None = None,
                      user: User = Depends(organiser_role), svc: Services = Depends(get_services)):
    ev = await _managed(svc, tournament_id, user)
    reason = body.reason if body else None
    fn = (changes.withdraw_fn(user_id, user, reason) if ev["status"] in L.OPEN_FOR_ENTRY
          else changes.drop_fn(user_id, user, reason))
    return await _detail(svc, await change(svc, tournament_id, fn), user)


@router.post("/{tournament_id}/bots", summary="Add computer players (registration or check-in; makes a test event)")
async def add_bots(tournament_id: str, body: BotsIn, user: User = Depends(organiser_role),
                   svc: Services = Depends(get_services)):
    """Bot entrants are checked in at once and play their matches through the bot runner.
    Párbaj bots get the starter decks in turn. More bots than free places: 409 event_full."""
    ev = await _managed(svc, tournament_id, user)
    live_bots.check_level(ev["game"], body.level)
    decks = list(POOL.decks.values()) if L.needs_deck(ev) else None
    return await _organiser_step(svc, tournament_id, user,
                                 changes.add_bots_fn(user, body.level, body.count, decks))


@router.get("/{tournament_id}/decks", summary="The deck lists you may see")
async def decks(tournament_id: str, user: User = Depends(current_user), svc: Services = Depends(get_services)):
    """Organisers and admins see every list, a player their own; an opponent sees a list after
    their match against its owner, only when the event opens lists (``open_lists``)."""
    return views.decks_view(await _event(svc, tournament_id, user), user)


# ------------------------------------------------------------------------------ players
@router.get("/{tournament_id}/me", summary="Your page: entry, deck, opponent, match, what you may do")
async def me(tournament_id: str, user: User = Depends(account), svc: Services = Depends(get_services)):
    return views.me_view(await _event(svc, tournament_id, user), user.id)


async def _player_step(svc: Services, tournament_id: str, user: User, fn) -> dict:
    await _event(svc, tournament_id, user)
    return views.me_view(await change(svc, tournament_id, fn), user.id)


@router.post("/{tournament_id}/register", summary="Sign up (full: waitlist; Swiss: late entry while open)")
async def register(tournament_id: str, body: RegisterIn | None = None, user: User = Depends(account),
                   svc: Services = Depends(get_services)):
    ev = await _event(svc, tournament_id, user)
    deck = await _deck(svc, user, body.deck if body else None)
    rating = None
    if ev["status"] == "running" and ev["settings"]["seeding"] == "rating":
        rating = (await changes.ratings_for(svc, ev["game"], [user.id])).get(user.id)
    return views.me_view(await change(svc, tournament_id, changes.register_fn(user, deck, rating)), user.id)


@router.put("/{tournament_id}/deck", summary="Register or change your deck (until check-in locks it)")
async def set_deck(tournament_id: str, body: DeckChoiceIn, user: User = Depends(account),
                   svc: Services = Depends(get_services)):
    await _event(svc, tournament_id, user)
    deck = await _deck(svc, user, body)
    if deck is None:
        raise ApiError("invalid_message", "Invalid request: send 'cards', 'deck_id' or 'starter'.")
    return await _player_step(svc, tournament_id, user, changes.deck_fn(user.id, deck))


@router.post("/{tournament_id}/withdraw", summary="Leave before the start (your place goes to the waitlist)")
async def withdraw(tournament_id: str, user: User = Depends(account), svc: Services = Depends(get_services)):
    return await _player_step(svc, tournament_id, user, changes.withdraw_fn(user.id))


@router.post("/{tournament_id}/check-in", summary="Confirm you play (locks your deck)")
async def check_in(tournament_id: str, user: User = Depends(account), svc: Services = Depends(get_services)):
    return await _player_step(svc, tournament_id, user, changes.check_in_fn(user.id))


@router.post("/{tournament_id}/drop", summary="Drop out (your open match is lost; never paired again)")
async def drop(tournament_id: str, user: User = Depends(account), svc: Services = Depends(get_services)):
    return await _player_step(svc, tournament_id, user, changes.drop_fn(user.id))


@router.post("/{tournament_id}/pairings/{pairing_id}/dispute",
             summary="Dispute your match's result (until the next round is paired)")
async def dispute(tournament_id: str, pairing_id: str, body: ReasonIn, user: User = Depends(account),
                  svc: Services = Depends(get_services)):
    return await _player_step(svc, tournament_id, user, results.dispute_fn(user.id, pairing_id, body.reason))


@router.post("/{tournament_id}/matches/{match_id}/report",
             summary="Report a finished match now (it reports itself; this is for the impatient)")
async def report_match(tournament_id: str, match_id: str, user: User = Depends(account),
                       svc: Services = Depends(get_services)):
    """For the match's players and the organiser. The result is read from the match, never
    taken from the caller; reporting twice changes nothing. Someone else's match: 403."""
    ev = await _event(svc, tournament_id, user)
    try:
        doc = await svc.store.load(match_id)
    except ApiError:
        doc = await history.match_summary(svc.maker, match_id)
        if doc is None:
            raise ApiError("not_found", "There is no match with that id.") from None
    pid = next((pid for pid, mp in ev["meta"]["pairings"].items()
                if any(m["id"] == match_id for m in mp["matches"])), None)
    if pid is None:
        raise ApiError("not_found", "That match is not part of this tournament.")
    seated = {s["user"]["id"] for s in doc["seats"] if s.get("user")}
    if user.id not in seated and not views.manages(ev, user):
        raise ApiError("forbidden", "You can only report your own match.")
    if doc["status"] != "finished":
        raise ApiError("not_finished", "The match is still being played; it reports itself when it ends.")
    no = next(m["no"] for m in ev["meta"]["pairings"][pid]["matches"] if m["id"] == match_id)
    doc.setdefault("tournament", {"id": ev["id"], "pairing": pid, "game": no})
    ev = await results.record_match(svc, doc) or ev
    p = ev["state"]["matches"][pid]
    return views.pairing_view(ev, p)
