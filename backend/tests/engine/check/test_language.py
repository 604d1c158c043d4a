"""Offline language identification: accuracy on short chatbot lines, one unknown value, a lazy detector."""

from __future__ import annotations

import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from engine.check import language
from engine.check.language import UNKNOWN, configure, detect, sensei_code

BACKEND = Path(__file__).resolve().parents[3]
# Written for these tests (benchmarks/language_accuracy.py reads it too): ISO 639-1 code, tab, text.
LINES = [
    tuple(line.split("\t", 1))
    for line in (Path(__file__).parent / "language_lines.tsv").read_text(encoding="utf-8").splitlines()
    if line.strip() and not line.startswith("#")
]


def test_the_data_set_has_at_least_100_lines_in_8_languages():
    counts = Counter(code for code, _ in LINES)
    assert len(LINES) >= 100
    assert len(counts) >= 8
    assert min(counts.values()) >= 6


def test_it_identifies_at_least_90_percent_of_short_chatbot_lines():
    right = Counter(code for code, text in LINES if detect(text) == code)
    total = Counter(code for code, _ in LINES)
    assert sum(right.values()) / len(LINES) >= 0.90
    # No language may be left behind: each is right on three lines out of four or more.
    assert {code: right[code] / total[code] >= 0.75 for code in total} == dict.fromkeys(total, True)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   \n ",
        "12345 !!!",
        "€ 12,50 / $13.00",
        "👍👍 🍕",
        "k",
        "OK",  # fewer than three letters
        "Hi",
        "გამარჯობა, როგორ ხარ?",  # Georgian: a script no configured language uses
        # Keyboard mashes lingua is unsure about. Not a gibberish filter: it gives "ghjk" to Dutch.
        "asdf asdf",
        "blorp zint quaff",
    ],
)
def test_it_says_unknown_when_unsure(text):
    assert detect(text) == UNKNOWN
    assert sensei_code(detect(text)) == UNKNOWN == "OTHER"


def test_a_list_of_phrases_is_identified_together():
    assert detect(["Sí", "Gracias", "Su pedido está listo."]) == "es"
    assert detect([]) == UNKNOWN


def test_sensei_codes_cover_only_the_reference_languages():
    assert [sensei_code(code) for code in ("en", "es", "pt", "zh", "ja", "nl", "ca")] == [
        *("ENG", "ESP", "POR", "CHI", "JAP"),
        *(UNKNOWN, UNKNOWN),
    ]


def test_importing_the_check_engine_loads_no_language_model():
    code = "import sys, engine.check, engine.check.functions; print('lingua' in sys.modules)"
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=BACKEND, capture_output=True, text=True, check=True, timeout=60
    )
    assert done.stdout.strip() == "False"


def test_the_detector_is_built_once_and_kept():
    detect("Your order is ready.")
    first = language._detector
    detect("Votre commande est prête.")
    assert first is not None
    assert language._detector is first


@pytest.fixture
def restore_configuration(monkeypatch):
    """configure() rebinds the module's settings; monkeypatch puts the originals (and the built detector) back."""
    for name in ("_languages", "_min_confidence", "_detector"):
        monkeypatch.setattr(language, name, getattr(language, name))


def test_configure_chooses_the_languages_and_rebuilds_on_next_use(restore_configuration):
    detect("Your order is ready.")
    configure(["en", "pl"])
    assert language._detector is None
    assert detect("Dzień dobry, w czym mogę pomóc?") == "pl"
    assert detect("Hola, ¿en qué puedo ayudarte?") in {"en", "pl", UNKNOWN}
    configure(["EN", "es"], min_confidence=1.0)
    assert detect("Hello, how can I help you today?") == UNKNOWN


@pytest.mark.parametrize(
    ("languages", "min_confidence", "message"),
    [
        (["en", "xx"], 0.3, "'xx' is not an ISO 639-1 code"),
        (["en"], 0.3, "at least two languages"),
        (["en", "es"], 1.5, "between 0 and 1"),
    ],
)
def test_configure_refuses_bad_settings(restore_configuration, languages, min_confidence, message):
    with pytest.raises(ValueError, match=message):
        configure(languages, min_confidence=min_confidence)
    assert language._languages == language.DEFAULT_LANGUAGES
