"""The egress guard: every outbound HTTP request of the engines (LLM providers, chatbots) passes through here.

A base URL typed by a user can point anywhere, including the server's own loopback, the private network behind
it, or a cloud metadata endpoint. The guard resolves the host name once, refuses any address that is not
globally routable unless an administrator allowed it (`PARLEY_EGRESS_ALLOW`: host names, addresses and CIDRs),
and then makes the connection to the very address it checked — so a DNS answer that changes between the check
and the connection (DNS rebinding) gains nothing. TLS still verifies the certificate against the original host
name (SNI). Redirects are re-checked because every hop goes through the same transport.

Use `guarded_client()` / `guarded_async_client()` for httpx clients; tests inject a resolver so no socket is ever
opened towards a private address.
"""

from __future__ import annotations

import asyncio
import functools
import ipaddress
import socket
import ssl
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import httpx

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


def default_resolver(host: str, port: int) -> list[str]:
    """All addresses `host` resolves to, in the system's preferred order."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


def address_category(address: IPAddress) -> str | None:
    """Why an address may not be reached without permission, or None when it is public."""
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
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
            except ValueError:
                if "/" in item or not all(part.isalnum() or part in "-_." for part in item):
                    raise ValueError(
                        f"PARLEY_EGRESS_ALLOW: {raw.strip()!r} is neither a host name nor a CIDR."
                    ) from None
                hosts.add(item.rstrip("."))
        return cls(frozenset(hosts), tuple(networks))

    def allows_host(self, host: str) -> bool:
        return host.lower().rstrip(".") in self.allowed_hosts

    def allows_address(self, address: IPAddress) -> bool:
        return any(address.version == net.version and address in net for net in self.allowed_networks)


@dataclass
class EgressGuard:
    """Resolves and vets destinations; `resolve()` returns the one address to connect to."""

    policy: EgressPolicy = field(default_factory=EgressPolicy)
    resolver: Resolver = default_resolver

    def resolve(self, host: str, port: int) -> str:
        host = host.strip("[]")
        try:
            literal: IPAddress | None = ipaddress.ip_address(host)
        except ValueError:
            literal = None
        if literal is not None:
            self._vet(host, literal)
            return str(literal)
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
        category = address_category(address)
        if category is None or self.policy.allows_address(address) or self.policy.allows_host(host):
            return
        where = f"{address}" if host == str(address) else f"{host} ({address})"
        raise EgressDenied(f"Parley refused to connect to {where}: it is a {category}. {ALLOW_HINT}")


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
