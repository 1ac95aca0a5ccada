"""Prometheus metrics, exposed at /metrics."""
from prometheus_client import Counter, Gauge, Histogram

SOCKETS = Gauge("duelhall_sockets", "Open websockets on this process")
ACTIONS = Counter("duelhall_actions_total", "Actions applied", ["game"])
ACTION_LATENCY = Histogram(
    "duelhall_action_seconds", "Time to apply an action (load, engine, compare-and-set)",
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0),
)
ERRORS = Counter("duelhall_client_errors_total", "Errors returned to clients", ["code"])

_ACTIONS_BY_GAME: dict = {}


def action_applied(game: str, seconds: float) -> None:
    """Count a move and its latency. The labelled child is looked up once per game (labels()
    validates and locks on every call; this runs on every move)."""
    child = _ACTIONS_BY_GAME.get(game)
    if child is None:
        child = _ACTIONS_BY_GAME[game] = ACTIONS.labels(game)
    child.inc()
    ACTION_LATENCY.observe(seconds)
CAS_RETRIES = Counter("duelhall_cas_retries_total", "Compare-and-set conflicts retried")
TIMEOUTS = Counter("duelhall_timeouts_total", "Clock timeouts fired")
OUTBOX_WRITTEN = Counter("duelhall_outbox_written_total", "History records written to SQL")
OUTBOX_LAG = Gauge("duelhall_outbox_lag", "History records waiting in the outbox")
LIVE_MATCHES = Gauge("duelhall_live_matches", "Live matches (all processes)")
OUTBOX_OLDEST = Gauge("duelhall_outbox_oldest_seconds",
                      "Age of the oldest history record not yet in SQL (0 when none waits)")

# LIVE_MATCHES and the OUTBOX_* gauges describe the shared Redis, so every process reports the
# same value: aggregate them with max(), not sum(). SOCKETS and the counters are per process.


async def refresh_shared(svc) -> None:
    """Read the gauges that describe shared state from Redis (at scrape time)."""
    import time

    LIVE_MATCHES.set(await svc.redis.zcard(svc.store.k.live))
    OUTBOX_LAG.set(await svc.outbox.lag())
    oldest = await svc.redis.xrange(svc.store.k.outbox, "-", "+", count=1)
    if oldest:
        millis = int(str(oldest[0][0]).split("-")[0])  # stream ids are "<unix ms>-<n>"
        OUTBOX_OLDEST.set(max(0.0, time.time() - millis / 1000))
    else:
        OUTBOX_OLDEST.set(0)
