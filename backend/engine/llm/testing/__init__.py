"""Test doubles of the LLM gateway, shared by the tests of every engine and of the platform.

- `ScriptedChatModel`: an in-process chat model answering by caller tag (pass it as `LLMClient(chat_model=...)`).
- `fake_server.FakeLLMServer` / `fake_server.running_fake_server()`: a fake OpenAI-compatible HTTP server, also runnable as
  `python -m engine.llm.testing.fake_server`, for tests that go through real HTTP (platform, browser, bench).
- `sample_from_schema()`: schema-valid sample data, what both answer to unscripted structured calls.
The script format both understand is documented in `engine.llm.testing.script`. The fake server is not
imported here so that `python -m engine.llm.testing.fake_server` runs it as a fresh module.
"""

from engine.llm.testing.schema_data import sample_from_schema
from engine.llm.testing.script import load_script
from engine.llm.testing.scripted import ScriptedCall, ScriptedChatModel

__all__ = [
    "ScriptedCall",
    "ScriptedChatModel",
    "load_script",
    "sample_from_schema",
]
