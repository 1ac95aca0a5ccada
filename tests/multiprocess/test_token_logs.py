"""No token reaches a log line or a metric, however it came (issue #15, "Tokens in the logs").

A real server process (uvicorn, its access log on, as deployed), once with JSON logs and once
with plain logs at uvicorn's DEBUG level (handshake headers and frames logged too). Tokens are
sent every way there is: ``?token=`` and the ``bearer.`` subprotocol on both sockets, a forged
token both ways, a bearer entry without ``duelhall.v1``, an HTTP path with ``?token=``. Then
everything the process wrote (stdout and stderr) and ``/metrics`` must hold none of them,
while the access lines still say which socket was opened (``token=[redacted]``)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
from websockets.sync.client import connect

from tests.multiprocess.servers import ROOT, free_port, wait_http

pytestmark = pytest.mark.multiprocess

V1 = "duelhall.v1"


@contextmanager
def server(tmp: Path, db_url: str, json_logs: bool, uvicorn_level: str):
    """One ``uvicorn app.main:app``; yields ``(base_url, log_path)``; the log is complete once
    the block ends (the process has exited)."""
    port = free_port()
    log = tmp / "server.log"
    env = {**os.environ, "DATABASE_URL": db_url, "DATA_DIR": str(tmp), "PYTHONUNBUFFERED": "1",
           "REDIS_PREFIX": f"tl{uuid.uuid4().hex[:8]}:", "LOG_JSON": str(json_logs).lower(),
           "LOG_LEVEL": "INFO"}
    with log.open("w") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "uvicorn", "app.main:app", "--host", "127.0.0.1",
             "--port", str(port), "--log-level", uvicorn_level],
            cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
        try:
            base = f"http://127.0.0.1:{port}"
            wait_http(base + "/healthz", proc, log)
            yield base, log
        finally:
            proc.terminate()
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(10)


def masked(secrets: list[str]):
    def mask(line: str) -> str:
        for s in secrets:
            line = line.replace(s, "<TOKEN>")
        return line
    return mask


def forged(token: str) -> str:
    head, _, sig = token.rpartition(".")
    return f"{head}.{'A' if sig[0] != 'A' else 'B'}{sig[1:]}"


def first_message(url: str, subprotocols=None) -> dict:
    """Open a socket; the subprotocol the server accepted and its first message."""
    with connect(url, subprotocols=subprotocols, open_timeout=20, proxy=None) as ws:
        return {"subprotocol": ws.subprotocol, "message": json.loads(ws.recv(timeout=20))}


@pytest.mark.parametrize("json_logs,uvicorn_level", [(True, "info"), (False, "debug")],
                         ids=["json-info", "plain-debug"])
def test_no_token_in_logs_or_metrics(tmp_path, db_url, json_logs, uvicorn_level):
    seen: dict[str, dict] = {}
    with server(tmp_path, db_url, json_logs, uvicorn_level) as (base, log):
        ws_base = base.replace("http://", "ws://")
        with httpx.Client(base_url=base, timeout=20) as http:
            ann = http.post("/api/auth/guest", json={"name": "Ann"}).json()["token"]
            bob = http.post("/api/auth/guest", json={"name": "Bob"}).json()["token"]
            bad = forged(ann)
            mid = http.post("/api/matches", json={"game": "duell", "options": {}},
                            headers={"Authorization": f"Bearer {ann}"}).json()["id"]
            assert http.post(f"/api/matches/{mid}/join",
                             headers={"Authorization": f"Bearer {bob}"}).json()["status"] == "live"
            match = f"{ws_base}/ws/matches/{mid}"
            tour = f"{ws_base}/ws/tournaments/t_nope"
            seen["query"] = first_message(f"{match}?token={ann}&ack=view")
            seen["subprotocol"] = first_message(match, [V1, f"bearer.{bob}"])
            seen["bad query"] = first_message(f"{match}?token={bad}")
            seen["bad subprotocol"] = first_message(match, [V1, f"bearer.{bad}"])
            seen["bearer alone"] = first_message(match, [f"bearer.{ann}"])
            seen["tour query"] = first_message(f"{tour}?token={ann}")
            seen["tour subprotocol"] = first_message(tour, [V1, f"bearer.{bob}"])
            seen["tour bad"] = first_message(tour, [V1, f"bearer.{bad}"])
            seen["http query"] = {"status": http.get(f"/api/me?token={bob}").status_code}
            metrics = http.get("/metrics").text
    out = log.read_text(errors="replace")

    # What this test is for first: no token, nor its signature alone, anywhere. (A failure
    # shows the lines masked: the test's own report must not print tokens either.)
    secrets = [part for token in (ann, bob, bad) for part in (token, token.rsplit(".", 1)[1])]
    leaks = [line for line in out.splitlines() if any(s in line for s in secrets)]
    leaked_lines, leaked_metrics = len(leaks), sum(s in metrics for s in secrets)
    assert leaked_lines == 0, "lines with a token:\n" + "\n".join(map(masked(secrets), leaks))
    assert leaked_metrics == 0, "a token in /metrics"
    # The access lines still say which socket was opened, with the token's place marked.
    lines = [line for line in out.splitlines() if f"/ws/matches/{mid}?token=[redacted]&ack=view" in line]
    assert lines, out[-3000:]  # no token in it (checked above)
    if json_logs:
        assert "[accepted]" in json.loads(lines[0])["msg"]
    else:  # DEBUG: the handshake's headers are logged both ways; the bearer entry never echoed
        assert f"< sec-websocket-protocol: {V1}, bearer.[redacted]" in out
        assert f"> Sec-WebSocket-Protocol: {V1}" in out
    assert "/api/me?token=[redacted]" in out
    assert "duelhall_client_errors_total" in metrics

    # And the tokens worked (or were refused) as the protocol says, whichever way they came.
    assert seen["query"]["message"]["seat"] == "A" and seen["query"]["subprotocol"] is None
    assert seen["subprotocol"]["message"]["seat"] == "B" and seen["subprotocol"]["subprotocol"] == V1
    for refused in ("bad query", "bad subprotocol", "tour bad"):
        assert seen[refused]["message"]["code"] == "unauthorized", seen[refused]
    assert seen["bearer alone"]["subprotocol"] is None
    assert seen["bearer alone"]["message"]["code"] == "unauthorized"
    assert seen["tour query"]["message"]["code"] == seen["tour subprotocol"]["message"]["code"] == "not_found"
    assert seen["http query"]["status"] == 401
