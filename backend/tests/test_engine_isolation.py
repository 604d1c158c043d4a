"""engine/ must stay plain Python: importable without Django or Celery, from the CLI or a worker."""

import subprocess
import sys
from pathlib import Path

BACKEND_DIR = Path(__file__).resolve().parent.parent


def test_importing_every_engine_module_loads_neither_django_nor_celery():
    modules = sorted(
        ".".join(path.relative_to(BACKEND_DIR).with_suffix("").parts).removesuffix(".__init__")
        for path in (BACKEND_DIR / "engine").rglob("*.py")
    )
    code = (
        "import importlib, sys\n"
        f"for name in {modules!r}: importlib.import_module(name)\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in {'django', 'celery', 'rest_framework'})\n"
        "print(bad)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=BACKEND_DIR, capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "[]"
