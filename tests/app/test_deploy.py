"""The deployment files are wired as docs/operations.md says (no Docker engine here: parse)."""
from __future__ import annotations

import asyncio
import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]


def compose() -> dict:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())


def test_compose_services_and_dependencies():
    services = compose()["services"]
    assert set(services) == {"postgres", "pgbouncer", "redis", "migrate", "app", "worker", "lb"}
    app = services["app"]
    assert app["deploy"]["replicas"] >= 2
    assert app["depends_on"]["migrate"]["condition"] == "service_completed_successfully"
    assert app["depends_on"]["redis"]["condition"] == "service_healthy"
    assert app["depends_on"]["pgbouncer"]["condition"] == "service_healthy"
    assert services["pgbouncer"]["depends_on"]["postgres"]["condition"] == "service_healthy"
    assert services["migrate"]["depends_on"]["postgres"]["condition"] == "service_healthy"
    assert services["migrate"]["command"] == ["duelhall", "migrate"]
    assert services["lb"]["depends_on"]["app"]["condition"] == "service_healthy"
    assert "/readyz" in " ".join(app["healthcheck"]["test"])


def test_compose_app_env_points_at_the_services():
    services = compose()["services"]
    env = services["app"]["environment"]
    assert env["REDIS_URL"].startswith("redis://:") and env["REDIS_URL"].endswith("@redis:6379/0")
    # The replicas reach Postgres through PgBouncer; the migration goes straight to Postgres.
    assert "@pgbouncer:5432/" in env["DATABASE_URL"]
    assert env["MIGRATE_ON_START"] == "false"
    assert "SECRET_KEY" in env and ":?" in env["SECRET_KEY"], "secret only from the environment"
    migrate_url = services["migrate"]["environment"]["DATABASE_URL"]
    assert migrate_url == env["DATABASE_URL"].replace("@pgbouncer:5432/", "@postgres:5432/")


def test_history_writer_runs_in_the_worker_not_the_replicas():
    from app.config import Settings

    services = compose()["services"]
    worker, app = services["worker"], services["app"]
    assert worker["command"] == ["duelhall", "worker"]
    # Under contention the replicas (moves) come before the history writer.
    assert worker["cpu_shares"] < app.get("cpu_shares", 1024)
    assert app["environment"]["RUN_OUTBOX"] == "false"
    assert "RUN_OUTBOX" not in worker["environment"]
    assert worker["environment"]["REDIS_URL"] == app["environment"]["REDIS_URL"]
    assert worker["environment"]["DATABASE_URL"] == app["environment"]["DATABASE_URL"]
    assert worker["depends_on"]["migrate"]["condition"] == "service_completed_successfully"
    # The variable really is the app's setting.
    assert Settings(run_outbox="false").run_outbox is False


def test_redis_keeps_an_append_only_file():
    cmd = compose()["services"]["redis"]["command"]
    assert cmd[cmd.index("--appendonly") + 1] == "yes"


def test_load_balancer_carries_websockets():
    services = compose()["services"]
    mounts = services["lb"]["volumes"]
    conf_path = ROOT / mounts[0].split(":")[0]
    conf = conf_path.read_text()
    assert "proxy_pass http://duelhall" in conf and "server app:8000" in conf
    ws_block = conf[conf.index("location /ws/"):]
    assert "proxy_set_header Upgrade $http_upgrade" in ws_block
    assert "proxy_http_version 1.1" in ws_block


def test_env_names_in_compose_are_settings_the_app_reads():
    from app.config import Settings

    fields = {name.upper() for name in Settings.model_fields}
    uvicorn_reads = {"FORWARDED_ALLOW_IPS"}  # read by uvicorn itself, not by Settings
    for service in ("app", "migrate"):
        for name in compose()["services"][service]["environment"]:
            assert name in fields | uvicorn_reads, f"{service} sets {name}, which the app does not read"


def test_app_sees_client_addresses_behind_the_balancer():
    """Forwarded headers are read from nginx only, at its fixed address on the compose network
    (issue #15: FORWARDED_ALLOW_IPS="*" let any client choose the address it was limited by)."""
    import ipaddress

    from app.config import Settings

    data = compose()
    services = data["services"]
    env = services["app"]["environment"]
    assert "FORWARDED_ALLOW_IPS" not in env  # `duelhall serve` leaves forwarded headers to the app
    lb_address = services["lb"]["networks"]["default"]["ipv4_address"]
    assert Settings(trusted_proxies=env["TRUSTED_PROXIES"]).trusted_proxies == [lb_address]
    subnet = data["networks"]["default"]["ipam"]["config"][0]["subnet"]
    assert ipaddress.ip_address(lb_address) in ipaddress.ip_network(subnet)
    assert "ports" not in services["app"]  # only reachable through nginx
    assert "X-Forwarded-For $proxy_add_x_forwarded_for" in nginx_conf()


# ------------------------------------------------------------------ issue 9: the rest of the wiring
def nginx_conf() -> str:
    mount = compose()["services"]["lb"]["volumes"][0]
    return (ROOT / mount.split(":")[0]).read_text()


def test_every_healthy_condition_has_a_healthcheck_to_wait_for():
    services = compose()["services"]
    for name, svc in services.items():
        for dep, cond in (svc.get("depends_on") or {}).items():
            if cond["condition"] == "service_healthy":
                assert "healthcheck" in services[dep], f"{name} waits for {dep}, which has no healthcheck"
    assert "pg_isready" in " ".join(services["postgres"]["healthcheck"]["test"])
    assert "pg_isready" in services["pgbouncer"]["healthcheck"]["test"]
    # redis-cli exits 0 on NOAUTH: the check must look for the answer itself.
    assert "redis-cli ping | grep -q PONG" in " ".join(services["redis"]["healthcheck"]["test"])


def test_production_mode_and_secret_for_app_and_migration():
    services = compose()["services"]
    for name in ("app", "migrate"):
        env = services[name]["environment"]
        assert env["APP_ENV"] == "production"
        assert env["SECRET_KEY"].startswith("${SECRET_KEY:?")  # no default: from the environment only
    from app.config import Settings

    assert Settings.model_fields["app_env"].annotation.__args__ == ("development", "production")


def test_redis_fsyncs_every_second_and_app_replicas_drain_before_a_kill():
    services = compose()["services"]
    cmd = services["redis"]["command"]
    assert cmd[cmd.index("--appendfsync") + 1] == "everysec"
    assert any(v.endswith(":/data") for v in services["redis"]["volumes"])  # the AOF survives
    grace = services["app"]["stop_grace_period"]
    assert grace.endswith("s") and int(grace[:-1]) >= 15


def test_balancer_finds_new_replicas_and_passes_the_host_with_its_port():
    conf = nginx_conf()
    upstream = conf[conf.index("upstream duelhall"):conf.index("}", conf.index("upstream duelhall"))]
    assert "resolve" in upstream and "zone " in upstream  # re-resolved: --scale adds replicas
    assert "resolver " in conf
    # The app's same-origin websocket check compares Origin with Host: keep the port.
    assert "proxy_set_header Host $host;" not in conf
    assert conf.count("proxy_set_header Host $http_host;") == 2
    ws_block = conf[conf.index("location /ws/"):conf.index("location / {")]
    assert "proxy_set_header Connection $connection_upgrade" in ws_block
    timeout = re.search(r"proxy_read_timeout (\d+)s;", ws_block)
    assert timeout and int(timeout.group(1)) >= 60  # longer than the clients' 20 s pings
    # Both players' sockets of a match reach the same replica (hash of the match id).
    assert "proxy_pass http://duelhall_ws;" in ws_block
    ws_up = conf[conf.index("upstream duelhall_ws"):conf.index("}", conf.index("upstream duelhall_ws"))]
    assert "hash $match_route consistent;" in ws_up and "resolve" in ws_up and "zone " in ws_up
    route = re.search(r"map \$uri \$match_route \{(.*?)\}", conf, re.S).group(1)
    pattern = re.search(r"~(\S+)\s+\$mid;", route).group(1).replace("(?<mid>", "(?P<mid>")
    assert re.match(pattern, "/ws/matches/ab12cd34ef56").group("mid") == "ab12cd34ef56"


def test_balancer_access_log_leaves_out_query_strings_and_credentials():
    """nginx's default log line holds $request, the path with its query: an old client's
    ?token= would be written out (docs/security.md, "Tokens")."""
    conf = nginx_conf()
    name, fmt = re.search(r"log_format (\w+) (.*?);", conf, re.S).groups()
    assert re.search(rf"^\s*access_log \S+ {name};", conf, re.M)
    assert "$uri" in fmt
    secret_bearing = (r"\$(request|request_uri|args|query_string|is_args|arg_\w+|http_authorization"
                      r"|http_sec_websocket_protocol)\b")
    assert re.findall(secret_bearing, fmt) == []


def test_balancer_body_limit_matches_the_app():
    from app.config import Settings

    limit = re.search(r"client_max_body_size (\d+)k;", nginx_conf())
    assert limit and int(limit.group(1)) * 1024 == Settings.model_fields["max_message_bytes"].default


def test_image_runs_unprivileged_and_checks_readiness():
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert re.search(r"^USER (?!root)\w+", dockerfile, re.M)
    assert "/readyz" in dockerfile.split("HEALTHCHECK", 1)[1]


def test_readiness_keeps_a_replica_in_rotation_while_sql_is_down(client, monkeypatch):
    """The healthchecks use /readyz: SQL down is `degraded` (200, play goes on, history waits
    in the outbox); only Redis down takes the replica out (503)."""
    from app.db import history

    async def sql_down(_maker):
        raise ConnectionRefusedError("postgres is stopped")

    monkeypatch.setattr(history, "ping", sql_down)
    r = client.get("/readyz")
    assert r.status_code == 200 and r.json()["status"] == "degraded" and r.json()["sql"] is False
    svc = client.app.state.services

    async def redis_down():
        raise ConnectionRefusedError("redis is stopped")

    monkeypatch.setattr(svc.redis, "ping", redis_down)
    r = client.get("/readyz")
    assert r.status_code == 503 and r.json()["error"]["code"] == "unavailable"
    assert client.get("/healthz").status_code == 200  # liveness: the process itself is fine


# ------------------------------------------------------------------ issue 19: drains, workers, secrets
def compose_text() -> str:
    return (ROOT / "docker-compose.yml").read_text()


# What stopping takes after the drain window, at most: the sockets' close (CLOSE_TIMEOUT), the
# loops' stop (5 s, then 3 s for the cancelled ones), the bots' (3 s), the outbox's last write
# (5 s) and uvicorn's own shutdown with the second look at all of it (a few seconds more).
def stop_budget() -> float:
    from app.services import CLOSE_TIMEOUT

    return CLOSE_TIMEOUT + 5 + 3 + 3 + 5 + 5


def seconds(text: str) -> float:
    m = re.fullmatch(r"(\d+)(s|m)", text)
    assert m, text
    return int(m.group(1)) * (60 if m.group(2) == "m" else 1)


def test_web_replicas_drain_within_their_stop_grace_period():
    from app.config import Settings

    app = compose()["services"]["app"]
    drain = float(app["environment"]["DRAIN_SECONDS"])
    assert Settings(drain_seconds=app["environment"]["DRAIN_SECONDS"]).drain_seconds == drain > 0
    assert seconds(app["stop_grace_period"]) >= drain + stop_budget()
    # `duelhall serve` is uvicorn with the app's lifespan, where the SIGTERM hook lives.
    assert app["command"][:2] == ["duelhall", "serve"]


def test_two_workers_run_the_history_writer_and_the_clocks_the_replicas_neither(tmp_path):
    """Two workers are safe: the outbox is a consumer group (an entry is delivered to one
    consumer; test_live_store.py: claimed from a dead one), each process its own consumer
    name, and clocks fire through the compare-and-set (test_live_store.py: fired once)."""
    from app.config import Settings
    from app.services import Services

    services = compose()["services"]
    assert services["worker"]["deploy"]["replicas"] >= 2
    env = services["app"]["environment"]
    assert env["RUN_OUTBOX"] == "false" and env["RUN_CLOCKS"] == "false"
    assert not {"RUN_OUTBOX", "RUN_CLOCKS", "RUN_WORKERS"} & set(services["worker"]["environment"])
    assert Settings(run_clocks="false").run_clocks is False
    # Replicas of one service share INSTANCE_NAME (and may share a pid): names still differ.
    built = [Services.build(Settings(redis_url="redis://127.0.0.1:1/0", data_dir=tmp_path))
             for _ in range(2)]
    assert built[0].outbox.consumer != built[1].outbox.consumer
    for svc in built:  # nothing was connected; the engines are let go all the same
        asyncio.run(svc.engine.dispose())


def test_every_service_has_resource_limits_and_rotated_logs():
    for name, svc in compose()["services"].items():
        limits = svc["deploy"]["resources"]["limits"]
        assert float(limits["cpus"]) > 0, name
        assert re.fullmatch(r"\d+[mg]", limits["memory"]), name
        assert svc["logging"]["driver"] == "json-file", name
        assert re.fullmatch(r"\d+m", svc["logging"]["options"]["max-size"]), name
        assert int(svc["logging"]["options"]["max-file"]) >= 2, name


def test_no_password_has_a_default_every_one_must_come_from_the_environment():
    text = compose_text()
    refs = re.findall(r"\$\{(\w*(?:PASSWORD|SECRET|KEY)\w*)(:?[-?=+]?)", text)
    assert {name for name, _ in refs} == {"POSTGRES_PASSWORD", "REDIS_PASSWORD", "SECRET_KEY"}
    assert all(op == ":?" for _, op in refs), refs  # required, never a fallback value
    assert "duelhall:duelhall@" not in text


def test_redis_requires_a_password_and_every_url_carries_it():
    import redis

    services = compose()["services"]
    cmd = services["redis"]["command"]
    assert cmd[cmd.index("--requirepass") + 1].startswith("${REDIS_PASSWORD:?")
    assert services["redis"]["environment"]["REDISCLI_AUTH"].startswith("${REDIS_PASSWORD:?")
    for name in ("app", "worker", "migrate"):
        url = services[name]["environment"]["REDIS_URL"]
        assert url.startswith("redis://:${REDIS_PASSWORD:?"), name
        # What the app's clients read from the URL once compose has put the value in.
        filled = re.sub(r"\$\{REDIS_PASSWORD:\?[^}]*\}", "0a1b2c", url)
        assert redis.Redis.from_url(filled).connection_pool.connection_kwargs["password"] == "0a1b2c"


def test_pgbouncer_pools_transactions_in_front_of_postgres():
    from app.config import Settings
    from app.db.session import make_engine, pooler_connect_args

    services = compose()["services"]
    bouncer = services["pgbouncer"]["environment"]
    assert bouncer["POOL_MODE"] == "transaction" and bouncer["DB_HOST"] == "postgres"
    assert bouncer["DB_PASSWORD"] == services["postgres"]["environment"]["POSTGRES_PASSWORD"]
    for name in ("app", "worker"):
        env = services[name]["environment"]
        assert "@pgbouncer:5432/" in env["DATABASE_URL"] and env["DATABASE_POOLER"] == "pgbouncer"
    assert services["migrate"]["environment"]["DATABASE_POOLER"] == "none"
    # The setting does what app/db/session.py says (tests/multiprocess/test_pgbouncer.py runs it).
    args = pooler_connect_args(Settings(database_pooler="pgbouncer"))
    assert args["statement_cache_size"] == 0 and args["prepared_statement_cache_size"] == 0
    assert args["prepared_statement_name_func"]() != args["prepared_statement_name_func"]()
    assert pooler_connect_args(Settings()) == {}
    # Why it is there: the processes' pools together reach Postgres's 100 connections, while
    # PgBouncer takes them all and opens far fewer itself.
    pool = make_engine(Settings(database_url="postgresql://u:p@h/d")).pool
    per_process = pool.size() + pool._max_overflow
    processes = services["app"]["deploy"]["replicas"] + services["worker"]["deploy"]["replicas"]
    assert processes * per_process >= 100
    assert int(bouncer["MAX_CLIENT_CONN"]) >= processes * per_process
    assert int(bouncer["DEFAULT_POOL_SIZE"]) < 100
