"""The offline provider: Parley without an LLM key — a stand-in for a model that answers every engine's calls in
process (or over HTTP), deliberately imperfectly, and is labelled fake wherever its figures appear.

A product feature, not a test helper: `parley bench --double imperfect`, `parley tracer --from-transcripts ...
--double imperfect`, `parley qualify --models double:perfect,double:imperfect,double:loose-json` (D32), the
benchmarks under `backend/benchmarks/` and the browser-test stack (`make e2e-stack`) run on it. What it is for:
measuring Parley's own machinery (consolidation, verdicts, repair of loose answers, throughput) reproducibly and
at no cost, and trying Parley offline. What it is not: a model — its figures say nothing about any real one.

- `imperfect.ImperfectChatModel`: the model. A *responder* per caller tag (the call's `tag`, else its response
  schema's name) reads the call's data — the transcript, the numbered goals, the fields its response schema asks
  for — never the instruction sentences around them, and answers with the habits real models have (paraphrases,
  other casings, omissions, now and then an item that is not there, prose around JSON).
- `sensei.SenseiDouble`, `tracer.TracerDouble`: the responders of SENSEI's and TRACER's calls; `sensei_loose`
  writes SENSEI's extraction in loose JSON (`double:loose-json`).
- `scripted.ScriptedChatModel`: the model the imperfect one is built on — answers by caller tag from a script
  (format in `script`), schema-valid sample data (`schema_data`) when unscripted — through `protocol.ProviderDouble`,
  the strict rules of each provider family (OpenAI, Gemini's compatible endpoint, a local server), so it refuses
  what the real API refuses: a call that works offline is a call the real provider accepts.
- `server.FakeLLMServer` / `server.running_fake_server()`: the scripted model over HTTP, an OpenAI-compatible server
  on this machine (`python -m engine.llm.offline.server --port P`), for the benchmarks and the browser tests.

The tests use it too, as the strict double of every provider. The server is not imported here so that
`python -m engine.llm.offline.server` runs it as a fresh module.
"""

from engine.llm.offline.protocol import ProviderDouble
from engine.llm.offline.schema_data import sample_from_schema
from engine.llm.offline.script import load_script, prose_around
from engine.llm.offline.scripted import ScriptedCall, ScriptedChatModel

__all__ = [
    "ProviderDouble",
    "ScriptedCall",
    "ScriptedChatModel",
    "load_script",
    "prose_around",
    "sample_from_schema",
]
