"""The offline provider reads TRACER's structured calls by their tag, their response schema and the format of
their data, not by the wording of TRACER's prompts: reworded analysis prompts get the same answers.

The double runs with every slip off: the imperfect one draws its slips from a seed that includes the prompt's
text (a model at temperature 0 answers a reworded prompt a little differently too); what must not change is its
reading of the call. The explorer's turns are plain text, led by instructions: `CUES` names what it reads there,
and the last test fails when a prompt no longer carries it.
"""

from __future__ import annotations

import pytest
from langgraph.checkpoint.memory import InMemorySaver

from engine.llm.offline.script import Reply
from engine.llm.offline.tracer import CUES, Imperfection, TracerDouble
from engine.tracer import TracerConfig, TracerJob, prompts, run_tracer
from engine.tracer.model import FallbackVerdict
from engine.tracer.prompts import Prompt
from tests.engine.recording import recording

from .conftest import BotConnector, imperfect_client, make_deps

# Every slip off but the explorer's assistant voice (plain turns, not reworded here), so rewrites are asked for.
TIDY = Imperfection(**{**dict.fromkeys(Imperfection.__dataclass_fields__, 0.0), "assistant_voice": 0.5})

REWORDED = {
    "EXTRACT": (
        'A customer ("User") talked with a chatbot ("Chatbot"); list the steps the chatbot showed, named in '
        "snake_case, with what it asked for, the choices it offered and what it told.{focus}\n{known}\n"
        "{transcript}\n\nLeave out greetings and misunderstandings."
    ),
    "KNOWN_IN_EXTRACTION": (
        "\nNames found before (reuse the name when the step comes back):\n{functionalities}\n"
    ),
    "CONSOLIDATE": (
        "One chatbot, several conversations: two names may stand for one step.\n\nThe steps:\n"
        "{functionalities}\n\nTo decide:\n{questions}\n\nFor each, the number of the candidate that is the "
        "same step, or null."
    ),
    "FALLBACK_CHECK": (
        'When lost, the chatbot says:\n"{fallback}"\n\nA person said: "{message}"\nIts answer: '
        '"{reply}"\n\nIs the answer a sign it did not understand?'
    ),
    "REWRITE_TURN": (
        'The customer\'s message below sounds like the assistant:\n"{message}"\n\nThe chatbot had said:\n'
        '"{last_reply}"\n\nWrite it again as the customer would, in {language}.'
    ),
    "CLASSIFY": (
        "What the chatbot did:\n\n{functionalities}\n\nSome of the conversations:\n{snippets}\n\n"
        "Transactional or informational?"
    ),
    "GROUP_PROFILES": (
        "The steps of a {chatbot_type} chatbot, in order:\n\n{functionalities}\n\nA conversation:\n{snippets}\n\n"
        "At most {max_profiles} users, one purpose each ({strategy}), covering every step."
    ),
}


def _answers_of_a_run(bot_id: str) -> list[tuple[str, Reply | None]]:
    """Every answer to TRACER's analysis calls in a short run on `bot_id`, in order."""
    double = TracerDouble(seed=1, imperfection=TIDY)
    watched = [tag for tag in double.responders() if tag not in ("tracer.explore", "tracer.probe")]
    overrides, answers = recording(double.responders(), watched)
    client, _ = imperfect_client(double, overrides=overrides)
    run_tracer(
        TracerJob(
            TracerConfig(sessions=4, turns=6, seed=1),
            make_deps(client, BotConnector(bot_id)),
            run_id=f"wording-{bot_id}",
            checkpointer=InMemorySaver(),
        )
    )
    return answers


@pytest.mark.parametrize("bot_id", ["pizza", "veterinary"])
def test_reworded_analysis_prompts_get_the_same_answers(bot_id: str, monkeypatch: pytest.MonkeyPatch) -> None:
    before = _answers_of_a_run(bot_id)
    # The test can fail: the run extracted functionalities and asked the other analysis calls.
    assert any(reply["json"]["functionalities"] for tag, reply in before if tag == "tracer.extract")  # type: ignore[index]
    asked = {"tracer.rewrite", "tracer.consolidate", "tracer.classify", "tracer.workflow", "tracer.group"}
    assert asked | {"tracer.profiles"} <= {tag for tag, _ in before}

    for name, text in REWORDED.items():
        monkeypatch.setattr(prompts, name, Prompt(getattr(prompts, name).name, "reworded", text))
    assert _answers_of_a_run(bot_id) == before


@pytest.mark.parametrize("text", [prompts.FALLBACK_CHECK.text, REWORDED["FALLBACK_CHECK"]])
def test_the_fallback_check_reads_the_reply_whatever_the_wording(text: str) -> None:
    double = TracerDouble(seed=0, imperfection=TIDY)
    client, _ = imperfect_client(double)

    def is_fallback(reply: str) -> bool:
        filled = text.format(fallback="Sorry, I didn't catch that.", message="a large one", reply=reply)
        return bool(client.structured([("user", filled)], FallbackVerdict, tag="tracer.fallback").is_fallback)

    assert is_fallback("Sorry, I didn't catch that. We have pizzas and drinks.")
    assert not is_fallback("A large pizza, great. Which toppings would you like?")


def test_every_cue_the_offline_provider_reads_is_still_in_tracer_s_prompts() -> None:
    templates = {prompt.name: prompt.text.replace("{language}", "Spanish") for prompt in prompts.ALL}
    for cue, (template, words) in CUES.items():
        assert words in templates[template], f"{cue}: {words!r} is no longer in the {template} prompt"
