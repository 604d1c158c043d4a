"""The typed environment parsers accept only well-defined values and name the variable when they refuse."""

from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

from common.parsers import Env


@pytest.mark.parametrize(
    ("raw", "expected"), [("1", True), ("true", True), ("YES", True), ("off", False), ("0", False)]
)
def test_bool_accepts_the_usual_spellings(raw, expected):
    assert Env({"FLAG": raw}).bool("FLAG", default=not expected) is expected


def test_bool_refuses_anything_else_and_names_the_variable():
    with pytest.raises(ImproperlyConfigured, match="PARLEY_DEBUG"):
        Env({"PARLEY_DEBUG": "maybe"}).bool("PARLEY_DEBUG", default=False)


def test_missing_and_empty_values_fall_back_to_the_default():
    env = Env({"EMPTY": "  "})
    assert env.bool("EMPTY", default=True) is True
    assert env.int("MISSING", 7) == 7
    assert env.list("MISSING", ["a"]) == ["a"]


def test_int_checks_type_and_bounds():
    assert Env({"N": "12"}).int("N", 1, minimum=1, maximum=20) == 12
    with pytest.raises(ImproperlyConfigured, match="whole number"):
        Env({"N": "1.5"}).int("N", 1)
    with pytest.raises(ImproperlyConfigured, match="at least 1"):
        Env({"N": "0"}).int("N", 1, minimum=1)
    with pytest.raises(ImproperlyConfigured, match="at most 20"):
        Env({"N": "21"}).int("N", 1, maximum=20)


def test_list_splits_on_commas_and_drops_blanks():
    assert Env({"HOSTS": "a.example, b.example,,"}).list("HOSTS", []) == ["a.example", "b.example"]


def test_path_is_resolved(tmp_path):
    assert Env({"DIR": str(tmp_path / "x" / "..")}).path("DIR", Path("/nope")) == tmp_path


def test_choice_refuses_unknown_values():
    with pytest.raises(ImproperlyConfigured, match="one of production, local"):
        Env({"PARLEY_ENV": "staging"}).choice("PARLEY_ENV", "production", ("production", "local"))


def test_secret_from_a_file(tmp_path):
    secret_file = tmp_path / "key"
    secret_file.write_text("s3cret-value\n")
    assert Env({"KEY_FILE": str(secret_file)}).secret("KEY", required=True) == "s3cret-value"


def test_secret_refuses_both_value_and_file(tmp_path):
    with pytest.raises(ImproperlyConfigured, match="either KEY or KEY_FILE"):
        Env({"KEY": "a", "KEY_FILE": str(tmp_path)}).secret("KEY", required=False)


def test_secret_with_an_unreadable_file_says_which(tmp_path):
    with pytest.raises(ImproperlyConfigured, match="cannot be read"):
        Env({"KEY_FILE": str(tmp_path / "missing")}).secret("KEY", required=False)


def test_required_secret_missing_or_placeholder_is_refused():
    with pytest.raises(ImproperlyConfigured, match="required"):
        Env({}).secret("PARLEY_SECRET_KEY", required=True)
    with pytest.raises(ImproperlyConfigured, match="placeholder"):
        Env({"PARLEY_SECRET_KEY": "change-me-to-a-long-random-string"}).secret(
            "PARLEY_SECRET_KEY", required=True
        )


def test_optional_secret_placeholder_counts_as_missing():
    assert Env({"K": "change-me"}).secret("K", required=False) is None
