"""Workflow validation, exploration order, profile assembly and the repair loop, node by node."""

from __future__ import annotations

from datetime import date
from typing import Any

from langgraph.checkpoint.memory import InMemorySaver

from engine.sensei.validator import validate
from engine.tracer import TracerConfig
from engine.tracer.graph import build_graph
from engine.tracer.model import (
    Functionality,
    FunctionalModel,
    Output,
    Parameter,
    ProfileDraft,
    VariableDraft,
    WorkflowAnswer,
    WorkflowNode,
)
from engine.tracer.profiles import (
    assemble,
    conversation_settings,
    data_sources,
    dump_yaml,
    listed_items,
    validated,
    variable_definition,
)
from engine.tracer.similarity import common_reply, fallback_similarity, sounds_like_assistant
from engine.tracer.workflow import apply_workflow

from .conftest import BotConnector, make_deps, scripted_client


def _nodes(*names: str) -> FunctionalModel:
    return FunctionalModel(functionalities=[Functionality(name=n, description=n) for n in names])


def test_workflow_validation_drops_unknown_parents_breaks_cycles_keeps_joins_reuses_categories() -> None:
    model = _nodes("start", "pick_size", "pick_type", "pay", "left_out")
    model.get("left_out").parents = ["start"]  # type: ignore[union-attr]
    answer = WorkflowAnswer(
        nodes=[
            WorkflowNode(name="start", parents=["pay"], category="Ordering"),
            WorkflowNode(name="Pick Size", parents=["start", "nowhere"], category="ordering"),
            WorkflowNode(name="pick_type", parents=["start", "pick_type"], category="Ordering "),
            WorkflowNode(name="pay", parents=["pick_size", "pick_type"], category="Payment"),
            WorkflowNode(name="invented", parents=[], category="X"),
        ]
    )
    warnings = apply_workflow(model, answer)
    assert set(model.edges()) == {
        ("start", "pick_size"),
        ("start", "pick_type"),
        ("pick_size", "pay"),
        ("pick_type", "pay"),
        ("start", "left_out"),
    }
    assert model.joins() == ["pay"]
    assert model.categories() == ["Ordering", "Payment", "Uncategorised"]
    text = " ".join(warnings)
    for expected in ("nowhere", "invented", "own parent", "cycle", "left out"):
        assert expected in text


def test_select_is_depth_first_and_explored_nodes_cost_no_session() -> None:
    client, _ = scripted_client({})
    deps = make_deps(client, BotConnector("bike"), TracerConfig(sessions=5))
    graph = build_graph(deps).compile(checkpointer=InMemorySaver())
    state: dict[str, Any] = {
        "model": _nodes("a", "b", "c").model_dump(mode="json"),
        "sessions_done": 1,
        "queue": ["a", "b", "c", "gone"],
        "explored": ["c"],
    }
    command = graph.nodes["select"].invoke(state)
    # "gone" vanished and "c" was explored: skipped without a session; "b" is the top of the stack.
    assert command.goto == "converse"
    assert command.update == {"focus": "b", "queue": ["a"]}
    done = graph.nodes["select"].invoke({**state, "sessions_done": 5})
    assert done.goto == "consolidate"


def test_data_sources_and_variable_definitions() -> None:
    model = FunctionalModel(
        functionalities=[
            Functionality(name="ask_size", parameters=[Parameter(name="size", options=["small", "large"])]),
            Functionality(
                name="menu",
                outputs=[Output(name="drinks", description="drinks on offer: coke, water or lemonade")],
            ),
        ]
    )
    sources = data_sources(model)
    assert [(s.id, s.values) for s in sources] == [
        ("DS1", ("small", "large")),
        ("DS2", ("coke", "water", "lemonade")),
    ]
    by_id = {s.id: s for s in sources}
    today = date(2026, 3, 2)
    assert variable_definition(VariableDraft(name="s", source="ds2", out_of_range="fanta"), by_id, today)[
        "data"
    ] == ["coke", "water", "lemonade", "fanta"]
    assert variable_definition(VariableDraft(name="n", kind="integer", minimum=1, maximum=4), by_id, today)[
        "data"
    ] == {"min": 1, "max": 4, "step": 1}
    assert variable_definition(VariableDraft(name="d", kind="date"), by_id, today) == {
        "function": "forward()",
        "type": "date",
        "data": ["2026-03-03", "2026-03-05", "2026-03-10"],
    }
    assert listed_items("opening hours") == []
    settings = conversation_settings(
        ["g1", "g2"], 3, [{"data": [1, 2, 3, 4, 5]}, {"data": {"min": 1, "max": 10, "step": 1}}]
    )
    assert settings == {
        "number": 10,
        "max_cost": 1.5,
        "goal_style": {"steps": 15},
        "interaction_style": ["single question"],
    }


def test_assembled_profile_is_canonical_and_valid() -> None:
    client, _ = scripted_client({})
    deps = make_deps(client, BotConnector("bike"), TracerConfig(profile_model="gpt-4.1-mini"))
    model = FunctionalModel(
        languages=["English"],
        fallback="Sorry?",
        greets_first=True,
        functionalities=[
            Functionality(name="book", parameters=[Parameter(name="service", options=["repair", "tune-up"])])
        ],
    )
    draft = ProfileDraft(
        goals=["Book a {{ Service Kind }} for {{day}} with {{bikes}} bikes"],
        variables=[
            VariableDraft(name="service_kind", source="DS1", out_of_range="paint job"),
            VariableDraft(name="day", kind="date", values=["2026-04-01"]),
            VariableDraft(name="bikes", kind="integer", minimum=1, maximum=3),
        ],
        context=["You ride to work."],
        outputs=[{"name": "Start Price", "type": "money", "description": "starting price of the service"}],  # type: ignore[list-item]
    )
    data = assemble(
        deps,
        model,
        {"name": "Bike owner", "role": "You want your bike fixed."},
        draft,
        data_sources(model),
        0,
    )
    text = dump_yaml(data)
    result = validate(text)
    assert result.ok, result.problems
    assert not result.warnings, result.warnings
    assert list(data) == ["test_name", "llm", "user", "chatbot", "conversation"]
    assert data["chatbot"] == {
        "is_starter": True,
        "fallback": "Sorry?",
        "output": [{"start_price": {"type": "money", "description": "starting price of the service"}}],
    }
    assert data["user"]["goals"][0] == "Book a {{service_kind}} for {{day}} with {{bikes}} bikes"


VALID = """test_name: fixed
llm: {model: m, temperature: 0.5, format: {type: text}}
user:
  language: English
  role: a user
  context: [You are polite.]
  goals: [ask for the opening hours]
chatbot: {is_starter: false, output: []}
conversation: {number: 1, goal_style: {steps: 15}, interaction_style: [single question]}
"""


def test_repair_loop_fixes_or_gives_up_after_two_rounds() -> None:
    broken = VALID.replace("[ask for the opening hours]", '["ask for {{thing}}"]')
    client, chat = scripted_client(
        {"tracer.repair": [{"json": {"yaml": broken}}, {"json": {"yaml": f"```yaml\n{VALID}```"}}]}
    )
    deps = make_deps(client, BotConnector("bike"))
    text, errors, rounds = validated(deps, "p", broken)
    assert (errors, rounds) == ([], 2)
    assert text.startswith("test_name: fixed")

    client, chat = scripted_client({"tracer.repair": {"json": {"yaml": broken}}})
    deps = make_deps(client, BotConnector("bike"))
    text, errors, rounds = validated(deps, "p", broken)
    assert rounds == 2 and errors and "thing" in errors[0]
    assert len(chat.calls_for("tracer.repair")) == 2


def test_invalid_profile_goes_to_invalid_profiles(tmp_path: Any) -> None:
    from engine.tracer.artefacts import write_artefacts

    record = {
        "name": "Broken",
        "filename": "broken.yaml",
        "valid": False,
        "yaml": "x: 1\n",
        "errors": ["bad"],
        "repair_rounds": 2,
    }
    ok = {
        "name": "Fine",
        "filename": "fine.yaml",
        "valid": True,
        "yaml": VALID,
        "errors": [],
        "repair_rounds": 0,
    }
    notes = write_artefacts(tmp_path, _nodes("a"), [record, ok], [], [], duration_s=3.0, warnings=[])  # type: ignore[list-item]
    assert (tmp_path / "invalid_profiles" / "broken.yaml").is_file()
    assert (tmp_path / "invalid_profiles" / "broken.errors.txt").read_text() == "bad\n"
    assert [p.name for p in (tmp_path / "profiles").iterdir()] == ["fine.yaml"]
    report = (tmp_path / "report.md").read_text()
    assert "INVALID" in report
    assert any("graph.svg" in n for n in notes) == (not (tmp_path / "graph.svg").exists())


def test_local_checks() -> None:
    fallback = "Sorry, I didn't understand that. Could you say it another way?"
    assert fallback_similarity(fallback + "\nOptions: a | b", fallback) == 1.0
    assert fallback_similarity("Your visit is booked for Monday at 10:00.", fallback) < 0.55
    assert common_reply([fallback, fallback, "Something else entirely"]) == fallback
    assert common_reply(["a b c", "d e f", "g h i"]) is None
    assert sounds_like_assistant("Sure! How can I help you today?")
    assert sounds_like_assistant("1. Pizza\n2. Drinks\n3. Desserts")
    assert not sounds_like_assistant("I'd like a large margherita please")


def test_the_report_keeps_outputs_and_links_out_of_the_parameter_list():
    """Rendered as Markdown (as the dashboard does), a functionality's outputs and links are not swallowed by
    the list before them."""
    from markdown_it import MarkdownIt

    from engine.tracer.artefacts import report_md
    from engine.tracer.model import Functionality, FunctionalModel, Output, Parameter

    node = Functionality(
        name="order_pizza",
        description="Takes an order.",
        parameters=[Parameter(name="size", description="the size", options=["small", "large"])],
        outputs=[Output(name="price", description="the total")],
        parents=["greet"],
    )
    text = report_md(
        FunctionalModel(functionalities=[Functionality(name="greet"), node]),
        [],
        [],
        {"calls": 0, "prompt_tokens": 0, "completion_tokens": 0, "cost_usd": 0.0, "by_step": {}},
        duration_s=1.0,
        notes=[],
    )
    tokens = MarkdownIt().parse(text)
    inside_items = []
    depth = 0
    for token in tokens:
        depth += {"list_item_open": 1, "list_item_close": -1}.get(token.type, 0)
        if depth and token.type == "inline":
            inside_items.append(token.content)
    assert any("`size`" in item for item in inside_items)
    assert not [
        item for item in inside_items if "Outputs:" in item or "After:" in item or "Leads to:" in item
    ]
