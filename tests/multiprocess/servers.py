"""Start real server processes (and, when no REDIS_URL is given, a private redis-server)."""
from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import uuid
from contextlib import contextmanager
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_http(url: str, proc: subprocess.Popen, log: Path, timeout: float = 30) -> None:
    end = time.time() + timeout
    while time.time() < end:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited early:\n{log.read_text()[-3000:]}")
        try:
            if httpx.get(url, timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    raise RuntimeError(f"server did not answer {url}:\n{log.read_text()[-3000:]}")


def require_binary(name: str, why: str) -> str:
    """The path of ``name``; the test fails without it (a missing server is a broken set-up,
    not a reason to pass quietly: install it, e.g. `apt-get install redis-server`)."""
    binary = shutil.which(name)
    if binary:
        return binary
    import pytest

    pytest.fail(f"{why}: {name} is missing")


@contextmanager
def redis_url_for_tests(tmp: Path):
    """REDIS_URL from the environment, else a throwaway redis-server on a free port."""
    url = os.environ.get("REDIS_URL")
    if url:
        yield url
        return
    binary = require_binary("redis-server", "needs REDIS_URL or a redis-server binary to "
                                            "share state between processes")
    port = free_port()
    proc = subprocess.Popen([binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                             "--appendonly", "no", "--dir", str(tmp)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        end = time.time() + 10
        while time.time() < end:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                break
            except OSError:
                time.sleep(0.05)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        proc.terminate()
        proc.wait(10)


@contextmanager
def app_processes(n: int, redis_url: str, database_url: str, tmp: Path,
                  per_process_env: list[dict] | None = None):
    """``n`` app processes on their own ports sharing Redis and SQL; yields their base URLs.
    ``per_process_env``: extra environment for each process (e.g. ``RUN_WORKERS``)."""
    with app_process_handles(n, redis_url, database_url, tmp, per_process_env) as handles:
        yield [url for url, _ in handles]


@contextmanager
def app_process_handles(n: int, redis_url: str, database_url: str, tmp: Path,
                        per_process_env: list[dict] | None = None):
    """As ``app_processes``, yielding ``(url, Popen)`` pairs (to signal a process)."""
    env = {
        **os.environ,
        "REDIS_URL": redis_url,
        "DATABASE_URL": database_url,
        "REDIS_PREFIX": f"mp{uuid.uuid4().hex[:8]}:",
        "SECRET_KEY": "multi-process-test-key-0123456789abcdef",
        "DATA_DIR": str(tmp),
        "CLOCK_POLL_SECONDS": "0.1",
        # Torn down at the end of a test: no balancer to wait for (test_drain.py sets its own).
        "DRAIN_SECONDS": "0",
    }
    procs, urls = [], []
    try:
        for i in range(n):
            port = free_port()
            log = tmp / f"app{i}.log"
            proc = subprocess.Popen(
                [sys.executable, "-m", "uvicorn", "app.main:app", "--host", "127.0.0.1",
                 "--port", str(port), "--log-level", "warning"],
                cwd=ROOT, env={**env, "INSTANCE_NAME": f"app{i}", **(per_process_env or [{}] * n)[i]},
                stdout=log.open("w"), stderr=subprocess.STDOUT,
            )
            procs.append((proc, log))
            url = f"http://127.0.0.1:{port}"
            # One at a time, so only the first applies migrations.
            wait_http(url + "/healthz", proc, log)
            urls.append(url)
        yield list(zip(urls, [proc for proc, _ in procs]))
    finally:
        for proc, _ in procs:
            proc.terminate()
        for proc, _ in procs:
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
