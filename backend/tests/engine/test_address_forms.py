"""Every way of writing an address reaches the guard as the one address it names (engine.egress.canonical_host):
octal, hex, integer and short IPv4 (inet_aton's forms), IPv6 with brackets, zone ids and mapped IPv4, IDNA's
full-width digits and names, trailing dots and userinfo. A property test writes each address in random forms and
checks that the guard decides on all of them as on the plain one; no form is a crash."""

from __future__ import annotations

import ipaddress

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from engine.egress import (
    EgressDenied,
    EgressGuard,
    EgressPolicy,
    InvalidAddress,
    address_category,
    canonical_host,
    canonical_url,
    refusal,
)

FULL_WIDTH = str.maketrans({**{str(d): chr(0xFF10 + d) for d in range(10)}, ".": "\uff0e"})


def _number(value: int, style: str) -> str:
    return {"dec": str(value), "oct": "0" + format(value, "o"), "hex": "0x" + format(value, "x")}[style]


@st.composite
def ipv4_forms(draw: st.DrawFn) -> tuple[ipaddress.IPv4Address, str]:
    """An IPv4 address and one of the ways inet_aton reads it: 4, 3, 2 or 1 parts, each decimal, octal or hex."""
    address = ipaddress.IPv4Address(draw(st.integers(0, 2**32 - 1)))
    octets = list(address.packed)
    parts_count = draw(st.sampled_from([4, 3, 2, 1]))
    # The last part holds the remaining bytes as one number (a.b.c.d, a.b.cd, a.bcd, abcd).
    head = octets[: parts_count - 1]
    tail = int.from_bytes(bytes(octets[parts_count - 1 :]), "big")
    styles = st.sampled_from(["dec", "oct", "hex"])
    form = ".".join(_number(value, draw(styles)) for value in [*head, tail])
    if draw(st.booleans()):
        form = form.upper()  # 0X7F is read like 0x7f
    if draw(st.booleans()):
        form += "."  # the root's trailing dot
    return address, form


@st.composite
def ipv6_forms(draw: st.DrawFn) -> tuple[ipaddress.IPv6Address, str]:
    address = ipaddress.IPv6Address(draw(st.integers(0, 2**128 - 1)))
    form = draw(st.sampled_from([address.compressed, address.exploded, address.exploded.upper()]))
    return address, form


def _decided(url: str) -> str | None:
    return refusal(url, EgressPolicy())


@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow])
@given(ipv4_forms(), st.integers(1, 65535), st.booleans())
@example((ipaddress.IPv4Address("127.0.0.3"), "0177.0.0.3"), 18090, False)
@example((ipaddress.IPv4Address("127.0.0.3"), "0x7f.0.0.3"), 18090, False)
@example((ipaddress.IPv4Address("127.0.0.3"), "2130706435"), 18090, True)
@example((ipaddress.IPv4Address("127.0.0.1"), "127.1"), 80, False)
def test_every_ipv4_form_is_decided_as_the_address_it_names(written, port, userinfo):
    address, form = written
    assert canonical_host(form) == str(address)
    url = f"http://{'user:pw@' if userinfo else ''}{form}:{port}/chat"
    assert canonical_url(url) == f"http://{'user:pw@' if userinfo else ''}{address}:{port}/chat"
    refused = _decided(url)
    assert (refused is not None) == (address_category(address) is not None)
    if refused:
        assert str(address) in refused and "PARLEY_EGRESS_ALLOW" in refused


@settings(max_examples=200)
@given(ipv4_forms())
def test_full_width_digits_are_read_as_the_digits_they_map_to(written):
    address, form = written
    if any(c.isalpha() for c in form):
        form = str(address)  # IDNA maps full-width digits and dots; hex letters stay as they are
    assert canonical_host(form.translate(FULL_WIDTH)) == str(address)


@settings(max_examples=300)
@given(ipv6_forms(), st.booleans())
def test_every_ipv6_form_is_decided_as_the_address_it_names(written, zone):
    address, form = written
    if zone:
        form += "%25eth0"  # a zone id, percent-encoded as a URL writes it
    url = f"http://[{form}]:8080/"
    host = canonical_host(f"[{form}]")
    assert ipaddress.IPv6Address(host.partition("%")[0]) == address
    refused = _decided(url)
    assert (refused is not None) == (address_category(address) is not None)


@settings(max_examples=200)
@given(ipv4_forms())
def test_an_ipv4_mapped_ipv6_address_is_decided_as_the_ipv4_one(written):
    address, _ = written
    url = f"http://[::ffff:{address}]/"
    assert (_decided(url) is not None) == (address_category(address) is not None)


@pytest.mark.parametrize(
    "host",
    ["2002:7f00:3::", "64:ff9b::7f00:3", "2001:0:4136:e378:8000:63bf:80ff:fffc"],
    ids=["6to4", "nat64", "teredo"],
)
def test_an_ipv6_address_that_carries_a_private_ipv4_one_is_refused(host):
    assert "loopback" in (_decided(f"http://[{host}]/") or "")


@pytest.mark.parametrize(
    ("host", "canonical"),
    [
        ("Bücher.Example", "xn--bcher-kva.example"),
        ("bot.example.", "bot.example"),
        ("BOT.Example", "bot.example"),
        ("\uff11\uff12\uff17.\uff10.\uff10.\uff13", "127.0.0.3"),
        ("[::FFFF:127.0.0.3]", "::ffff:7f00:3"),
        ("fe80::1%25eth0", "fe80::1%eth0"),
    ],
)
def test_names_are_lower_case_punycode_without_the_trailing_dot(host, canonical):
    assert canonical_host(host) == canonical


@given(st.text(min_size=1, max_size=40))
def test_no_host_is_a_crash(text):
    """Any text either is a host in some form or is refused as no valid one: never another exception."""
    try:
        canonical_host(text)
    except InvalidAddress as exc:
        assert exc.user_message
    decided = refusal(f"http://{text}/", EgressPolicy())  # never raises either: a refusal is a message
    assert decided is None or decided.strip()


@pytest.mark.parametrize("host", ["1.2.3.4.5", "256.0.0.1", "4294967296", "08.0.0.1", "a..b", "a b", "[::1"])
def test_a_host_in_no_valid_form_is_named_in_the_refusal(host):
    with pytest.raises(InvalidAddress) as refused:
        canonical_host(host)
    assert host.strip() in refused.value.user_message


def test_a_host_name_is_not_looked_up_when_deciding_from_the_url():
    # A name is checked at run time by the guard, which resolves it: the URL alone says nothing.
    assert refusal("http://bot.internal.example:5000/", EgressPolicy()) is None


@pytest.mark.parametrize("form", ["0177.0.0.1", "0x7f.0.0.1", "2130706433", "127.1", "[::ffff:127.0.0.1]"])
def test_an_operator_who_allows_127_0_0_1_allows_it_in_every_form(form):
    allowed = EgressPolicy.parse("127.0.0.1")
    assert refusal(f"http://{form}:11434/v1", allowed) is None
    assert refusal("http://0177.0.0.3:11434/v1", allowed) is not None  # but not its neighbour
    assert EgressPolicy.parse("0x7f.1").allows_address(ipaddress.IPv4Address("127.0.0.1"))


@pytest.mark.parametrize("form", ["0177.0.0.3", "0x7f.0.0.3", "2130706435", "127.0.0.3.", "[::ffff:7f00:3]"])
def test_the_guard_refuses_every_form_without_asking_dns(form):
    def no_dns(host, port):
        raise AssertionError(f"looked up {host}")

    with pytest.raises(EgressDenied) as refused:
        EgressGuard(resolver=no_dns).resolve(form, 80)
    assert "loopback" in refused.value.user_message


def test_an_llm_base_url_in_any_form_reaches_the_guard_as_the_address_it_names():
    from engine.llm.errors import LLMConfigError
    from engine.llm.providers import ProviderConfig, list_models

    config = ProviderConfig(provider="openai-compatible", base_url="http://0177.0.0.3:11434/v1/")
    assert config.url == "http://127.0.0.3:11434/v1"  # what httpx can read, and the guard decides on

    def no_dns(host, port):
        raise AssertionError(f"looked up {host}")

    with pytest.raises(EgressDenied) as refused:
        list_models("openai-compatible", None, "http://2130706435:11434/v1", EgressGuard(resolver=no_dns))
    assert "127.0.0.3" in refused.value.user_message
    with pytest.raises(LLMConfigError) as invalid:
        ProviderConfig(provider="openai-compatible", base_url="http://1.2.3.4.5/v1").url  # noqa: B018
    assert "1.2.3.4.5" in invalid.value.user_message
