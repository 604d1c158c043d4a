"""Reading a transcript file line by line, whatever it holds, in bounded memory.

A line longer than `MAX_LINE_CHARS`, a line that is not valid in the file's encoding, control characters (NUL…)
and lone surrogates are problems of that line, each with a message that says what to do; no input makes the
reader raise. Memory never holds more than one line (plus what the caller keeps).
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Literal

from engine.transcripts.model import Problem

MAX_LINE_CHARS = 2 * 1024 * 1024  # one JSON line holds one whole conversation: 2 Mi characters is plenty
MAX_LISTED_PROBLEMS = 1000  # the summary lists this many; the rest are counted
_DRAIN = 64 * 1024

# Bytes that are not valid in the encoding come out as U+DC80…U+DCFF (Python's "surrogateescape").
_UNDECODABLE = re.compile("[\udc80-\udcff]")
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


class Problems:
    """The problems of one import: the first `MAX_LISTED_PROBLEMS` are kept whole, every one is counted."""

    def __init__(self, limit: int = MAX_LISTED_PROBLEMS) -> None:
        self.listed: list[Problem] = []
        self.total = 0
        self.errors = 0
        self.warnings = 0
        self._limit = limit

    def add(
        self, line: int, severity: Literal["error", "warning"], message: str, file: str | None = None
    ) -> None:
        self.total += 1
        if severity == "error":
            self.errors += 1
        else:
            self.warnings += 1
        if len(self.listed) < self._limit:
            self.listed.append(Problem(line=line, severity=severity, message=message, file=file))


@dataclass(frozen=True)
class Line:
    number: int  # 1-based
    text: str  # without its line break


def sniff_encoding(head: bytes, given: str | None) -> str:
    """The encoding to read with: a byte-order mark wins (Excel writes UTF-16 "Unicode text"), then `given`,
    then UTF-8 (a UTF-8 byte-order mark is dropped)."""
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "utf-16"
    if head.startswith(b"\xef\xbb\xbf"):
        return "utf-8-sig"
    return given or "utf-8-sig"


def clean_text(text: str) -> tuple[str, str | None]:
    """`text` without control characters and lone surrogates (they cannot be stored or sent to an LLM), and a
    note of what was changed, or None."""
    notes = []
    if _CONTROL.search(text):
        count = len(_CONTROL.findall(text))
        text = _CONTROL.sub("", text)
        notes.append(f"{count} control character{'s' * (count > 1)} (NUL…) removed")
    if _LONE_SURROGATE.search(text):
        count = len(_LONE_SURROGATE.findall(text))
        text = _LONE_SURROGATE.sub("\ufffd", text)
        notes.append(f"{count} lone surrogate{'s' * (count > 1)} replaced by U+FFFD")
    return text, "; ".join(notes) or None


def checked_line(
    number: int, text: str, encoding: str, problems: Problems, label: str | None = None
) -> Line | None:
    """Line `number` cleaned (control characters, lone surrogates), or None when it holds bytes that are not
    valid in `encoding` (a problem says so); shared by the file reader and the platform's chunks."""
    bad = _UNDECODABLE.search(text)
    if bad:
        byte = ord(bad.group(0)) - 0xDC00
        problems.add(
            number,
            "error",
            f"not valid {encoding.removesuffix('-sig').upper()} (byte 0x{byte:02X} at column "
            f"{bad.start() + 1}); skipped — save the file as UTF-8, or pass its encoding "
            "(--encoding cp1252)",
            label,
        )
        return None
    text, note = clean_text(text)
    if note:
        problems.add(number, "warning", note, label)
    return Line(number, text)


class LineReader:
    """The lines of one file, decoded and cleaned; problems go to `problems`. Iterate once."""

    def __init__(
        self,
        path: Path,
        problems: Problems,
        *,
        encoding: str | None = None,
        max_chars: int = MAX_LINE_CHARS,
        label: str | None = None,
    ) -> None:
        self.path = path
        self.problems = problems
        self.given_encoding = encoding
        self.max_chars = max_chars
        self.label = label  # the file's name in problems, when a folder is read
        self.lines_read = 0

    def _open(self) -> tuple[BinaryIO, str]:
        raw = self.path.open("rb")
        head = raw.read(4)
        raw.seek(0)
        return raw, sniff_encoding(head, self.given_encoding)

    def __iter__(self) -> Iterator[Line]:
        raw, encoding = self._open()
        with io.TextIOWrapper(raw, encoding=encoding, errors="surrogateescape", newline=None) as stream:
            number = 0
            while True:
                try:
                    text = stream.readline(self.max_chars + 1)
                except UnicodeError:  # a UTF-16 file cut in the middle of a character
                    self.problems.add(number + 1, "error", f"cannot be decoded as {encoding}", self.label)
                    return
                if not text:
                    return
                number += 1
                self.lines_read = number
                if len(text) > self.max_chars and not text.endswith("\n"):
                    self._drain(stream)
                    self.problems.add(
                        number,
                        "error",
                        f"longer than {self.max_chars:,} characters; skipped (one record per line is expected)",
                        self.label,
                    )
                    continue
                line = checked_line(number, text.removesuffix("\n"), encoding, self.problems, self.label)
                if line is not None:
                    yield line

    def _drain(self, stream: io.TextIOWrapper) -> None:
        """Read on to the end of an overlong line without keeping it."""
        while True:
            rest = stream.readline(_DRAIN)
            if not rest or rest.endswith("\n"):
                return
