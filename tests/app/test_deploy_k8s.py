"""The Kubernetes samples (deploy/k8s/) are wired as docs/operations.md says: parsed, since no
cluster runs here. Probes hit routes the app has, the grace period covers the drain, Services
and budgets select the pods they mean, the ingress hashes sockets by match, the migration is a
Job straight to Postgres, secrets only from the Secret, and every variable is a setting."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from tests.app.test_deploy import compose, stop_budget

ROOT = Path(__file__).resolve().parents[2]
K8S = ROOT / "deploy" / "k8s"
SECRET_NAMES = {"SECRET_KEY", "REDIS_URL", "DATABASE_URL"}


def manifests() -> list[dict]:
    docs = []
    for path in sorted(K8S.glob("*.yaml")):
        docs += [d for d in yaml.safe_load_all(path.read_text()) if d]
    return docs


def one(kind: str, name: str) -> dict:
    found = [d for d in manifests() if d["kind"] == kind and d["metadata"]["name"] == name]
    assert len(found) == 1, (kind, name)
    return found[0]


def container(workload: dict) -> dict:
    (c,) = workload["spec"]["template"]["spec"]["containers"]
    return c


def env_of(c: dict) -> dict:
    return {e["name"]: e for e in c["env"]}


def value(c: dict, name: str) -> str:
    return env_of(c)[name]["value"]


def selects(selector: dict, labels: dict) -> bool:
    return all(labels.get(k) == v for k, v in selector.items())


WEB = ("Deployment", "duelhall-web")
WORKER = ("Deployment", "duelhall-worker")
MIGRATE = ("Job", "duelhall-migrate")


def test_the_samples_hold_what_the_docs_list():
    kinds = sorted((d["kind"], d["metadata"]["name"]) for d in manifests())
    assert kinds == sorted([WEB, WORKER, MIGRATE, ("Service", "duelhall"), ("Service", "duelhall-ws"),
                            ("Ingress", "duelhall"), ("Ingress", "duelhall-ws"),
                            ("PodDisruptionBudget", "duelhall-web"),
                            ("PodDisruptionBudget", "duelhall-worker"),
                            ("NetworkPolicy", "duelhall-web")])
    assert "deploy/k8s/" in (ROOT / "docs" / "operations.md").read_text()


def test_probes_hit_routes_the_app_has_on_the_port_it_listens_on(client):
    web = container(one(*WEB))
    port = web["ports"][0]
    assert port["containerPort"] == int(web["command"][web["command"].index("--port") + 1])
    probes = {k: web[k]["httpGet"] for k in ("readinessProbe", "livenessProbe", "startupProbe")}
    assert probes["readinessProbe"]["path"] == "/readyz"  # Redis, and not draining
    assert probes["livenessProbe"]["path"] == "/healthz"  # the process only: never Redis or SQL
    for probe in probes.values():
        assert client.get(probe["path"]).status_code == 200  # a healthy app answers it
        assert probe["port"] in (port["name"], port["containerPort"])
    # Out of rotation at the first failed readiness check.
    assert web["readinessProbe"]["failureThreshold"] == 1


def test_the_grace_period_covers_the_drain_and_the_rest_of_the_stop():
    from app.config import Settings

    web = one(*WEB)
    spec = web["spec"]["template"]["spec"]
    drain = Settings(drain_seconds=value(container(web), "DRAIN_SECONDS")).drain_seconds
    assert drain > 0
    pre_stop = container(web).get("lifecycle", {}).get("preStop", {})
    slept = int(pre_stop["exec"]["command"][-1]) if pre_stop else 0  # counts against the grace too
    assert spec["terminationGracePeriodSeconds"] >= slept + drain + stop_budget()
    # The same numbers as the compose file's replicas.
    assert float(compose()["services"]["app"]["environment"]["DRAIN_SECONDS"]) == drain
    # A rollout never takes a ready pod away before its successor is ready.
    assert web["spec"]["strategy"]["rollingUpdate"]["maxUnavailable"] == 0


def test_web_runs_no_loops_of_its_own_and_two_workers_run_them():
    web, worker = container(one(*WEB)), container(one(*WORKER))
    assert value(web, "RUN_OUTBOX") == value(web, "RUN_CLOCKS") == "false"
    assert value(web, "MIGRATE_ON_START") == value(worker, "MIGRATE_ON_START") == "false"
    assert worker["command"] == ["duelhall", "worker"]
    assert not {"RUN_OUTBOX", "RUN_CLOCKS", "RUN_WORKERS"} & set(env_of(worker))
    assert one(*WORKER)["spec"]["replicas"] >= 2 and one(*WEB)["spec"]["replicas"] >= 2


def test_services_and_budgets_select_the_pods_they_mean():
    web, worker = one(*WEB), one(*WORKER)
    web_labels = web["spec"]["template"]["metadata"]["labels"]
    worker_labels = worker["spec"]["template"]["metadata"]["labels"]
    assert selects(web["spec"]["selector"]["matchLabels"], web_labels)
    assert selects(worker["spec"]["selector"]["matchLabels"], worker_labels)
    port_name = container(web)["ports"][0]["name"]
    for name in ("duelhall", "duelhall-ws"):
        svc = one("Service", name)
        assert selects(svc["spec"]["selector"], web_labels)
        assert not selects(svc["spec"]["selector"], worker_labels)
        assert svc["spec"]["ports"][0]["targetPort"] == port_name
    for pdb, labels, replicas in (("duelhall-web", web_labels, web["spec"]["replicas"]),
                                  ("duelhall-worker", worker_labels, worker["spec"]["replicas"])):
        budget = one("PodDisruptionBudget", pdb)["spec"]
        assert selects(budget["selector"]["matchLabels"], labels)
        assert 1 <= budget["maxUnavailable"] < replicas
    policy = one("NetworkPolicy", "duelhall-web")["spec"]
    assert selects(policy["podSelector"]["matchLabels"], web_labels)
    assert policy["ingress"][0]["ports"][0]["port"] == container(web)["ports"][0]["containerPort"]


def test_the_ingress_hashes_sockets_by_match_and_keeps_them_open():
    from app.config import Settings

    services = {d["metadata"]["name"]: d for d in manifests() if d["kind"] == "Service"}

    def backends(ing: dict) -> list[tuple[str, dict]]:
        return [(p["path"], p["backend"]["service"]) for r in ing["spec"]["rules"]
                for p in r["http"]["paths"]]

    ws, plain = one("Ingress", "duelhall-ws"), one("Ingress", "duelhall")
    for ing in (ws, plain):
        for _, backend in backends(ing):
            port_names = [p["name"] for p in services[backend["name"]]["spec"]["ports"]]
            assert backend["port"]["name"] in port_names
        limit = re.fullmatch(r"(\d+)k", ing["metadata"]["annotations"]["nginx.ingress.kubernetes.io/proxy-body-size"])
        assert int(limit.group(1)) * 1024 == Settings.model_fields["max_message_bytes"].default
    assert backends(ws) == [("/ws/", {"name": "duelhall-ws", "port": {"name": "http"}})]
    assert backends(plain)[0][1]["name"] == "duelhall"
    notes = ws["metadata"]["annotations"]
    # $uri is /ws/matches/{id}: both players' sockets of a match hash to one pod.
    assert notes["nginx.ingress.kubernetes.io/upstream-hash-by"] == "$uri"
    assert "upstream-hash-by" not in str(plain["metadata"].get("annotations"))
    assert int(notes["nginx.ingress.kubernetes.io/proxy-read-timeout"]) >= 60  # > the 20 s pings


def test_forwarded_addresses_are_read_only_from_the_ingress_controllers_network():
    from app.config import Settings

    web = container(one(*WEB))
    assert "FORWARDED_ALLOW_IPS" not in env_of(web)  # `duelhall serve` leaves the header to the app
    proxies = Settings(trusted_proxies=value(web, "TRUSTED_PROXIES")).trusted_proxies
    assert proxies and "*" not in proxies
    policy = one("NetworkPolicy", "duelhall-web")["spec"]
    assert policy["policyTypes"] == ["Ingress"]
    assert [list(f) for f in policy["ingress"][0]["from"]] == [["namespaceSelector"]]


def test_the_migration_is_a_job_straight_to_postgres():
    job = one(*MIGRATE)
    c = container(job)
    assert c["command"] == ["duelhall", "migrate"]
    assert job["spec"]["template"]["spec"]["restartPolicy"] in ("Never", "OnFailure")
    assert job["spec"]["backoffLimit"] >= 1
    assert env_of(c)["DATABASE_URL"]["valueFrom"]["secretKeyRef"]["key"] == "DATABASE_DIRECT_URL"
    assert value(c, "DATABASE_POOLER") == "none"
    for name in (WEB, WORKER):
        env = env_of(container(one(*name)))
        assert env["DATABASE_URL"]["valueFrom"]["secretKeyRef"]["key"] == "DATABASE_URL"
        assert env["DATABASE_POOLER"]["value"] == "pgbouncer"


@pytest.mark.parametrize("workload", [WEB, WORKER, MIGRATE])
def test_secrets_come_from_the_secret_and_every_variable_is_a_setting(workload):
    from app.config import Settings

    c = container(one(*workload))
    fields = {name.upper() for name in Settings.model_fields}
    for name, e in env_of(c).items():
        assert name in fields, f"{workload[1]} sets {name}, which the app does not read"
        if name in SECRET_NAMES:
            assert "value" not in e and e["valueFrom"]["secretKeyRef"]["name"] == "duelhall", name
    if workload != MIGRATE:
        assert value(c, "APP_ENV") == "production"
        assert set(env_of(c)) >= SECRET_NAMES
    assert c["resources"]["limits"]["memory"] and c["resources"]["requests"]["cpu"]
