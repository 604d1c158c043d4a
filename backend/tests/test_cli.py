"""The `parley` command installed by the editable install."""

import subprocess
import sys
from pathlib import Path

PARLEY = Path(sys.executable).parent / "parley"


def test_parley_reports_its_version():
    result = subprocess.run([str(PARLEY), "--version"], capture_output=True, text=True, check=False)
    assert result.returncode == 0
    assert result.stdout.startswith("parley 0.")


def test_parley_without_a_command_shows_help_and_fails():
    result = subprocess.run([str(PARLEY)], capture_output=True, text=True, check=False)
    assert result.returncode == 2
    assert "serve" in result.stdout
