"""Issue 38: the scripted population (test data), the model from transcripts, the calibrated simulated user.

The population is plumbing (its users read the bot's definition, as customers know a menu); nothing here hands
the engines the ground truth: the model from transcripts reads only the imported (masked) conversations.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from engine.bots import load_bot
from engine.bots.population import write_population
from engine.egress import EgressGuard, EgressPolicy
from engine.evaluation.matching import precision_recall
from engine.llm import LLMClient, ProviderConfig, UsageLedger
from engine.llm.offline.imperfect import Request
from engine.llm.offline.tracer import TracerDouble
from engine.sensei.calibration import CalibratedUser, Calibration, calibrated_personality, calibration_of
from engine.tracer.from_transcripts import model_from_transcripts, plan_sample, read_conversations
from engine.transcripts import Conversation, Turn, import_transcripts
from engine.transcripts.fidelity import fidelity_markdown, fidelity_report
from engine.transcripts.measures import infer_fallback, measure

PLANTED = (
    "laura.g@example.com",
    "pnovak@mail.example.org",
    "ana.ruiz@example.net",
    "612 345 678",
    "Laura Gomez",
)


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """300 conversations of the photography studio's population (users give names, e-mails and phones)."""
    folder = tmp_path_factory.mktemp("population")
    raw = folder / "raw.jsonl"
    written = write_population("photography", 300, raw, seed=3)
    import_transcripts(raw, folder / "imported")
    return {"raw": raw, "dir": folder / "imported", "written": written}


def _recording_llm(seen: list[str]) -> LLMClient:
    double = TracerDouble(seed=0)

    def recorded(responder: Any) -> Any:
        def respond(request: Request) -> Any:
            seen.extend(text for _, text in request.messages)
            return responder(request)

        return respond

    overrides = {tag: recorded(responder) for tag, responder in double.responders().items()}
    return LLMClient(
        ProviderConfig("openai-compatible", base_url="http://127.0.0.1:9/v1", model="imperfect"),
        guard=EgressGuard(EgressPolicy.parse("127.0.0.1")),
        chat_model=double.chat_model(overrides=overrides),
        ledger=UsageLedger(),
    )


# -- the population --------------------------------------------------------------------------------------------


def test_population_has_impatient_users_who_leave_after_two_fallbacks_and_varied_paths(imported):
    written = imported["written"]
    assert set(written.kinds) == {"direct", "impatient", "wanderer", "corrector", "changer"}
    counts = sorted(written.paths.values())
    assert counts[-1] >= 5 * counts[0]  # frequent and rare paths
    impatient = [c for c in written.conversations if c["truth"]["kind"] == "impatient"]
    left = [
        c for c in impatient if c["turns"][-1]["role"] == "bot" and c["turns"][-1]["text"].startswith("Sorry")
    ]
    assert left
    for conversation in left:
        bots = [t["text"] for t in conversation["turns"] if t["role"] == "bot"]
        assert bots[-1].startswith("Sorry") and bots[-2].startswith("Sorry")


def test_population_personal_data_is_typed_and_masked_on_import(imported):
    raw = imported["raw"].read_text(encoding="utf-8")
    assert any(value in raw for value in PLANTED)
    stored = (imported["dir"] / "conversations.jsonl").read_text(encoding="utf-8")
    assert not [value for value in PLANTED if value in stored]
    assert "[EMAIL_1]" in stored


# -- the model from transcripts ------------------------------------------------------------------------------


def test_sampling_plan_reads_every_path_even_a_rare_one():
    def conversation(number: int, answer: str) -> Conversation:
        turns = [Turn(role="user", text=f"question {number}"), Turn(role="bot", text=answer)]
        return Conversation(id=f"c{number}", format="jsonl", line=number, turns=turns)

    conversations = [conversation(i, "We open at noon.") for i in range(50)]
    conversations.append(conversation(50, "Your booking for a tire repair is confirmed."))
    plan = plan_sample(conversations, 5)
    assert "c50" in plan.sampled and len(plan.sampled) == 5
    assert sum(plan.weights[c] for c in plan.sampled) == pytest.approx(51)
    assert plan.estimated_calls["total"] >= len(plan.sampled)


def test_model_from_transcripts_finds_functionalities_with_traffic_and_no_personal_data_reaches_the_llm(
    imported,
):
    seen: list[str] = []
    with _recording_llm(seen) as llm:
        built = model_from_transcripts(read_conversations(imported["dir"]), llm, sample=30)
        calls = len(llm.ledger.records)
    assert seen and not [value for value in PLANTED if any(value in text for text in seen)]
    scored = precision_recall(built.model, load_bot("photography"), matcher="lexical")
    assert scored["recall"] and scored["recall"] > 20
    assert calls <= built.plan.estimated_calls["total"]
    shares = [info["share"] for info in built.reached.values()]
    assert max(shares) > min(shares) > 0  # each functionality with how often users reached it, not all alike


def test_cli_prints_the_plan_first_and_writes_transcripts_provenance(imported, tmp_path, capsys):
    from cli import main

    out = tmp_path / "model"
    code = main(
        ["tracer", "--from-transcripts", str(imported["dir"]), "--double", "imperfect", "-o", str(out)]
    )
    printed = capsys.readouterr().out
    assert code == 0
    assert printed.index("Sampling plan") < printed.index("Cost estimate") < printed.index("functionalities")
    provenance = json.loads((out / "provenance.json").read_text(encoding="utf-8"))
    assert provenance["source"] == "transcripts" and provenance["reached"]
    assert (out / "model.json").is_file() and list((out / "profiles").glob("*.yaml"))
    assert "## Source: transcripts" in (out / "report.md").read_text(encoding="utf-8")
    assert len(list((out / "traffic_profiles").glob("*.yaml"))) >= 3


def test_cli_without_connector_or_transcripts_is_a_usage_error(tmp_path, capsys):
    from cli import main

    assert main(["tracer", "-o", str(tmp_path)]) == 2
    assert "--from-transcripts" in capsys.readouterr().err


# -- measures and the calibrated user --------------------------------------------------------------------------

FALLBACK = "Sorry, I did not get that."
SAMPLE = [
    [("user", "hi I want a pizza please"), ("bot", "Which size?"), ("user", "what drinks do you have?"),
     ("bot", "Coke and water."), ("user", "large"), ("bot", "Done.")],
    [("user", "blah"), ("bot", FALLBACK), ("user", "blah blah"), ("bot", FALLBACK)],
    [("user", "a pizza"), ("bot", "Which size?"), ("user", "small"), ("user", "sorry, I meant large"),
     ("bot", "Done."), ("user", "actually, a drink instead"), ("bot", FALLBACK), ("user", "x"), ("bot", FALLBACK)],
]  # fmt: skip


def test_measures_of_known_conversations():
    assert infer_fallback(SAMPLE) == FALLBACK
    measured = measure(SAMPLE)
    assert measured.user_turns == pytest.approx(10 / 3)
    assert measured.ignored_question == pytest.approx(
        1 / 2
    )  # one of two "Which size?" answered with a question
    assert measured.correction == pytest.approx(1 / 10)
    assert measured.change_of_mind == pytest.approx(1 / 10)
    assert measured.leave_after == 2 and measured.left_on_fallback == pytest.approx(2 / 3)


def test_calibrated_user_is_enforced_not_described():
    calibration = Calibration(word_counts=(2,), turn_counts=(3,), leave_after=2, fillers=("ok",))
    user = CalibratedUser(calibration, random.Random(1))
    assert user.shape("I would like to book a session for next week", None) == "I would"
    assert sorted(user.shape("hi", None).split()) == ["hi", "ok"]
    assert user.stop_before_turn(3) and not user.stop_before_turn(2)
    assert user.leaves(2) and not user.leaves(1)


def test_calibrated_personality_round_trips_its_parameters():
    personality = calibrated_personality(measure(SAMPLE))
    calibration = calibration_of(personality)
    assert calibration is not None and calibration.leave_after == 2
    assert calibration.turn_counts == (3, 2, 5)
    assert any("2 times" in line for line in personality.context)


PIZZA_PROFILE = """
test_name: pizza_order
user:
  role: You order a pizza to pick up tonight.
  goals:
    - "order a {{size}} margherita pizza"
    - size: {function: forward(), type: string, data: [small, large]}
chatbot:
  is_starter: false
  fallback: Sorry, I didn't catch that.
conversation:
  number: 2
  goal_style: {steps: 6}
  interaction_style: [default]
"""


def _pizza_conversations(calibration: Calibration | None) -> list[Any]:
    from datetime import date

    from engine.bots.connector import BotConnector
    from engine.llm.offline.sensei import SenseiDouble
    from engine.sensei import SenseiJob, SimulatorSettings, load_profile, run_profiles

    profile, problems = load_profile(PIZZA_PROFILE, source="test")
    assert profile is not None, problems
    records: list[Any] = []
    client = LLMClient(
        ProviderConfig("openai-compatible", base_url="http://127.0.0.1:9/v1", model="imperfect"),
        guard=EgressGuard(EgressPolicy.parse("127.0.0.1")),
        chat_model=SenseiDouble(seed=1).chat_model(),
        ledger=UsageLedger(),
    )
    with client as llm:
        run_profiles(
            SenseiJob(
                [profile],
                lambda: BotConnector("pizza", today=date(2027, 3, 10)),
                llm,
                concurrency=1,
                seed=1,
                sink=records.append,
                today=lambda: date(2027, 3, 10),
                settings=SimulatorSettings(calibration=calibration),
            )
        )
    return records


def test_simulator_ends_conversations_as_the_calibrated_user_would():
    plain = _pizza_conversations(None)
    short = _pizza_conversations(Calibration(turn_counts=(1,)))
    assert max(sum(1 for t in r.turns if t.role == "user") for r in plain) > 1
    assert all(sum(1 for t in r.turns if t.role == "user") == 1 for r in short)
    assert {r.outcome.stopped_because for r in short} == {"finished"}


def test_fidelity_report_says_which_user_is_closer():
    real = measure(SAMPLE)
    report = fidelity_report(real, measure(SAMPLE[:1]), measure(SAMPLE[1:] + SAMPLE[:1]))
    assert report["closer"] is True
    assert report["overall_gap"]["calibrated"] < report["overall_gap"]["uncalibrated"]
    assert "| user turns per conversation |" in fidelity_markdown(report)


# -- profiles that follow real traffic -------------------------------------------------------------------------


def test_traffic_profiles_follow_frequent_and_rare_paths_with_synthetic_values(imported):
    import yaml

    from engine.personal_data import find_pii
    from engine.tracer.deps import sensei_errors
    from engine.tracer.traffic_profiles import MARK, traffic_profiles

    conversations = read_conversations(imported["dir"])
    written = traffic_profiles(conversations, fallback=None, validate=sensei_errors)
    assert {p.kind for p in written} == {"frequent", "rare"}
    assert all(p.valid for p in written), [p.errors for p in written]
    frequent = [p.share for p in written if p.kind == "frequent"]
    rare = [p.share for p in written if p.kind == "rare"]
    assert min(frequent) > max(rare)
    every = "\n".join(p.yaml for p in written)
    assert MARK in every and "[EMAIL_" not in every and "[PHONE_" not in every and "[NAME_" not in every
    data = [yaml.safe_load(p.yaml) for p in written]
    values = [
        value
        for profile in data
        for goal in profile["user"]["goals"]
        if isinstance(goal, dict)
        for variable in goal.values()
        for value in variable["data"]
    ]
    phones = [v for v in values if v.startswith("+44 7700 900")]
    assert phones and all(find_pii(v, ["phone"]) for v in phones)  # synthetic, of the kind that was masked
    requests = next(
        g["request"]["data"] for g in data[0]["user"]["goals"] if isinstance(g, dict) and "request" in g
    )
    top = max(set(requests), key=requests.count)
    assert requests.count(top) > 1  # weighted by how often users typed it


def test_calibrate_cli_writes_a_personality_the_sensei_run_enforces(imported, tmp_path, capsys):
    import yaml

    from cli import main
    from commands.sensei import _calibrated_settings

    target = tmp_path / "personalities" / "calibrated-user.yaml"
    assert main(["transcripts", "calibrate", str(imported["dir"]), "--out", str(target)]) == 0
    assert "leave_after: 2" in capsys.readouterr().out
    document = yaml.safe_load(target.read_text(encoding="utf-8"))
    assert document["parameters"]["leave_after"] == 2 and document["context"]
    assert not [value for value in PLANTED if value in target.read_text(encoding="utf-8")]
    settings = _calibrated_settings(str(target))
    assert settings.calibration.leave_after == 2 and settings.calibration.turn_counts


# -- done-when: every kind of personal data planted, none stored or sent to an LLM -----------------------------

EVERY_KIND = {
    "email": ["ana.lopez@example.com", "j.smith+promo@mail.co.uk"],
    "phone": ["+34 612 345 678", "(555) 123-4567"],
    "card": ["5500-0000-0000-0004", "4111111111111111"],
    "iban": ["ES9121000418450200051332", "GB82WEST12345698765432"],
    "name": ["Lucía", "Fernández", "Carla", "Núñez"],
}


def _planted_chats(path: Path) -> Path:
    lines = []
    for i in range(40):
        first, last = (("Lucía", "Fernández"), ("Carla", "Núñez"))[i % 2]
        turns = [
            ("bot", "Hello! I can book a table or answer questions. What would you like?"),
            ("user", f"book a table please, my name is {first} {last}"),
            ("bot", f"Thanks {first}. What e-mail should we send the confirmation to?"),
            ("user", EVERY_KIND["email"][i % 2]),
            ("bot", "What phone number can we call you on?"),
            ("user", f"call me on {EVERY_KIND['phone'][i % 2]}"),
            ("bot", "Which card secures the booking?"),
            ("user", EVERY_KIND["card"][i % 2]),
            ("bot", "Which IBAN should a refund go to?"),
            ("user", EVERY_KIND["iban"][i % 2]),
            ("bot", f"Booked, {first} {last}. See you soon!"),
        ]
        if i % 5 == 0:
            turns = [("user", "when are you open?"), ("bot", "Every day from noon to 11pm.")]
        lines.append(
            json.dumps(
                {"id": f"chat-{i}", "turns": [{"role": r, "text": t} for r, t in turns]}, ensure_ascii=False
            )
        )
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _leaks(text: str) -> list[str]:
    folded = text.casefold().replace(" ", "").replace("-", "")
    return [
        value
        for values in EVERY_KIND.values()
        for value in values
        if value.casefold().replace(" ", "").replace("-", "") in folded
    ]


def test_every_kind_of_personal_data_planted_is_neither_stored_nor_sent_to_an_llm(tmp_path, capsys):
    from cli import main
    from engine.tracer import TracerConfig
    from engine.tracer.deps import sensei_errors
    from engine.tracer.traffic_profiles import traffic_profiles

    source = _planted_chats(tmp_path / "chats.jsonl")
    assert len(_leaks(source.read_text(encoding="utf-8"))) == sum(len(v) for v in EVERY_KIND.values())
    imported = tmp_path / "imported"
    import_transcripts(source, imported)
    seen: list[str] = []
    out = tmp_path / "model"
    conversations = read_conversations(imported)
    with _recording_llm(seen) as llm:
        built = model_from_transcripts(conversations, llm, config=TracerConfig(output_dir=out), sample=10)
    assert seen and built.model.functionalities
    assert _leaks("\n".join(seen)) == []
    for profile in traffic_profiles(conversations, fallback=None, validate=sensei_errors):
        assert profile.valid, profile.errors
        (out / f"{profile.name}.yaml").write_text(profile.yaml, encoding="utf-8")
        assert "[CARD_" not in profile.yaml and "[IBAN_" not in profile.yaml and "[NAME_" not in profile.yaml
    assert main(["transcripts", "calibrate", str(imported), "--out", str(tmp_path / "calibrated.yaml")]) == 0
    capsys.readouterr()
    stored = [p for p in tmp_path.rglob("*") if p.is_file() and p != source]
    assert len(stored) > 8
    for path in stored:
        assert _leaks(path.read_text(encoding="utf-8", errors="replace")) == [], path


def test_a_profile_using_the_calibrated_personality_is_enforced_by_parley_sensei_run(tmp_path, monkeypatch):
    from cli import main
    from engine.llm.offline.server import running_fake_server
    from engine.sensei.simulator import TAG_USER_TURN

    monkeypatch.setenv("PARLEY_EGRESS_ALLOW", "127.0.0.1")
    (tmp_path / "personalities").mkdir()
    (tmp_path / "personalities" / "calibrated-user.yaml").write_text(
        "context: [You write short messages.]\nparameters: {turn_counts: [2], word_counts: [3]}\n"
    )
    profile = PIZZA_PROFILE.replace(
        "  role: You order", "  context: [{personality: calibrated-user}]\n  role: You order"
    )
    (tmp_path / "profile.yml").write_text(profile)
    (tmp_path / "bot.yml").write_text("technology: demo\nbot: pizza\n")
    script = {TAG_USER_TURN: ["I would like to order a large margherita pizza please"] * 20}
    with running_fake_server(script) as llm:
        main([
            "sensei", "run", str(tmp_path / "profile.yml"), "--connector", str(tmp_path / "bot.yml"),
            "--provider", "openai-compatible", "--base-url", llm.base_url, "--model", "gpt-4o-mini", "--api-key", "k",
            "--concurrency", "1", "--seed", "1", "--out", str(tmp_path / "out"),
        ])  # fmt: skip
    records = [json.loads(p.read_text()) for p in sorted((tmp_path / "out").rglob("0*.json"))]
    assert records
    for record in records:
        users = [t["text"] for t in record["turns"] if t["role"] == "user"]
        assert len(users) == 2 and all(len(text.split()) <= 3 for text in users)


def test_population_cli_writes_test_data_the_import_reads(tmp_path, capsys):
    from cli import main

    assert main(["bots", "population", "bike", "--count", "40", "--out", str(tmp_path / "chats.jsonl")]) == 0
    assert "test data" in capsys.readouterr().out
    summary = import_transcripts(tmp_path / "chats.jsonl", tmp_path / "imported")
    assert summary.conversations == 40 and summary.errors == 0
    assert main(["bots", "population", "nope", "--out", str(tmp_path / "x.jsonl")]) == 2
