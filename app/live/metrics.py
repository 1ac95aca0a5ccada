"""Prometheus metrics, exposed at /metrics."""
from prometheus_client import Counter, Gauge, Histogram

SOCKETS = Gauge("duelhall_sockets", "Open websockets on this process")
ACTIONS = Counter("duelhall_actions_total", "Actions applied", ["game"])
ACTION_LATENCY = Histogram(
    "duelhall_action_seconds", "Time to apply an action (load, engine, compare-and-set)",
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0),
)
ERRORS = Counter("duelhall_client_errors_total", "Errors returned to clients", ["code"])
CAS_RETRIES = Counter("duelhall_cas_retries_total", "Compare-and-set conflicts retried")
TIMEOUTS = Counter("duelhall_timeouts_total", "Clock timeouts fired")
OUTBOX_WRITTEN = Counter("duelhall_outbox_written_total", "History records written to SQL")
OUTBOX_LAG = Gauge("duelhall_outbox_lag", "History records waiting in the outbox")
LIVE_MATCHES = Gauge("duelhall_live_matches", "Live matches (all processes)")
