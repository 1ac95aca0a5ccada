"""Issue #15, hole 4: behind the balancer, the per-address sign-in limit counts the address
nginx saw, whatever a client writes into X-Forwarded-For. The server runs as docker-compose.yml
runs it (`duelhall serve` with the app service's forwarding settings), with this test in
nginx's place: nginx appends the connecting address to what the client sent."""
from __future__ import annotations

import os
import subprocess
import sys
import uuid
from pathlib import Path

import httpx
import pytest
import yaml

from tests.multiprocess.servers import ROOT, free_port, wait_http

FAILS_PER_ADDRESS = 30  # docs/accounts.md; app/signin.py

pytestmark = pytest.mark.multiprocess


def compose_forwarding_env() -> dict:
    """The app service's forwarding settings, with nginx's address replaced by ours."""
    data = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    env = data["services"]["app"]["environment"]
    out = {k: str(env[k]) for k in ("FORWARDED_ALLOW_IPS", "TRUSTED_PROXIES") if k in env}
    lb = (data["services"]["lb"].get("networks") or {}).get("default", {}).get("ipv4_address")
    if "TRUSTED_PROXIES" in out and lb:
        out["TRUSTED_PROXIES"] = out["TRUSTED_PROXIES"].replace(lb, "127.0.0.1")
    return out


def test_a_client_cannot_choose_the_address_it_is_limited_by(tmp_path: Path):
    port = free_port()
    env = {**os.environ, "DATA_DIR": str(tmp_path), "REDIS_PREFIX": f"xff{uuid.uuid4().hex[:8]}:",
           "SECRET_KEY": "forwarded-for-test-key-0123456789abcdef", **compose_forwarding_env()}
    cli = Path(sys.executable).with_name("duelhall")
    cmd = [str(cli)] if cli.exists() else [sys.executable, "-m", "app.cli"]
    log = tmp_path / "serve.log"
    proc = subprocess.Popen(cmd + ["serve", "--host", "127.0.0.1", "--port", str(port)], cwd=ROOT,
                            env=env, stdout=log.open("w"), stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_http(base + "/healthz", proc, log, timeout=120)
        statuses = []
        with httpx.Client(base_url=base, timeout=60, trust_env=False) as http:
            for i in range(FAILS_PER_ADDRESS + 1):
                # The client made up the first entry; nginx added the address it connected from.
                r = http.post("/api/auth/login",
                              json={"name": f"Nobody{i}{uuid.uuid4().hex[:6]}", "password": "wrong password"},
                              headers={"X-Forwarded-For": f"198.51.100.{i}, 203.0.113.7"})
                statuses.append(r.status_code)
        assert statuses == [401] * FAILS_PER_ADDRESS + [429], statuses
    finally:
        proc.terminate()
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
