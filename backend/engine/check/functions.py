"""The functions a rule may call, in one registry: Python-like built-ins, SENSEI's library, global helpers.

Adding a function means adding one decorated definition below (`@_library.function(...)`): the registry is
what the interpreter looks names up in, what `parley check --functions` would list and what the web editor
completes. Every implementation gets the `Interpreter` first (for its limits and its `context`, a
`CallContext`: the current conversation, the filtered set of a global rule, the judge) and the rule's
arguments after it.

Kinds: "builtin" (len, sorted, …), "local" (computed here, free), "llm" (asks the judge; see `judge`),
"global" (only in `conversations: all` rules). Functions that read one conversation accept `conv=` to name
it explicitly, which is how a k-conversation rule uses them: `conversation_length(conv=conv[0])`.
"""

from __future__ import annotations

import difflib
import math
import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from engine.check import judge as judges
from engine.check.errors import EvaluationError, SandboxError, SandboxLimitError
from engine.check.language import detect, sensei_code
from engine.check.namespace import ConversationView, Section, SingleNames, bot_text
from engine.check.sandbox import (
    Interpreter,
    SandboxCallable,
    SandboxObject,
    compile_rule_code,
    type_name,
)

Kind = Literal["builtin", "local", "llm", "global"]


class Verdict(SandboxObject):
    """A yes/no with a reason, returned by functions that explain failures (only_talks_about, is_unique…).

    It behaves as a bool in `and`, `or`, `not` and `== True`, so negating it is safe; the checker shows
    `reason` when the rule fails on it.
    """

    __slots__ = ("ok", "reason")

    def __init__(self, *, ok: bool, reason: str = "") -> None:
        self.ok = ok
        self.reason = reason

    @classmethod
    def yes(cls) -> Verdict:
        return cls(ok=True)

    @classmethod
    def no(cls, reason: str) -> Verdict:
        return cls(ok=False, reason=reason)

    def __bool__(self) -> bool:
        return self.ok

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Verdict):
            return self.ok == other.ok
        if isinstance(other, bool):
            return self.ok is other
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.ok)

    def __repr__(self) -> str:
        return "True" if self.ok else (self.reason or "False")

    def sandbox_type(self) -> str:
        return "verdict"

    def sandbox_attribute(self, name: str) -> Any:
        if name == "ok":
            return self.ok
        if name == "reason":
            return self.reason
        raise EvaluationError(f"a verdict has .ok and .reason, not .{name}")


@dataclass
class CallContext:
    """What library functions may use besides their arguments."""

    conversation: ConversationView | None = None
    population: tuple[ConversationView, ...] | None = None  # the filtered set of a global rule
    judge: judges.Judge | None = None
    registry: FunctionRegistry | None = None

    def view(self, function: str, conv: Any = None) -> ConversationView:
        if conv is not None:
            if not isinstance(conv, ConversationView):
                raise EvaluationError(f"{function}(conv=…) needs a conversation such as conv[0]")
            return conv
        if self.conversation is None:
            raise EvaluationError(
                f"{function}() reads one conversation; in this rule name it, e.g. {function}(conv=conv[0])"
            )
        return self.conversation


def _context(interpreter: Interpreter) -> CallContext:
    context = interpreter.context
    if not isinstance(context, CallContext):
        return CallContext()
    return context


class Function(SandboxCallable):
    """One registered function."""

    def __init__(
        self, name: str, impl: Callable[..., Any], *, kind: Kind, summary: str, signature: str
    ) -> None:
        self.name = name
        self.impl = impl
        self.kind = kind
        self.summary = summary
        self.signature = signature

    def invoke(self, interpreter: Interpreter, args: list[Any], kwargs: dict[str, Any]) -> Any:
        try:
            return self.impl(interpreter, *args, **kwargs)
        except SandboxError:
            raise
        except (RecursionError, MemoryError):
            raise
        except TypeError as exc:
            message = str(exc)
            if "positional argument" in message or "keyword argument" in message or "missing" in message:
                raise EvaluationError(f"wrong arguments for {self.name}{self.signature}") from None
            raise EvaluationError(f"{self.name}(): {message}") from None
        except Exception as exc:  # noqa: BLE001 - a library function's failure is this check's error
            raise EvaluationError(f"{self.name}(): {exc}") from None

    def describe(self) -> dict[str, str]:
        return {
            "name": self.name,
            "kind": self.kind,
            "signature": f"{self.name}{self.signature}",
            "summary": self.summary,
        }


@dataclass
class FunctionRegistry:
    """Name → Function. `lookup` and `names` are what the interpreter uses."""

    functions: dict[str, Function] = field(default_factory=dict)

    def add(self, function: Function) -> None:
        if function.name in self.functions:
            raise ValueError(f"function {function.name!r} is already registered")
        self.functions[function.name] = function

    def function(
        self, name: str, *, kind: Kind = "local", summary: str = "", signature: str = "(…)"
    ) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        def decorate(impl: Callable[..., Any]) -> Callable[..., Any]:
            self.add(Function(name, impl, kind=kind, summary=summary, signature=signature))
            return impl

        return decorate

    def lookup(self, name: str) -> Function | None:
        return self.functions.get(name)

    def names(self) -> list[str]:
        return list(self.functions)

    def describe(self) -> list[dict[str, str]]:
        return [function.describe() for function in self.functions.values()]

    def copy(self) -> FunctionRegistry:
        return FunctionRegistry(dict(self.functions))


_library = FunctionRegistry()


def default_registry() -> FunctionRegistry:
    """A copy of the standard library; add project functions to the copy with `.add(...)`."""
    return _library.copy()


# -- Python-like built-ins -------------------------------------------------------------------------------------


def _numbers(interpreter: Interpreter, values: Any, function: str) -> list[Any]:
    items = interpreter.materialise(values)
    for item in items:
        if not isinstance(item, int | float):
            raise EvaluationError(f"{function}() needs numbers, got a {type_name(item)}")
    return items


def _builtin(name: str, signature: str, summary: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    return _library.function(name, kind="builtin", summary=summary, signature=signature)


@_builtin("len", "(x)", "number of items or characters")
def _len(interpreter: Interpreter, value: Any) -> int:
    if isinstance(value, str | list | tuple | dict | set | frozenset | range):
        return len(value)
    if isinstance(value, Section):
        return len(value)
    return len(interpreter.materialise(value))


@_builtin("abs", "(x)", "absolute value")
def _abs(interpreter: Interpreter, value: Any) -> Any:
    if not isinstance(value, int | float):
        raise EvaluationError(f"abs() needs a number, got a {type_name(value)}")
    return abs(value)


def _extremum(pick: Callable[..., Any], name: str) -> Callable[..., Any]:
    def impl(interpreter: Interpreter, *values: Any, default: Any = ...) -> Any:
        items = interpreter.materialise(values[0]) if len(values) == 1 else list(values)
        if not items:
            if default is ...:
                raise EvaluationError(f"{name}() of an empty sequence (give default=…)")
            return default
        return pick(items)

    return impl


_builtin("min", "(values, default=…)", "smallest item")(_extremum(min, "min"))
_builtin("max", "(values, default=…)", "largest item")(_extremum(max, "max"))


@_builtin("sum", "(numbers, start=0)", "sum of numbers")
def _sum(interpreter: Interpreter, values: Any, start: float = 0) -> Any:
    if not isinstance(start, int | float):
        raise EvaluationError("sum() adds numbers only")
    return sum(_numbers(interpreter, values, "sum"), start)


@_builtin("mean", "(numbers)", "arithmetic mean (None for no numbers)")
def _mean(interpreter: Interpreter, values: Any) -> float | None:
    items = _numbers(interpreter, values, "mean")
    return sum(items) / len(items) if items else None


@_builtin("round", "(x, digits=None)", "rounded number")
def _round(interpreter: Interpreter, value: Any, digits: int | None = None) -> Any:
    if not isinstance(value, int | float):
        raise EvaluationError(f"round() needs a number, got a {type_name(value)}")
    if digits is not None and (not isinstance(digits, int) or abs(digits) > 100):
        raise EvaluationError("round() digits must be an integer between -100 and 100")
    return round(value) if digits is None else round(value, digits)


@_builtin("sorted", "(values, reverse=False)", "sorted list")
def _sorted(interpreter: Interpreter, values: Any, reverse: bool = False) -> list[Any]:
    return sorted(interpreter.materialise(values), reverse=bool(reverse))


@_builtin("reversed", "(values)", "list in reverse order")
def _reversed(interpreter: Interpreter, values: Any) -> list[Any]:
    return interpreter.materialise(values)[::-1]


@_builtin("any", "(values)", "True if some item is true")
def _any(interpreter: Interpreter, values: Any) -> bool:
    return any(bool(item) for item in interpreter.iterate(values))


@_builtin("all", "(values)", "True if every item is true")
def _all(interpreter: Interpreter, values: Any) -> bool:
    return all(bool(item) for item in interpreter.iterate(values))


@_builtin("int", "(x)", "integer from a number or text")
def _int(interpreter: Interpreter, value: Any = 0) -> int:
    if isinstance(value, str) and len(value) > 1000:
        raise SandboxLimitError("int() of more than 1000 characters")
    if not isinstance(value, str | int | float):
        raise EvaluationError(f"int() needs a number or text, got a {type_name(value)}")
    return int(value)


@_builtin("float", "(x)", "decimal number from a number or text")
def _float(interpreter: Interpreter, value: Any = 0.0) -> float:
    if not isinstance(value, str | int | float):
        raise EvaluationError(f"float() needs a number or text, got a {type_name(value)}")
    if isinstance(value, str) and len(value) > 1000:
        raise SandboxLimitError("float() of more than 1000 characters")
    return float(value)


@_builtin("str", "(x)", "text of a value")
def _str(interpreter: Interpreter, value: Any = "") -> str:
    return interpreter.to_text(value)


@_builtin("bool", "(x)", "truth value")
def _bool(interpreter: Interpreter, value: Any = False) -> bool:
    return bool(value)


@_builtin("list", "(values)", "list of the items")
def _list(interpreter: Interpreter, values: Any = ()) -> list[Any]:
    return interpreter.materialise(values)


@_builtin("tuple", "(values)", "tuple of the items")
def _tuple(interpreter: Interpreter, values: Any = ()) -> tuple[Any, ...]:
    return tuple(interpreter.materialise(values))


@_builtin("set", "(values)", "set of the items")
def _set(interpreter: Interpreter, values: Any = ()) -> set[Any]:
    return set(interpreter.materialise(values))


@_builtin("dict", "(pairs, **names)", "dictionary")
def _dict(interpreter: Interpreter, pairs: Any = (), **names: Any) -> dict[Any, Any]:
    result: dict[Any, Any] = {}
    if isinstance(pairs, dict):
        result.update(pairs)
    else:
        for pair in interpreter.materialise(pairs):
            if not isinstance(pair, list | tuple) or len(pair) != 2:
                raise EvaluationError("dict() needs (key, value) pairs")
            result[pair[0]] = pair[1]
    result.update(names)
    return result


@_builtin("range", "(stop) or (start, stop, step=1)", "integers from start to stop")
def _range(interpreter: Interpreter, *bounds: Any) -> range:
    if not 1 <= len(bounds) <= 3 or not all(isinstance(b, int) for b in bounds):
        raise EvaluationError("range() needs one to three integers")
    return range(*bounds)


@_builtin("enumerate", "(values, start=0)", "(index, item) pairs")
def _enumerate(interpreter: Interpreter, values: Any, start: int = 0) -> list[tuple[int, Any]]:
    if not isinstance(start, int):
        raise EvaluationError("enumerate() start must be an integer")
    return list(enumerate(interpreter.materialise(values), start))


@_builtin("zip", "(a, b, …)", "tuples of the items at the same position")
def _zip(interpreter: Interpreter, *sequences: Any) -> list[tuple[Any, ...]]:
    return list(zip(*(interpreter.materialise(seq) for seq in sequences), strict=False))


# -- SENSEI's local functions ----------------------------------------------------------------------------------

_NUMBER = re.compile(r"(?<![\w.])([-+\u2212]?)(\d+(?:[.,]\d+)*)")


def parse_number(text: str) -> float | None:
    """The first number in `text`, reading 1,234.5 / 1.234,5 / 13,50 / 1,000 the way people write them."""
    match = _NUMBER.search(text)
    if match is None:
        return None
    sign, digits = match.group(1), match.group(2)
    if "," in digits and "." in digits:
        decimal = "," if digits.rfind(",") > digits.rfind(".") else "."
    elif "," in digits:
        parts = digits.split(",")
        decimal = "," if len(parts) == 2 and len(parts[1]) != 3 else ""
    elif digits.count(".") > 1:
        decimal = ""
    else:
        decimal = "."
    thousands = {",", "."} - {decimal}
    cleaned = "".join(ch for ch in digits if ch not in thousands)
    if decimal == ",":
        cleaned = cleaned.replace(",", ".")
    value = float(cleaned)
    return -value if sign in ("-", "\u2212") else value


@_library.function(
    "extract_float", summary="first number in a text (None if there is none)", signature="(text)"
)
def extract_float(interpreter: Interpreter, value: Any) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool):
        raise EvaluationError("extract_float() needs text or a number, got a bool")
    if isinstance(value, int | float):
        return float(value)
    if not isinstance(value, str):
        value = interpreter.to_text(value)
    return parse_number(value)


_CURRENCIES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("EUR", re.compile(r"€|\beur\b|\beuros?\b", re.IGNORECASE)),
    ("GBP", re.compile(r"£|\bgbp\b|\bpounds?(?: sterling)?\b", re.IGNORECASE)),
    ("INR", re.compile(r"₹|\binr\b|\brupees?\b|\bRs\.?(?=\s?\d)", re.IGNORECASE)),
    ("JPY", re.compile(r"¥|￥|\bjpy\b|\byen\b", re.IGNORECASE)),
    ("USD", re.compile(r"\$|\busd\b|\bdollars?\b", re.IGNORECASE)),
)


@_library.function(
    "currency", summary="USD, EUR, GBP, JPY or INR from a symbol, code or name; else None", signature="(text)"
)
def currency(interpreter: Interpreter, value: Any) -> str | None:
    if value is None:
        return None
    text = value if isinstance(value, str) else interpreter.to_text(value)
    found: list[tuple[int, str]] = []
    for code, pattern in _CURRENCIES:
        match = pattern.search(text)
        if match:
            found.append((match.start(), code))
    return min(found)[1] if found else None


def _texts(interpreter: Interpreter, value: Any, function: str) -> list[str]:
    if isinstance(value, str):
        return [value]
    items = interpreter.materialise(value)
    for item in items:
        if not isinstance(item, str):
            raise EvaluationError(f"{function}() needs text or a list of texts, got a {type_name(item)}")
    return items


@_library.function(
    "length",
    summary="length in characters of a text, or the average/min/max length of a list of texts",
    signature="(text_or_list, kind='average')",
)
def length(interpreter: Interpreter, value: Any, kind: str = "average") -> float:
    texts = _texts(interpreter, value, "length")
    if kind not in ("average", "min", "max"):
        raise EvaluationError("length() kind must be 'average', 'min' or 'max'")
    if not texts:
        return 0
    sizes = [len(text) for text in texts]
    if kind == "min":
        return min(sizes)
    if kind == "max":
        return max(sizes)
    return sum(sizes) / len(sizes)


_WHO = {"both": None, "all": None, "user": "user", "assistant": "bot", "chatbot": "bot", "bot": "bot"}


@_library.function(
    "conversation_length",
    summary="number of transcript entries (who='both'|'user'|'assistant')",
    signature="(who='both', conv=None)",
)
def conversation_length(interpreter: Interpreter, who: str = "both", conv: Any = None) -> int:
    if who not in _WHO:
        raise EvaluationError("conversation_length() who must be 'both', 'user' or 'assistant'")
    role = _WHO[who]
    turns = _context(interpreter).view("conversation_length", conv).record.turns
    return sum(1 for turn in turns if role is None or turn.role == role)


@_library.function(
    "chatbot_returns",
    summary="0-based transcript positions of chatbot messages containing pattern (not followed by and_not)",
    signature="(pattern, and_not=None, conv=None)",
)
def chatbot_returns(
    interpreter: Interpreter, pattern: str, and_not: str | None = None, conv: Any = None
) -> list[int]:
    if not isinstance(pattern, str) or not pattern:
        raise EvaluationError("chatbot_returns() needs a non-empty text pattern")
    if and_not is not None and not isinstance(and_not, str):
        raise EvaluationError("chatbot_returns() and_not must be text")
    record = _context(interpreter).view("chatbot_returns", conv).record
    positions: list[int] = []
    for index, turn in enumerate(record.turns):
        if turn.role != "bot":
            continue
        text = bot_text(turn)
        start = text.find(pattern)
        while start >= 0:
            rest = text[start + len(pattern) :].lstrip()
            if not and_not or not rest.startswith(and_not):
                positions.append(index)
                break
            start = text.find(pattern, start + 1)
    return positions


_TOKEN = re.compile(r"\w+", re.UNICODE)


def _tokens(text: str) -> list[str]:
    return _TOKEN.findall(text.lower())


def _tfidf_vectors(texts: Sequence[str]) -> list[dict[str, float]]:
    documents = [Counter(_tokens(text)) for text in texts]
    frequency: Counter[str] = Counter()
    for document in documents:
        frequency.update(document.keys())
    count = len(documents)
    vectors: list[dict[str, float]] = []
    for document in documents:
        vector = {
            term: tf * (math.log((1 + count) / (1 + frequency[term])) + 1.0) for term, tf in document.items()
        }
        norm = math.sqrt(sum(weight * weight for weight in vector.values())) or 1.0
        vectors.append({term: weight / norm for term, weight in vector.items()})
    return vectors


def _similarity_function(method: str, texts: Sequence[str]) -> Callable[[int, int], float]:
    if method == "exact":
        normal = [" ".join(text.lower().split()) for text in texts]
        return lambda i, j: 1.0 if normal[i] == normal[j] else 0.0
    if method in ("tf-idf", "tfidf", "cosine"):
        vectors = _tfidf_vectors(texts)

        def cosine(i: int, j: int) -> float:
            a, b = vectors[i], vectors[j]
            if len(a) > len(b):
                a, b = b, a
            return sum(weight * b.get(term, 0.0) for term, weight in a.items())

        return cosine
    if method == "jaccard":
        sets = [set(_tokens(text)) for text in texts]

        def jaccard(i: int, j: int) -> float:
            union = sets[i] | sets[j]
            return len(sets[i] & sets[j]) / len(union) if union else 1.0

        return jaccard
    if method in ("sequence", "sequence-matcher", "sequence_matcher", "gestalt"):
        return lambda i, j: difflib.SequenceMatcher(None, texts[i], texts[j], autojunk=False).ratio()
    raise EvaluationError("repeated_answers() method must be 'exact', 'tf-idf', 'jaccard' or 'sequence'")


def repeated(texts: Sequence[str], method: str = "exact", threshold: float = 0.4) -> dict[str, list[str]]:
    """First phrase → the later phrases at least `threshold` similar to it (only phrases that repeat)."""
    similar = _similarity_function(method, texts)
    groups: dict[str, list[str]] = {}
    taken: set[int] = set()
    for i in range(len(texts)):
        if i in taken:
            continue
        for j in range(i + 1, len(texts)):
            if j not in taken and similar(i, j) >= threshold:
                groups.setdefault(texts[i], []).append(texts[j])
                taken.add(j)
    return groups


@_library.function(
    "repeated_answers",
    summary="chatbot replies that repeat an earlier one: {first reply: [similar later replies]}",
    signature="(method='exact', threshold=0.4, conv=None)  # method: exact | tf-idf | jaccard | sequence",
)
def repeated_answers(
    interpreter: Interpreter, method: str = "exact", threshold: float = 0.4, conv: Any = None
) -> dict[str, list[str]]:
    if not isinstance(method, str):
        raise EvaluationError("repeated_answers() method must be text")
    if not isinstance(threshold, int | float) or not 0 <= threshold <= 1:
        raise EvaluationError("repeated_answers() threshold must be between 0 and 1")
    phrases = [
        p for p in _context(interpreter).view("repeated_answers", conv).record.chatbot_phrases if p.strip()
    ]
    if len(phrases) > 2000:
        raise SandboxLimitError("repeated_answers() compares at most 2,000 replies")
    return repeated(phrases, method.lower(), float(threshold))


@_library.function("data_collected", summary="True when every output has a value", signature="(conv=None)")
def data_collected(interpreter: Interpreter, conv: Any = None) -> bool:
    outputs = _context(interpreter).view("data_collected", conv).record.outputs
    return all(value is not None for value in outputs.values())


def _missing(interpreter: Interpreter, conv: Any = None) -> list[str]:
    outputs = _context(interpreter).view("missing_outputs", conv).record.outputs
    return [name for name, value in outputs.items() if value is None]


_library.function("missing_outputs", summary="names of the outputs without a value", signature="(conv=None)")(
    _missing
)
_library.function("missing_slots", summary="alias of missing_outputs()", signature="(conv=None)")(_missing)


@_library.function(
    "language",
    summary="language of a text or list of texts: ENG, ESP, FR, GER, IT, POR, CHI, JAP or OTHER (offline)",
    signature="(text_or_list)",
)
def language(interpreter: Interpreter, value: Any) -> str:
    return sensei_code(detect(_texts(interpreter, value, "language")))


@_library.function(
    "language_code",
    summary="ISO 639-1 code of a text or list of texts (en, es, ca, nl, …; 'und' when unsure; offline)",
    signature="(text_or_list)",
)
def language_code(interpreter: Interpreter, value: Any) -> str:
    return detect(_texts(interpreter, value, "language_code"))


# -- global rules ----------------------------------------------------------------------------------------------


def _population(interpreter: Interpreter, function: str) -> tuple[ConversationView, ...]:
    population = _context(interpreter).population
    if population is None:
        raise EvaluationError(f"{function}() only works in global rules (conversations: all)")
    return population


def _each(interpreter: Interpreter, source: Any, function: str) -> Iterable[tuple[ConversationView, Any]]:
    """Evaluate the expression text `source` on every conversation of the filtered set, in the sandbox."""
    if not isinstance(source, str):
        raise EvaluationError(f"{function}() needs an expression in quotes, e.g. {function}('order_id')")
    program = compile_rule_code(source, interpreter.limits)
    context = _context(interpreter)
    for view in _population(interpreter, function):
        inner = Interpreter(
            SingleNames(view),
            interpreter.functions,
            interpreter.limits,
            context=CallContext(conversation=view, judge=context.judge, registry=context.registry),
        )
        inner.steps = interpreter.steps
        try:
            value = inner.run(program)
        except SandboxError as exc:
            raise EvaluationError(
                f"{function}({source!r}) on conversation {view.id}: {exc.message}"
            ) from None
        finally:
            interpreter.steps = inner.steps
        yield view, value


@_library.function(
    "is_unique",
    kind="global",
    summary="True when no two filtered conversations share a non-None value of the expression",
    signature="('expression')",
)
def is_unique(interpreter: Interpreter, source: Any) -> Verdict:
    seen: dict[Any, str] = {}
    for view, value in _each(interpreter, source, "is_unique"):
        if value is None:
            continue
        key: Any
        try:
            key = ("value", value, type(value).__name__)
            hash(key)
        except TypeError:
            key = ("text", interpreter.to_text(value, repr_=True))
        if key in seen:
            return Verdict.no(f"conversations {seen[key]} and {view.id} both have {source} = {value!r}")
        seen[key] = view.id
    return Verdict.yes()


@_library.function(
    "exists",
    kind="global",
    summary="True when the expression holds for some filtered conversation",
    signature="('expression')",
)
def exists(interpreter: Interpreter, source: Any) -> bool:
    return any(bool(value) for _, value in _each(interpreter, source, "exists"))


@_library.function(
    "num_exist",
    kind="global",
    summary="how many filtered conversations the expression holds for",
    signature="('expression')",
)
def num_exist(interpreter: Interpreter, source: Any) -> int:
    return sum(1 for _, value in _each(interpreter, source, "num_exist") if value)


# -- LLM-backed functions --------------------------------------------------------------------------------------


def _judge(interpreter: Interpreter) -> judges.Judge | None:
    return _context(interpreter).judge


def _transcript(view: ConversationView, *, numbered: bool = False) -> str:
    lines = []
    for number, turn in enumerate(view.record.turns, 1):
        speaker = "User" if turn.role == "user" else "Chatbot"
        text = turn.text if turn.role == "user" else bot_text(turn)
        lines.append(f"{number}. {speaker}: {text}" if numbered else f"{speaker}: {text}")
    return "\n".join(lines)


@_library.function(
    "tone",
    kind="llm",
    summary="POSITIVE / NEGATIVE / NEUTRAL per text (judge model)",
    signature="(text_or_list)",
)
def tone(interpreter: Interpreter, value: Any) -> list[str]:
    texts = _texts(interpreter, value, "tone")
    if not texts:
        return []
    material = "\n".join(f"{number}. {text}" for number, text in enumerate(texts, 1))
    answer = judges.ask_judge(_judge(interpreter), "tone", judges.TONE, material, judges.ToneAnswer)
    if len(answer.labels) != len(texts):
        raise EvaluationError(
            f"tone(): the judge labelled {len(answer.labels)} texts instead of {len(texts)}"
        )
    return list(answer.labels)


@_library.function(
    "only_talks_about",
    kind="llm",
    summary="True, or a failing verdict listing the chatbot replies off the given topics (judge model)",
    signature="(topics, fallback=None, conv=None)",
)
def only_talks_about(
    interpreter: Interpreter, topics: Any, fallback: Any = None, conv: Any = None
) -> Verdict:
    if isinstance(topics, list | tuple):
        topics = ", ".join(str(topic) for topic in topics)
    if not isinstance(topics, str) or not topics.strip():
        raise EvaluationError("only_talks_about() needs the allowed topics as text")
    view = _context(interpreter).view("only_talks_about", conv)
    material = f"Allowed topics: {topics}\n"
    if fallback:
        material += f"The chatbot's fallback reply (always acceptable): {fallback}\n"
    material += f"\nTranscript:\n{_transcript(view)}"
    answer = judges.ask_judge(
        _judge(interpreter), "only_talks_about", judges.TOPICS, material, judges.TopicAnswer
    )
    if not answer.off_topic:
        return Verdict.yes()
    replies = "\n".join(f"- {reply}" for reply in answer.off_topic)
    return Verdict.no(f"off-topic chatbot replies:\n{replies}\nwhy: {answer.explanation}")


@_library.function(
    "semantic_content",
    kind="llm",
    summary="whether a value means what the description says (judge model)",
    signature="(value, description)",
)
def semantic_content(interpreter: Interpreter, value: Any, description: Any) -> Verdict:
    if value is None:
        return Verdict.no("the value is None (nothing was extracted)")
    if not isinstance(description, str):
        raise EvaluationError("semantic_content() needs the description as text")
    material = f"Value given by the chatbot: {interpreter.to_text(value)}\nDescription it should match: {description}"
    answer = judges.ask_judge(
        _judge(interpreter), "semantic_content", judges.AGREEMENT, material, judges.AgreementAnswer
    )
    return Verdict(
        ok=answer.agrees,
        reason="" if answer.agrees else f"{value!r} does not match {description!r}: {answer.explanation}",
    )


@_library.function(
    "utterance_index",
    kind="llm",
    summary="1-based transcript line where who ('user'|'assistant') does what; -1 if never (judge model)",
    signature="(who, what, conv=None)",
)
def utterance_index(interpreter: Interpreter, who: Any, what: Any, conv: Any = None) -> int:
    if who not in ("user", "assistant", "chatbot", "bot"):
        raise EvaluationError("utterance_index() who must be 'user' or 'assistant'")
    if not isinstance(what, str):
        raise EvaluationError("utterance_index() needs a description as text")
    view = _context(interpreter).view("utterance_index", conv)
    speaker = "User" if who == "user" else "Chatbot"
    material = f"Speaker: {speaker}\nWhat they do: {what}\n\nTranscript:\n{_transcript(view, numbered=True)}"
    answer = judges.ask_judge(
        _judge(interpreter), "utterance_index", judges.LINE, material, judges.LineAnswer
    )
    line = answer.line
    if line != -1 and not 1 <= line <= len(view.record.turns):
        raise EvaluationError(f"utterance_index(): the judge answered line {line}, which does not exist")
    return line


@_library.function(
    "responds_in_same_language",
    kind="llm",
    summary="whether every chatbot reply is in the language of the user's message (judge model)",
    signature="(conv=None)",
)
def responds_in_same_language(interpreter: Interpreter, conv: Any = None) -> Verdict:
    view = _context(interpreter).view("responds_in_same_language", conv)
    material = _transcript(view)
    if not material:
        return Verdict.yes()
    answer = judges.ask_judge(
        _judge(interpreter),
        "responds_in_same_language",
        judges.SAME_LANGUAGE,
        material,
        judges.SameLanguageAnswer,
    )
    return Verdict(ok=answer.same_language, reason="" if answer.same_language else answer.explanation)
