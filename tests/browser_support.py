"""What every real-browser test shares: the real server in a subprocess and Debian's chromium.

Browser tests are skipped only when /usr/bin/chromium (or the playwright package) is missing
outside CI; under CI=true a missing browser is a failure, never a skip.
"""
from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
import uuid
from contextlib import contextmanager
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
IN_CI = os.environ.get("CI") == "true"

# pytestmark for a browser test module.
BROWSER_MARKS = [
    pytest.mark.browser,
    pytest.mark.skipif(not CHROMIUM.exists() and not IN_CI,
                       reason=f"{CHROMIUM} is not installed (and CI is not 'true')"),
]


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def healthy(base: str) -> bool:
    try:
        with urllib.request.urlopen(base + "/healthz", timeout=1) as r:
            return r.status == 200
    except OSError:
        return False


def server_env(data_dir: Path, label: str, **extra: str) -> dict:
    """The server's environment: its own DATA_DIR; REDIS_URL / DATABASE_URL pass through when
    set, with a unique REDIS_PREFIX so runs never see each other's keys."""
    env = dict(os.environ)
    env.update(DATA_DIR=str(data_dir), PYTHONUNBUFFERED="1",
               REDIS_PREFIX=f"{label}{uuid.uuid4().hex[:10]}:", **extra)
    return env


@contextmanager
def run_server(data_dir: Path, env: dict, startup_seconds: float = 120):
    """``uvicorn app.main:app`` on a free port; yields ``(base_url, log_path)`` and stops it.
    Fails the test with the server log when it does not come up."""
    log_path = data_dir / "server.log"
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    log = open(log_path, "wb")  # noqa: SIM115  (the server's stdout for its whole life)
    proc = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "app.main:app", "--host", "127.0.0.1", "--port", str(port)],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.monotonic() + startup_seconds
        while not healthy(base):
            if proc.poll() is not None or time.monotonic() > deadline:
                why = f"exited with {proc.returncode}" if proc.poll() is not None else "did not answer"
                log.flush()
                tail = log_path.read_text(errors="replace")[-4000:]
                print(f"Duelhall server {why}:\n{tail}", file=sys.stderr)
                pytest.fail(f"Duelhall server {why}:\n{tail}", pytrace=False)
            time.sleep(0.1)
        yield base, log_path
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)
        log.close()


@contextmanager
def chromium(expect_timeout_ms: int | None = None):
    """A headless Debian chromium driven by Playwright (never a downloaded browser).
    ``expect_timeout_ms``: how long Playwright's ``expect`` waits (generous: a loaded 2-core
    CI machine is slow; a passing run never waits that long)."""
    from playwright.sync_api import expect, sync_playwright  # a dev dependency: always installed
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing (CI must have a browser)")
    if expect_timeout_ms is not None:
        expect.set_options(timeout=expect_timeout_ms)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


def create_admin(env: dict, name: str, password: str) -> subprocess.CompletedProcess:
    """Create an admin account with the CLI (``duelhall create-admin``), as an operator would,
    in the server environment ``env``, before the server starts."""
    cli = Path(sys.executable).with_name("duelhall")
    cmd = [str(cli)] if cli.exists() else [sys.executable, "-m", "app.cli"]
    made = subprocess.run(cmd + ["create-admin", name, "--password-stdin"], input=password + "\n",
                          env=env, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert made.returncode == 0, made.stdout + made.stderr
    return made
