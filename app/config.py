"""Settings from the environment (prefix-free names, as operators expect)."""
from __future__ import annotations

import ipaddress
import json
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

ROOT = Path(__file__).resolve().parent.parent


# Parts of placeholder secrets copied from examples (refused in production).
WEAK_SECRET_WORDS = ("changeme", "change-me", "change_me", "secret", "example", "password", "xxxx")


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_file=".env", extra="ignore")

    # Unset: an in-process fakeredis (embedded mode, one process only).
    redis_url: str | None = None
    # Unset: a SQLite file under data_dir.
    database_url: str | None = None
    # "pgbouncer": DATABASE_URL is a PgBouncer in transaction pooling mode, where one client
    # connection's statements may run on different server connections: no cached prepared
    # statements, and unique names for the ones asyncpg must prepare (app/db/session.py).
    database_pooler: Literal["none", "pgbouncer"] = "none"
    data_dir: Path = ROOT / "data"
    # Signing key for tokens. The embedded default is generated once into data_dir.
    secret_key: str | None = None
    # "production" refuses to start unless SECRET_KEY comes from the environment and is strong
    # (see secret_problem); docker-compose.yml sets it. "development" may generate the key.
    app_env: Literal["development", "production"] = "development"
    token_ttl_seconds: int = 7 * 24 * 3600
    # Key prefix in Redis, so tests and several deployments can share one server.
    redis_prefix: str = "dh:"
    redis_max_connections: int = 512
    max_message_bytes: int = 64 * 1024
    # Websocket rate limit: a token bucket per socket.
    ws_rate_per_second: float = 20.0
    ws_burst: int = 40
    # How long a finished match stays in Redis for late viewers (history is in SQL).
    finished_ttl_seconds: int = 24 * 3600
    # Abuse limits (docs/security.md, "Limits"); 0 switches one off.
    # Open tables (created, not started) one player may host at once, as on game sites where
    # you wait at a few tables, not hundreds.
    max_open_matches_per_user: int = 5
    # Matches created (lobby, play the computer) per minute by one player, and by all guests
    # from one client address (a guest costs nothing to make, so guests are counted by where
    # they come from too; several people behind one address share it).
    match_creations_per_minute: int = 10
    guest_match_creations_per_minute_per_address: int = 30
    # An open table that has not started this long after it was made is aborted: it leaves
    # the lobby and its keys expire. A day: an invitation sent to a friend lasts until tomorrow.
    open_match_ttl_seconds: int = 24 * 3600
    # Websocket opens per minute per client address for sockets without a token (spectators,
    # tournament pages); a socket with a token is counted per user and match (app/ws_limits.py).
    ws_anonymous_opens_per_minute: int = 120
    # Websockets open at once per client address, any endpoint, with or without a token.
    ws_sockets_per_address: int = 200
    # Background workers (tests switch them off to drive them by hand).
    run_workers: bool = True
    # The history writer (outbox to SQL) in this process. A busy deployment runs it in its own
    # process (`duelhall worker`) and sets this false on the web processes, so SQL work never
    # competes with the sockets for the event loop. Needs a real Redis (shared outbox).
    run_outbox: bool = True
    # The decision clocks (app/live/clocks.py) in this process. Any number of processes may run
    # them (firing is a compare-and-set); docker-compose.yml leaves them to the workers.
    run_clocks: bool = True
    # SIGTERM (app/drain.py): /readyz answers 503 at once, everything else is served this many
    # seconds more (the balancer's time to stop sending), then the match sockets close with
    # 1012 "service restart" (each after the message it is handling) and the process stops.
    # Keep the orchestrator's kill timeout above it (docs/operations.md, "Deploys that drain").
    drain_seconds: float = Field(default=5.0, ge=0)
    # permessage-deflate on websockets. Off by default: views are ~1-2 kB, and compressing
    # every frame cost more server CPU than anything else per action (docs/performance.md).
    ws_deflate: bool = False
    # Garbage collector tuning for a long-lived server process (app/main.py): freeze what
    # start-up loaded and collect the young generation less often. It cut p99 latency under
    # load ~6x (docs/performance.md); docker-compose.yml turns it on. Off by default: an app
    # started and stopped many times in one process (the tests) must not freeze each other's
    # leftovers, and a SQLite connection left to the collector would hold its lock longer.
    gc_freeze: bool = False
    gc_threshold: int = 20_000
    # Replicas behind a load balancer leave migrations to a one-shot job (docker-compose.yml).
    migrate_on_start: bool = True
    clock_poll_seconds: float = 0.2
    # Tournament sweep (app/tournaments/sweep.py): reconciles pairings with their matches,
    # no-shows, round timers, delayed pairing. 0 switches it off (tests drive it by hand).
    tournament_sweep_seconds: float = 1.0
    # Computer players (app/live/bots.py, docs/bots.md). A pause before each bot move so play
    # feels human (0 in tests); never more than a tenth of the time left on the bot's clock.
    bot_think_ms: int = 400
    # Longest a bot may compute one move when there is no clock (with one: half the time left).
    bot_move_seconds: float = 10.0
    # How often every process looks for bot turns nobody is playing (a process died mid-turn).
    bot_sweep_seconds: float = 3.0
    # Where levels other than "random" search: "process" (a spawned worker pool, never blocks
    # the event loop) or "thread" (tests, where a fake level must be seen).
    bot_executor: Literal["process", "thread"] = "process"
    bot_workers: int = 1
    # Balance lab runs started from the web page (app/lab/service.py, docs/lab.md): worker
    # processes per run (runs queue one at a time per process) and the most games a run may ask.
    lab_workers: int = 1
    lab_max_games: int = 5000
    # Game packages besides games/registry.py's own, registered at start-up (JSON): {"id":
    # "package"} or {"id": {"module": "package", ...GameInfo overrides}}, the package importable
    # (PYTHONPATH). For trying a game before its registry line, and for tests.
    extra_games: dict[str, str | dict[str, Any]] = Field(default_factory=dict)
    outbox_batch: int = 200
    allowed_origins: list[str] = Field(default_factory=list)
    # Addresses or networks (CIDR) of the reverse proxies in front of the app, e.g.
    # TRUSTED_PROXIES=172.28.0.10 (a comma-separated or JSON list). Only a request arriving
    # from one of them has its X-Forwarded-For read, and the client is the rightmost address in
    # it that is not a trusted proxy (a client can prepend anything; it cannot append after
    # the proxy). Empty (the default): the connection's own address, headers ignored.
    trusted_proxies: Annotated[list[str], NoDecode] = Field(default_factory=list)
    # Sign-in (app/signin.py, docs/accounts.md). Device tokens let a browser that signed in
    # before past a lockout an attacker caused by name; they last this long, renewed at each
    # sign-in.
    device_token_ttl_seconds: int = 180 * 24 * 3600
    # Password hashing (argon2, app/password_gate.py), per process: at most this many hashes
    # at once for callers without a device token (new devices, registrations), and this many
    # waiting; beyond that `rate_limited` at once, so a flood of wrong passwords cannot queue
    # unbounded CPU work. Callers with a device token or a session have a lane of their own.
    password_hash_concurrency: int = Field(1, ge=1)
    password_hash_queue: int = Field(4, ge=0)
    password_hash_trusted_concurrency: int = Field(1, ge=1)
    password_hash_trusted_queue: int = Field(16, ge=0)
    instance_name: str = "app"
    log_level: str = "INFO"
    # One JSON object per line (for log collectors); false for plain text while developing.
    log_json: bool = True

    @field_validator("trusted_proxies", mode="before")
    @classmethod
    def _proxy_list(cls, value):
        if isinstance(value, str):
            text = value.strip()
            value = json.loads(text) if text.startswith("[") else text.split(",")
        out = []
        for item in value or []:
            item = str(item).strip()
            if not item:
                continue
            if item == "*":
                # uvicorn's FORWARDED_ALLOW_IPS="*" takes the leftmost X-Forwarded-For address,
                # which the client writes: per-address limits are then the client's to choose.
                raise ValueError("TRUSTED_PROXIES must list the proxies' addresses or networks, not '*'")
            try:
                ipaddress.ip_network(item, strict=False)
            except ValueError:
                raise ValueError(f"TRUSTED_PROXIES: {item!r} is not an IP address or network") from None
            out.append(item)
        return out

    def sqlalchemy_url(self) -> str:
        if self.database_url:
            url = self.database_url
            # Accept the usual postgres:// spellings and pick the async driver.
            for prefix in ("postgres://", "postgresql://"):
                if url.startswith(prefix):
                    return "postgresql+asyncpg://" + url[len(prefix):]
            if url.startswith("sqlite:///"):
                return "sqlite+aiosqlite:///" + url[len("sqlite:///"):]
            return url
        self.data_dir.mkdir(parents=True, exist_ok=True)
        return f"sqlite+aiosqlite:///{self.data_dir / 'duelhall.sqlite3'}"

    def secret_problem(self) -> str | None:
        """Why these settings must not serve, or None. In production the key must come from the
        environment (a key generated into DATA_DIR would differ per replica and host) and be
        long and not a placeholder, since anyone who knows it can sign tokens for any user."""
        if self.app_env != "production":
            return None
        key = self.secret_key or ""
        if not key:
            return "APP_ENV=production needs SECRET_KEY set in the environment"
        if len(key) < 32 or len(set(key)) < 10 or any(w in key.lower() for w in WEAK_SECRET_WORDS):
            return ("SECRET_KEY is too weak for production: use 32+ random characters, e.g. "
                    "python3 -c 'import secrets; print(secrets.token_hex(32))'")
        return None

    def signing_key(self) -> str:
        if self.secret_key:
            return self.secret_key
        # Embedded default: a random key kept in the data folder, so tokens survive restarts.
        self.data_dir.mkdir(parents=True, exist_ok=True)
        path = self.data_dir / "secret.key"
        if not path.exists():
            import secrets

            path.write_text(secrets.token_hex(32))
            path.chmod(0o600)
        return path.read_text().strip()


@lru_cache
def get_settings() -> Settings:
    return Settings()
