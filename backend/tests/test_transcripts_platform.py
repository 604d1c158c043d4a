"""The Transcripts page's API (issue 38 on the platform): a transcript file uploaded in chunks is masked before
anything is stored, hostile input is a 4xx, the model built from the stored conversations is the CLI's, and a
calibrated personality is stored and enforced by platform SENSEI runs. Runs execute in this process (no worker),
on the offline TRACER double or the fake OpenAI-compatible server."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from typing import Any

import pytest

from cli import main
from engine.bots.population import write_population
from engine.evaluation.doubles import imperfect_factory
from runs.http.serializers import RunRequestSerializer
from runs.models import Artefact, Conversation, ImportedConversation, Run, TranscriptUpload
from runs.worker.execution import execute_sensei, execute_tracer
from tests.conftest import create_llm_key, create_pizza_project, unpublished_run
from tests.engine.transcripts.test_from_transcripts import _leaks, _planted_chats, _recording_llm
from workspace.models import Personality, Profile, Project

pytestmark = [pytest.mark.django_db]


@pytest.fixture
def project(auth_api) -> Project:
    key = create_llm_key(auth_api, "http://127.0.0.1:9/v1", name="k")
    created = create_pizza_project(auth_api, key, name="Shop", judge_model="fake-model")
    return Project.objects.get(pk=created["id"])


def upload(api, project_id: int, data: bytes, name: str, chunk: int = 700) -> list[dict[str, Any]]:
    """Send `data` as the web client does: chunks cut after a line break, each starting where the server said."""
    opened = api.post(
        f"/api/projects/{project_id}/transcripts/uploads/", {"name": name, "size": len(data)}, format="json"
    )
    assert opened.status_code == 201, opened.content
    answers, offset = [], 0
    while True:
        end = min(len(data), offset + chunk)
        if end < len(data):
            cut = data.rfind(b"\n", offset, end)
            end = cut + 1 if cut >= offset else data.index(b"\n", end) + 1
        final = end >= len(data)
        response = api.generic(
            "POST",
            f"/api/projects/{project_id}/transcripts/uploads/{opened.json()['id']}/chunks/"
            f"?offset={offset}&final={'true' if final else 'false'}",
            data[offset:end],
            content_type="application/octet-stream",
        )
        assert response.status_code == 200, response.content
        answers.append(response.json())
        if final:
            return answers
        offset = response.json()["offset"]


def _tracer_run(project: Project, user: Any, **body: Any) -> Run:
    return unpublished_run(project, user, kind="tracer", source="transcripts", **body)


def _with_llm(monkeypatch: pytest.MonkeyPatch, client: Any) -> None:
    @contextlib.contextmanager
    def llm_client(project: Any, model: str, *, recorder: Any = None) -> Iterator[Any]:
        yield client

    monkeypatch.setattr("runs.worker.transcript_runs.deps.llm_client", llm_client)


def _stored_text(project: Project) -> str:
    """Every row the import and the model left in the database for this project, as text."""
    rows: list[Any] = list(ImportedConversation.objects.filter(project=project).values())
    rows += list(TranscriptUpload.objects.filter(project=project).values())
    rows += list(Artefact.objects.filter(run__project=project).values("content"))
    rows += list(Profile.objects.filter(project=project).values("text"))
    rows += list(Personality.objects.filter(project=project).values("text"))
    return json.dumps(rows, default=str, ensure_ascii=False)


def test_every_kind_of_personal_data_uploaded_is_neither_stored_nor_sent_to_an_llm(
    auth_api, project, tmp_path, monkeypatch
):
    source = _planted_chats(tmp_path / "chats.jsonl").read_bytes()
    assert _leaks(source.decode())  # the file holds every kind: e-mail, phone, card, IBAN, names
    answers = upload(auth_api, project.pk, source, "chats.jsonl")
    assert len(answers) > 3  # several chunks, each answered with the progress so far
    assert [a["offset"] for a in answers[:-1]] == sorted(a["offset"] for a in answers[:-1])
    done = answers[-1]
    assert done["status"] == "done" and done["conversations"] == 40 and done["errors"] == 0
    assert set(done["masked"]) == {"email", "phone", "card", "iban", "name"}

    seen: list[str] = []
    _with_llm(monkeypatch, _recording_llm(seen))
    run = _tracer_run(project, auth_api.user, sample=10)
    result = execute_tracer(run)
    assert result["source"] == "transcripts" and result["functionalities"] > 0
    calibrated = auth_api.post(f"/api/projects/{project.pk}/transcripts/calibrate/")
    assert calibrated.status_code == 200, calibrated.content
    overview = auth_api.get(f"/api/projects/{project.pk}/transcripts/").json()
    assert overview["conversations"] == 40 and len(overview["sample"]) == 5

    assert seen  # the LLM was asked
    assert _leaks("\n".join(seen)) == []
    assert _leaks(_stored_text(project)) == []
    # The page shows what is stored (the masking rules' own examples are documentation, not user data).
    shown = {key: value for key, value in overview.items() if key != "rules"}
    assert _leaks(json.dumps(shown, ensure_ascii=False)) == []
    assert "[EMAIL_1]" in json.dumps(overview["sample"])


def test_the_platform_builds_the_same_model_as_the_cli_from_the_same_file(
    auth_api, project, tmp_path, monkeypatch
):
    raw = tmp_path / "raw.jsonl"
    write_population("photography", 120, raw, seed=5)
    assert main(["transcripts", "import", str(raw), "--out", str(tmp_path / "imported")]) == 0
    out = tmp_path / "cli"
    argv = [
        "tracer",
        "--from-transcripts",
        str(tmp_path / "imported"),
        "--double",
        "imperfect",
        "-o",
        str(out),
    ]
    main([*argv, "--seed", "7", "--sample", "15"])
    cli_model = json.loads((out / "model.json").read_text())

    upload(auth_api, project.pk, raw.read_bytes(), "raw.jsonl", chunk=64 * 1024)
    _with_llm(monkeypatch, imperfect_factory(7)("tracer:transcripts"))
    run = _tracer_run(project, auth_api.user, sample=15, seed=7)
    result = execute_tracer(run)
    platform_model = Artefact.objects.get(run=run, name="model").content
    assert cli_model["functionalities"], "the model has functionalities"
    assert platform_model == cli_model
    assert result["functionalities"] == len(cli_model["functionalities"])
    assert result["source"] == "transcripts"
    built = result["transcripts"]
    assert built["sampled"] == 15 and built["conversations"] == 120
    traffic = Profile.objects.filter(source_run=run, name__in=[p["name"] for p in built["traffic_profiles"]])
    assert traffic.count() == len(built["traffic_profiles"]) > 0


def test_a_malformed_record_is_named_by_line_and_the_rest_kept(auth_api, project):
    good = json.dumps({"turns": [{"role": "user", "text": "hi"}, {"role": "bot", "text": "hello"}]})
    lines = [good] * 30
    lines[17] = '{"turns": [ not json'
    answers = upload(auth_api, project.pk, ("\n".join(lines) + "\n").encode(), "a.jsonl", chunk=300)
    done = answers[-1]
    assert done["conversations"] == 29
    assert [(p["line"], p["severity"]) for p in done["problems"]] == [(18, "error")]
    assert "not JSON" in done["problems"][0]["message"]


def test_csv_conversations_are_kept_whole_across_chunks_and_names_masked_in_every_turn(auth_api, project):
    rows = ["conversation_id,role,text"]
    for i in range(12):
        rows += [
            f"c{i},user,hello my name is Ana",
            f"c{i},bot,Thanks Ana! What do you need?",
            f"c{i},user,a table",
        ]
    upload(auth_api, project.pk, ("\n".join(rows) + "\n").encode(), "chats.csv", chunk=200)
    stored = [row.record for row in ImportedConversation.objects.filter(project=project)]
    assert len(stored) == 12
    assert all(len(record["turns"]) == 3 for record in stored)
    assert "Ana" not in json.dumps(stored)


def _chunk(api, project_id: int, upload_id: int, data: bytes, offset: int = 0, final: bool = True) -> Any:
    return api.generic(
        "POST",
        f"/api/projects/{project_id}/transcripts/uploads/{upload_id}/chunks/?offset={offset}&final={final}",
        data,
        content_type="application/octet-stream",
    )


def _open(api, project_id: int, size: int = 10_000_000, name: str = "x.jsonl") -> int:
    response = api.post(
        f"/api/projects/{project_id}/transcripts/uploads/", {"name": name, "size": size}, format="json"
    )
    assert response.status_code == 201, response.content
    return int(response.json()["id"])


def test_hostile_chunks_get_a_json_4xx_or_a_problem_never_a_500(auth_api, project):
    pid = project.pk
    # NUL bytes and a lone surrogate (in the bytes and as a JSON escape): cleaned, with a warning on the line.
    nasty = b'{"turns": [{"role": "user", "text": "a\\u0000b \\ud800 c\x00d"}]}\n' + b"\xed\xa0\x80 broken\n"
    answer = _chunk(auth_api, pid, _open(auth_api, pid), nasty)
    assert answer.status_code == 200, answer.content
    body = answer.json()
    assert body["conversations"] == 1
    assert {p["line"] for p in body["problems"]} == {1, 2}
    text = ImportedConversation.objects.get(project=project).record["turns"][0]["text"]
    assert "\x00" not in text and "\ud800" not in text
    # Deep nesting: a problem on its line.
    deep = _chunk(auth_api, pid, _open(auth_api, pid), b"[" * 200_000 + b"\n")
    assert (
        deep.status_code == 200 and deep.json()["problems"][0]["message"] == "JSON nested too deep; skipped"
    )
    # Megabytes: over the chunk cap, and over the declared size.
    big = _chunk(auth_api, pid, _open(auth_api, pid), b"x" * (4 * 1024 * 1024 + 10))
    assert big.status_code == 413 and "at most" in big.json()["detail"]
    past = _chunk(auth_api, pid, _open(auth_api, pid, size=10), b'{"turns": []}\n' * 3)
    assert past.status_code == 413
    too_large = auth_api.post(
        f"/api/projects/{pid}/transcripts/uploads/", {"name": "x", "size": 10**12}, format="json"
    )
    assert too_large.status_code == 413
    # A chunk that does not start where the upload is, or does not end at a line break.
    uid = _open(auth_api, pid)
    assert _chunk(auth_api, pid, uid, b"{}\n", offset=5).status_code == 400
    cut = _chunk(auth_api, pid, uid, b'{"turns"', final=False)
    assert cut.status_code == 400 and "line break" in json.dumps(cut.json())
    # UTF-16 and a file whose format cannot be told: a 400 naming the problem.
    utf16 = _chunk(auth_api, pid, _open(auth_api, pid), "conversation\n".encode("utf-16"))
    assert utf16.status_code == 400 and "UTF-8" in json.dumps(utf16.json())
    unknown = _chunk(auth_api, pid, _open(auth_api, pid, name="notes.txt"), b"hello there\n")
    assert unknown.status_code == 400 and "format" in json.dumps(unknown.json())
    bad_offset = auth_api.generic(
        "POST",
        f"/api/projects/{pid}/transcripts/uploads/{uid}/chunks/?offset=abc",
        b"",
        "application/octet-stream",
    )
    assert bad_offset.status_code == 400


def test_transcripts_are_the_owner_s_alone_even_in_a_public_project(
    auth_api, api, project, django_user_model
):
    upload(auth_api, project.pk, b'{"turns": [{"role": "user", "text": "hi"}]}\n', "a.jsonl")
    Project.objects.filter(pk=project.pk).update(public=True)
    stranger = django_user_model.objects.create_user(email="s@example.com", password="pw-long-enough-1")
    api.force_authenticate(stranger)
    for method, path in (
        ("get", "transcripts/"),
        ("post", "transcripts/uploads/"),
        ("post", "transcripts/calibrate/"),
        ("get", "transcripts/fidelity/"),
        ("delete", "transcripts/"),
    ):
        assert getattr(api, method)(f"/api/projects/{project.pk}/{path}").status_code == 404, path
    api.force_authenticate(None)
    assert api.get(f"/api/projects/{project.pk}/transcripts/").status_code in (401, 403)
    assert ImportedConversation.objects.filter(project=project).count() == 1


def test_calibrating_stores_a_personality_with_the_measured_parameters(auth_api, project, tmp_path):
    raw = tmp_path / "raw.jsonl"
    write_population("pizza", 150, raw, seed=2)
    upload(auth_api, project.pk, raw.read_bytes(), "raw.jsonl", chunk=32 * 1024)
    answer = auth_api.post(f"/api/projects/{project.pk}/transcripts/calibrate/").json()
    assert (
        answer["name"] == "calibrated-user" and answer["leave_after"] == 2
    )  # impatient users leave after two
    stored = Personality.objects.get(pk=answer["personality"], project=project)
    assert stored.valid and "parameters:" in stored.text and "leave_after: 2" in stored.text
    again = auth_api.post(f"/api/projects/{project.pk}/transcripts/calibrate/").json()
    assert again["personality"] == answer["personality"]  # calibrating again updates it
    report = auth_api.get(f"/api/projects/{project.pk}/transcripts/fidelity/").json()
    assert report["real_conversations"] == 150 and report["closer"] is None
    assert {row["name"] for row in report["measures"]} >= {"leave_after", "user_turns"}
    # The latest finished SENSEI run without `calibrated_user`, and the latest with it, are the two sides.
    sides = {}
    for name, extra in (("plain", {}), ("calibrated", {"calibrated_user": "calibrated-user"})):
        run = Run.objects.create(
            kind=Run.Kind.SENSEI,
            owner=auth_api.user,
            project=project,
            status="succeeded",
            input={"seed": 1, **extra},
        )
        turns = [
            {"role": "user", "text": "hi there " * (3 if extra else 9)},
            {"role": "bot", "text": "hello"},
        ]
        Conversation.objects.create(run=run, profile="p", index=0, record={"turns": turns})
        sides[name] = run.pk
    report = auth_api.get(f"/api/projects/{project.pk}/transcripts/fidelity/").json()
    assert (report["uncalibrated_run"], report["calibrated_run"]) == (sides["plain"], sides["calibrated"])
    assert report["closer"] is not None and report["overall_gap_uncalibrated"] is not None


CALIBRATED = """\
name: calibrated-user
context: [You write short messages.]
parameters: {leave_after: 2}
measures: {leave_after: 2.0}
source: "transcripts: 10 conversations"
"""

PROFILE = """\
test_name: gibberish
user:
  role: You order a pizza.
  context:
    - personality: calibrated-user
  goals:
    - order a pizza
chatbot:
  is_starter: false
  fallback: Sorry, I didn't catch that.
conversation:
  number: 2
  goal_style: {steps: 10}
  interaction_style: [single question]
"""


@pytest.mark.django_db(transaction=True)  # the run's worker threads use their own database connections
def test_a_platform_run_with_a_calibrated_personality_leaves_after_the_configured_fallbacks(
    auth_api, project, monkeypatch
):
    from engine.llm.offline.server import running_fake_server
    from engine.sensei.simulator import TAG_USER_TURN

    monkeypatch.setenv("PARLEY_EGRESS_ALLOW", "127.0.0.1")
    with running_fake_server({TAG_USER_TURN: ["zzkx qwv plorf"] * 40}) as llm:
        project.llm_key.base_url = llm.base_url
        project.llm_key.save()
        created = auth_api.post(
            f"/api/projects/{project.pk}/personalities/", {"text": CALIBRATED}, format="json"
        ).json()
        assert created["valid"], created
        profile = auth_api.post(
            f"/api/projects/{project.pk}/profiles/", {"text": PROFILE}, format="json"
        ).json()
        assert profile["valid"], profile["problems"]

        def run_with(**body: Any) -> list[dict[str, Any]]:
            body = {"profiles": [profile["id"]], "concurrency": 1, "seed": 3, **body}
            run = unpublished_run(project, auth_api.user, kind="sensei", **body)
            execute_sensei(run)
            return [row.record for row in Conversation.objects.filter(run=run)]

        records = run_with()
        # The whole run can name it too, as `--calibrated-user` does on the CLI.
        whole = run_with(calibrated_user="calibrated-user")
    for record in [*records, *whole]:
        assert record["outcome"]["fallback_replies"] == 2, record["outcome"]
        assert record["outcome"]["end_signal"] == "left after 2 fallbacks, as real users do"
        assert sum(turn["role"] == "user" for turn in record["turns"]) == 2
    assert len(records) == len(whole) == 2


def test_a_sensei_run_names_only_a_calibrated_personality_of_its_project(auth_api, project):
    profile = auth_api.post(
        f"/api/projects/{project.pk}/profiles/",
        {"text": PROFILE.replace("calibrated-user", "curious-user")},
        format="json",
    ).json()
    request = RunRequestSerializer(
        data={"kind": "sensei", "profiles": [profile["id"]], "calibrated_user": "curious-user"},
        context={"project": project},
    )
    assert not request.is_valid() and "calibrated_user" in request.errors
    no_transcripts = RunRequestSerializer(
        data={"kind": "tracer", "source": "transcripts"}, context={"project": project}
    )
    assert not no_transcripts.is_valid() and "source" in no_transcripts.errors


def test_a_personality_with_parameters_out_of_range_is_invalid(auth_api, project):
    bad = CALIBRATED.replace("{leave_after: 2}", "{leave_after: -1, correction: 7}")
    created = auth_api.post(f"/api/projects/{project.pk}/personalities/", {"text": bad}, format="json").json()
    assert not created["valid"]
    assert any(p["path"] == "parameters" for p in created["problems"])
