from __future__ import annotations

from fastapi import APIRouter, Depends, Response
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

from app.db import history
from app.errors import ApiError
from app.live import metrics
from app.services import Services, get_services

router = APIRouter(tags=["operations"])


@router.get("/healthz", summary="Liveness: the process answers")
async def healthz():
    return {"status": "ok"}


@router.get("/readyz", summary="Readiness: Redis and SQL answer, and the process is not draining")
async def readyz(svc: Services = Depends(get_services)):
    if svc.draining:
        # SIGTERM (app/drain.py): out of rotation at once; requests still arriving are served.
        raise ApiError("unavailable", "This server is shutting down; try another.", 503)
    checks = {}
    try:
        checks["redis"] = bool(await svc.redis.ping())
    except Exception:
        checks["redis"] = False
    try:
        checks["sql"] = await history.ping(svc.maker)
    except Exception:
        checks["sql"] = False
    checks["outbox_lag"] = await svc.outbox.lag() if checks["redis"] else None
    if not checks["redis"]:
        # Without Redis nothing can be played; without SQL play goes on (history waits).
        raise ApiError("unavailable", "Redis is not reachable.", 503)
    return {"status": "ok" if checks["sql"] else "degraded", **checks}


@router.get("/metrics", include_in_schema=False)
async def prometheus(svc: Services = Depends(get_services)):
    try:
        await metrics.refresh_shared(svc)
    except Exception:  # Redis down: the process's own figures are still worth scraping
        pass
    return Response(generate_latest(), media_type=CONTENT_TYPE_LATEST)
