"""The real-model tier (marker `real_llm`): tests against a real OpenAI-compatible server, llama-cpp-python serving
SmolLM2-135M-Instruct (backend/scripts/real_llm.py), started once per session by the `real_llm_url` fixture in
conftest.py here. Run it with `make test-real-llm`; `make test` includes it.

- test_server.py: what the server itself does (the protocol Parley has to cope with), no Parley code involved.
- SENSEI and TRACER against reference bots, on the CLI and through a platform run (issue "Real model in the
  loop"), belong in test_sensei.py and test_tracer.py beside it, each module marked with
  `pytestmark = pytest.mark.real_llm` and pointing the engine at `real_llm_url` / `real_llm_model`.
"""
