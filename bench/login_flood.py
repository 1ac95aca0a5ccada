"""A real player's sign-in while a flood of wrong passwords runs (issue #15, hole 4).

Starts one server (``uvicorn app.main:app``, embedded Redis and SQLite, real argon2 costs) on
a free loopback port, registers a player, then measures that player's sign-in latency twice:
quiet, and while ``--workers`` flooders send wrong passwords for made-up names as fast as they
are answered, each from a different made-up address (an ``X-Forwarded-For`` of a
documentation prefix, 2001:db8::/32, which the server trusts from loopback: a distributed
attack, so the per-address limit does not stop it). Bounded: the flood lasts ``--seconds``,
then everything stops.

    .venv/bin/python bench/login_flood.py                      # this tree
    .venv/bin/python bench/login_flood.py --app-dir /tmp/old   # another checkout (before/after)

It prints, for a sign-in from an unknown device and from a known one (with its device token;
"n/a" on code that has none): median and p90 latency quiet and under flood, the ratio, and how
many were refused (429). Compare runs through the ratios: absolute times depend on the machine.
"""
from __future__ import annotations

import argparse
import asyncio
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
PASSWORD = "correct horse battery staple"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(app_dir: Path, data: Path) -> tuple[subprocess.Popen, str]:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "DATABASE_URL")}
    env.update(DATA_DIR=str(data), SECRET_KEY="login-flood-bench-key-0123456789abcdef",
               TRUSTED_PROXIES="127.0.0.1", LOG_LEVEL="WARNING", PYTHONPATH=str(app_dir))
    log = (data / "server.log").open("w")
    proc = subprocess.Popen([sys.executable, "-m", "uvicorn", "app.main:app", "--host", "127.0.0.1",
                             "--port", str(port), "--log-level", "warning"],
                            cwd=app_dir, env=env, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"server exited:\n{(data / 'server.log').read_text()[-3000:]}")
        try:
            if httpx.get(base + "/healthz", timeout=1, trust_env=False).status_code == 200:
                return proc, base
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    proc.kill()
    raise SystemExit("server did not start")


async def sign_in(http: httpx.AsyncClient, name: str, device: str | None) -> tuple[float, int]:
    body = {"name": name, "password": PASSWORD}
    if device:
        body["device_token"] = device
    t0 = time.perf_counter()
    r = await http.post("/api/auth/login", json=body, headers={"X-Forwarded-For": "198.51.100.1"})
    return time.perf_counter() - t0, r.status_code


async def measure(http, name, device, count: int, pause: float, stop_at: float | None = None):
    """``count`` sign-ins one after another (fewer when ``stop_at`` comes first): the latencies
    of those let in, and how many were refused."""
    times, refused = [], 0
    for _ in range(count):
        if stop_at and time.monotonic() > stop_at:
            break
        took, status = await sign_in(http, name, device)
        if status == 200:
            times.append(took)
        elif status == 429:
            refused += 1
        else:
            raise SystemExit(f"a real sign-in got {status}")
        await asyncio.sleep(pause)
    return times, refused


async def flooder(http, stop_at: float, counts: dict) -> None:
    rnd = random.Random()
    while time.monotonic() < stop_at:
        # Documentation addresses (2001:db8::/32), only ever written in a header.
        ip = f"2001:db8::{rnd.randrange(1 << 16):x}:{rnd.randrange(1 << 16):x}"
        try:
            r = await http.post("/api/auth/login",
                                json={"name": f"x{uuid.uuid4().hex[:10]}", "password": "wrong password"},
                                headers={"X-Forwarded-For": ip})
            counts[r.status_code] = counts.get(r.status_code, 0) + 1
        except httpx.HTTPError:
            counts["error"] = counts.get("error", 0) + 1


def stats(times: list[float]) -> str:
    if not times:
        return "none answered"
    times = sorted(times)
    p90 = times[min(len(times) - 1, int(0.9 * len(times)))]
    return f"median {statistics.median(times) * 1000:.0f} ms, p90 {p90 * 1000:.0f} ms (n={len(times)})"


async def run(base: str, workers: int, seconds: float, samples: int) -> None:
    limits = httpx.Limits(max_connections=workers + 4, max_keepalive_connections=workers + 4)
    async with httpx.AsyncClient(base_url=base, timeout=120, trust_env=False, limits=limits) as http:
        name = f"Victim{uuid.uuid4().hex[:6]}"
        r = await http.post("/api/auth/register", json={"name": name, "password": PASSWORD})
        r.raise_for_status()
        device = r.json().get("device_token")
        # Warm up (the first wrong name makes the server's dummy hash).
        await sign_in(http, name, None)
        await http.post("/api/auth/login", json={"name": "nobody", "password": "wrong password"})

        quiet = {"unknown": await measure(http, name, None, samples, 0.05)}
        if device:
            quiet["known"] = await measure(http, name, device, samples, 0.05)

        counts: dict = {}
        stop_at = time.monotonic() + seconds
        flood = [asyncio.create_task(flooder(http, stop_at, counts)) for _ in range(workers)]
        await asyncio.sleep(min(1.0, seconds / 5))  # let the flood build up
        busy = {"unknown": [], "known": []}
        refused = {"unknown": 0, "known": 0}
        while time.monotonic() < stop_at - 0.5:
            for kind, token in (("unknown", None), ("known", device)):
                if kind == "known" and not device:
                    continue
                t, n = await measure(http, name, token, 1, 0.1, stop_at)
                busy[kind] += t
                refused[kind] += n
        await asyncio.gather(*flood)

    total = sum(v for k, v in counts.items() if k != "error")
    print(f"flood: {workers} workers for {seconds:.0f} s: {total} wrong passwords answered "
          f"({total / seconds:.0f}/s): " + ", ".join(f"{k}: {v}" for k, v in sorted(counts.items(), key=str)))
    for kind in ("unknown", "known"):
        if kind not in quiet:
            print(f"{kind} device: n/a (this code returns no device token)")
            continue
        q, b = quiet[kind][0], busy[kind]
        ratio = (statistics.median(b) / statistics.median(q)) if q and b else float("nan")
        print(f"{kind} device: quiet {stats(q)}; under flood {stats(b)}, "
              f"{refused[kind]} refused (429); median ratio {ratio:.1f}x")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--app-dir", type=Path, default=ROOT, help="checkout whose app/ to serve")
    p.add_argument("--workers", type=int, default=8, help="concurrent flooders")
    p.add_argument("--seconds", type=float, default=10.0, help="how long the flood lasts (<= 60)")
    p.add_argument("--samples", type=int, default=10, help="quiet sign-ins of each kind")
    args = p.parse_args()
    seconds = min(args.seconds, 60.0)
    data = Path(tempfile.mkdtemp(prefix="loginflood"))
    proc, base = start_server(args.app_dir.resolve(), data)
    try:
        print(f"server: {args.app_dir.resolve()} on {base}")
        asyncio.run(run(base, args.workers, seconds, args.samples))
    finally:
        proc.terminate()
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()


if __name__ == "__main__":
    main()
