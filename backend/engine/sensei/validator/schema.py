"""`profile_json_schema()`: the JSON Schema of the canonical language, deprecated spellings marked.

It serves the web editor's completion and hover; it is structural only, the semantic checks come from
`validate`.
"""

from __future__ import annotations

from typing import Any

from engine.sensei.profile import STYLE_NAMES


def _deprecated(schema: dict[str, Any], instead: str) -> dict[str, Any]:
    return {**schema, "deprecated": True, "description": f"Old spelling; write `{instead}` instead."}


def profile_json_schema() -> dict[str, Any]:
    """JSON Schema (2020-12) of the profile language, for the editor's completion and hover.

    Structural only: the validator's semantic checks (placeholders, dependencies, combinations) come from
    `validate` through the API. Deprecated spellings are present and marked `deprecated: true`.
    """
    selector = {
        "type": "string",
        "description": "How a value is picked per conversation: default() the whole list, random(), random(n), "
        "random(rand), another(), another(n) (no repetition), forward() (in order), forward(n), forward(<variable>) "
        "(nested: advances when <variable> has gone round) or pairwise() (all-pairs covering rows).",
        "pattern": r"^\s*(default|random|another|forward|pairwise)\s*\(\s*([A-Za-z_][A-Za-z0-9_]*|\d+|rand)?\s*\)\s*$",
        "examples": ["forward()", "forward(size)", "another()", "random(2)", "pairwise()"],
    }
    range_data = {
        "type": "object",
        "description": "Numbers from min to max (max always included), by step, or linspace evenly spaced floats.",
        "properties": {
            "min": {"type": "number"},
            "max": {"type": "number"},
            "step": {"type": "number", "exclusiveMinimum": 0},
            "linspace": {"type": "integer", "minimum": 2},
        },
        "required": ["min", "max"],
    }
    date_data = {
        "type": "object",
        "properties": {
            "date": {
                "type": "object",
                "description": "ISO dates (YYYY-MM-DD), the parts concatenated.",
                "properties": {
                    "custom": {"type": ["array", "string"], "description": "Dates as written."},
                    "random": {"type": "integer", "minimum": 1, "description": "n random dates (1900-2100)."},
                    "set": {
                        "type": "string",
                        "pattern": r"^[<>]\s*today\(\d+\)$",
                        "description": ">today(n) / <today(n): n dates within the next / previous year.",
                    },
                    "range": {
                        "type": "object",
                        "properties": {
                            "min": {"type": "string"},
                            "max": {"type": "string"},
                            "step": {"type": "string", "pattern": r"^(day|month|year|linspace)\(\d+\)$"},
                            "random": {"type": "integer", "minimum": 1},
                        },
                        "required": ["min", "max"],
                    },
                    "fake": {
                        "type": "integer",
                        "minimum": 1,
                        "description": "n impossible dates, for negative tests.",
                    },
                },
            }
        },
        "required": ["date"],
    }
    function_data = {
        "type": "object",
        "description": "Values returned by a Python function in a local file (command line with "
        "--allow-local-files only).",
        "properties": {"file": {"type": "string"}, "function_name": {"type": "string"}, "args": {}},
        "required": ["file", "function_name"],
    }
    variable = {
        "type": "object",
        "properties": {
            "function": selector,
            "selector": _deprecated(selector, "function"),
            "type": {
                "type": "string",
                "description": "string, int, float, date or a custom type name.",
                "examples": ["string", "int", "float", "date"],
            },
            "data": {
                "description": "A list (items may be any(<prompt>) for LLM-invented values), a range, dates "
                "or a custom function.",
                "anyOf": [{"type": "array", "minItems": 1}, range_data, date_data, function_data],
            },
        },
        "required": ["type", "data"],
    }
    goal_item = {
        "anyOf": [
            {"type": "string", "description": "A goal; {{name}} is replaced by the variable's value."},
            {
                "type": "object",
                "minProperties": 1,
                "maxProperties": 1,
                "additionalProperties": variable,
                "description": "A variable: `name: {function, type, data}`.",
            },
        ]
    }
    output = {
        "type": "object",
        "minProperties": 1,
        "maxProperties": 1,
        "additionalProperties": {
            "type": "object",
            "properties": {
                "type": {
                    "type": "string",
                    "description": "string, int, float, bool, money ({amount, currency}), "
                    "date, time, datetime (ISO), list[T], enum[a, b] or a custom type. Old: str, currency.",
                    "examples": ["string", "int", "money", "date", "time", "list[string]", "enum[yes, no]"],
                },
                "description": {"type": "string", "description": "What to extract; the extractor's prompt."},
            },
            "required": ["type", "description"],
        },
    }
    style_names = [name for name in STYLE_NAMES if name != "change language"]  # an object, below
    style = {
        "anyOf": [
            {"type": "string", "enum": style_names},
            {"type": "string", "enum": ["single questions", "use short phrases"], "deprecated": True},
            {
                "type": "object",
                "properties": {"change language": {"type": "array", "items": {"type": "string"}}},
                "required": ["change language"],
                "additionalProperties": False,
            },
        ]
    }
    goal_style = {
        "anyOf": [
            {
                "type": "object",
                "properties": {
                    "steps": {"type": "integer", "minimum": 1, "description": "Stop after n user messages."},
                    "random steps": {
                        "type": "integer",
                        "minimum": 1,
                        "description": "Stop after a random 1..n user messages.",
                    },
                    "random_steps": _deprecated({"type": "integer", "minimum": 1}, "random steps"),
                    "all_answered": {
                        "description": "Stop when every goal is answered and every output found.",
                        "anyOf": [
                            {"type": "null"},
                            {
                                "type": "object",
                                "properties": {
                                    "limit": {"type": "integer", "minimum": 1, "default": 30},
                                    "export": {"type": "boolean", "default": False},
                                },
                            },
                        ],
                    },
                    "max_cost": {
                        "type": "number",
                        "minimum": 0,
                        "description": "USD budget per conversation.",
                    },
                },
            },
            {"type": "string", "enum": ["all_answered", "default"]},
        ]
    }
    number = {
        "description": "How many conversations: a number, combinations (enough to exhaust every finite selector), "
        "combinations(f) (a seeded random fraction), combinations(f, forward|pairwise). Old: all_combinations, "
        "sample(f).",
        "anyOf": [
            {"type": "integer", "minimum": 1},
            {
                "type": "string",
                "pattern": r"^(combinations|combinations\(\s*(0?\.\d+|1(\.0*)?)\s*(,\s*(forward|pairwise)\s*)?\))$",
            },
            {
                "type": "string",
                "pattern": r"^(all_combinations|sample\(\s*(0?\.\d+|1(\.0*)?)\s*\))$",
                "deprecated": True,
            },
        ],
    }
    llm = {
        "type": "object",
        "properties": {
            "model": {"type": "string", "description": "Model playing the user (default: the run's model)."},
            "provider": {"type": "string"},
            "model_prov": _deprecated({"type": "string"}, "provider"),
            "temperature": {"type": "number", "minimum": 0, "maximum": 1, "default": 0.8},
            "format": {
                "type": "object",
                "properties": {
                    "type": {"enum": ["text", "speech", "audio"], "default": "text"},
                    "config": {"type": "string"},
                },
            },
        },
    }
    user = {
        "type": "object",
        "properties": {
            "language": {"type": "string", "default": "English"},
            "role": {"type": "string", "description": "Who the simulated user is and what they want."},
            "context": {
                "description": "Extra facts and at most one `personality: <name>`.",
                "anyOf": [
                    {
                        "type": "array",
                        "items": {
                            "anyOf": [
                                {"type": "string"},
                                {
                                    "type": "object",
                                    "properties": {"personality": {"type": "string"}},
                                    "required": ["personality"],
                                },
                            ]
                        },
                    },
                    {"type": "object", "properties": {"personality": {"type": "string"}}},
                ],
            },
            "goals": {"type": "array", "minItems": 1, "items": goal_item},
            "ask_about": _deprecated({"type": "array", "items": goal_item}, "goals"),
        },
        "required": ["role", "goals"],
    }
    chatbot = {
        "type": "object",
        "properties": {
            "is_starter": {"type": "boolean", "default": True, "description": "The chatbot speaks first."},
            "isStarter": _deprecated({"type": "boolean"}, "is_starter"),
            "fallback": {
                "description": "What the chatbot says when it does not understand (one or several).",
                "anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}],
            },
            "output": {"type": "array", "items": output},
            "outputs": _deprecated({"type": "array", "items": output}, "output"),
        },
    }
    conversation = {
        "type": "object",
        "properties": {
            "number": number,
            "max_cost": {"type": "number", "minimum": 0, "description": "USD budget for this profile's run."},
            "goal_style": goal_style,
            "stop_condition": _deprecated(goal_style, "goal_style"),
            "interaction_style": {
                "type": "array",
                "items": {
                    "anyOf": [
                        style,
                        {
                            "type": "object",
                            "properties": {"random": {"type": "array", "items": style}},
                            "required": ["random"],
                        },
                    ]
                },
            },
        },
        "required": ["number", "goal_style"],
    }
    text_check = {"type": "string", "minLength": 1, "maxLength": 500}
    check = {
        "type": "object",
        "description": "One check on the chatbot's reply to this step (exactly one key).",
        "minProperties": 1,
        "maxProperties": 1,
        "properties": {
            "contains": {
                **text_check,
                "description": "The reply contains this text (case and spacing ignored).",
            },
            "not_contains": {**text_check, "description": "The reply does not contain this text."},
            "matches": {
                **text_check,
                "description": "A regular expression found somewhere in the reply (run with a timeout).",
            },
            "states": {
                "type": "string",
                "description": "The reply states a value of this type: money, int, float, date, time, datetime, "
                "enum[a, b] or a custom type.",
                "examples": ["money", "int", "date", "time", "enum[small, medium, large]"],
            },
        },
        "additionalProperties": False,
    }
    script = {
        "type": "array",
        "minItems": 1,
        "maxItems": 200,
        "description": "Literal user turns, sent as written before any simulated one, each with checks on the "
        "chatbot's reply. A script without goals is decided by its checks alone, with no LLM call.",
        "items": {
            "type": "object",
            "properties": {
                "user": {"type": "string", "minLength": 1, "maxLength": 4000, "description": "The message."},
                "expect": {
                    "description": "Checks on the chatbot's reply to this message.",
                    "anyOf": [{"type": "array", "maxItems": 20, "items": check}, check],
                },
            },
            "required": ["user"],
            "additionalProperties": False,
        },
    }
    min_pass_rate = {
        "description": "The smallest pass@1 `parley sensei compare` accepts for this profile: a fraction (0.9) "
        'or a percentage ("90%").',
        "anyOf": [
            {"type": "number", "exclusiveMinimum": 0, "maximum": 1},
            {"type": "string", "pattern": r"^\s*\d+(\.\d+)?\s*%\s*$"},
        ],
    }
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://parley.invalid/schemas/sensei-profile.json",
        "title": "SENSEI conversation profile",
        "type": "object",
        "properties": {
            "test_name": {"type": "string", "minLength": 1, "description": "Unique name of this profile."},
            "llm": llm,
            "LLM": _deprecated(llm, "llm"),
            "user": user,
            "chatbot": chatbot,
            "conversation": conversation,
            "conversations": _deprecated(conversation, "conversation"),
            "script": script,
            "min_pass_rate": min_pass_rate,
        },
        "required": ["test_name"],
        # A simulated profile needs its three sections; a scripted one only its script.
        "anyOf": [{"required": ["user", "chatbot", "conversation"]}, {"required": ["script"]}],
    }
