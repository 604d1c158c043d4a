"""SENSEI: the user simulator. Profiles in, conversation records out.

- `profile`: the canonical profile model; `dialects`: every accepted spelling read into it (v1, v2, TRACER,
  the paper), with warnings for old spellings; `yamlpos`: YAML with line/column positions;
- `validator`: `load_profile`/`validate` (problems with file, line, column, hint) and `profile_json_schema()`;
- `personalities`, `types` (custom regex types, matched with a timeout), `generators`, `planner` (`plan`);
- `prompts` (every prompt, named, with its intent), `detection` (fallbacks, repetition), `closing` (the end
  of a conversation from either side, items named by meaning), `simulator` (one conversation), `extraction`
  (one structured call for all outputs, typed), `scripted` (a script's checks on the replies and what they
  decide), `errors` (the error-code table), `executor` (`run_profiles`,
  the one entry point of the CLI and the platform: profile keys, seed, any() values, plans, a bounded
  concurrent pool, sink; events and cancellation through the run context), `records` (record JSON Schema, import of the reference's YAML
  conversations), `localfiles` (file and code features, CLI only).

Typical use (the caller builds the LLM client and the connector factory)::

    profile, problems = load_profile(text, allow_local_files=False)
    job = SenseiJob([profile], lambda: create_connector(config, guard), llm, sink=store)
    summary = run_profiles(job, RunContext())  # or the CLI's / the worker's context
"""

from engine.sensei.errors import ERROR_TABLE, connector_error_code, describe
from engine.sensei.executor import (
    RunSummary,
    SenseiJob,
    llm_any_resolver,
    new_seed,
    plan_document,
    profile_keys,
    remembering_resolver,
    run_profiles,
)
from engine.sensei.personalities import Personality, PersonalityCatalog
from engine.sensei.planner import Plan, PlanError, PlannedConversation, plan
from engine.sensei.problems import Problem
from engine.sensei.profile import Profile
from engine.sensei.records import conversation_record_schema, import_reference_conversation
from engine.sensei.simulator import Simulator, SimulatorSettings
from engine.sensei.types import CustomType, TypeCatalog, parse_custom_type
from engine.sensei.validator import ValidationResult, load_profile, profile_json_schema, validate

__all__ = [
    "ERROR_TABLE",
    "CustomType",
    "Personality",
    "PersonalityCatalog",
    "Plan",
    "PlanError",
    "PlannedConversation",
    "Problem",
    "Profile",
    "RunSummary",
    "SenseiJob",
    "Simulator",
    "SimulatorSettings",
    "TypeCatalog",
    "ValidationResult",
    "connector_error_code",
    "conversation_record_schema",
    "describe",
    "import_reference_conversation",
    "llm_any_resolver",
    "load_profile",
    "new_seed",
    "parse_custom_type",
    "plan",
    "plan_document",
    "profile_json_schema",
    "profile_keys",
    "remembering_resolver",
    "run_profiles",
    "validate",
]
