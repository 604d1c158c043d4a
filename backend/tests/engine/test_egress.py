"""The egress guard refuses non-public destinations, names what it refused, and connects where it checked."""

import asyncio
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer

import httpx
import pytest

from engine.egress import EgressDenied, EgressGuard, EgressPolicy, guarded_async_client, guarded_client

PUBLIC = "93.184.215.14"


class FakeDNS:
    """An injected resolver: answers from a table and records every question."""

    def __init__(self, table):
        self.table = table
        self.asked = []

    def __call__(self, host, port):
        self.asked.append(host)
        if host not in self.table:
            raise OSError("Name or service not known")
        return self.table[host]


@pytest.mark.parametrize(
    ("url", "category"),
    [
        ("http://127.0.0.1/", "loopback"),
        ("http://10.0.0.1/", "private"),
        ("http://169.254.169.254/latest/meta-data/", "cloud metadata"),
        ("http://[::1]:8080/", "loopback"),
        ("http://[::ffff:127.0.0.1]/", "loopback"),
        ("http://0.0.0.0/", "unspecified"),
        ("http://100.64.0.1/", "not publicly routable"),
        ("http://[fd00:ec2::254]/", "cloud metadata"),
    ],
)
def test_non_public_addresses_are_refused_before_any_connection(url, category):
    dns = FakeDNS({})
    with guarded_client(EgressGuard(resolver=dns)) as client, pytest.raises(EgressDenied) as refused:
        client.get(url)
    assert category in refused.value.user_message
    assert "PARLEY_EGRESS_ALLOW" in refused.value.user_message


def test_a_name_resolving_to_a_private_address_is_refused_and_named():
    dns = FakeDNS({"bot.internal.example": ["10.1.2.3"]})
    with guarded_client(EgressGuard(resolver=dns)) as client, pytest.raises(EgressDenied) as refused:
        client.get("https://bot.internal.example/chat")
    assert "bot.internal.example (10.1.2.3)" in refused.value.user_message


def test_one_private_answer_among_public_ones_is_enough_to_refuse():
    guard = EgressGuard(resolver=FakeDNS({"mixed.example": [PUBLIC, "192.168.1.5"]}))
    with pytest.raises(EgressDenied):
        guard.resolve("mixed.example", 443)


def test_a_public_name_resolves_to_the_address_that_will_be_used():
    guard = EgressGuard(resolver=FakeDNS({"api.example": [PUBLIC]}))
    assert guard.resolve("api.example", 443) == PUBLIC


def test_allowed_networks_and_hosts_pass():
    policy = EgressPolicy.parse("10.0.0.0/8, bot.lan, ::1")
    guard = EgressGuard(policy, resolver=FakeDNS({"bot.lan": ["192.168.7.7"]}))
    assert guard.resolve("10.9.8.7", 80) == "10.9.8.7"
    assert guard.resolve("bot.lan", 80) == "192.168.7.7"
    assert guard.resolve("::1", 80) == "::1"
    with pytest.raises(EgressDenied):
        guard.resolve("192.168.0.1", 80)


def test_a_malformed_allow_list_entry_is_a_clear_error():
    with pytest.raises(ValueError, match="neither a host name nor a CIDR"):
        EgressPolicy.parse("10.0.0.0/33")


def test_an_unresolvable_name_is_a_connection_error():
    with (
        guarded_client(EgressGuard(resolver=FakeDNS({}))) as client,
        pytest.raises(httpx.ConnectError, match="nowhere"),
    ):
        client.get("http://nowhere.example/")


class _Handler(BaseHTTPRequestHandler):
    def do_GET(self):
        if self.path == "/redirect-private":
            self.send_response(302)
            self.send_header("Location", "http://internal.example/admin")
            self.end_headers()
            return
        if self.path == "/redirect-loopback":
            self.send_response(302)
            self.send_header("Location", "http://127.0.0.2/")
            self.end_headers()
            return
        body = f"host={self.headers['Host']}".encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture
def local_server():
    server = HTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server.server_address[1]
    server.shutdown()


def test_the_connection_goes_to_the_vetted_address_with_the_original_host_header(local_server):
    # "chatbot.example" is allowed by name and resolves to our local server: the request must reach the
    # address the guard returned, while the chatbot still sees its own host name.
    dns = FakeDNS({"chatbot.example": ["127.0.0.1"]})
    guard = EgressGuard(EgressPolicy.parse("chatbot.example"), resolver=dns)
    with guarded_client(guard) as client:
        response = client.get(f"http://chatbot.example:{local_server}/")
    assert response.text == f"host=chatbot.example:{local_server}"
    assert dns.asked == ["chatbot.example"]


@pytest.mark.parametrize(
    ("path", "refused"), [("/redirect-private", "10.20.30.40"), ("/redirect-loopback", "127.0.0.2")]
)
def test_redirects_are_checked_again(local_server, path, refused):
    dns = FakeDNS({"chatbot.example": ["127.0.0.1"], "internal.example": ["10.20.30.40"]})
    guard = EgressGuard(EgressPolicy.parse("chatbot.example"), resolver=dns)
    with guarded_client(guard, follow_redirects=True) as client, pytest.raises(EgressDenied) as denied:
        client.get(f"http://chatbot.example:{local_server}{path}")
    assert refused in denied.value.user_message


def test_the_async_client_is_guarded_too(local_server):
    async def main():
        async with guarded_async_client(EgressGuard(resolver=FakeDNS({}))) as client:
            await client.get(f"http://127.0.0.1:{local_server}/")

    with pytest.raises(EgressDenied):
        asyncio.run(main())


def test_proxies_from_the_environment_are_ignored(monkeypatch):
    monkeypatch.setenv("HTTP_PROXY", "http://10.0.0.1:3128")
    with guarded_client(EgressGuard()) as client:
        assert client._trust_env is False
