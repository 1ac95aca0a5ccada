"""The balance lab for organisers and admins: start a run of bot matches, follow it, read its
report (JSON or a self-contained HTML page). The work is in app/lab/; see docs/lab.md."""
from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends
from fastapi.responses import HTMLResponse
from pydantic import Field

from app.api.games import describe
from app.api.schemas import ERRORS, Strict
from app.auth import User, require_role
from app.errors import ApiError
from app.lab import render, service
from app.lab.spec import LabSpec, SpecError, check
from app.services import Services, get_services
from games.registry import all_infos

router = APIRouter(prefix="/api/lab", tags=["lab"], responses=ERRORS)
lab_user = require_role("organiser", "admin")


class LabRunIn(Strict):
    game: str = Field(max_length=20)
    games: int = Field(default=200, ge=1, description="Matches per rule set (at most the "
                                                       "server's limit, see GET /api/lab/meta)")
    bots: list[str] = Field(default_factory=lambda: ["strong", "random"], min_length=1,
                            max_length=6, description="Bot level per seat")
    seed: int = Field(default=1, ge=0, le=2**53)
    options: dict[str, Any] = Field(default_factory=dict)
    compare: dict[str, Any] | None = Field(default=None, description="A second rule set")
    vary: dict[str, list[Any]] = Field(default_factory=dict)
    lineups: list[str] | None = Field(default=None, max_length=20,
                                      description="Duellists (duel) or starter decks (parbaj)")
    budget: int | None = Field(default=None, ge=1, le=512,
                               description="Strong bots' budget; default: the game's own")
    seats: int = Field(default=2, ge=2, le=6)
    rotate: bool = True


def _visible(run: dict | None, user: User) -> dict:
    if run is None or (run["user"] != user.id and user.role != "admin"):
        raise ApiError("not_found", "There is no lab run with that id.")
    return run


@router.get("/meta", summary="What a lab run may use: games, bot levels, lineups, limits")
async def meta(_: User = Depends(lab_user), svc: Services = Depends(get_services)):
    infos = all_infos()
    return {
        "max_games": svc.settings.lab_max_games,
        # Every level of any game (each game's own are its bot_levels).
        "levels": list(dict.fromkeys(lv for i in infos for lv in i.levels)),
        # GET /api/games entries, with the lineups the lab can assign.
        "games": [{**describe(i), "lineup": i.lab.lineup, "lineups": i.lab.lineups()}
                  for i in infos],
    }


@router.post("/runs", summary="Start a lab run (one unfinished run per user)", status_code=202)
async def start_run(body: LabRunIn, user: User = Depends(lab_user),
                    svc: Services = Depends(get_services)):
    spec = LabSpec(**body.model_dump())
    try:
        check(spec, max_games=svc.settings.lab_max_games)
    except SpecError as e:
        raise ApiError("invalid_lab_run", str(e)) from None
    try:
        return await service.start(svc, user, spec)
    except service.LabBusy as busy:
        raise ApiError("lab_busy", f"Your lab run {busy.run_id} is not finished yet; wait for "
                                   "it before starting another.") from None


@router.get("/runs", summary="Your latest lab runs, newest first")
async def my_runs(user: User = Depends(lab_user), svc: Services = Depends(get_services)):
    return {"runs": await service.mine(svc, user.id)}


@router.get("/runs/{run_id}", summary="A run's status and progress; its report once done")
async def get_run(run_id: str, user: User = Depends(lab_user),
                  svc: Services = Depends(get_services)):
    run = _visible(await service.get(svc, run_id), user)
    out = dict(run)
    out["report"] = await service.report(svc, run_id) if run["status"] == "done" else None
    return out


@router.get("/runs/{run_id}/report.html", response_class=HTMLResponse,
            summary="The finished run's report as a self-contained HTML page with charts")
async def run_report_html(run_id: str, user: User = Depends(lab_user),
                          svc: Services = Depends(get_services)):
    run = _visible(await service.get(svc, run_id), user)
    if run["status"] != "done":
        raise ApiError("lab_not_finished", "The run has no report yet: it is "
                                           f"{run['status']}.")
    rep = await service.report(svc, run_id)
    if rep is None:
        raise ApiError("not_found", "The report of that run has expired.")
    return HTMLResponse(render.html_page(rep, stylesheet="/static/lab.css"))
