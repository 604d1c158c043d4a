"""The platform's TRACER seed: chosen when the run is created (random unless given), stored with the run, handed
to the engine, and the same on every attempt of the run (a resume after a crash)."""

from __future__ import annotations

from typing import Any

import pytest

from accounts.models import LLMKey
from engine.tracer import TracerConfig
from runs.http.serializers import RunRequestSerializer
from runs.models import Run
from runs.worker import execution
from workspace.models import Connector, Project

pytestmark = pytest.mark.django_db


@pytest.fixture
def project(user: Any) -> Project:
    key = LLMKey(
        owner=user, name="fake", provider=LLMKey.Provider.OPENAI_COMPATIBLE, base_url="http://127.0.0.1:9/v1"
    )
    key.set_secret("sk-test")
    key.save()
    connector = Connector.objects.create(owner=user, name="pizza", technology="demo", params={"bot": "pizza"})
    return Project.objects.create(
        owner=user, name="Pizza", connector=connector, llm_key=key, exploration_model="fake-model"
    )


def _input(project: Project, **body: Any) -> dict[str, Any]:
    request = RunRequestSerializer(
        data={"kind": "tracer", "sessions": 2, "turns": 3, **body}, context={"project": project}
    )
    assert request.is_valid(), request.errors
    return dict(request.validated_data["input"])


def test_a_tracer_run_gets_a_random_seed_at_creation_unless_one_is_given(project: Project) -> None:
    drawn = {_input(project)["seed"] for _ in range(5)}
    assert all(isinstance(seed, int) and 0 <= seed < 2**31 for seed in drawn)
    assert len(drawn) > 1  # random, not a constant
    assert _input(project, seed=42)["seed"] == 42
    assert _input(project, seed=0)["seed"] == 0


class _Stop(Exception):
    pass


def test_the_stored_seed_reaches_the_engine_on_every_attempt(project: Project, monkeypatch: Any) -> None:
    seen: list[int] = []

    def run_tracer(config: TracerConfig, *args: Any, **kwargs: Any) -> Any:
        seen.append(config.seed)
        raise _Stop  # the engine itself is tested elsewhere; here only what the worker hands it

    monkeypatch.setattr(execution, "run_tracer", run_tracer)
    run = Run.objects.create(
        kind=Run.Kind.TRACER, owner=project.owner, project=project, input=_input(project, seed=1234)
    )
    for _attempt in range(2):  # the first attempt, then the resume after a crash
        with pytest.raises(_Stop):
            execution.execute_tracer(Run.objects.get(pk=run.pk))
    assert seen == [1234, 1234]


def test_a_run_stored_without_a_seed_draws_one_and_keeps_it(project: Project, monkeypatch: Any) -> None:
    seen: list[int] = []

    def run_tracer(config: TracerConfig, *args: Any, **kwargs: Any) -> Any:
        seen.append(config.seed)
        raise _Stop

    monkeypatch.setattr(execution, "run_tracer", run_tracer)
    run = Run.objects.create(
        kind=Run.Kind.TRACER, owner=project.owner, project=project, input={"sessions": 1, "turns": 2}
    )
    for _attempt in range(2):
        with pytest.raises(_Stop):
            execution.execute_tracer(Run.objects.get(pk=run.pk))
    assert seen[0] == seen[1] == Run.objects.get(pk=run.pk).input["seed"]
