#!/usr/bin/env python3
"""Live load benchmark: N concurrent Duell matches played over real websockets.

Each match ("lane") has two scripted players, one websocket per seat. Whenever a seat is
pending it picks a random legal action and sends ``{"type":"action",...,"client_seq":k}``.
For every action we measure the time from sending it until BOTH seats have received the view
with the resulting version (action -> both views). When a match finishes the lane signs the
same two players into a new one, so N matches stay live for the whole run.

The players run in separate client processes (``--clients``), never inside the server
process(es), so the server is measured, not the load generator. The script can start the
server(s) itself (``--spawn embedded|real``, ``--processes K``), or drive one that is
already running (``--server URL[,URL...]``). ``--baseline`` runs the same load against the
bare websocket pair server of ``bench/echo.py`` (no Redis, no engine, no SQL).

Examples (see docs/performance.md for figures):

    .venv/bin/python bench/live.py --spawn embedded
    .venv/bin/python bench/live.py --spawn real --processes 2
    .venv/bin/python bench/live.py --baseline
    .venv/bin/python bench/live.py --spawn real --rate 1500      # paced: offered 1500 actions/s
    .venv/bin/python bench/live.py --server http://127.0.0.1:8000 --matches 50 --duration 10

The client side needs httpx and websockets (the dev extras) and orjson: the load generator
shares the machine with the server, so it parses views as cheaply as it can.
"""
from __future__ import annotations

import argparse
import asyncio
import collections
import heapq
import json
import multiprocessing as mp
import os
import random
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import orjson

ROOT = Path(__file__).resolve().parent.parent
BENCH = Path(__file__).resolve().parent
DEFAULT_OPTIONS = {"duels_to_win": 9}
REAL_REDIS = "redis://127.0.0.1:6379/0"
REAL_DB = "postgresql://root@127.0.0.1:5432/test"
CLK_TCK = os.sysconf("SC_CLK_TCK")
STALL_SECONDS = 15.0
RETRY_DELAY = 0.05


# ============================================================================================
# Arguments
# ============================================================================================
def parse_args(argv=None, baseline_default=False) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        description="Duelhall live load benchmark (Duell matches over websockets).",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--matches", type=int, default=200, help="concurrent matches (2 sockets each)")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--duration", type=float, default=None,
                   help="measured seconds after the warm-up (20 when neither this nor "
                        "--actions-per-match is given)")
    g.add_argument("--actions-per-match", type=int, default=None,
                   help="instead of a duration: each lane sends this many measured actions")
    p.add_argument("--warmup", type=float, default=5.0, help="seconds of load before measuring")
    t = p.add_mutually_exclusive_group()
    t.add_argument("--server", default=None,
                   help="an already running server: URL, or several comma-separated")
    t.add_argument("--spawn", choices=("embedded", "real"), default=None,
                   help="start the server(s) here: embedded (fakeredis+SQLite) or real Redis+Postgres")
    p.add_argument("--baseline", action="store_true", default=baseline_default,
                   help="spawn bench/echo.py (bare websocket pair server) instead of the app")
    p.add_argument("--processes", type=int, default=1,
                   help="server processes to spawn on consecutive ports (>1 needs --spawn real)")
    p.add_argument("--port", type=int, default=0, help="first port for spawned servers (0: pick)")
    p.add_argument("--outbox-process", action="store_true",
                   help="with --spawn real: the history writer in its own process (`duelhall "
                        "worker`), RUN_OUTBOX=false and RUN_CLOCKS=false on the web "
                        "processes (counted as 'worker' CPU)")
    p.add_argument("--clients", type=int, default=1, help="client (load generator) processes")
    p.add_argument("--rate", type=float, default=0.0,
                   help="offered load in actions/s over all matches, paced per match; "
                        "0 = closed loop (each seat acts as soon as it sees its view)")
    p.add_argument("--placement", choices=("random", "split", "same"), default="random",
                   help="with several server processes: the two sockets of a match on random "
                        "processes, always on different ones, or always on the same one")
    p.add_argument("--options", default=json.dumps(DEFAULT_OPTIONS),
                   help="Duell match options (JSON)")
    p.add_argument("--seed", type=int, default=1, help="seed for the players' choices")
    p.add_argument("--ws", default="auto", help="uvicorn --ws for spawned servers "
                   "(auto = websockets-sansio, websockets, wsproto)")
    p.add_argument("--loop", default="auto", help="uvicorn --loop for spawned servers (auto = uvloop)")
    p.add_argument("--deflate", action="store_true",
                   help="permessage-deflate on (the app's WS_DEFLATE default is off): server "
                        "flag on and clients offer it")
    p.add_argument("--ack-frames", action="store_true",
                   help="ask for a separate ack frame per action (the default socket asks for "
                        "ack=view: the action's view is its acknowledgment, as static/ws.js does)")
    p.add_argument("--no-deflate", action="store_true",
                   help="(the default) no permessage-deflate; kept for old command lines")
    p.add_argument("--app-root", default=str(ROOT),
                   help="tree to run the spawned app server from (A/B-compare a scratch copy)")
    p.add_argument("--redis-url", default=REAL_REDIS)
    p.add_argument("--own-redis", action="store_true",
                   help="with --spawn real: start a private redis-server (same binary, empty, "
                        "no persistence, with --nice) for this run instead of --redis-url; for "
                        "a machine where other work starves the shared Redis")
    p.add_argument("--database-url", default=REAL_DB)
    p.add_argument("--py-spy", metavar="PREFIX", default=None,
                   help="record each spawned server with py-spy during the measured window "
                        "(PREFIX-<port>.txt collapsed stacks; py-spy must be installed)")
    p.add_argument("--nice", type=int, default=0,
                   help="niceness for the spawned servers and the clients (negative, as root: "
                        "favour this benchmark over other work on a shared machine)")
    p.add_argument("--worker-nice", type=int, default=0,
                   help="niceness of the --outbox-process history worker (e.g. 10: it gets CPU "
                        "after the servers when they compete, as cpu_shares does in "
                        "docker-compose.yml; history then trails play a little)")
    p.add_argument("--cprofile", metavar="PREFIX", default=None,
                   help="run each spawned server under cProfile (PREFIX-<port>.prof, written "
                        "when it stops; the whole run is profiled, slower than normal)")
    p.add_argument("--logs", metavar="DIR", default=None,
                   help="keep the spawned servers' logs in DIR (they are deleted otherwise)")
    p.add_argument("--json", metavar="FILE", default=None, help="also write the results as JSON")
    p.add_argument("--label", default=None, help="name of this run in the table")
    a = p.parse_args(argv)
    if a.duration is None and a.actions_per_match is None:
        a.duration = 20.0
    if a.baseline:
        if a.server:
            p.error("--baseline spawns the echo server; it does not take --server")
        a.spawn = "baseline"
        if a.processes > 1:
            a.placement = "same"  # the echo server keeps its pairs in process memory
    elif not a.server and not a.spawn:
        a.spawn = "embedded"
    if a.spawn == "embedded" and a.processes > 1:
        p.error("--processes > 1 needs shared state: use --spawn real")
    if a.matches < 1 or a.clients < 1 or a.processes < 1:
        p.error("--matches, --clients and --processes must be at least 1")
    a.match_options = json.loads(a.options)
    return a


# ============================================================================================
# CPU accounting from /proc (no psutil needed)
# ============================================================================================
def proc_ticks(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return int(fields[11]) + int(fields[12])  # utime + stime
    except (OSError, IndexError, ValueError):
        return 0


def pids_named(*names: str) -> list[int]:
    out = []
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/comm") as f:
                    comm = f.read().strip()
            except OSError:
                continue
            if any(comm.startswith(n) for n in names):
                out.append(int(d))
    return out


def machine_ticks() -> tuple[int, int]:
    """(busy, total) jiffies of the whole machine."""
    with open("/proc/stat") as f:
        vals = [int(x) for x in f.readline().split()[1:]]
    idle = vals[3] + (vals[4] if len(vals) > 4 else 0)
    return sum(vals) - idle, sum(vals)


class CpuSampler:
    """CPU used by each group of processes between two snapshots, in % of one core."""

    def __init__(self, groups: dict[str, list[int]]):
        self.groups = groups

    def snap(self):
        return (time.monotonic(), {g: {p: proc_ticks(p) for p in pids} for g, pids in self.groups.items()},
                machine_ticks())

    @staticmethod
    def diff(a, b) -> dict:
        dt = b[0] - a[0]
        out = {}
        for g in a[1]:
            used = sum(max(0, b[1][g].get(p, 0) - a[1][g][p]) for p in a[1][g])
            out[g] = round(100.0 * used / CLK_TCK / dt, 1) if dt > 0 else 0.0
        busy = b[2][0] - a[2][0]
        total = b[2][1] - a[2][1]
        ncpu = os.cpu_count() or 1
        out["machine"] = round(100.0 * ncpu * busy / total, 1) if total else 0.0
        out["other"] = round(out["machine"] - sum(v for k, v in out.items() if k != "machine"), 1)
        return out


def prioritise(pid: int, nice: int) -> None:
    """Apply ``nice`` to a process we started in its own session. With the kernel's autogroup
    scheduling (sched_autogroup_enabled=1) CPU is shared between sessions first, so the
    session's autogroup gets the niceness too, not only the process."""
    if not nice:
        return
    try:
        os.setpriority(os.PRIO_PROCESS, pid, nice)
    except OSError:
        pass
    try:
        with open(f"/proc/{pid}/autogroup", "w") as f:
            f.write(str(nice))
    except OSError:
        pass


# ============================================================================================
# Servers
# ============================================================================================
def free_port_block(n: int) -> int:
    for _ in range(200):
        base = random.randint(20000, 60000)
        ok = True
        for port in range(base, base + n):
            with socket.socket() as s:
                try:
                    s.bind(("127.0.0.1", port))
                except OSError:
                    ok = False
                    break
        if ok:
            return base
    raise RuntimeError("no free port block")


# Abuse limits (app/config.py) a load test switches off: every simulated player comes from
# this one address, and the per-address and per-player limits would throttle the load itself.
LIMITS_OFF = ("MAX_OPEN_MATCHES_PER_USER", "MATCH_CREATIONS_PER_MINUTE",
              "GUEST_MATCH_CREATIONS_PER_MINUTE_PER_ADDRESS", "WS_ANONYMOUS_OPENS_PER_MINUTE",
              "WS_SOCKETS_PER_ADDRESS")


class Servers:
    def __init__(self, args):
        self.args = args
        self.mode = args.spawn
        self.procs: list[subprocess.Popen] = []
        self.urls: list[str] = []
        self.tmp = Path(tempfile.mkdtemp(prefix="duelhall-bench-"))
        self.prefix = f"bench{secrets.token_hex(4)}:"
        self.logs: list[Path] = []
        self.spies: list[subprocess.Popen] = []
        self.redis_proc: subprocess.Popen | None = None
        self.worker: subprocess.Popen | None = None

    def env(self, port: int) -> dict:
        env = dict(os.environ)
        for k in ("REDIS_URL", "DATABASE_URL", "REDIS_PREFIX"):
            env.pop(k, None)
        env["DATA_DIR"] = str(self.tmp / "data")
        # One signing key for all processes (a token from one is valid on the others).
        env["SECRET_KEY"] = "bench-" + self.prefix + "0123456789abcdef0123456789abcdef"
        env["INSTANCE_NAME"] = f"bench-{port}"
        # As deployed (docker-compose.yml): the collector tuned for a long-lived process.
        env.setdefault("GC_FREEZE", "true")
        for limit in LIMITS_OFF:
            env.setdefault(limit, "0")
        if self.mode == "real":
            env["REDIS_URL"] = self.args.redis_url
            env["REDIS_PREFIX"] = self.prefix
            env["DATABASE_URL"] = self.args.database_url
            if self.args.outbox_process:
                env["RUN_OUTBOX"] = "false"
                env["RUN_CLOCKS"] = "false"
        return env

    def command(self, port: int) -> list[str]:
        a = self.args
        app = ["--app-dir", str(BENCH), "echo:app"] if self.mode == "baseline" else ["app.main:app"]
        prof = [] if not a.cprofile else ["-m", "cProfile", "-o", f"{a.cprofile}-{port}.prof"]
        cmd = [sys.executable, *prof, "-m", "uvicorn", *app, "--host", "127.0.0.1", "--port", str(port),
               "--log-level", "warning", "--ws", a.ws, "--loop", a.loop]
        cmd += ["--ws-per-message-deflate", "true" if a.deflate else "false"]
        return cmd

    def start_own_redis(self) -> None:
        exe = shutil.which("redis-server")
        if not exe:
            raise RuntimeError("--own-redis: no redis-server on PATH")
        port = free_port_block(1)
        nice = self.args.nice
        self.redis_proc = subprocess.Popen(
            [exe, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
             "--dir", str(self.tmp)], stdout=open(self.tmp / "redis.log", "wb"),
            stderr=subprocess.STDOUT, start_new_session=True,
            preexec_fn=(lambda: os.nice(nice)) if nice else None)
        self.args.redis_url = f"redis://127.0.0.1:{port}/0"
        import redis

        deadline = time.monotonic() + 10
        while True:
            try:
                redis.Redis(port=port).ping()
                return
            except redis.ConnectionError:
                if time.monotonic() > deadline:
                    raise RuntimeError("own redis-server did not start") from None
                time.sleep(0.05)

    def start(self) -> None:
        if self.mode == "real" and self.args.own_redis:
            self.start_own_redis()
        base = self.args.port or free_port_block(self.args.processes)
        for i in range(self.args.processes):
            port = base + i
            log = self.tmp / f"server-{port}.log"
            self.logs.append(log)
            cwd = BENCH if self.mode == "baseline" else Path(self.args.app_root)
            nice = self.args.nice
            proc = subprocess.Popen(self.command(port), cwd=cwd, env=self.env(port),
                                    stdout=open(log, "wb"), stderr=subprocess.STDOUT,
                                    start_new_session=True,
                                    preexec_fn=(lambda: os.nice(nice)) if nice else None)  # noqa: B023 (runs now)
            prioritise(proc.pid, nice)
            self.procs.append(proc)
            url = f"http://127.0.0.1:{port}"
            # One at a time: each process runs the migrations at start-up.
            self.wait_ready(proc, url, log)
            self.urls.append(url)
        if self.mode == "real" and self.args.outbox_process:
            env = self.env(0)
            env.pop("RUN_OUTBOX")
            env.pop("RUN_CLOCKS")
            env["INSTANCE_NAME"] = "bench-worker"
            log = self.tmp / "worker.log"
            self.logs.append(log)
            nice = self.args.worker_nice or self.args.nice
            self.worker = subprocess.Popen(
                [sys.executable, "-m", "app.cli", "worker"], cwd=Path(self.args.app_root), env=env,
                stdout=open(log, "wb"), stderr=subprocess.STDOUT, start_new_session=True,
                preexec_fn=(lambda: os.nice(nice)) if nice else None)
            prioritise(self.worker.pid, nice)

    @staticmethod
    def wait_ready(proc, url: str, log: Path, timeout: float = 60.0) -> None:
        import httpx

        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise RuntimeError(f"server {url} exited ({proc.returncode}):\n"
                                   + log.read_text(errors="replace")[-3000:])
            try:
                if httpx.get(url + "/healthz", timeout=1.0, trust_env=False).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        raise RuntimeError(f"server {url} not ready after {timeout}s:\n"
                           + log.read_text(errors="replace")[-3000:])

    def start_py_spy(self, seconds: float) -> None:
        exe = shutil.which("py-spy") or str(Path(sys.executable).parent / "py-spy")
        if not Path(exe).exists():
            print("py-spy not found; no profile recorded", file=sys.stderr)
            return
        for proc, url in zip(self.procs, self.urls):
            port = url.rsplit(":", 1)[1]
            out = f"{self.args.py_spy}-{port}.txt"
            self.spies.append(subprocess.Popen(
                [exe, "record", "--pid", str(proc.pid), "--duration", str(max(1, int(seconds))),
                 "--rate", "200", "--format", "raw", "--nonblocking", "-o", out],
                stdout=subprocess.DEVNULL, stderr=open(out + ".log", "wb")))

    def rss_kib(self) -> int:
        """Resident memory of the web server processes, KiB (from /proc)."""
        total = 0
        for proc in self.procs:
            try:
                for line in Path(f"/proc/{proc.pid}/status").read_text().splitlines():
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1])
            except OSError:
                pass
        return total

    def redis_bytes_per_match(self, sample: int = 200) -> dict | None:
        """Mean Redis bytes per live match: its document plus its kept event batches."""
        try:
            import redis

            r = redis.Redis.from_url(self.args.redis_url)
            try:
                ids = r.zrange(self.prefix + "live", 0, sample - 1)
                sizes = []
                for mid in ids:
                    mid = mid.decode()
                    doc = r.memory_usage(f"{self.prefix}m:{mid}") or 0
                    ev = r.memory_usage(f"{self.prefix}m:{mid}:ev") or 0
                    sizes.append(doc + ev)
            finally:
                r.close()
        except Exception:
            return None
        if not sizes:
            return None
        return {"sampled": len(sizes), "mean": round(sum(sizes) / len(sizes)),
                "max": max(sizes)}

    def outbox_lag(self) -> int | None:
        if self.mode != "real":
            return None
        try:
            import redis

            r = redis.Redis.from_url(self.args.redis_url)
            try:
                return int(r.xlen(self.prefix + "outbox"))
            finally:
                r.close()
        except Exception:
            return None

    def stop(self) -> None:
        for spy in self.spies:
            try:
                spy.wait(timeout=60)
            except subprocess.TimeoutExpired:
                spy.kill()
        procs = self.procs + ([self.worker] if self.worker else [])
        for proc in procs:
            if proc.poll() is None:
                proc.send_signal(signal.SIGINT)
        for proc in procs:
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        if self.mode == "real":
            self.cleanup_redis()
        if self.args.logs:
            Path(self.args.logs).mkdir(parents=True, exist_ok=True)
            for log in self.logs:
                shutil.copy(log, Path(self.args.logs) / log.name)
        if self.redis_proc is not None:
            self.redis_proc.terminate()
            try:
                self.redis_proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.redis_proc.kill()
        shutil.rmtree(self.tmp, ignore_errors=True)

    def cleanup_redis(self) -> None:
        """Delete this run's keys (the random prefix) so runs do not pile up in Redis."""
        try:
            import redis

            r = redis.Redis.from_url(self.args.redis_url)
            batch = []
            for key in r.scan_iter(match=self.prefix + "*", count=1000):
                batch.append(key)
                if len(batch) >= 500:
                    r.delete(*batch)
                    batch = []
            if batch:
                r.delete(*batch)
            r.close()
        except Exception as e:  # best effort
            print(f"(could not clean Redis prefix {self.prefix}: {e})", file=sys.stderr)


# ============================================================================================
# Client side (runs in its own process)
# ============================================================================================
class Stats:
    def __init__(self):
        self.latencies: list[float] = []  # seconds, actions sent inside the window
        self.window_actions = 0
        self.sent = 0
        self.completed = 0
        self.errors: collections.Counter = collections.Counter()
        self.matches_started = 0
        self.matches_finished = 0
        self.views = 0
        self.view_bytes = 0
        self.setup_retries = 0
        self.last_completion = 0.0
        self.loop_lag: list[float] = []


class Config:
    def __init__(self, args, urls: list[str], lanes: list[int], client_index: int):
        self.urls = urls
        self.lanes = lanes
        self.client_index = client_index
        self.seed = args.seed
        self.options = args.match_options
        self.rate = args.rate
        self.matches = args.matches
        self.warmup = args.warmup
        self.duration = args.duration
        self.actions_per_match = args.actions_per_match
        self.placement = args.placement
        self.compression = "deflate" if args.deflate else None
        self.ack_frames = args.ack_frames
        self.nice = args.nice


class Lane:
    """One match slot: two players, one websocket each; a new match when one ends."""

    def __init__(self, run: ClientRun, idx: int):
        self.run = run
        self.idx = idx
        self.rnd = random.Random(run.cfg.seed * 1_000_003 + idx)
        urls = run.cfg.urls
        k = len(urls)
        if run.cfg.placement == "same" or k == 1:
            a = b = idx % k
        elif run.cfg.placement == "split":
            a, b = idx % k, (idx + 1) % k
        else:
            a, b = self.rnd.randrange(k), self.rnd.randrange(k)
        self.url = {"A": urls[a], "B": urls[b]}
        self.tokens: dict[str, str] = {}
        self.measured = 0
        self.done_sending = False
        interval = run.cfg.matches / run.cfg.rate if run.cfg.rate > 0 else 0.0
        self.interval = interval
        self.next_slot = 0.0

    async def post(self, seat: str, path: str, **kw):
        """POST with up to 3 tries on transport errors (match set-up, not measured)."""
        import httpx

        for attempt in range(3):
            try:
                return await self.run.http[self.url[seat]].post(path, **kw)
            except httpx.TransportError:
                if attempt == 2:
                    raise
                self.run.stats.setup_retries += 1
                await asyncio.sleep(0.2)

    async def sign_in(self) -> None:
        for seat in ("A", "B"):
            r = await self.post(seat, "/api/auth/guest", json={"name": f"L{self.idx}{seat}"})
            r.raise_for_status()
            self.tokens[seat] = r.json()["token"]

    async def report_stall(self, mid, hdr, seen, acted, last_view, outstanding, received) -> None:
        """A match with no message on either socket for STALL_SECONDS: print what this client
        saw next to what the server holds now, so a lost view can be told from a lost move."""
        mine = {s: {"seen": seen[s], "acted_on": acted[s], "received": dict(received[s]),
                    "last": {k: v.get(k) for k in ("version", "status", "pending", "client_seq")}
                    if (v := last_view.get(s)) else None} for s in ("A", "B")}
        server = {}
        for s in ("A", "B"):
            try:
                r = await self.run.http[self.url[s]].get(f"/api/matches/{mid}/view", headers=hdr[s])
                v = r.json()
                server[s] = {k: v.get(k) for k in ("match", "seat", "version", "status", "pending")}
            except Exception as e:  # a diagnostic: never let it end the run
                server[s] = repr(e)
        print(f"stalled match {mid}: client {mine} outstanding {list(outstanding)}; "
              f"server {server}", file=sys.stderr, flush=True)

    def sending_allowed(self) -> bool:
        run = self.run
        return not (run.stopping or self.done_sending)

    async def run_forever(self) -> None:
        if self.interval:
            self.next_slot = time.monotonic() + self.rnd.random() * self.interval
        while self.sending_allowed():
            try:
                await self.play_match()
            except asyncio.CancelledError:
                raise
            except Exception as e:
                self.run.stats.errors[f"lane:{type(e).__name__}"] += 1
                await asyncio.sleep(0.5)

    async def play_match(self) -> None:
        import websockets
        from websockets.asyncio.client import connect

        run, stats = self.run, self.run.stats
        hdr = {s: {"Authorization": f"Bearer {t}"} for s, t in self.tokens.items()}
        r = await self.post("A", "/api/matches", json={"game": "duell", "options": run.cfg.options},
                            headers=hdr["A"])
        if r.status_code != 200:
            stats.errors[f"http_create_{r.status_code}"] += 1
            await asyncio.sleep(0.5)
            return
        mid = r.json()["id"]
        r = await self.post("B", f"/api/matches/{mid}/join", headers=hdr["B"])
        if r.status_code != 200:
            stats.errors[f"http_join_{r.status_code}"] += 1
            await asyncio.sleep(0.5)
            return
        stats.matches_started += 1

        ack_param = "" if run.cfg.ack_frames else "?ack=view"

        def ws_url(seat):
            return self.url[seat].replace("http://", "ws://", 1) + f"/ws/matches/{mid}" + ack_param

        # The token in the subprotocols, as the browser client sends it (docs/protocol.md).
        socks = await asyncio.gather(
            *(connect(ws_url(s), subprotocols=["duelhall.v1", f"bearer.{self.tokens[s]}"],
                      compression=run.cfg.compression, proxy=None, open_timeout=30,
                      max_size=2 ** 22, ping_interval=None) for s in ("A", "B")))
        ws = dict(zip(("A", "B"), socks))
        seen = {"A": 0, "B": 0}
        acted = {"A": 0, "B": 0}      # version a seat last acted on
        cseq = {"A": 0, "B": 0}
        last_view: dict[str, dict] = {}
        outstanding: collections.deque = collections.deque()  # (target, t0, seat, cseq)
        finished = {"A": False, "B": False}
        progress = [time.monotonic()]
        received = {"A": collections.Counter(), "B": collections.Counter()}  # message types
        done = asyncio.Event()  # also tells this match's paced sends that it is over

        async def send_action(seat: str, view: dict) -> None:
            legal = view["legal"]
            choices = [x for x in legal if x.get("type") != "resign"] or legal
            action = self.rnd.choice(choices)
            cseq[seat] += 1
            k = cseq[seat]
            t0 = time.monotonic()
            outstanding.append((view["version"] + 1, t0, seat, k))
            stats.sent += 1
            if run.window_start <= t0 < run.window_end:
                self.measured += 1
                if run.cfg.actions_per_match and self.measured >= run.cfg.actions_per_match:
                    self.done_sending = True
            try:
                await ws[seat].send(orjson.dumps({"type": "action", "action": action, "client_seq": k}).decode())
            except websockets.ConnectionClosed:
                stats.errors["send_closed"] += 1
                done.set()

        def paced(seat: str, view: dict):
            async def send_if_still_current() -> None:
                if not done.is_set() and self.sending_allowed() and last_view.get(seat) is view:
                    await send_action(seat, view)
            return send_if_still_current

        async def maybe_act(seat: str, view: dict, delay: float = 0.0) -> None:
            if (view["status"] != "live" or seat not in view["pending"] or not view["legal"]
                    or acted[seat] >= view["version"] or not self.sending_allowed()):
                return
            acted[seat] = view["version"]
            now = time.monotonic()
            if self.interval:
                slot = max(self.next_slot, now)
                self.next_slot = slot + self.interval
                delay = max(delay, slot - now)
            if delay > 0:
                run.pacer.after(delay, paced(seat, view))
            else:
                await send_action(seat, view)

        def complete() -> None:
            both = min(seen.values())
            now = time.monotonic()
            while outstanding and outstanding[0][0] <= both:
                target, t0, _, _ = outstanding.popleft()
                stats.completed += 1
                stats.last_completion = now
                if run.window_start <= t0 < run.window_end:
                    stats.latencies.append(now - t0)

        async def reader(seat: str) -> None:
            sock = ws[seat]
            try:
                async for raw in sock:
                    progress[0] = time.monotonic()
                    msg = orjson.loads(raw)
                    kind = msg.get("type")
                    received[seat][kind] += 1
                    if kind == "view":
                        stats.views += 1
                        stats.view_bytes += len(raw)
                        v = msg["version"]
                        if v > seen[seat]:
                            seen[seat] = v
                            complete()
                        last_view[seat] = msg
                        if msg["status"] != "live":
                            finished[seat] = True
                            if all(finished.values()):
                                done.set()
                        else:
                            await maybe_act(seat, msg)
                    elif kind == "ack":
                        exp = next((o[0] for o in outstanding if o[2] == seat and o[3] == msg["client_seq"]), None)
                        if msg.get("duplicate"):
                            stats.errors["duplicate_ack"] += 1
                        elif exp is not None and msg["version"] != exp:
                            stats.errors["ack_version_mismatch"] += 1
                    elif kind == "error":
                        stats.errors[f"ws_{msg.get('code')}"] += 1
                        k = msg.get("client_seq")
                        for o in list(outstanding):
                            if o[2] == seat and o[3] == k:
                                outstanding.remove(o)
                        # Try again on the newest view this seat has (after a short pause).
                        acted[seat] = 0
                        if seat in last_view:
                            await maybe_act(seat, last_view[seat], RETRY_DELAY)
            except websockets.ConnectionClosed:
                if not done.is_set() and not run.stopping and not self.done_sending:
                    stats.errors["socket_closed"] += 1
                    done.set()

        readers = [asyncio.create_task(reader(s)) for s in ("A", "B")]
        try:
            while not done.is_set():
                try:
                    await asyncio.wait_for(done.wait(), 1.0)
                except TimeoutError:
                    pass
                if run.stopping or self.done_sending:
                    # Let what is in flight arrive, then leave.
                    t_end = time.monotonic() + 5.0
                    while outstanding and time.monotonic() < t_end:
                        await asyncio.sleep(0.02)
                    break
                if all(r.done() for r in readers):
                    break
                if time.monotonic() - progress[0] > STALL_SECONDS:
                    stats.errors["stalled_match"] += 1
                    await self.report_stall(mid, hdr, seen, acted, last_view, outstanding, received)
                    break
            if all(finished.values()):
                stats.matches_finished += 1
            for _target, t0, _, _ in outstanding:
                if run.window_start <= t0 < run.window_end:
                    stats.errors["lost_action"] += 1
        finally:
            done.set()
            for s in ws.values():
                try:
                    await asyncio.wait_for(s.close(), 2.0)
                except Exception:
                    pass
            for t in readers:
                t.cancel()
            await asyncio.gather(*readers, return_exceptions=True)


class Pacer:
    """Sends the paced actions of every lane of a client process from one task: an entry is
    (due time, callback), the task sleeps until the earliest and runs every callback that is
    due. A task and a timer per action cost the load generator about a quarter more CPU per
    action, which on a shared 2-core machine is taken from the server being measured."""

    def __init__(self, stats):
        self.stats = stats
        self.heap: list = []
        self.order = 0
        self.wake = asyncio.Event()
        self.task: asyncio.Task | None = None

    def after(self, delay: float, callback) -> None:
        """Run ``await callback()`` in ``delay`` seconds."""
        loop = asyncio.get_running_loop()
        self.order += 1
        heapq.heappush(self.heap, (loop.time() + delay, self.order, callback))
        if self.heap[0][1] == self.order:
            self.wake.set()  # a new earliest entry: look again
        if self.task is None:
            self.task = asyncio.create_task(self._run())

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            self.wake.clear()
            if not self.heap:
                await self.wake.wait()
                continue
            when = self.heap[0][0]
            if when > loop.time():
                timer = loop.call_at(when, self.wake.set)
                await self.wake.wait()
                timer.cancel()
                continue
            while self.heap and self.heap[0][0] <= loop.time():
                _, _, callback = heapq.heappop(self.heap)
                try:
                    await callback()
                except Exception as e:  # a lane's error is the lane's, not the pacer's
                    self.stats.errors[f"paced:{type(e).__name__}"] += 1

    def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()


class ClientRun:
    def __init__(self, cfg: Config):
        self.cfg = cfg
        self.stats = Stats()
        self.pacer = Pacer(self.stats)
        self.http: dict = {}
        self.stopping = False
        self.window_start = float("inf")
        self.window_end = float("inf")

    async def lag_probe(self) -> None:
        """Event-loop lag of this client process (is the load generator keeping up?)."""
        while not self.stopping:
            t = time.monotonic()
            await asyncio.sleep(0.01)
            lag = time.monotonic() - t - 0.01
            if self.window_start <= t < self.window_end:
                self.stats.loop_lag.append(lag)

    async def main(self, conn) -> dict:
        import httpx

        # Keep-alive shorter than uvicorn's 5 s, so we never reuse a connection it is closing.
        limits = httpx.Limits(max_connections=100, max_keepalive_connections=100, keepalive_expiry=2.0)
        for url in self.cfg.urls:
            self.http[url] = httpx.AsyncClient(base_url=url, timeout=60.0, limits=limits,
                                               trust_env=False)
        lanes = [Lane(self, i) for i in self.cfg.lanes]
        sem = asyncio.Semaphore(50)

        async def sign_in(lane):
            async with sem:
                await lane.sign_in()

        await asyncio.gather(*(sign_in(lane) for lane in lanes))
        loop = asyncio.get_running_loop()
        conn.send(("ready", None))
        msg, t_go = await loop.run_in_executor(None, conn.recv)
        self.window_start = t_go + self.cfg.warmup
        if self.cfg.duration is not None:
            self.window_end = self.window_start + self.cfg.duration
        await asyncio.sleep(max(0.0, t_go - time.monotonic()))
        probe = asyncio.create_task(self.lag_probe())
        tasks = [asyncio.create_task(lane.run_forever()) for lane in lanes]
        if self.cfg.duration is not None:
            await asyncio.sleep(max(0.0, self.window_end - time.monotonic()))
            self.stopping = True
        await asyncio.gather(*tasks, return_exceptions=True)
        self.stopping = True
        probe.cancel()
        self.pacer.stop()
        for c in self.http.values():
            await c.aclose()
        s = self.stats
        ru = os.times()
        return {
            "latencies": s.latencies, "sent": s.sent, "completed": s.completed,
            "errors": dict(s.errors), "matches_started": s.matches_started,
            "matches_finished": s.matches_finished, "views": s.views, "view_bytes": s.view_bytes,
            "last_completion": s.last_completion, "setup_retries": s.setup_retries, "loop_lag": s.loop_lag,
            "cpu_seconds": ru.user + ru.system,
        }


def client_process(conn, cfg: Config) -> None:
    import gc

    # The load generator allocates a dict per message; collect its young objects less often
    # (as the servers do with GC_FREEZE/GC_THRESHOLD), so less of the shared CPU goes to it.
    gc.freeze()
    gc.set_threshold(50_000, 20, 20)
    if cfg.nice:
        os.setsid()  # a session (autogroup) of its own, so its niceness counts
        prioritise(os.getpid(), cfg.nice)
    try:
        import uvloop

        runner = uvloop.run
    except ImportError:
        runner = asyncio.run
    try:
        result = runner(ClientRun(cfg).main(conn))
        conn.send(("result", result))
    except BaseException as e:  # report, don't hang the parent
        import traceback

        conn.send(("failed", "".join(traceback.format_exception(e))))
    finally:
        conn.close()


# ============================================================================================
# Report
# ============================================================================================
def pct(sorted_vals: list[float], q: float) -> float:
    if not sorted_vals:
        return float("nan")
    i = min(len(sorted_vals) - 1, max(0, round(q / 100.0 * len(sorted_vals) + 0.5) - 1))
    return sorted_vals[i]


def tree_state(root: str) -> str:
    """The commit the app tree is at, and which of app/ and games/ differ from it."""
    try:
        head = subprocess.run(["git", "-C", root, "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "-C", root, "status", "--porcelain", "--", "app", "games"],
                               capture_output=True, text=True, timeout=10).stdout.split("\n")
        dirty = [d[3:] for d in dirty if d.strip()]
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    if not head:
        return f"{root} (not a git tree)"
    return head + (f" + uncommitted changes in {', '.join(dirty)}" if dirty else "")


def describe(args, servers: Servers | None) -> str:
    if args.label:
        return args.label
    if args.spawn == "baseline":
        name = "echo baseline"
    elif args.spawn:
        name = args.spawn
    else:
        name = "external"
    if getattr(args, "own_redis", False) and args.spawn == "real":
        name += " (own redis)"
    if args.processes > 1 or (args.server and "," in args.server):
        name += f" x{args.processes if args.spawn else len(args.server.split(','))}"
    if args.rate:
        name += f" @{args.rate:g}/s"
    return name


def report(args, results: list[dict], window: float, cpu: dict | None, lag: tuple, label: str) -> dict:
    lat = sorted(x for r in results for x in r["latencies"])
    errors: collections.Counter = collections.Counter()
    for r in results:
        errors.update(r["errors"])
    n = len(lat)
    ms = [pct(lat, q) * 1000 for q in (50, 90, 99)] + [(lat[-1] * 1000) if lat else float("nan")]
    rate = n / window if window > 0 else 0.0
    views = sum(r["views"] for r in results)
    vbytes = sum(r["view_bytes"] for r in results)
    laglist = sorted(x for r in results for x in r["loop_lag"])
    out = {
        "label": label, "matches": args.matches, "sockets": 2 * args.matches, "actions": n,
        "actions_per_s": round(rate, 1), "p50_ms": round(ms[0], 2), "p90_ms": round(ms[1], 2),
        "p99_ms": round(ms[2], 2), "max_ms": round(ms[3], 2), "errors": sum(errors.values()),
        "error_kinds": dict(errors), "window_s": round(window, 2), "offered_rate": args.rate,
        "matches_started": sum(r["matches_started"] for r in results),
        "matches_finished": sum(r["matches_finished"] for r in results),
        "mean_view_bytes": round(vbytes / views) if views else 0,
        "setup_retries": sum(r["setup_retries"] for r in results),
        "client_loop_lag_p99_ms": round(pct(laglist, 99) * 1000, 2) if laglist else None,
        "cpu_percent": cpu, "outbox_lag": {"start": lag[0], "end": lag[1]},
        "processes": args.processes, "clients": args.clients, "ws": args.ws, "loop": args.loop,
        "deflate": args.deflate, "nice": args.nice, "app_tree": args.tree, "command": "python " + " ".join(sys.argv),
    }
    head = ("run", "matches", "sockets", "actions", "actions/s", "p50 ms", "p90 ms", "p99 ms",
            "max ms", "errors")
    row = (label, str(args.matches), str(2 * args.matches), f"{n}", f"{rate:,.1f}",
           f"{ms[0]:.1f}", f"{ms[1]:.1f}", f"{ms[2]:.1f}", f"{ms[3]:.1f}", str(out["errors"]))
    widths = [max(len(h), len(v)) for h, v in zip(head, row)]
    line = "  ".join(h.rjust(w) if i else h.ljust(w) for i, (h, w) in enumerate(zip(head, widths)))
    print()
    print(line)
    print("-" * len(line))
    print("  ".join(v.rjust(w) if i else v.ljust(w) for i, (v, w) in enumerate(zip(row, widths))))
    print()
    print(f"window {window:.1f}s after {args.warmup:g}s warm-up; "
          f"{'offered ' + format(args.rate, 'g') + ' actions/s' if args.rate else 'closed loop'}; "
          f"matches started {out['matches_started']}, finished {out['matches_finished']}; "
          f"mean view {out['mean_view_bytes']} B; deflate {'on' if out['deflate'] else 'off'}")
    if out["setup_retries"]:
        print(f"HTTP set-up calls retried after transport errors: {out['setup_retries']}")
    if errors:
        print("errors: " + ", ".join(f"{k}={v}" for k, v in sorted(errors.items())))
    if cpu and cpu.get("server") and rate:
        out["server_cpu_ms_per_action"] = round(10.0 * cpu["server"] / rate, 3)
        print(f"server CPU per action: {out['server_cpu_ms_per_action']} ms "
              f"(= server CPU % / actions/s; less sensitive to other load than actions/s)")
    if cpu:
        print("CPU % of one core during the window: "
              + ", ".join(f"{k} {v}" for k, v in cpu.items())
              + f"  (machine has {os.cpu_count()} cores = {100 * (os.cpu_count() or 1)}%)")
    print(f"client event-loop lag p99: {out['client_loop_lag_p99_ms']} ms")
    if lag[0] is not None:
        print(f"history outbox backlog: {lag[0]} at window start -> {lag[1]} at window end")
    return out


# ============================================================================================
# Orchestration
# ============================================================================================
def main(argv=None, baseline_default=False) -> int:
    args = parse_args(argv, baseline_default)
    servers = None
    clients: list[mp.Process] = []
    try:
        if args.spawn:
            servers = Servers(args)
            servers.start()
            urls = servers.urls
        else:
            urls = [u.strip().rstrip("/") for u in args.server.split(",") if u.strip()]
            args.processes = len(urls)
        label = describe(args, servers)
        args.tree = "echo" if args.spawn == "baseline" else (
            tree_state(args.app_root) if args.spawn else "external server")
        print(f"[{label}] servers: {', '.join(urls)}; {args.matches} matches over "
              f"{args.clients} client process(es); app: {args.tree}", flush=True)

        rss0 = servers.rss_kib() if servers else None
        ctx = mp.get_context("spawn")
        pipes = []
        for c in range(args.clients):
            lanes = list(range(c, args.matches, args.clients))
            parent, child = ctx.Pipe()
            proc = ctx.Process(target=client_process,
                               args=(child, Config(args, urls, lanes, c)), daemon=True)
            proc.start()
            clients.append(proc)
            pipes.append(parent)
        for p in pipes:
            kind, payload = p.recv()
            if kind != "ready":
                raise RuntimeError(f"client failed during set-up:\n{payload}")
        # Every socket is open and idle here (the lanes have not started to play).
        rss_ready = servers.rss_kib() if servers else None
        t_go = time.monotonic() + 0.5
        for p in pipes:
            p.send(("go", t_go))

        groups = {"server": [p.pid for p in servers.procs] if servers else [],
                  "clients": [p.pid for p in clients],
                  "redis": ([servers.redis_proc.pid] if servers and servers.redis_proc
                            else pids_named("redis-server")),
                  "postgres": pids_named("postgres"),
                  "worker": [servers.worker.pid] if servers and servers.worker else []}
        sampler = CpuSampler(groups)
        w0 = t_go + args.warmup
        time.sleep(max(0.0, w0 - time.monotonic()))
        s0 = sampler.snap()
        lag0 = servers.outbox_lag() if servers else None
        if args.py_spy and servers:
            servers.start_py_spy(args.duration or 20.0)
        s1 = None
        if args.duration:
            time.sleep(max(0.0, w0 + args.duration - time.monotonic()))
            s1 = sampler.snap()
        results = []
        for p in pipes:
            kind, payload = p.recv()
            if kind != "result":
                raise RuntimeError(f"client failed:\n{payload}")
            results.append(payload)
        if s1 is None:
            s1 = sampler.snap()
        lag1 = servers.outbox_lag() if servers else None
        if args.duration:
            window = args.duration
        else:
            window = max(r["last_completion"] for r in results) - w0
        cpu = CpuSampler.diff(s0, s1)
        if not groups["server"]:
            cpu.pop("server", None)
        out = report(args, results, window, cpu, (lag0, lag1), label)
        if servers and rss0 is not None and rss_ready is not None:
            sockets = 2 * args.matches
            per_socket = (rss_ready - rss0) / sockets
            out["memory"] = {"server_rss_kib_before": rss0, "server_rss_kib_idle_sockets": rss_ready,
                             "kib_per_idle_socket": round(per_socket, 1)}
            print(f"server memory: {rss0 / 1024:.1f} MiB before the clients, "
                  f"{rss_ready / 1024:.1f} MiB with {sockets} idle sockets -> "
                  f"{per_socket:.1f} KiB per idle socket (incl. its match's share)")
        if servers and servers.mode == "real":
            per_match = servers.redis_bytes_per_match()
            if per_match:
                out.setdefault("memory", {})["redis_bytes_per_live_match"] = per_match
                print(f"redis memory per live match (document + kept events, MEMORY USAGE, "
                      f"mean of {per_match['sampled']}): {per_match['mean'] / 1024:.1f} KiB")
        if args.json:
            Path(args.json).write_text(json.dumps(out, indent=2) + "\n")
        return 0
    finally:
        for proc in clients:
            proc.join(timeout=10)
            if proc.is_alive():
                proc.terminate()
        if servers:
            servers.stop()


if __name__ == "__main__":
    sys.exit(main())
