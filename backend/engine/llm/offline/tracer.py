"""The offline provider's TRACER responders: a competent but imperfect model for `parley bench --double imperfect`,
`parley tracer --from-transcripts --double imperfect`, TRACER's quality tests and benchmarks.

`TracerDouble(seed).chat_model()` answers every TRACER call from what the prompt shows, with no ground truth:
- exploring, it plays a customer: picks offered choices it has not tried (related to the session's focus
  first), asks the questions a chatbot lists, invents plausible values (a date, a time, a count, a name), and
  now and then slips into the assistant's voice (which TRACER must rewrite);
- extracting, it reads the chatbot's side of the transcript and reports one step per chatbot message, named
  from the message's wording. Like a real model it is inconsistent between calls: the same step is named with
  other verbs or synonyms, in another word order or casing ("prompt_for_pizza_size", "Request_Size_Of_Pizza",
  "collect pizza dimension"); it reuses a known name it is shown most of the time but not always; it leaves out
  options or outputs, sometimes a required description (the gateway's repair gets the full answer), and now
  and then adds a functionality that is not in the conversation;
- judging duplicates, it understands its own paraphrases (verbs, synonyms, word order, casing) and answers
  correctly for the pairs it is shown — it cannot merge what it is not asked about;
- the probe, fallback, classification, workflow, grouping and profile calls get plausible answers built from
  their prompts.

Every name it writes is remembered with the step it meant, so `duplicate_report()` can count the duplicate
pairs left in a finished model (two nodes for one step) and the over-merged nodes (one node for two steps).
Each responder is chosen by the call's tag (or its schema's name) and reads data, not wording: the transcript's
`User:` / `Chatbot:` lines, the `- name: ...` lines of the functionalities already known, the numbered
functionalities and the `- ... [N] ... [M]` questions of consolidation, the quoted messages of the fallback check
and of the rewrite, and the lines TRACER's code writes (`Answer to "...":`, `(inputs: ...)`, `DSn: ...`). What only
an instruction says — the explorer's language and the completion phrase — is `CUES`, the one place that knows
TRACER's wording (`engine.tracer.prompts` is imported nowhere here: the LLM layer sits below the tracer); a test
fails when a prompt no longer carries one.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from random import Random
from typing import Any

from engine.llm.offline.imperfect import (
    STYLES,
    ImperfectChatModel,
    Request,
    Responder,
    glued,
    split_at_transcript,
    styled,
    words_of,
)
from engine.llm.offline.script import Reply

CUES: dict[str, tuple[str, str]] = {
    "spanish": ("explorer_system", "Write in Spanish"),
    "complete": ("explorer_system", "EXPLORATION COMPLETE"),
}
"""What only an instruction tells the explorer, by cue: (the `engine.tracer.prompts` template, the words)."""

_KNOWN = re.compile(r"^- (\S+?):", re.MULTILINE)
_QUESTION = re.compile(r"^- [^\[\n]*\[(\d+)\]([^\n]*\[\d+\][^\n]*)$", re.MULTILINE)
_QUOTED = re.compile(r'"(.*?)"(?=\n|$)', re.DOTALL)
_FIRST_QUOTED_LINE = re.compile(r'^"(.*?)"\n', re.DOTALL | re.MULTILINE)
_FOCUS = re.compile(r"^  (\S+?): ([^\n]*)", re.MULTILINE)

# -- the double's vocabulary ---------------------------------------------------------------------------------------


def _vocabulary(words: str) -> frozenset[str]:
    return frozenset(words.split())


VERBS: dict[str, tuple[str, ...]] = {
    "ask": ("prompt_for", "ask_for", "request", "collect", "ask_user_for", "get", "query", "capture"),
    "inform": ("provide", "give", "show", "present", "display", "share", "tell", "report"),
    "confirm": ("confirm", "acknowledge", "recap", "validate"),
}
_VERB_KIND = {word: kind for kind, verbs in VERBS.items() for verb in verbs for word in verb.split("_")}
_FILLERS = frozenset(
    {"for", "the", "a", "an", "of", "user", "customer", "their", "your", "to", "about", "on"}
)
for _filler in _FILLERS:
    _VERB_KIND.pop(_filler, None)
SYNONYMS: dict[str, tuple[str, ...]] = {
    "number": ("count", "quantity"),
    "price": ("cost",),
    "day": ("date",),
    "choice": ("option", "selection"),
    "kind": ("type", "sort"),
    "appointment": ("booking",),
    "total": ("sum",),
    "question": ("faq",),
    "size": ("dimension",),
    "time": ("hour",),
}
_CANONICAL = {alt: word for word, alts in SYNONYMS.items() for alt in alts}
_STOP = _vocabulary("""i you we it they he she me my your our its their the a an and or of to for in on at by with from is are was
    be been do does did would will can could should may might shall have has had there this that these those what
    which how when where who why like want need rather one some any please here so just very also then than as if
    not no yes all more less up out help assist each every much many let know see us am that's it's i'm we're you're it'll
    el la los las un una unos unas de del que con en y o por para tu te se es son quieres tienes tenemos puedes
    puedo me mi al lo le hay esta estas este cual cuanto cuanta cuantos cuantas donde cuando como mas muy ya
    quiere prefieres necesitas""")
_WH = _vocabulary("which what when where who how que cual cuanto cuanta cuantos cuantas donde cuando")
_COUNTING = _vocabulary("many cuantos cuantas")
_AUX = _vocabulary("""would do does did is are can could should will may you we i there quieres tienes necesitas prefieres es son
    te le hay""")
_GREETING = _vocabulary("welcome hello hi hey hola bienvenido bienvenida buenas buenos greetings")
_ACK = _vocabulary("great got nice done thanks thank perfect perfecto okay ok genial vale gracias")
_FALLBACK = re.compile(
    r"\bsorry\b|didn.t (?:catch|understand)|not understand|say (?:that|it) again|another way|no te he entendido"
    r"|\bperdona\b|no entiendo|lo siento",
    re.IGNORECASE,
)
_SPANISH = re.compile(r"[¿¡ñ]|\b(?:hola|puedo|perdona|gracias|quieres|tenemos|pedido)\b", re.IGNORECASE)
_QUESTION_LIST = re.compile(r"(?:ask me|preguntarme)\s*:", re.IGNORECASE)

DESCRIPTIONS: dict[str, tuple[str, ...]] = {
    "ask": (
        "Asks the user for the {t}.",
        "Requests the {t} from the customer.",
        "The chatbot asks which {t} the user wants.",
        "Prompts the user to give the {t}.",
    ),
    "inform": (
        "Tells the user the {t}.",
        "Gives information about the {t}.",
        "Shows the {t}.",
        "Provides the {t} to the customer.",
    ),
    "confirm": (
        "Confirms the {t}.",
        "Acknowledges the {t} given by the user.",
        "Repeats the {t} back to the user.",
    ),
}
BOGUS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("inform", ("loyalty", "point")),
    ("ask", ("promo", "code")),
    ("inform", ("delivery", "tracking")),
    ("ask", ("feedback", "rating")),
    ("inform", ("gift", "card")),
)
CATEGORIES = {"ask": "Tasks", "confirm": "Tasks", "inform": "Information"}


def singular(word: str) -> str:
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def canonical_word(word: str) -> str:
    word = singular(word)
    return _CANONICAL.get(word, word)


def topic_words(words: Iterable[str], drop: frozenset[str] = frozenset()) -> tuple[str, ...]:
    """Content words of a phrase as the double understands them: no stop words, verbs, fillers or values."""
    found: list[str] = []
    for word in words:
        if len(word) < 2 or any(c.isdigit() for c in word) or word in _STOP or word in drop:
            continue
        if word in _VERB_KIND or word in _FILLERS or word in _ACK or word in _GREETING:
            continue
        canon = canonical_word(word)
        if canon not in found:
            found.append(canon)
    return tuple(found)


@dataclass(frozen=True)
class Concept:
    """What the double means by a functionality: a kind of step and its topic, whatever words name it."""

    kind: str
    topic: frozenset[str]

    def __str__(self) -> str:
        return f"{self.kind}:{'+'.join(sorted(self.topic))}"


def understand(name: str) -> Concept | None:
    """The concept a functionality name stands for, read the way the double reads names (any paraphrase)."""
    words = words_of(name)
    kind = next((_VERB_KIND[w] for w in words if w in _VERB_KIND), None)
    topic = frozenset(canonical_word(w) for w in words if w not in _VERB_KIND and w not in _FILLERS)
    if kind is None or not topic:
        return None
    return Concept(kind, topic)


# -- reading the chatbot -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Step:
    kind: str
    topic: tuple[str, ...]
    options: tuple[str, ...]
    text: str

    @property
    def concept(self) -> Concept:
        return Concept(self.kind, frozenset(self.topic))


def parse_transcript(text: str) -> list[tuple[str, str]]:
    """("User" | "Chatbot", text) turns of a transcript written as `Speaker: text` lines."""
    turns: list[tuple[str, str]] = []
    for line in text.splitlines():
        match = re.match(r"^(User|Chatbot): ?(.*)$", line)
        if match:
            turns.append((match.group(1), match.group(2)))
        elif turns and line.strip():
            speaker, said = turns[-1]
            turns[-1] = (speaker, f"{said}\n{line}")
        elif turns:
            break
    return turns


def split_options(text: str) -> tuple[list[str], list[str]]:
    """The message lines of a chatbot turn, and the choices of its `Options: a | b` line."""
    lines, options = [], []
    for line in text.splitlines():
        if line.startswith("Options:"):
            options = [o.strip() for o in line.removeprefix("Options:").split("|") if o.strip()]
        elif line.strip():
            lines.append(line.strip())
    return lines, options


def _sentences(line: str) -> list[str]:
    return [s.strip() for s in re.split(r"(?<=[.!?])\s+", line) if s.strip()]


def _wh_topic(words: list[str]) -> tuple[str, ...]:
    for index, word in enumerate(words):
        if word not in _WH:
            continue
        collected = []
        rest = words[index + 1 :]
        if rest and (rest[0] in _COUNTING or word in _COUNTING):
            collected.append("number")
            rest = rest[1:] if rest and rest[0] in _COUNTING else rest
        elif rest and rest[0] == "much":
            collected.append("price")
            rest = rest[1:]
        for follower in rest:
            if follower in _AUX:
                break
            collected.append(follower)
        return topic_words(collected)
    return ()


def read_line(line: str, options: list[str], values: frozenset[str]) -> Step | None:
    """The step one chatbot message shows, or None (greeting, capability blurb, nothing to name)."""
    sentences = _sentences(line)
    if not sentences:
        return None
    if _QUESTION_LIST.search(line):
        return Step("inform", ("question", "list"), (), line)
    questions = [s for s in sentences if s.endswith("?") or s.startswith("¿")]
    if questions:
        words = words_of(questions[-1])
        option_words = frozenset(w for option in options for w in words_of(option))
        topic = _wh_topic(words) or topic_words(words, drop=option_words)[:2]
        if not topic:
            first = topic_words(words_of(options[0]))[:1] if options else ()
            topic = ("choice", *first)
        return Step("ask", topic, tuple(options), questions[-1])
    # Identifiers (an order number "F85D65", "QKXW") are values, new in every conversation.
    words = words_of(re.sub(r"\b[A-Z0-9]{4,}\b", " ", line))
    if not words:
        return None
    if words[0] in _GREETING or words[:2] == ["i", "can"] or words[0] == "puedo":
        return None
    kind = "confirm" if words[0] in _ACK else "inform"
    topic = topic_words(words, drop=values)[:3]
    return Step(kind, topic, (), line) if topic else None


def value_words(options: Iterable[str]) -> set[str]:
    """The words of the short choices a chatbot offers (values such as "large" or "four cheese", not menu
    entries such as "Order pizza and drinks")."""
    return {word for option in options if len(words_of(option)) <= 2 for word in words_of(option)}


def read_steps(transcript: list[tuple[str, str]], known_values: Iterable[str] = ()) -> list[Step]:
    """Every distinct step the chatbot showed, in order; values (choices, the user's short answers, and the
    `known_values` the reader recognises as values from experience) stripped."""
    values: set[str] = set(known_values)
    for speaker, text in transcript:
        if speaker == "User" and len(words_of(text)) <= 3:
            values.update(words_of(text))
        if speaker == "Chatbot":
            values |= value_words(split_options(text)[1])
    steps: list[Step] = []
    for speaker, text in transcript:
        if speaker != "Chatbot" or _FALLBACK.search(text):
            continue
        lines, options = split_options(text)
        for number, line in enumerate(lines):
            step = read_line(line, options if number == len(lines) - 1 else [], frozenset(values))
            if step is not None and all(step.concept != s.concept for s in steps):
                steps.append(step)
    return steps


# -- the double ----------------------------------------------------------------------------------------------------


@dataclass
class Imperfection:
    """How imperfect the double is; probabilities per named step (or per answer, for `omit_required`)."""

    paraphrase: float = 0.6
    """A step is named with other words than the double's usual wording."""
    casing: float = 0.3
    """A name is written in another casing or with other separators."""
    reuse_known: float = 0.85
    """A step that matches a known name shown in the prompt gets that name."""
    omit_optional: float = 0.2
    """Options, parameters or outputs are left out."""
    omit_required: float = 0.08
    """An answer lacks a functionality's description (the schema requires it: a repair follows)."""
    bogus: float = 0.15
    """An answer adds a functionality the conversation does not show."""
    assistant_voice: float = 0.1
    """An explorer message reads like the assistant's."""


@dataclass(frozen=True)
class DuplicateReport:
    """Duplicate pairs (two nodes, one step) and over-merged nodes (one node, several steps) of a model."""

    pairs: list[tuple[str, str]]
    overmerged: list[str]
    nodes: int
    steps: int

    def to_json(self) -> dict[str, Any]:
        return {
            "duplicate_pairs": len(self.pairs),
            "pairs": [list(pair) for pair in self.pairs],
            "overmerged": self.overmerged,
            "functionalities": self.nodes,
            "distinct_steps": self.steps,
        }


@dataclass
class TracerDouble:
    seed: int = 0
    imperfection: Imperfection = field(default_factory=Imperfection)
    meant: dict[str, set[Concept]] = field(default_factory=dict)
    """Every name written (casing and separators removed) → the steps it was written for."""
    read: dict[str, set[str]] = field(default_factory=dict)
    """Every name written (casing and separators removed) → the chatbot's words it was written for (a line, or
    the question of a line): a fact about its input, which a measure can trace to the bot's definition without
    sharing the double's reading of it."""
    values: set[str] = field(default_factory=set)
    """Words it has seen offered as choices ("margherita", "large"): what a model knows to be values from
    experience, so "the total for your large margherita" is the total step even in a conversation where the
    margherita was never offered."""

    def responders(self) -> dict[str, Responder]:
        return {
            "tracer.probe": self.probe,
            "tracer.explore": self.explore,
            "tracer.rewrite": self.rewrite,
            "tracer.fallback": self.fallback,
            "tracer.extract": self.extract,
            "tracer.consolidate": self.consolidate,
            "tracer.classify": self.classify,
            "tracer.workflow": self.workflow,
            "tracer.group": self.group,
            "tracer.profiles": self.profile,
        }

    def chat_model(
        self,
        script: dict[str, Reply | list[Reply]] | None = None,
        *,
        overrides: dict[str, Responder] | None = None,
    ) -> ImperfectChatModel:
        """The double as a chat model for `LLMClient(chat_model=...)`; `overrides` replace responders (a test
        that makes one call fail wraps the double's own responder)."""
        return ImperfectChatModel({**self.responders(), **(overrides or {})}, script, seed=self.seed)

    # -- naming --------------------------------------------------------------------------------------------------

    def _name(self, step: Step, rng: Random, known: dict[Concept, str]) -> str:
        concept = step.concept
        if concept in known and rng.random() < self.imperfection.reuse_known:
            self.meant.setdefault(glued(known[concept]), set()).add(concept)
            self._read(known[concept], step)
            return known[concept]
        topic = list(step.topic)
        verb = VERBS[step.kind][0]
        if rng.random() < self.imperfection.paraphrase:
            verb = rng.choice(VERBS[step.kind])
            topic = [rng.choice((w, *SYNONYMS[w])) if w in SYNONYMS else w for w in topic]
            if len(topic) > 1 and rng.random() < 0.5:
                topic = [topic[-1], "of", *topic[:-1]]
        words = [*verb.split("_"), *topic]
        style = rng.choice(STYLES[1:]) if rng.random() < self.imperfection.casing else "snake"
        name = styled(words, style)
        self.meant.setdefault(glued(name), set()).add(concept)
        self._read(name, step)
        return name

    def _read(self, name: str, step: Step) -> None:
        if step.text:  # an invented functionality was written for no words of the chatbot
            self.read.setdefault(glued(name), set()).add(step.text)

    def _functionality(self, step: Step, rng: Random, known: dict[Concept, str]) -> dict[str, Any]:
        name = self._name(step, rng, known)
        paraphrase = rng.random() < self.imperfection.paraphrase
        template = rng.choice(DESCRIPTIONS[step.kind]) if paraphrase else DESCRIPTIONS[step.kind][0]
        subject = " ".join(step.topic)
        item: dict[str, Any] = {"name": name, "description": template.format(t=subject)}
        field_name = "_".join(step.topic)
        if paraphrase:
            field_name = rng.choice(
                (field_name, step.topic[-1], f"{field_name}_value", f"chosen_{step.topic[0]}")
            )
        if step.kind == "ask":
            options = list(step.options)
            if paraphrase and rng.random() < 0.3:
                options = [o.lower() for o in options]
            item["parameters"] = [{"name": field_name, "description": f"the {subject}", "options": options}]
            item["outputs"] = []
        else:
            item["parameters"] = []
            item["outputs"] = [{"name": field_name, "description": step.text[:240]}]
        if rng.random() < self.imperfection.omit_optional:
            left_out = rng.choice(("parameters", "outputs", "options"))
            if left_out == "options":
                for parameter in item["parameters"]:
                    parameter.pop("options", None)
            else:
                item.pop(left_out)
        return item

    # -- responders ----------------------------------------------------------------------------------------------

    def extract(self, request: Request) -> Reply:
        rng = request.rng
        prompt = request.prompt
        known: dict[Concept, str] = {}
        listed, _ = split_at_transcript(
            prompt
        )  # the functionalities already known come before the transcript
        for name in _KNOWN.findall(listed):
            concept = understand(name)
            if concept is not None:
                known.setdefault(concept, name)
        transcript = parse_transcript(prompt)
        for speaker, text in transcript:
            if speaker == "Chatbot":
                self.values |= value_words(split_options(text)[1])
        steps = read_steps(transcript, self.values)
        items = [self._functionality(step, rng, known) for step in steps]
        if rng.random() < self.imperfection.bogus:
            kind, topic = rng.choice(BOGUS)
            items.insert(
                rng.randrange(len(items) + 1), self._functionality(Step(kind, topic, (), ""), rng, {})
            )
        drop_description = rng.random() < self.imperfection.omit_required
        if drop_description and items and not request.repair:
            items[rng.randrange(len(items))].pop("description", None)
        return {"json": {"functionalities": items}}

    def consolidate(self, request: Request) -> Reply:
        prompt = request.prompt
        names = {int(n): name for n, name in re.findall(r"^\[(\d+)\] (.+?): ", prompt, re.MULTILINE)}
        verdicts = []
        for item, candidates in _QUESTION.findall(prompt):
            concept = understand(names.get(int(item), ""))
            same = next(
                (
                    int(c)
                    for c in re.findall(r"\[(\d+)\]", candidates)
                    if concept is not None and understand(names.get(int(c), "")) == concept
                ),
                None,
            )
            description = ""
            if same is not None and concept is not None:
                description = DESCRIPTIONS[concept.kind][0].format(t=" ".join(sorted(concept.topic)))
            verdicts.append({"item": int(item), "same_as": same, "description": description})
        return {"json": {"verdicts": verdicts}}

    def probe(self, request: Request) -> Reply:
        answers: list[tuple[str, str]] = []
        for line in request.prompt.splitlines():
            match = re.match(r'^Answer to "(.*?)": ?(.*)$', line)
            if match:
                answers.append((match.group(1), match.group(2)))
        text = request.prompt
        languages = ["Spanish"] if _SPANISH.search(text) else ["English"]
        if request.rng.random() < 0.3:
            languages = [language.lower() for language in languages]
        nonsense = [answer for question, answer in answers[1:]]
        common = Counter(nonsense).most_common(1)
        fallback = common[0][0] if common and common[0][1] >= 2 else None
        return {"json": {"languages": languages, "fallback": fallback}}

    def fallback(self, request: Request) -> Reply:
        quoted = _QUOTED.findall(request.prompt)  # the fallback sentence, the user's message, the reply
        reply = quoted[-1] if quoted else ""
        return {"json": {"is_fallback": bool(_FALLBACK.search(reply))}}

    def rewrite(self, request: Request) -> Reply:
        match = _FIRST_QUOTED_LINE.search(request.prompt)  # the message to rewrite, quoted on its own line
        message = match.group(1) if match else ""
        chosen = re.search(r"happy to go with (.+?)\.?$", message)
        return {"json": {"message": chosen.group(1) if chosen else message}}

    def explore(self, request: Request) -> Reply:
        rng = request.rng
        system_text = request.system_text
        spanish = CUES["spanish"][1] in system_text
        focus_words: set[str] = set()
        focus = _FOCUS.search(system_text)  # the functionality a branch session explores, indented
        if focus:
            focus_words = set(topic_words(words_of(focus.group(1)) + words_of(focus.group(2))))
        history = request.messages[1:-1]
        said = [text.strip().lower() for role, text in history if role == "assistant"]
        last_bot = next((text for role, text in reversed(history) if role == "user"), "")
        if not last_bot:
            if focus_words:
                topic = " ".join(sorted(focus_words))
                return f"Hola, quiero {topic}" if spanish else f"Hi, I'd like to know about {topic}"
            return "Hola, ¿qué puedes hacer?" if spanish else "Hi! What can you do?"
        for role, text in history:
            if role == "user":
                self.values |= value_words(split_options(text)[1])
        lines, options = split_options(last_bot)
        listed = next((line for line in lines if _QUESTION_LIST.search(line)), None)
        if listed is not None:
            asked = [
                q.strip(" ,") + "?" for q in _QUESTION_LIST.split(listed)[-1].split("?") if q.strip(" ,.y")
            ]
            asked = [re.sub(r"^(?:and|y)\s+", "", q.strip()) for q in asked]
            fresh = [q for q in asked if q.lower() not in said] or asked
            if fresh:
                return rng.choice(fresh)
        if options:
            fresh = [o for o in options if o.lower() not in said] or options
            related = [o for o in fresh if focus_words & set(topic_words(words_of(o)))]
            choice = rng.choice(related or fresh)
            roll = rng.random()
            if roll < self.imperfection.assistant_voice:
                return f"Sure! I'd be happy to go with {choice}."
            if roll < 0.3:
                return f"{choice.lower()}, please" if not spanish else f"{choice.lower()}, por favor"
            return choice
        question = " ".join(lines).lower()
        if "?" in question:
            return _value_for(question, rng, spanish)
        if len(said) >= 4:
            return CUES["complete"][1]
        return "¿Qué más puedes hacer?" if spanish else "What else can you do?"

    def classify(self, request: Request) -> Reply:
        asks = re.search(r"\(inputs: (?!-\))", request.prompt)
        return {"json": {"chatbot_type": "transactional" if asks else "informational"}}

    def workflow(self, request: Request) -> Reply:
        nodes = []
        pattern = r"^- (\S+?): .*?\(inputs: [^)]*\)(?: \[exploration hint: after ([^\]]*)\])?$"
        for name, hint in re.findall(pattern, request.prompt, re.MULTILINE):
            concept = understand(name)
            category = CATEGORIES[concept.kind] if concept else "Other"
            parents = [p.strip() for p in hint.split(",") if p.strip()] if hint else []
            nodes.append({"name": name, "parents": parents, "category": category})
        return {"json": {"nodes": nodes}}

    def group(self, request: Request) -> Reply:
        names = re.findall(r"^- (\S+?)(?: \(after [^)]*\))?: ", request.prompt, re.MULTILINE)
        doing = [n for n in names if (c := understand(n)) is not None and c.kind != "inform"]
        asking = [n for n in names if n not in doing]
        profiles = []
        if doing:
            profiles.append(
                {"name": "Task user", "role": "A customer who completes a task.", "functionalities": doing}
            )
        if asking:
            profiles.append(
                {"name": "Curious user", "role": "A customer with questions.", "functionalities": asking}
            )
        return {"json": {"profiles": profiles}}

    def profile(self, request: Request) -> Reply:
        prompt = request.prompt
        mine = set(re.findall(r"^- (\S+?)(?: \(after [^)]*\))?: ", prompt, re.MULTILINE))
        goals: list[str] = []
        variables: list[dict[str, Any]] = []
        for source, label, owner in re.findall(r"^(DS\d+): (\S+) \(asked by (\S+)\):", prompt, re.MULTILINE):
            if owner in mine and len(variables) < 3:
                name = f"choice_{len(variables) + 1}"
                goals.append(f"Choose {{{{{name}}}}} as the {label.replace('_', ' ')}")
                variables.append({"name": name, "source": source, "out_of_range": "something unusual"})
        for name in sorted(mine):
            concept = understand(name)
            if len(goals) < 2 and concept is not None:
                goals.append(f"Ask about the {' '.join(sorted(concept.topic))}")
        while len(goals) < 2:
            goals.append("Ask what else the chatbot can do")
        return {
            "json": {
                "goals": goals,
                "variables": variables,
                "context": ["You are a regular customer.", "You are in a bit of a hurry."],
                "outputs": [
                    {"name": "confirmation", "type": "string", "description": "what the chatbot finally says"}
                ],
            }
        }

    # -- measuring -----------------------------------------------------------------------------------------------

    def concepts(self, name: str) -> set[Concept]:
        """The steps a name was written for (or, for a name the double never wrote, the one it reads in it)."""
        meant = self.meant.get(glued(name))
        if meant:
            return set(meant)
        read = understand(name)
        return {read} if read else set()

    def duplicate_report(self, nodes: Iterable[tuple[str, Iterable[str]]]) -> DuplicateReport:
        """`nodes`: (name, names merged into it) of every functionality of a finished model."""
        covered: list[tuple[str, set[Concept]]] = []
        overmerged = []
        for name, merged in nodes:
            concepts = self.concepts(name)
            for other in merged:
                concepts |= self.concepts(other)
            covered.append((name, concepts))
            if len(concepts) > 1:
                overmerged.append(name)
        pairs = [
            (a, b)
            for i, (a, concepts_a) in enumerate(covered)
            for b, concepts_b in covered[i + 1 :]
            if concepts_a & concepts_b
        ]
        steps = set().union(*(concepts for _, concepts in covered)) if covered else set()
        return DuplicateReport(pairs=pairs, overmerged=overmerged, nodes=len(covered), steps=len(steps))


def _value_for(question: str, rng: Random, spanish: bool) -> str:
    """A plausible value for an open question, the way a tester makes one up."""
    if re.search(r"how many|cu[aá]nt", question):
        return str(rng.randint(1, 3))
    if re.search(r"\bday\b|\bdate\b|\bwhen\b|d[ií]a|fecha", question):
        # Never a weekday: the bots name weekdays in their opening hours, and a reader strips the user's values.
        return "tomorrow" if not spanish else "mañana"
    if re.search(r"\btime\b|\bhour\b|hora", question):
        return rng.choice(("10am", "11:30", "3pm"))
    if re.search(r"\bname\b|nombre", question):
        return rng.choice(("Alex Morgan", "Sam Lee"))
    if re.search(r"phone|tel[eé]fono", question):
        return "555 123 4567"
    if re.search(r"mail", question):
        return "alex@example.com"
    return "sí" if spanish else "yes"
