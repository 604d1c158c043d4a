"""The fake server as its own process, the way platform, browser and benchmark tests start it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import httpx
import pytest

BACKEND_DIR = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="module")
def server_process(tmp_path_factory):
    # One process for the module: starting Python with the engine imported takes a couple of seconds.
    script = tmp_path_factory.mktemp("fake") / "script.yaml"
    script.write_text('bench.ask: "scripted from a file"\n', encoding="utf-8")
    process = subprocess.Popen(
        [sys.executable, "-m", "engine.llm.offline.server", "--port", "0", "--script", str(script)],
        cwd=BACKEND_DIR,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        base_url = process.stdout.readline().strip()
        assert base_url.startswith("http://127.0.0.1:"), process.stderr.read()
        yield base_url
    finally:
        process.terminate()
        process.wait(timeout=10)
    assert process.returncode == 0
    assert "RuntimeWarning" not in process.stderr.read()


def chat(base_url, tag, **extra):
    body = {"model": "fake-model", "messages": [{"role": "user", "content": "hello"}], **extra}
    return httpx.post(f"{base_url}/chat/completions", json=body, headers={"X-Parley-Tag": tag}, timeout=10)


def test_the_server_process_answers_from_its_script_file_with_usage(server_process):
    answer = chat(server_process, "bench.ask").json()
    assert answer["choices"][0]["message"]["content"] == "scripted from a file"
    assert answer["usage"]["prompt_tokens"] > 0
    assert httpx.get(f"{server_process}/models").json()["data"][0]["id"] == "fake-model"


def test_other_processes_can_steer_and_inspect_it_over_http(server_process):
    root = server_process.removesuffix("/v1")
    httpx.post(f"{root}/_fake/reset")
    httpx.post(f"{root}/_fake/inject", json={"fault": "rate_limit", "retry_after": 3, "tag": "bench.ask"})
    refused = chat(server_process, "bench.ask")
    assert (refused.status_code, refused.headers["retry-after"]) == (429, "3")
    httpx.post(f"{root}/_fake/script", json={"tag": "bench.ask", "replies": ["changed"]})
    assert chat(server_process, "bench.ask").json()["choices"][0]["message"]["content"] == "changed"
    seen = httpx.get(f"{root}/_fake/requests").json()
    assert [r["status"] for r in seen] == [429, 200]
    httpx.post(f"{root}/_fake/reset")
    assert httpx.get(f"{root}/_fake/requests").json() == []
    # A reset also forgets the scripts: the tag gets the generated answer again.
    assert (
        chat(server_process, "bench.ask").json()["choices"][0]["message"]["content"].startswith("A scripted")
    )


def test_structured_calls_are_answered_by_schema_name_without_the_tag_header(server_process):
    root = server_process.removesuffix("/v1")
    httpx.post(f"{root}/_fake/script", json={"tag": "bench.verdict", "replies": [{"json": {"ok": False}}]})
    schema = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}
    body = {
        "model": "fake-model",
        "messages": [{"role": "user", "content": "?"}],
        "response_format": {
            "type": "json_schema",
            "json_schema": {"name": "bench_verdict", "schema": schema, "strict": True},
        },
    }
    answer = httpx.post(f"{server_process}/chat/completions", json=body, timeout=10).json()
    # Unscripted, the generated answer would be {"ok": true}; in strict mode it comes without prose around it.
    assert answer["choices"][0]["message"]["content"] == '{"ok": false}'
