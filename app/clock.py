"""The app's one clock and one time format.

``now()`` is seconds since the epoch; ``iso(ts)`` writes such a time as ISO 8601 in UTC with
milliseconds (``2030-03-17T17:46:40.000Z``), the format of every time the API shows. Read the
time through the module (``clock.now()``), so a test that replaces ``clock.now`` controls it
everywhere.
"""
from __future__ import annotations

import time


def now() -> float:
    return time.time()


def iso(ts: float | None) -> str | None:
    if ts is None:
        return None
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(ts)) + f".{int(ts % 1 * 1000):03d}Z"
