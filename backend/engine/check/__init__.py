"""SENSEI-check: correctness rules over recorded conversations, evaluated in a sandbox.

Modules: `rules` (rule files: model, loader, JSON Schema), `sandbox` (our interpreter for rule expressions),
`namespace` (what a rule sees of a conversation), `functions` (the function registry and library), `judge`
(the LLM judge interface for LLM-backed functions), `language` (offline language identification),
`evaluate` (single / k-conversation / global semantics), `runner` (`check()`, the limited child process),
`report` (JSON, CSV, JUnit), `loaders` (Parley records and the reference tools' YAML conversation files).

Typical use::

    rules = load_rules("rules/")
    conversations = load_conversations("conversations/").conversations
    report = check(rules, conversations, judge=GatewayJudge(llm_client))
    report.to_json(), report.to_csv(), report.to_junit(), report.exit_code
"""

from engine.check.errors import (
    AmbiguousNameError,
    CheckError,
    ConversationLoadError,
    EvaluationError,
    JudgeUnavailable,
    RuleError,
    SandboxError,
    SandboxLimitError,
    SandboxSyntaxError,
)
from engine.check.functions import CallContext, Function, FunctionRegistry, Verdict, default_registry
from engine.check.judge import CachingJudge, GatewayJudge, Judge, JudgeStats
from engine.check.loaders import LoadResult, load_conversations, reference_conversation
from engine.check.report import CheckReport, CheckResult, Outcome, RuleReport
from engine.check.rules import Rule, RuleSetError, load_rule_file, load_rules, parse_rule, rule_json_schema
from engine.check.runner import Limits, check
from engine.check.sandbox import SandboxLimits, compile_rule_code

__all__ = [
    "AmbiguousNameError",
    "CachingJudge",
    "CallContext",
    "CheckError",
    "CheckReport",
    "CheckResult",
    "ConversationLoadError",
    "EvaluationError",
    "Function",
    "FunctionRegistry",
    "GatewayJudge",
    "Judge",
    "JudgeStats",
    "JudgeUnavailable",
    "Limits",
    "LoadResult",
    "Outcome",
    "Rule",
    "RuleError",
    "RuleReport",
    "RuleSetError",
    "SandboxError",
    "SandboxLimitError",
    "SandboxLimits",
    "SandboxSyntaxError",
    "Verdict",
    "check",
    "compile_rule_code",
    "default_registry",
    "load_conversations",
    "load_rule_file",
    "load_rules",
    "parse_rule",
    "reference_conversation",
    "rule_json_schema",
]
