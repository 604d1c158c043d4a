"""Test doubles of the LLM gateway, shared by the tests of every engine and of the platform.

- `protocol.ProviderDouble`: the strict protocol double of each provider family (OpenAI, Gemini's compatible
  endpoint, a local server): refuses what the real API refuses, 429 with `Retry-After`, refusals, safety blocks,
  empty answers, JSON wrapped in prose outside strict mode. Both doubles below answer through it.
- `ScriptedChatModel`: the double in process, answering by caller tag (pass it as `LLMClient(chat_model=...)`).
- `fake_server.FakeLLMServer` / `fake_server.running_fake_server()`: the double over HTTP, also runnable as
  `python -m engine.llm.testing.fake_server`, for tests that go through real HTTP (platform, browser, bench).
- `sample_from_schema()`: schema-valid sample data, what both answer to unscripted structured calls.
The script format both understand is documented in `engine.llm.testing.script`. The fake server is not
imported here so that `python -m engine.llm.testing.fake_server` runs it as a fresh module.
"""

from engine.llm.testing.protocol import ProviderDouble
from engine.llm.testing.schema_data import sample_from_schema
from engine.llm.testing.script import load_script, prose_around
from engine.llm.testing.scripted import ScriptedCall, ScriptedChatModel

__all__ = [
    "ProviderDouble",
    "ScriptedCall",
    "ScriptedChatModel",
    "load_script",
    "prose_around",
    "sample_from_schema",
]
