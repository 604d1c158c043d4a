"""The functions a rule may call, in one registry: Python-like built-ins, SENSEI's library, global helpers.

Adding a function means adding one decorated definition (`@LIBRARY.function(...)`) to the theme module it
belongs to. Kinds: "builtin" (len, sorted, …), "local" (computed here, free), "llm" (asks the judge; see
`judge`), "global" (only in `conversations: all` rules). Functions that read one conversation accept `conv=`
to name it explicitly, which is how a k-conversation rule uses them: `conversation_length(conv=conv[0])`.

Modules: `registry` (Function, FunctionRegistry, CallContext, Verdict, the library itself), `builtin`,
`text` (numbers, currencies, lengths, similarity), `conversation` (one conversation's turns and outputs),
`languages` (language identification), `global_rules` (is_unique, exists, num_exist), `judged` (LLM-backed).
The imports below register the themes in the order `parley check --list-functions` lists them.
"""

from engine.check.functions.registry import (
    CallContext,
    Function,
    FunctionRegistry,
    Kind,
    Verdict,
    default_registry,
)

# Each theme registers its functions when imported, so the order of these imports is the listing order.
# isort: off
from engine.check.functions import builtin
from engine.check.functions.text import currency, extract_float, length, parse_number, repeated
from engine.check.functions.conversation import (
    chatbot_returns,
    conversation_length,
    data_collected,
    repeated_answers,
)
from engine.check.functions.languages import language, language_code
from engine.check.functions.global_rules import exists, is_unique, num_exist
from engine.check.functions.judged import (
    only_talks_about,
    responds_in_same_language,
    semantic_content,
    tone,
    utterance_index,
)

# isort: on

__all__ = [
    "CallContext",
    "Function",
    "FunctionRegistry",
    "Kind",
    "Verdict",
    "builtin",
    "chatbot_returns",
    "conversation_length",
    "currency",
    "data_collected",
    "default_registry",
    "exists",
    "extract_float",
    "is_unique",
    "language",
    "language_code",
    "length",
    "num_exist",
    "only_talks_about",
    "parse_number",
    "repeated",
    "repeated_answers",
    "responds_in_same_language",
    "semantic_content",
    "tone",
    "utterance_index",
]
