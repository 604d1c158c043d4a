"""An optional cache of model answers, for replaying a run without paying for it again.

Off unless a cache is passed to the gateway. The key covers everything that shapes an answer — provider URL,
model, messages, sampling parameters and the response schema — hashed, so neither prompts nor answers need
to be readable from the key. `DirectoryCache` writes one JSON file per answer (reusable across processes);
`MemoryCache` lives as long as the object.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import threading
from pathlib import Path
from typing import Any, Protocol


def cache_key(**parts: Any) -> str:
    """A stable hash of the request's JSON-serialisable parts (key order does not matter)."""
    canonical = json.dumps(parts, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)
    return hashlib.sha256(canonical.encode()).hexdigest()


class ResponseCache(Protocol):
    def get(self, key: str) -> str | None: ...

    def put(self, key: str, text: str) -> None: ...


class MemoryCache:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._items: dict[str, str] = {}

    def get(self, key: str) -> str | None:
        with self._lock:
            return self._items.get(key)

    def put(self, key: str, text: str) -> None:
        with self._lock:
            self._items[key] = text

    def __len__(self) -> int:
        with self._lock:
            return len(self._items)


class DirectoryCache:
    """One `<key>.json` file per answer; written atomically so a concurrent reader never sees half a file."""

    def __init__(self, directory: str | Path) -> None:
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)

    def get(self, key: str) -> str | None:
        try:
            data = json.loads((self.directory / f"{key}.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        text = data.get("text") if isinstance(data, dict) else None
        return text if isinstance(text, str) else None

    def put(self, key: str, text: str) -> None:
        handle, temporary = tempfile.mkstemp(dir=self.directory, suffix=".tmp")
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            json.dump({"text": text}, file)
        Path(temporary).replace(self.directory / f"{key}.json")
