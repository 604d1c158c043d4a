"""The egress guard: every outbound HTTP request of the engines (LLM providers, chatbots) passes through here.

A base URL typed by a user can point anywhere, including the server's own loopback, the private network behind
it, or a cloud metadata endpoint. The guard resolves the host name once, refuses any address that is not
globally routable unless an administrator allowed it (`PARLEY_EGRESS_ALLOW`: host names, addresses and CIDRs),
and then makes the connection to the very address it checked — so a DNS answer that changes between the check
and the connection (DNS rebinding) gains nothing. TLS still verifies the certificate against the original host
name (SNI). Redirects are re-checked because every hop goes through the same transport.

An address can be written in many forms that name the same host: `0177.0.0.3`, `0x7f.0.0.3`, `2130706435` and
`127.0.0.3` are one IPv4 address (the C library's inet_aton reads them all), `[::ffff:127.0.0.3]` is it again in
IPv6, 127.0.0.3 in full-width digits after IDNA mapping, `127.0.0.3.` with the root's trailing dot. `canonical_host` turns every
form into the one the guard decides on and the connection is made to, and refuses a host that is no valid form
(`InvalidAddress`, a configuration error that names the host). `canonical_url` does the same for a whole URL
(userinfo, port and path kept), and `refusal` says, from the URL alone and without any DNS lookup, why a literal
address would be refused — what the API checks when a base URL is saved; host names are checked here, at run time.

Use `guarded_client()` / `guarded_async_client()` for httpx clients; tests inject a resolver so no socket is ever
opened towards a private address.
"""

from __future__ import annotations

import asyncio
import functools
import ipaddress
import re
import socket
import ssl
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import SplitResult, urlsplit, urlunsplit

import httpx
import idna

from engine.errors import ParleyError

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network
Resolver = Callable[[str, int], list[str]]

# Instance-metadata services of the big clouds: the classic server-side request forgery target.
METADATA_ADDRESSES = frozenset(
    ipaddress.ip_address(a) for a in ("169.254.169.254", "fd00:ec2::254", "100.100.100.200", "169.254.170.2")
)
ALLOW_HINT = "An administrator can allow it with PARLEY_EGRESS_ALLOW (host names, addresses or CIDRs)."


class EgressDenied(ParleyError):
    """A request was refused because its destination is not a public address."""

    code = "egress_denied"


class InvalidAddress(ParleyError):
    """A URL or host name that no request can be made to (a malformed address): the setting is wrong."""

    code = "invalid_address"


# A label that is a number (decimal, octal with a leading 0, hex with 0x): when a host's last label is one, the
# whole host is an IPv4 address in one of inet_aton's forms (the WHATWG URL standard's rule too).
_NUMBER = re.compile(r"(?:0x[0-9a-f]*|[0-9]+)")
_LABEL = re.compile(r"[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?")
MAX_HOST_LENGTH = 253


def canonical_host(host: str) -> str:
    """`host` in the one form the guard decides on: IPv4 as a dotted quad, IPv6 compressed (zone id kept), names
    lower-case in IDNA (punycode) without the trailing dot. `InvalidAddress` when it is no valid form."""
    written = host
    host = host.strip()
    if host.startswith("[") or ":" in host:
        inner = host[1:-1] if host.startswith("[") and host.endswith("]") else host
        try:
            return str(ipaddress.IPv6Address(inner.replace("%25", "%", 1)))
        except ValueError:
            raise InvalidAddress(f"{written!r} is not a valid IPv6 address.") from None
    if not host.isascii():
        try:
            host = idna.encode(host.rstrip("."), uts46=True).decode("ascii")
        except idna.IDNAError as exc:
            raise InvalidAddress(f"{written!r} is not a valid host name ({exc}).") from None
    host = host.lower().removesuffix(".")
    labels = host.split(".")
    if _NUMBER.fullmatch(labels[-1]):
        if len(labels) > 4 or not all(_NUMBER.fullmatch(label) for label in labels):
            raise InvalidAddress(f"{written!r} is not a valid IPv4 address.")
        try:
            return socket.inet_ntoa(socket.inet_aton(host))
        except OSError:
            raise InvalidAddress(f"{written!r} is not a valid IPv4 address.") from None
    if not host or len(host) > MAX_HOST_LENGTH or not all(_LABEL.fullmatch(label) for label in labels):
        raise InvalidAddress(f"{written!r} is not a valid host name.")
    return host


def _split(url: str) -> tuple[SplitResult, str, int | None]:
    """The URL's parts, its canonical host and its port; `InvalidAddress` for anything unusable."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError as exc:
        raise InvalidAddress(f"{url.strip()!r} is not a valid URL ({exc}).") from None
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        raise InvalidAddress(f"{url.strip()!r} is not an http:// or https:// URL with a host.")
    return parts, canonical_host(parts.hostname), port


def canonical_url(url: str) -> str:
    """`url` with its host in canonical form (`canonical_host`); userinfo, port, path and query unchanged."""
    parts, host, port = _split(url)
    userinfo = parts.netloc.rpartition("@")[0]
    shown = f"[{host.replace('%', '%25')}]" if ":" in host else host
    netloc = (f"{userinfo}@" if userinfo else "") + shown + (f":{port}" if port is not None else "")
    return urlunsplit((parts.scheme.lower(), netloc, parts.path, parts.query, parts.fragment))


def url_host(url: str) -> str:
    """The canonical host of `url` (`InvalidAddress` when it has none)."""
    return _split(url)[1]


def default_resolver(host: str, port: int) -> list[str]:
    """All addresses `host` resolves to, in the system's preferred order."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


# NAT64's well-known prefix: a gateway translates these to the IPv4 address in their last 32 bits.
NAT64 = ipaddress.IPv6Network("64:ff9b::/96")


def _embedded_ipv4(address: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 one carries and is routed to (mapped, 6to4, Teredo's server, NAT64)."""
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address.sixtofour is not None:
        return address.sixtofour
    if address.teredo is not None:
        return address.teredo[1]
    if address in NAT64:
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return None


def address_category(address: IPAddress) -> str | None:
    """Why an address may not be reached without permission, or None when it is public."""
    if isinstance(address, ipaddress.IPv6Address):
        embedded = _embedded_ipv4(address)
        if address.ipv4_mapped is not None:
            address = address.ipv4_mapped
        elif embedded is not None and (category := address_category(embedded)) is not None:
            return category
    if address in METADATA_ADDRESSES:
        return "cloud metadata address"
    checks = (
        ("is_unspecified", "unspecified address"),
        ("is_loopback", "loopback address"),
        ("is_link_local", "link-local address"),
        ("is_multicast", "multicast address"),
        ("is_private", "private address"),
        ("is_reserved", "reserved address"),
    )
    for attribute, category in checks:
        if getattr(address, attribute):
            return category
    if not address.is_global:
        return "address that is not publicly routable"
    return None


@dataclass(frozen=True)
class EgressPolicy:
    """What may be reached besides public addresses."""

    allowed_hosts: frozenset[str] = frozenset()
    allowed_networks: tuple[IPNetwork, ...] = ()

    @classmethod
    def parse(cls, entries: str | Iterable[str] | None) -> EgressPolicy:
        """From `PARLEY_EGRESS_ALLOW`: comma-separated host names, addresses and CIDRs."""
        if entries is None:
            return cls()
        items = entries.split(",") if isinstance(entries, str) else list(entries)
        hosts: set[str] = set()
        networks: list[IPNetwork] = []
        for raw in items:
            item = raw.strip().lower()
            if not item:
                continue
            try:
                networks.append(ipaddress.ip_network(item.strip("[]"), strict=False))
                continue
            except ValueError:
                pass
            try:
                if "/" in item:
                    raise InvalidAddress(item)
                host = canonical_host(item)  # `127.1` or `0x7f.0.0.1` allow the address they name
            except InvalidAddress:
                raise ValueError(
                    f"PARLEY_EGRESS_ALLOW: {raw.strip()!r} is neither a host name nor a CIDR."
                ) from None
            try:
                networks.append(ipaddress.ip_network(host.partition("%")[0]))
            except ValueError:
                hosts.add(host)
        return cls(frozenset(hosts), tuple(networks))

    def allows_host(self, host: str) -> bool:
        try:
            return canonical_host(host) in self.allowed_hosts
        except InvalidAddress:
            return False

    def allows_address(self, address: IPAddress) -> bool:
        if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
            address = address.ipv4_mapped  # [::ffff:127.0.0.1] is 127.0.0.1 on the wire
        return any(address.version == net.version and address in net for net in self.allowed_networks)


@dataclass
class EgressGuard:
    """Resolves and vets destinations; `resolve()` returns the one address to connect to."""

    policy: EgressPolicy = field(default_factory=EgressPolicy)
    resolver: Resolver = default_resolver

    def resolve(self, host: str, port: int) -> str:
        written = host.strip("[]")
        host = canonical_host(host)  # InvalidAddress for a malformed host: a configuration error
        literal = _literal(host)
        if literal is not None:
            self._vet(written, literal)
            return host
        try:
            addresses = [ipaddress.ip_address(a) for a in self.resolver(host, port)]
        except (OSError, UnicodeError, ValueError) as exc:
            raise httpx.ConnectError(f"The host name {host!r} could not be resolved ({exc}).") from exc
        if not addresses:
            raise httpx.ConnectError(f"The host name {host!r} did not resolve to any address.")
        if not self.policy.allows_host(host):
            # Every address must pass: otherwise the system could pick the private one at connect time.
            for address in addresses:
                self._vet(host, address)
        return str(addresses[0])

    def _vet(self, host: str, address: IPAddress) -> None:
        if reason := denial(host, address, self.policy):
            raise EgressDenied(f"Parley refused to connect to {reason}")


def _literal(host: str) -> IPAddress | None:
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        return None


def denial(host: str, address: IPAddress, policy: EgressPolicy) -> str | None:
    """ "WHERE: it is a CATEGORY. HINT" when `policy` does not let `host` (as written) at `address`, else None."""
    category = address_category(address)
    if category is None or policy.allows_address(address) or policy.allows_host(host):
        return None
    shown = getattr(address, "ipv4_mapped", None) or address  # [::ffff:7f00:3] is named as 127.0.0.3
    where = f"{shown}" if host.lower() == str(shown) else f"{host} ({shown})"
    return f"{where}: it is a {category}. {ALLOW_HINT}"


def refusal(url: str, policy: EgressPolicy) -> str | None:
    """Why a request to `url` would surely be refused, decided from the URL alone — no DNS lookup: it is not a
    usable http(s) URL, or its host is an IP address (in any form) that `policy` does not allow. None for a
    usable URL with a host name: what the name resolves to is checked when a request is made."""
    try:
        parts, host, _ = _split(url)
    except InvalidAddress as exc:
        return exc.user_message
    address = _literal(host)
    if address is None:
        return None
    reason = denial(parts.hostname or host, address, policy)
    return f"Parley refuses to connect to {reason}" if reason else None


def _pin(guard_address: str, request: httpx.Request) -> None:
    """Point the request at the vetted address while keeping Host and TLS name of the original URL."""
    host = request.url.host
    if guard_address != host.strip("[]"):
        request.extensions = {**request.extensions, "sni_hostname": host}
        request.url = request.url.copy_with(host=guard_address)


def _default_port(url: httpx.URL) -> int:
    return url.port or (443 if url.scheme == "https" else 80)


@functools.cache
def _tls_context() -> ssl.SSLContext:
    """One verifying TLS context per process, shared by every client: building one loads the CA bundle (about
    65 ms), and each run builds several clients (an LLM client has two). SSL contexts are safe to share."""
    return httpx.create_ssl_context()


class GuardedTransport(httpx.HTTPTransport):
    def __init__(self, guard: EgressGuard, **kwargs: Any) -> None:
        kwargs.setdefault("verify", _tls_context())
        super().__init__(**kwargs)
        self.guard = guard

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        _pin(self.guard.resolve(request.url.host, _default_port(request.url)), request)
        return super().handle_request(request)


class AsyncGuardedTransport(httpx.AsyncHTTPTransport):
    def __init__(self, guard: EgressGuard, **kwargs: Any) -> None:
        kwargs.setdefault("verify", _tls_context())
        super().__init__(**kwargs)
        self.guard = guard

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        loop = asyncio.get_running_loop()
        address = await loop.run_in_executor(
            None, self.guard.resolve, request.url.host, _default_port(request.url)
        )
        _pin(address, request)
        return await super().handle_async_request(request)


def guarded_client(guard: EgressGuard, **kwargs: Any) -> httpx.Client:
    """An httpx client whose every request, redirects included, passes the guard. Proxies from the
    environment are ignored (trust_env=False): a proxy would make the connection on our behalf, unchecked."""
    return httpx.Client(transport=GuardedTransport(guard), trust_env=False, **kwargs)


def guarded_async_client(guard: EgressGuard, **kwargs: Any) -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=AsyncGuardedTransport(guard), trust_env=False, **kwargs)
