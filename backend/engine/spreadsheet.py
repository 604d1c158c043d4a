"""CSV that a spreadsheet opens as data: every writer of CSV in Parley goes through `csv_writer`.

Chatbot replies, LLM output and user-written names reach exports; a cell that starts with `=`, `+`, `-`, `@`,
a tab or a carriage return is a formula to Excel, LibreOffice and Google Sheets. Such text cells are written with a
leading apostrophe, which spreadsheets show as text and hide; numbers stay numbers.
"""

from __future__ import annotations

import csv
from collections.abc import Iterable
from typing import Any, Protocol

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


class _Writer(Protocol):
    def writerow(self, row: Iterable[Any], /) -> Any: ...


def safe_cell(value: Any) -> Any:
    """`value`, with an apostrophe before text that a spreadsheet would run as a formula."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return f"'{value}"
    return value


class SafeWriter:
    """A csv writer whose rows are neutralised cell by cell."""

    def __init__(self, writer: _Writer) -> None:
        self._writer = writer

    def writerow(self, row: Iterable[Any]) -> None:
        self._writer.writerow([safe_cell(cell) for cell in row])


def csv_writer(stream: Any, **options: Any) -> SafeWriter:
    return SafeWriter(csv.writer(stream, **options))
