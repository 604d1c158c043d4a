"""A chatbot's or an LLM server's base URL is checked when it is saved, as the egress guard will check it: an IP
address outside PARLEY_EGRESS_ALLOW, in any form (octal, hex, integer, IPv4-mapped IPv6), is a 400 naming the
field — and no DNS lookup is made by the API; a host name is saved and checked by the guard at run time."""

from __future__ import annotations

import socket

import pytest

from tests.engine.connectors.conftest import NETWORK_TECHNOLOGIES
from tests.engine.connectors.test_egress import minimal_params

pytestmark = pytest.mark.django_db

FORMS_OF_127_0_0_3 = ["0177.0.0.3", "0x7f.0.0.3", "2130706435", "[::ffff:127.0.0.3]"]


@pytest.fixture(autouse=True)
def no_dns(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError(f"the API looked up {args[0]!r}")

    monkeypatch.setattr(socket, "getaddrinfo", refuse)


def save_connector(api, technology, base_url, *, name="bot"):
    params = {k: v for k, v in minimal_params(technology, base_url).items() if k != "technology"}
    return api.post(
        "/api/connectors/", {"name": name, "technology": technology, "params": params}, format="json"
    )


@pytest.mark.parametrize("technology", NETWORK_TECHNOLOGIES)
@pytest.mark.parametrize("form", FORMS_OF_127_0_0_3)
def test_every_form_of_a_loopback_address_is_refused_on_save_for_every_technology(auth_api, technology, form):
    response = save_connector(auth_api, technology, f"http://{form}:18090")
    assert response.status_code == 400, response.json()
    [message] = response.json()["fields"]["params.base_url"]
    assert message.startswith("base_url:") and "127.0.0.3" in message and "loopback" in message
    assert "PARLEY_EGRESS_ALLOW" in message


@pytest.mark.parametrize("technology", NETWORK_TECHNOLOGIES)
def test_an_address_the_operator_allows_is_saved_in_any_form(auth_api, settings, technology):
    settings.EGRESS_ALLOW = ["127.0.0.0/8"]
    for index, form in enumerate(FORMS_OF_127_0_0_3):
        response = save_connector(auth_api, technology, f"http://{form}:18090", name=f"bot {index}")
        assert response.status_code == 201, (form, response.json())


def test_a_host_name_is_saved_without_a_lookup_and_left_to_the_guard(auth_api):
    response = save_connector(auth_api, "taskyto", "http://bot.internal.example:5000")
    assert response.status_code == 201, response.json()


def test_an_update_to_a_refused_address_is_refused_too(auth_api):
    created = save_connector(auth_api, "taskyto", "https://bot.example.com")
    assert created.status_code == 201
    response = auth_api.patch(
        f"/api/connectors/{created.json()['id']}/",
        {"params": {"base_url": "http://0x7f.0.0.3:18090"}},
        format="json",
    )
    assert response.status_code == 400
    assert "127.0.0.3" in response.json()["fields"]["params.base_url"][0]


def test_a_connector_file_with_a_refused_address_is_refused(auth_api):
    text = "technology: rasa\nbase_url: http://2130706435:5005\n"
    response = auth_api.post("/api/connectors/", {"name": "r", "yaml": text}, format="json")
    assert response.status_code == 400
    assert "127.0.0.3" in response.json()["fields"]["params.base_url"][0]


def test_validating_a_connector_reports_a_refused_address_as_a_problem(auth_api):
    body = {"technology": "taskyto", "params": {"base_url": "http://0177.0.0.3:18090"}}
    response = auth_api.post("/api/connectors/validate/", body, format="json")
    assert response.status_code == 200
    assert response.json()["valid"] is False
    [problem] = response.json()["problems"]
    assert problem["path"] == "base_url" and "127.0.0.3" in problem["message"]


def test_a_host_in_no_valid_form_is_a_400_naming_the_field(auth_api):
    response = save_connector(auth_api, "taskyto", "http://1.2.3.4.5:80")
    assert response.status_code == 400
    assert "1.2.3.4.5" in response.json()["fields"]["params.base_url"][0]


def create_key(api, base_url, name="local"):
    body = {"name": name, "provider": "openai-compatible", "key": "", "base_url": base_url}
    return api.post("/api/keys/", body, format="json")


@pytest.mark.parametrize("form", FORMS_OF_127_0_0_3)
def test_every_form_of_a_loopback_address_is_refused_as_an_llm_base_url(auth_api, form):
    response = create_key(auth_api, f"http://{form}:11434/v1")
    assert response.status_code == 400, response.json()
    [message] = response.json()["fields"]["base_url"]
    assert "127.0.0.3" in message and "loopback" in message


def test_a_local_model_server_the_operator_allows_is_saved_in_any_form(auth_api, settings):
    settings.EGRESS_ALLOW = ["127.0.0.1"]
    for index, form in enumerate(["127.0.0.1", "0177.0.0.1", "0x7f.1", "2130706433", "[::ffff:127.0.0.1]"]):
        response = create_key(auth_api, f"http://{form}:11434/v1", name=f"local {index}")
        assert response.status_code == 201, (form, response.json())
    refused = create_key(auth_api, "http://0177.0.0.3:11434/v1", name="neighbour")
    assert refused.status_code == 400  # allowing 127.0.0.1 allows no other loopback address


def test_a_public_llm_server_by_name_is_saved_without_a_lookup(auth_api):
    assert create_key(auth_api, "https://llm.example.com/v1").status_code == 201
