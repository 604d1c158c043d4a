"""Every endpoint of the OpenAPI schema, called as an anonymous visitor, a stranger and the owner, on private and
public objects: who may do what, and that no response ever carries a key, a connector secret, the owner's
e-mail address or the name of a private project to someone else."""

import json

import pytest
from rest_framework.test import APIClient

from accounts.models import LLMKey
from accounts.services import open_session
from runs.models import Artefact, Conversation, Run, RunEvent
from tests.factories import UserFactory
from workspace.models import Campaign, Connector, Personality, Profile, Project, Rule

pytestmark = pytest.mark.django_db

KEY = "sk-matrix-canary-000000000000000000000000000"
SECRET = "connector-secret-canary-999"
PRIVATE_NAME = "Top secret project"
OWNER_LOG = "owner-only-log-canary"
# Endpoints meant for everyone (their own tests cover them).
OPEN = {
    "/api/auth/login/",
    "/api/auth/signup/",
    # Keep me signed in: authenticated by a cookie, not a token (tests/test_remember.py).
    "/api/auth/resume/",
    "/api/auth/csrf/",
    "/api/health/",
    "/api/schemas/{kind}/",
}


@pytest.fixture
def world():
    owner = UserFactory(email="owner-private@example.com", display_name="Olivia")
    key = LLMKey(owner=owner, name="k", provider="openai")
    key.set_secret(KEY)
    key.save()
    connector = Connector(
        owner=owner, name="private connector", technology="millionbot", params={"bot_id": "b"}
    )
    connector.set_secrets({"api_key": SECRET})
    connector.save()
    projects = {}
    for visibility, name in (("private", PRIVATE_NAME), ("public", "Open project")):
        project = Project.objects.create(
            owner=owner,
            name=name,
            connector=connector,
            llm_key=key,
            public=visibility == "public",
            budget_usd=5,
        )
        runs = [
            Run.objects.create(
                owner=owner, project=project, kind=Run.Kind.TRACER, status=Run.Status.SUCCEEDED
            )
            for _ in range(2)
        ]
        for run in runs:
            Artefact.objects.create(run=run, name="model", content={"functionalities": [{"name": "order"}]})
            RunEvent.objects.create(run=run, type="log", visibility="owner", data={"text": OWNER_LOG})
            RunEvent.objects.create(run=run, type="stage", data={"stage": "probe"})
        conversation = Conversation.objects.create(run=runs[0], profile="p", index=0, record={"turns": []})
        projects[visibility] = {
            "project_id": project.pk,
            "profile": Profile.objects.create(project=project, name="p", text="test_name: p\n").pk,
            "rule": Rule.objects.create(project=project, name="r", text="name: r\n").pk,
            "personality": Personality.objects.create(project=project, name="n", text="name: n\n").pk,
            "campaign": Campaign.objects.create(project=project, name="c", text="name: c\n").pk,
            "run": runs[0].pk,
            "other_run": runs[1].pk,
            "conversation": conversation.pk,
        }
    run = Run.objects.create(owner=owner, kind=Run.Kind.PING)
    return {"owner": owner, "key": key.pk, "connector": connector.pk, "run": run.pk, "projects": projects}


def client_for(user):
    client = APIClient()
    if user is not None:
        client.credentials(HTTP_AUTHORIZATION=f"Token {open_session(user)['token']}")
    return client


def endpoints():
    from drf_spectacular.generators import SchemaGenerator

    schema = SchemaGenerator().get_schema(request=None, public=True)
    for path, operations in schema["paths"].items():
        for method in operations:
            if method in {"get", "post", "put", "patch", "delete"} and path not in OPEN:
                yield path, method


def targets(path, world):
    """(visibility, concrete path) pairs for one path template."""
    if path.startswith("/api/runs/{id}"):
        for visibility, ids in world["projects"].items():
            concrete = path.replace("{id}", str(ids["run"])).replace("{cid}", str(ids["conversation"]))
            yield visibility, concrete.replace("{name}", "model").replace("{fmt}", "json")
    elif path.endswith("/diff/"):
        for visibility, ids in world["projects"].items():
            base = path.replace("{project_id}", str(ids["project_id"]))
            yield visibility, f"{base}?from={ids['run']}&to={ids['other_run']}"
    elif path.endswith(("/runs/", "/import/")) and "{project_id}" in path:
        for visibility, ids in world["projects"].items():
            yield visibility, path.replace("{project_id}", str(ids["project_id"]))
    elif "{project_id}" in path or path.startswith("/api/projects/{id}"):
        for visibility, ids in world["projects"].items():
            kind = path.split("/")[4] if "{project_id}" in path else None
            item = {
                "profiles": ids["profile"],
                "rules": ids["rule"],
                "personalities": ids["personality"],
                "campaigns": ids["campaign"],
            }.get(kind)
            concrete = path.replace("{project_id}", str(ids["project_id"])).replace("{id}", str(item))
            if path.startswith("/api/projects/{id}"):
                concrete = path.replace("{id}", str(ids["project_id"]))
            yield visibility, concrete
    elif "{id}" in path:
        owner_id = {"keys": world["key"], "connectors": world["connector"], "runs": world["run"]}[
            path.split("/")[2]
        ]
        yield "private", path.replace("{id}", str(owner_id))
    else:
        yield "collection", path


def call(client, method, path):
    body = {} if method in ("post", "put", "patch") else None
    return (
        getattr(client, method)(path, body, format="json")
        if body is not None
        else getattr(client, method)(path)
    )


def test_permission_matrix(world, settings):
    # The matrix starts many key and connector tests; the per-user cap is tested apart (test_fairness.py).
    settings.SHORT_JOBS_PER_USER = 100
    owner, stranger = world["owner"], UserFactory(email="stranger@example.com")
    clients = {"anonymous": client_for(None), "stranger": client_for(stranger), "owner": client_for(owner)}
    checked = 0
    failures = []
    for template, method in endpoints():
        for visibility, path in targets(template, world):
            for role, client in clients.items():
                if role == "owner" and method == "delete":
                    continue  # deleting would dismantle the fixtures; deletion is tested per resource
                if (
                    template in ("/api/auth/logout/", "/api/auth/logout-all/", "/api/auth/password/")
                    and role != "anonymous"
                ):
                    continue  # would end the session the rest of the matrix uses
                response = call(client, method, path)
                checked += 1
                status = response.status_code
                text = response.content.decode(errors="replace")
                where = f"{role} {method.upper()} {path} -> {status}"
                if status >= 500:
                    failures.append(f"{where}: server error")
                if KEY in text or SECRET in text:
                    failures.append(f"{where}: a secret is in the response")
                if role != "owner" and (owner.email in text or PRIVATE_NAME in text or OWNER_LOG in text):
                    failures.append(f"{where}: the owner's e-mail, log or a private project leaked")
                if (
                    role != "owner"
                    and visibility == "public"
                    and status == 200
                    and response.get("Content-Type", "").startswith("application/json")
                ):
                    data = json.loads(text)
                    if (
                        isinstance(data, dict)
                        and data.get("connector") not in (None,)
                        and template == "/api/projects/{id}/"
                    ):
                        failures.append(f"{where}: the connector of a public project is shown to visitors")
                expected = expect(template, method, role, visibility)
                if status not in expected:
                    failures.append(f"{where}: expected one of {sorted(expected)}")
    assert checked > 150
    assert not failures, "\n".join(failures)


ALLOWED = set(range(200, 300)) | {400, 405, 415}


# Imported production conversations and model qualifications are their owner's alone, even in a public project.
OWNER_ONLY = ("/transcripts/", "/qualification/")


def expect(template, method, role, visibility):
    safe = method == "get"
    if "{upload_id}" in template and role == "owner":
        return ALLOWED | {404}  # the matrix holds no upload: the owner's unknown upload is a 404
    if any(part in template for part in OWNER_ONLY):
        if role == "owner":
            return ALLOWED  # 400 on the matrix's runs: they are TRACER runs, not qualifications
        return {401, 404} if role == "anonymous" else {404}
    if visibility == "collection":
        if role == "anonymous":
            # Public projects and their runs are listed for anyone.
            return {200} if (template in ("/api/projects/", "/api/runs/") and safe) else {401}
        return ALLOWED
    if visibility == "private":
        if role == "owner":
            return ALLOWED
        if role == "anonymous":
            return {401, 404}
        return {404}
    # public project
    if safe and template.endswith(("/compare/", "/security-compare/", "/coverage/", "/shrink-report/{fmt}/")):
        # 400: nothing to compare (the matrix's runs are TRACER runs without a baseline, and no campaign runs);
        # no coverage map (a TRACER run has none); no bug report (a TRACER run is no shrink run)
        return {200, 400}
    if safe:
        return {200}
    if role == "anonymous":
        return {401}
    if role == "stranger":
        return {403}
    return ALLOWED
