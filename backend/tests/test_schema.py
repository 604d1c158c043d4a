"""The OpenAPI schema generates without warnings and the frontend's committed copy is current."""

import json
import os
import subprocess
import sys
from pathlib import Path

BACKEND_DIR = Path(__file__).resolve().parent.parent
COMMITTED = BACKEND_DIR.parent / "frontend" / "src" / "api" / "openapi.json"


def generate() -> str:
    result = subprocess.run(
        [
            sys.executable,
            "manage.py",
            "spectacular",
            "--validate",
            "--fail-on-warn",
            "--format",
            "openapi-json",
        ],
        cwd=BACKEND_DIR,
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "DJANGO_SETTINGS_MODULE": "parley.settings_test"},
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_schema_validates_without_warnings_and_matches_the_frontends_copy():
    schema = json.loads(generate())
    assert "/api/auth/login/" in schema["paths"]
    assert json.loads(COMMITTED.read_text()) == schema, (
        "frontend/src/api/openapi.json is stale: run `make schema` and commit the result"
    )


def test_docs_page_is_served_without_a_cdn(client):
    page = client.get("/api/docs/")
    assert page.status_code == 200
    html = page.content.decode()
    assert "/static/drf_spectacular_sidecar/" in html
    assert "cdn." not in html and "<script>" not in html  # no inline script: our CSP forbids it
