"""Schemathesis against our own OpenAPI schema, in process (ASGI), embedded defaults: every
operation gets generated requests, valid ones and invalid ones. Nothing may answer 500, and
what does answer must match the schema (the documented JSON shapes and content types).

Bounded for the suite (a few examples per operation and mode, about a minute). A longer hunt:
``DUELHALL_SCHEMATHESIS_EXAMPLES=100 .venv/bin/pytest -q tests/app/test_schemathesis.py``.

(Schemathesis's own pytest plugin is not used: its lazy fixture loader does not work with the
pytest we run; the operations are driven by hand with the same strategies and checks.)"""
from __future__ import annotations

import os
import uuid

import pytest
import schemathesis
from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis.errors import Unsatisfiable
from schemathesis.checks import not_a_server_error
from schemathesis.generation import GenerationMode
from schemathesis.specs.openapi.checks import content_type_conformance, response_schema_conformance

from app.auth import User, issue_token

EXAMPLES = int(os.environ.get("DUELHALL_SCHEMATHESIS_EXAMPLES", "5"))
CHECKS = [not_a_server_error, response_schema_conformance, content_type_conformance]


@pytest.fixture
def api_schema(settings):
    from app.main import create_app

    # Schemathesis runs the app's lifespan (Redis, SQL, workers) itself, on its own loop.
    return schemathesis.openapi.from_asgi("/openapi.json", create_app(settings, run_migrations=False))


def admin_headers(settings) -> dict:
    """A fresh signed-in admin (a guest token with the admin role) for each request, so
    generated requests reach the handlers, the admin ones too, and one that signs out or
    suspends its own user does not spoil the next."""
    admin = User(id=f"u_fuzz{uuid.uuid4().hex[:12]}", name="Fuzz Admin", role="admin", guest=True)
    return {"Authorization": f"Bearer {issue_token(admin, settings)}"}


@pytest.mark.slow
def test_no_500_and_responses_match_the_schema(api_schema, settings):
    operations = [r.ok() for r in api_schema.get_all_operations()]
    assert len(operations) > 30  # the whole API, not an empty or unreadable schema
    failures: dict[str, str] = {}
    for op in operations:
        for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):

            @hsettings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
                       suppress_health_check=list(HealthCheck))
            @given(case=op.as_strategy(generation_mode=mode))
            def exercise(case):
                case.call_and_validate(headers=admin_headers(settings), checks=CHECKS)

            try:
                exercise()
            except Unsatisfiable:
                continue  # no invalid input exists for it (no body, only string parameters)
            except BaseException as e:
                failures[f"{op.method.upper()} {op.path} ({mode})"] = str(e)[:1500]
    assert not failures, "\n\n".join(f"{k}:\n{v}" for k, v in failures.items())
