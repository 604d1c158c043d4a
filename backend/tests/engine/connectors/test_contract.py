"""The same contract for every registered technology (one shape per kind of component).

A new technology joins ALL, gets a protocol fake, and these tests cover it with no further work."""

from __future__ import annotations

import jsonschema
import pytest

from engine.bots.connector import register_demo_bots
from engine.connectors import (
    BotReply,
    Connector,
    ConnectorConfigError,
    create_connector,
    get_technology,
    technologies,
    technology_names,
)
from tests.doubles.connectors import fake_for, params_for
from tests.engine.connectors.conftest import FAST, NETWORK_TECHNOLOGIES, echo

ALL_NAMES = technology_names()


class InProcessEcho(Connector):
    technology = "demo"

    def __init__(self):
        self.closed = False
        self.turns = 0

    def new_conversation(self):
        self.turns = 0

    def greeting(self):
        return BotReply(messages=["Hi, I am the echo bot."])

    def send(self, text):
        self.turns += 1
        return BotReply(messages=echo("", text).messages)

    def close(self):
        self.closed = True


@pytest.fixture
def demo_bots():
    def factory(bot):
        if bot != "echo":
            raise ConnectorConfigError(f"bot: no reference chatbot is called {bot!r}.", field="bot")
        return InProcessEcho()

    previous = register_demo_bots(factory)
    yield
    register_demo_bots(previous)


def test_the_registry_has_every_technology_of_the_issue():
    assert set(ALL_NAMES) == {"http", "taskyto", "rasa", "millionbot", "langgraph", "openai-chat", "demo"}
    assert len(ALL_NAMES) == len(set(ALL_NAMES))
    assert set(NETWORK_TECHNOLOGIES) == set(ALL_NAMES) - {"demo"}


@pytest.mark.parametrize("name", ALL_NAMES)
def test_parameters_and_schema_agree_and_describe_everything(name):
    technology = get_technology(name)
    schema = technology.json_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    parameters = technology.parameters()
    assert technology.description
    assert [p.name for p in parameters] == list(schema["properties"])
    assert {p.name for p in parameters if p.required} == set(schema.get("required", []))
    for parameter in parameters:
        assert parameter.description, f"{name}.{parameter.name} has no description"
        assert parameter.type in {"string", "integer", "number", "boolean", "object", "array", "any"}
        if parameter.secret:
            assert parameter.default is None  # a secret never has a default to leak
    example = {k: v for k, v in technology.example.items()}
    technology.validate(example)  # the example shown by the CLI is itself valid


@pytest.mark.parametrize("name", ALL_NAMES)
def test_a_missing_required_parameter_is_named(name):
    technology = get_technology(name)
    required = next(p.name for p in technology.parameters() if p.required)
    params = {k: v for k, v in technology.example.items() if k != required}
    with pytest.raises(ConnectorConfigError) as bad:
        technology.validate(params)
    assert bad.value.field == required
    assert required in bad.value.user_message


@pytest.mark.parametrize("name", ALL_NAMES)
def test_an_unknown_parameter_is_refused(name):
    technology = get_technology(name)
    with pytest.raises(ConnectorConfigError, match="colour: not a parameter"):
        technology.validate({**technology.example, "colour": "blue"})


@pytest.mark.parametrize("name", ALL_NAMES)
def test_secrets_are_not_in_the_settings_repr(name):
    technology = get_technology(name)
    secret_names = [p.name for p in technology.parameters() if p.secret]
    if not secret_names:
        pytest.skip("no secret parameters")
    params = dict(technology.example)
    for secret in secret_names:
        params[secret] = {"Authorization": "Bearer top-secret"} if secret == "headers" else "top-secret"
    assert "top-secret" not in repr(technology.validate(params))


@pytest.mark.parametrize("name", ALL_NAMES)
def test_a_conversation_follows_the_protocol(name, local_guard, demo_bots):
    if name == "demo":
        connector = create_connector({"technology": "demo", "bot": "echo"}, local_guard, retry=FAST)
        _converse(connector)
        return
    server, extra = fake_for(name, echo)
    with server:
        _converse(create_connector(params_for(name, server, extra), local_guard, retry=FAST))


def _converse(connector):
    assert isinstance(connector, Connector)
    with connector:
        connector.new_conversation()
        greeting = connector.greeting()
        assert greeting is None or isinstance(greeting, BotReply)
        first = connector.send("hello")
        second = connector.send("how are you?")
        assert first.messages == ["You said: hello"]
        assert second.messages == ["You said: how are you?"]
        assert BotReply.model_validate_json(first.model_dump_json()) == first  # storable as JSON
        connector.new_conversation()
        assert connector.send("again").messages == ["You said: again"]
    connector.close()  # closing twice is harmless


def test_demo_reaches_the_reference_bots_and_names_an_unknown_one(local_guard):
    with create_connector({"technology": "demo", "bot": "pizza"}, local_guard) as pizza:
        pizza.new_conversation()
        first = pizza.greeting() or pizza.send("hello")
        assert first.messages
    with pytest.raises(ConnectorConfigError, match="no-such-bot"):
        create_connector({"technology": "demo", "bot": "no-such-bot"}, local_guard).new_conversation()


def test_technologies_lists_in_a_stable_order():
    assert [t.name for t in technologies()] == ALL_NAMES
