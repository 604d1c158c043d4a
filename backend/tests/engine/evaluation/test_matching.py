"""Precision and recall you can audit: every match listed with its evidence, by a judge model or, labelled an
approximation, by word overlap; the cost estimate; the thesis's figures printed beside ours."""

from __future__ import annotations

from typing import Any

from engine.bots import load_bot
from engine.egress import EgressGuard
from engine.evaluation import BenchConfig
from engine.evaluation.estimate import estimate_bench
from engine.evaluation.matching import LEXICAL_NOTE, TAG_MATCH, precision_recall
from engine.evaluation.prompts import MATCH_FUNCTIONALITIES
from engine.llm import LLMClient, Price, ProviderConfig, RetryPolicy
from engine.llm.offline import ScriptedChatModel
from engine.tracer.model import Functionality, FunctionalModel, Parameter

MODEL = FunctionalModel(
    languages=["English"],
    functionalities=[
        Functionality(
            name="schedule_workshop_visit",
            description="books a slot for the bike",
            parameters=[Parameter(name="kind_of_work", options=["repair", "tune-up"])],
        ),
        Functionality(name="tell_tyre_cost", description="says what a new tyre costs"),
        Functionality(name="book_bike_slot", description="books the bike in"),
        Functionality(name="sell_bikes", description="sells new bikes"),
    ],
)

JUDGED = {
    "matches": [
        {
            "functionality": "schedule_workshop_visit",
            "item": "book_service",
            "inputs": ["book_service.service"],
            "evidence": "booking a workshop slot is the book_service form",
        },
        {"functionality": "tell_tyre_cost", "item": "bike_faq/tire_price", "evidence": "tyre = tire"},
        {"functionality": "book_bike_slot", "item": "book_service", "evidence": "the same booking again"},
        {"functionality": "sell_bikes", "item": None, "evidence": "the shop sells no bikes"},
    ]
}


def judge(script: dict[str, Any]) -> tuple[LLMClient, ScriptedChatModel]:
    chat = ScriptedChatModel(script)
    client = LLMClient(
        ProviderConfig("openai", api_key="sk-test", model="gpt-4o-mini"),
        guard=EgressGuard(),
        chat_model=chat,
        retry=RetryPolicy(max_attempts=1, initial_delay_s=0, max_delay_s=0, jitter_s=0, max_total_s=1),
    )
    return client, chat


def test_a_judge_model_decides_the_matches_and_says_why() -> None:
    client, chat = judge({TAG_MATCH: {"json": JUDGED}})
    result = precision_recall(MODEL, load_bot("bike"), matcher="llm", llm=client)
    assert result["matcher"] == "llm"
    assert [(m["functionality"], m["match"], m["verdict"]) for m in result["matches"]] == [
        ("schedule_workshop_visit", "book_service", "real"),
        ("tell_tyre_cost", "bike_faq/tire_price", "real"),
        ("book_bike_slot", "book_service", "duplicate"),
        ("sell_bikes", None, "not_real"),
    ]
    assert result["matches"][1]["evidence"] == "tyre = tire"
    assert (result["true_positives"], result["duplicates"], result["not_real"]) == (2, 1, 1)
    assert result["precision"] == 50.0
    assert result["recall_inputs"][0] == 1  # the judge said the parameter asks for book_service.service
    prompt = str(chat.calls_for(TAG_MATCH)[0])
    assert "book_service.service (input)" in prompt and "- sell_bikes: sells new bikes" in prompt
    assert MATCH_FUNCTIONALITIES.name == "match_functionalities"


def test_the_lexical_matcher_is_labelled_an_approximation_and_stands_in_when_the_judge_fails() -> None:
    client, _ = judge({TAG_MATCH: {"fault": "server_error", "status": 500}})
    warnings: list[str] = []
    result = precision_recall(MODEL, load_bot("bike"), matcher="llm", llm=client, warn=warnings.append)
    assert result["matcher"] == "lexical"
    assert result["matcher_note"] == LEXICAL_NOTE and "approximation" in LEXICAL_NOTE
    assert warnings and "lexical matcher stands in" in warnings[0]
    # Word overlap misses the paraphrase ("schedule workshop visit" is the booking form): what a judge is for.
    verdicts = {m["functionality"]: m["verdict"] for m in result["matches"]}
    assert verdicts["schedule_workshop_visit"] == "not_real"
    assert all("overlap" in m["evidence"] for m in result["matches"])


def test_the_estimate_counts_every_run_and_prices_it() -> None:
    config = BenchConfig(bots=("pizza", "bike"), sessions=10, turns=8, repeats=3, controls=1, matcher="llm")
    estimate = estimate_bench(config, Price(0.4, 1.6), {"pizza": 30, "bike": 20})
    # 3 repeats x (original + mutants + control) x 30 conversations per run.
    assert estimate.conversations == 3 * (1 + 30 + 1) * 30 + 3 * (1 + 20 + 1) * 30
    assert estimate.cost_usd is not None and estimate.upper_usd == round(2 * estimate.cost_usd, 4)
    assert estimate.cost_usd == round(
        Price(0.4, 1.6).cost(estimate.prompt_tokens, estimate.completion_tokens), 4
    )
    assert "about $" in estimate.describe("gpt-4.1-mini")
    assert estimate_bench(config, None, {}).cost_usd is None
    assert "no price" in estimate_bench(config, None, {}).describe("my-model")
