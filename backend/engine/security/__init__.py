"""Security campaigns: adversarial tests of the chatbot under test, with evidence for every breach.

- `campaign`: the campaign models (attacks, delivery modes, oracles, attempts, cost cap);
- `loading`: campaign files read with line-numbered problems, the reference format converted;
- `schema`: the editor's JSON Schema and template;
- `catalogue` and `texts`: the twelve strategies and their messages; `transforms`: markers, Base64, scrambling;
- `prompts`: what the LLM is asked (tasks, rewording, warm-up user, escalating attacker, judge);
- `detectors` and `oracles`: what decides `breached` / `resisted` / `inconclusive` / `error`;
- `delivery` and `runner`: the conversations and the one entry point `run_campaign`;
- `plan`: attempts and a cost ceiling before running; `report`: breach rates with Wilson intervals;
- `compare`: two runs of a campaign compared (breach rates per attack and delivery mode, newly breached attempts);
- `states`: the states of a TRACER run with the recorded prefixes that reach them, for attacks from a state.

A breach is only ever stated with words quoted from the chatbot's reply, checked to be there (README D27).
"""

from engine.security.campaign import ATTACK_NAMES, ORACLE_NAMES, AttackSpec, Campaign, Delivery, OracleSpec
from engine.security.catalogue import STRATEGIES, Strategy
from engine.security.compare import (
    SecurityCompareInputError,
    SecurityComparison,
    compare_campaigns,
    comparison_text,
    load_results,
)
from engine.security.delivery import Identity, identity_from_profile
from engine.security.loading import CampaignLoad, Problem, dump_campaign, load_campaign
from engine.security.plan import CampaignPlan, plan_campaign
from engine.security.records import VERDICTS, AttemptRecord, Evidence, Finding, TranscriptTurn, Verdict
from engine.security.report import render_markdown, render_table, summarise
from engine.security.runner import (
    CampaignJob,
    CampaignNeedsModel,
    CampaignNeedsStates,
    CampaignResult,
    needs_model,
    run_campaign,
)
from engine.security.schema import TEMPLATE, campaign_json_schema
from engine.security.states import (
    State,
    StateMap,
    TracerOutputError,
    choose_states,
    read_tracer_output,
    states_from_tracer,
)

__all__ = [
    "ATTACK_NAMES",
    "ORACLE_NAMES",
    "STRATEGIES",
    "TEMPLATE",
    "VERDICTS",
    "AttackSpec",
    "AttemptRecord",
    "Campaign",
    "CampaignJob",
    "CampaignLoad",
    "CampaignNeedsModel",
    "CampaignNeedsStates",
    "CampaignPlan",
    "CampaignResult",
    "Delivery",
    "Evidence",
    "Finding",
    "Identity",
    "OracleSpec",
    "Problem",
    "SecurityCompareInputError",
    "SecurityComparison",
    "State",
    "StateMap",
    "Strategy",
    "TracerOutputError",
    "TranscriptTurn",
    "Verdict",
    "campaign_json_schema",
    "choose_states",
    "compare_campaigns",
    "comparison_text",
    "dump_campaign",
    "identity_from_profile",
    "load_campaign",
    "load_results",
    "needs_model",
    "plan_campaign",
    "read_tracer_output",
    "render_markdown",
    "render_table",
    "run_campaign",
    "states_from_tracer",
    "summarise",
]
