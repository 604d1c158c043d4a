"""The one visibility policy (README D30): who may read a project and what hangs from it, whether they see it as its
owner or as a visitor, and what a visitor's view leaves out. Every door that shows a project or a run — the REST
views, exports, artefacts, comparisons, coverage, the live streams — asks here, so they cannot drift apart.

- The owner sees everything of their own.
- Anyone else — a signed-in stranger or an anonymous visitor — reads a public project, and its runs, as a
  visitor: what was tested and how it went, never how it is wired or paid for. The project's connector, LLM key
  and budget are blank; and every text and value shown has the chatbot's addresses blanked out — each URL of the
  connector in every form an error quotes (the URL, host:port, the host, the canonical form the egress guard
  connects to, its Unicode and URL-encoded spellings) — and so has the LLM key's base URL (a model server's
  address). Owner-only events (the system log) are the event readers' to leave out; they ask `View.owner`.
- A private project and its runs do not exist for anyone else (a 404, as in the lists).

Secrets are never returned to anyone, owners included: the run's own scrubber (runs.worker.secrets, D12) blanks them
before anything is stored. They are not decrypted here: secrets are decrypted only in the worker that uses them.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, urlsplit

import idna
from django.db.models import Q

from engine.egress import InvalidAddress, canonical_host
from engine.json_value import strings_in
from engine.redact import MASK

# The project fields a visitor sees blank: how the project is wired (its connector) and paid for (key, budget).
PRIVATE_PROJECT_FIELDS = ("connector", "llm_key", "budget_usd")


def viewer_id(user: Any) -> int | None:
    """The signed-in user's id, None for an anonymous visitor."""
    if user is None or not getattr(user, "is_authenticated", True):
        return None
    return getattr(user, "pk", None)


def sees_as_owner(user: Any, owner_id: int | None) -> bool:
    uid = viewer_id(user)
    return uid is not None and uid == owner_id


def readable(user: Any, to_project: str = "") -> Q:
    """The rows `user` may read: their own, and anyone's of a public project. `to_project` leads from the row to
    its project (`project__` for a run; empty for a project itself)."""
    public = Q(**{f"{to_project}public": True})
    uid = viewer_id(user)
    return public if uid is None else Q(owner_id=uid) | public


def may_see(viewer: int | None, owner_id: int | None, public: bool) -> bool:
    """`readable` for one row already in hand (a live change)."""
    return public or (viewer is not None and viewer == owner_id)


# --- what a visitor's view leaves out ------------------------------------------------------------------------


def _unicode(host: str) -> str | None:
    """An IDNA name as httpx shows it, in Unicode (None for any other host)."""
    if host.startswith("xn--") or ".xn--" in host:
        with contextlib.suppress(idna.IDNAError, UnicodeError):
            return str(idna.decode(host))
    return None


def address_forms(value: str) -> set[str]:
    """Every way a message may quote the address in `value` (empty unless it is a URL): as written, without the
    trailing slash, host:port with and without credentials, the host, and the same in the canonical form the
    egress guard connects to (`0177.0.0.3` is quoted as 127.0.0.3), in Unicode and URL-encoded."""
    written = value.strip()
    try:
        parts = urlsplit(written)
        port = parts.port
    except ValueError:
        return set()
    if parts.scheme.lower() not in ("http", "https", "ws", "wss") or not parts.hostname:
        return set()
    hostport = parts.netloc.rpartition("@")[2]
    forms = {written, written.rstrip("/"), parts.netloc, hostport, hostport.strip("[]")}
    hosts = {parts.hostname}
    with contextlib.suppress(InvalidAddress):
        hosts.add(canonical_host(parts.hostname))  # as the guard connects to it, and errors quote it
    hosts |= {name for name in map(_unicode, hosts) if name}
    for host in hosts:
        shown = f"[{host}]" if ":" in host else host
        with_port = f"{shown}:{port}" if port else shown
        forms |= {host, shown, with_port, f"{parts.scheme}://{with_port}{parts.path.rstrip('/')}"}
    forms |= {quote(form, safe="") for form in list(forms)}
    return {form for form in forms if form}


@dataclass(frozen=True)
class View:
    """How one viewer sees one or more projects' data: the owner's (as stored), or a visitor's (blanked)."""

    owner: bool
    addresses: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        # Longest first, so a URL is blanked whole before its host is; a short host (`bot`) only as a word of
        # its own, not inside `chatbot`.
        forms = sorted(self.addresses, key=len, reverse=True)
        pattern = (
            re.compile(r"(?<![\w.-])(?:" + "|".join(map(re.escape, forms)) + r")(?![\w-])", re.IGNORECASE)
            if forms
            else None
        )
        object.__setattr__(self, "_pattern", pattern)

    def text(self, value: str) -> str:
        if self.owner:
            return value
        pattern: re.Pattern[str] | None = getattr(self, "_pattern", None)
        return pattern.sub(MASK, value) if pattern else value

    def data(self, value: Any) -> Any:
        """`value` (JSON-like: dicts, lists, strings, keys included) as this viewer may see it."""
        if self.owner:
            return value
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            return {self.data(k): self.data(v) for k, v in value.items()}
        if isinstance(value, list | tuple):  # subclasses too (DRF's ReturnList), as a plain list
            return [self.data(v) for v in value]
        return value


OWNER = View(owner=True)


def visitor_view(projects: Iterable[Any]) -> View:
    """A visitor's view of `projects` (objects with `connector` and `llm_key`; None entries are skipped): the
    addresses of each one's connector and LLM server, blanked."""
    addresses: set[str] = set()
    for project in projects:
        if project is None:
            continue
        connector = getattr(project, "connector", None)
        if connector is not None:
            for value in strings_in(connector.params):
                addresses |= address_forms(value)
        key = getattr(project, "llm_key", None)
        if key is not None and key.base_url:
            addresses |= address_forms(key.base_url)
    return View(owner=False, addresses=frozenset(addresses))


def for_projects(user: Any, *projects: Any) -> View:
    """How `user` sees these projects: as the owner when they own every one, else as a visitor of them all."""
    present = [p for p in projects if p is not None]
    if present and all(sees_as_owner(user, p.owner_id) for p in present):
        return OWNER
    return visitor_view(present)


def for_runs(user: Any, *runs: Any) -> View:
    """How `user` sees these runs (a comparison's baseline may be of another project): as the owner when they own
    every one, else as a visitor of every run's project."""
    if runs and all(sees_as_owner(user, run.owner_id) for run in runs):
        return OWNER
    return visitor_view(run.project for run in runs if run.project_id is not None)
