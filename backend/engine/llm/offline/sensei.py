"""The offline provider's SENSEI responders: a competent but imperfect model playing the user, judging goals and
extracting outputs — `double:imperfect`, `double:perfect` (every slip off) and `double:loose-json` of `parley
qualify`, the simulated user of `parley bench --double imperfect`, SENSEI's quality tests and benchmarks.

`SenseiDouble(seed).chat_model()` answers SENSEI's calls from what the prompts show, with no ground truth:
- as the simulated user (`sensei.user_turn`) it reads its goals and the conversation, answers the chatbot's
  question from its goals (an offered option the goals name, a number, a day, a time, a name; an option of
  its own choosing when the goals are silent), otherwise says its next goal in its own words, rephrases after
  a fallback, moves on when told to, and closes once every goal is said. Like a real model it is imperfect:
  casing and fillers vary, now and then a message carries a "User:" label, quotes or a typo, the closing
  often comes without the end marker the prompt asks for, and rarely in words no phrase list knows;
- as the judge (`sensei.goal_check`) it calls a goal answered when the chatbot's messages carry most of the
  goal's content words (times compared by the hour, dates left to the format-blind reader), and it is
  imperfect too: it sometimes leaves out a goal that was answered, rarely claims one that was not, drops the
  evidence, writes a goal number as text, names items in another casing or in the plural, omits the items;
- as the extractor (`sensei.extract`) it finds each declared output in the chatbot's messages by its type
  (money, a code, a number, a date, a time, an enum value), written the way models write them ("$", "21",
  "10:00") — it never omits a value it found: a missing output is a finding, which the benchmark counts;
- `sensei.any_list` invents short values from a small vocabulary.
JSON answers reach the engine through the strict double, so outside strict mode they arrive wrapped in prose.

Each responder is chosen by the call's tag (or its schema's name) and reads data, not wording: the judge takes
the numbered goals, the `- name: ...` items and the transcript wherever the prompt puts them; the extractor
answers the fields its response schema asks for, each read from its `- name (type): description` line. The
plain-text user turn has only the instructions to go by for its goals and its nudges (rephrase, change topic,
goals left): those cues are `CUES`, the one place that knows SENSEI's wording (`engine.sensei.prompts` is imported
nowhere here: the LLM layer sits below SENSEI), and a test fails when a prompt no longer carries one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from random import Random
from typing import Any

from engine.llm.offline.imperfect import (
    STYLES,
    ImperfectChatModel,
    Request,
    Responder,
    ascii_fold,
    split_at_transcript,
    styled,
    words_of,
)
from engine.llm.offline.script import Reply
from engine.llm.offline.sensei_loose import loose_json

END_MARK = "[END]"

# -- reading the prompts ------------------------------------------------------------------------------------------

CUES: dict[str, tuple[str, str]] = {
    "goals": ("user_system", "What you want from this conversation: "),
    "rephrase": ("rephrase", "did not understand your last message"),
    "change_topic": ("change_topic", "keeps failing to understand"),
    "goals_left": ("goals_left", "has not yet answered: "),
    "goals_left_end": ("goals_left", ". Do not say goodbye"),
    "language": ("language", "Write in "),
    "end_mark": ("user_system", END_MARK),
    "count": ("any_list", "Give exactly "),
    "existing": ("any_list", "existing values: "),
    "topic": ("any_list", "chatbot: "),
}
"""What only an instruction tells a plain-text turn (and the any() list), by cue: (the `engine.sensei.prompts`
template that carries it — `any_list` also covers the count the executor writes into it —, the words)."""

_GOALS = re.compile(rf"^{re.escape(CUES['goals'][1])}(.*)$", re.MULTILINE)
_REPHRASE = CUES["rephrase"][1]
_CHANGE_TOPIC = CUES["change_topic"][1]
_GOALS_LEFT = re.compile(
    rf"{re.escape(CUES['goals_left'][1])}(.*?){re.escape(CUES['goals_left_end'][1])}", re.DOTALL
)
_BUTTONS = re.compile(r" \[buttons: (.*)\]$")
_FIELD = re.compile(r"^- (\S+) \((.+?)\): (.*)$", re.MULTILINE)
_GOAL = re.compile(r"^(\d+)\. (.*)$", re.MULTILINE)
_ITEM = re.compile(r"^- (\S+): (.*)$", re.MULTILINE)


@dataclass(frozen=True)
class Said:
    speaker: str  # "User" or "Chatbot"
    text: str
    buttons: tuple[str, ...] = ()


def parse_conversation(text: str) -> list[Said]:
    """The turns of a transcript written as `User: ...` / `Chatbot: ...` lines (a turn may span lines; the
    extraction prompt numbers them, `[turn 3] Chatbot: ...`)."""
    raw: list[list[str]] = []
    for line in text.splitlines():
        match = re.match(r"^(?:\[turn \d+\] )?(User|Chatbot): ?(.*)$", line)
        if match:
            raw.append([match.group(1), match.group(2)])
        elif raw:
            raw[-1][1] += "\n" + line
    turns = []
    for speaker, said in raw:
        said = said.rstrip()
        buttons: tuple[str, ...] = ()
        found = _BUTTONS.search(said)
        if found:
            buttons = tuple(b.strip() for b in found.group(1).split(" | ") if b.strip())
            said = said[: found.start()]
        turns.append(Said(speaker, "" if said == "(no text)" else said, buttons))
    return turns


def _section(text: str, start: str, end: str | None = None) -> str:
    if start not in text:
        return ""
    rest = text.split(start, 1)[1]
    return rest.split(end, 1)[0] if end and end in rest else rest


def _turn_and_after(prompt: str) -> tuple[list[Said], str]:
    """The transcript of a user-turn prompt (its `User:` / `Chatbot:` lines up to the first blank line) and what
    the prompt says after it; no transcript: no turns, and the whole prompt."""
    _, rest = split_at_transcript(prompt)
    if not rest:
        return [], prompt
    transcript, _, after = rest.partition("\n\n")
    return parse_conversation(transcript), after


# -- words ---------------------------------------------------------------------------------------------------------

_STOP_WORDS = """
    a an the and or of to for in on at by with from is are be am do does did i you we it my your our me us this
    that these those there here please would could can will shall should like want need some any what which how
    when where who whether if about know tell find out ask asking get give have has just also then so very must
    been being el la los las un una unos unas de del que con en y o por para mi tu te se es son al lo le quiero
    querria gustaria preguntar saber pedir si como cuando donde cual cuanto
"""
_STOP = frozenset(_STOP_WORDS.split())
_DATE_TEXT = """
    today tomorrow tonight next this day monday tuesday wednesday thursday friday saturday sunday hoy manana lunes
    martes miercoles jueves viernes sabado domingo
"""
_DATE_WORDS = frozenset(_DATE_TEXT.split())
_TIME = re.compile(r"\b(\d{1,2})(?::(\d{2}))?\s*(am|pm)\b|\b(\d{1,2}):(\d{2})\b|\b(noon|midday|mediodia)\b")
_DATE = re.compile(
    r"\b(?:today|tomorrow|the day after tomorrow|(?:next |this )?(?:monday|tuesday|wednesday|thursday|friday|"
    r"saturday|sunday)|manana|hoy|\d{1,2}/\d{1,2}/\d{4}|\d{4}-\d{2}-\d{2})\b"
)


def _fold(text: str) -> str:
    return ascii_fold(text).lower()


def _hours(text: str) -> list[str]:
    """Every time of day in the text as an hour token (`h10`, `h17`): "10am", "10:00" and "10 am" agree."""
    found = []
    for match in _TIME.finditer(_fold(text)):
        if match.group(6):
            hour = 12
        elif match.group(4):
            hour = int(match.group(4))
        else:
            hour = int(match.group(1)) % 12 + (12 if match.group(3) == "pm" else 0)
        found.append(f"h{hour}")
    return found


def _singular(word: str) -> str:
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def stems(text: str) -> list[str]:
    """Content words as comparable stems: no stop words, no dates (bots rewrite them), times by the hour."""
    clean = _TIME.sub(" ", _DATE.sub(" ", _fold(text)))
    found: list[str] = []
    for word in re.findall(r"[a-z0-9]+", clean):
        if word in _STOP or word in _DATE_WORDS or (len(word) < 3 and not word.isdigit()):
            continue
        stem = word if word.isdigit() else _singular(word)[:4]
        if stem not in found:
            found.append(stem)
    return found + [h for h in _hours(text) if h not in found]


def overlap(goal: str, text: str) -> float:
    wanted = stems(goal)
    if not wanted:
        return 0.0
    have = set(stems(text))
    return sum(1 for s in wanted if s in have) / len(wanted)


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in re.split(r"(?<=[.!?])\s+|\n+", text) if s.strip()]


# -- how the double writes ----------------------------------------------------------------------------------------

Words = dict[str, tuple[str, ...]]
_EN: Words = {
    "ask": ("Can you tell me {x}?", "I'd like to know {x}.", "Quick question: {x}?", "What about {x}?"),
    "do": ("I'd like to {x}.", "I want to {x}.", "Hi, I need to {x}.", "{X}, please."),
    "again": ("Let me put it another way: {x}.", "I mean: {x}.", "{X}."),
    "value": ("{v}", "{v}, please", "{V}", "I'd say {v}", "{v} thanks"),
    "yes": ("Yes, please.", "yes", "Sure."),
    "close": (
        "Thanks, that's all! {end}",
        "Great, thank you. That's everything. {end}",
        "Perfect, bye! {end}",
    ),
    "close_plain": (
        "That's all, thanks.",
        "Thank you for your help, bye!",
        "Ok, that's everything. Goodbye.",
    ),
    "close_odd": ("Cheers, I'm off now.", "Alright, talk soon."),
}
_ES: Words = {
    "ask": ("¿Me puedes decir {x}?", "Quería saber {x}.", "Una pregunta: {x}?"),
    "do": ("Quiero {x}.", "Me gustaría {x}.", "Hola, quiero {x}.", "{X}, por favor."),
    "again": ("Te lo digo de otra forma: {x}.", "O sea, {x}.", "{X}."),
    "value": ("{v}", "{v}, por favor", "{V}", "pues {v}"),
    "yes": ("Sí, por favor.", "sí"),
    "close": ("Gracias, eso es todo. {end}", "¡Perfecto, adiós! {end}"),
    "close_plain": ("Eso es todo, gracias.", "Muchas gracias, adiós."),
    "close_odd": ("Vale, me voy ya.",),
}
_ASKING = re.compile(r"^(?:ask|preguntar)\s+(?:for|about|por|sobre)?\s*(.*)$", re.IGNORECASE)
_OFFER = re.compile(
    r"anything else|something else|what else can i|algo m[aá]s|en qu[eé] m[aá]s|otra cosa", re.IGNORECASE
)
_YES_NO = re.compile(r"^(?:would you like|do you want|shall i|should i|¿?quieres|¿?te gustar)", re.IGNORECASE)


@dataclass
class SenseiImperfection:
    """How often the double slips; 0 everywhere makes it a tidy model."""

    casing: float = 0.3  # all lower case, or a capital letter where none belongs
    filler: float = 0.15  # "ok, ...", "hmm, ..."
    label: float = 0.03  # a "User:" label or wrapping quotes (the simulator strips both)
    typo: float = 0.03  # two letters swapped in one long word
    plain_closing: float = 0.3  # a closing phrase without the end marker
    odd_closing: float = 0.03  # a closing in words no phrase list knows
    judge_miss: float = 0.1  # an answered goal left out of the verdict
    judge_bogus: float = 0.01  # a goal claimed answered that was not
    judge_no_evidence: float = 0.3
    judge_number_as_text: float = 0.1
    judge_no_items: float = 0.1  # the whole items_given field left out
    item_spelling: float = 0.5  # item names in another casing, spacing or number
    loose_format: float = 0.5  # extracted values as "$" and text numbers instead of codes and numbers
    # The loose-JSON mode: the extraction answered as models in `json_object` mode and small local models do —
    # `{"value": 13.75, "turn": "13.75", "quote": "13.75"}` for money, a bare number or "13.75$" where an object
    # was asked, the turn as text, keys in other words or casing, one asked field's value at the top level, an
    # empty object now and then. 0 keeps the tidy `{name: value}` answers.
    loose_json: float = 0.0


@dataclass
class SenseiDouble:
    seed: int = 0
    imperfection: SenseiImperfection = field(default_factory=SenseiImperfection)

    def responders(self) -> dict[str, Responder]:
        return {
            "sensei.user_turn": self.user_turn,
            "sensei.goal_check": self.goal_check,
            "sensei.extract": self.extract,
            "sensei.extract_quotes": self.extract_again,
            "sensei.any_list": self.any_list,
        }

    def chat_model(
        self,
        script: dict[str, Reply | list[Reply]] | None = None,
        *,
        overrides: dict[str, Responder] | None = None,
    ) -> ImperfectChatModel:
        """The double as a chat model for `LLMClient(chat_model=...)`; `overrides` replace responders."""
        return ImperfectChatModel({**self.responders(), **(overrides or {})}, script, seed=self.seed)

    # -- the simulated user --------------------------------------------------------------------------------------

    def user_turn(self, request: Request) -> Reply:
        system, prompt, rng = request.system_text, request.prompt, request.rng
        found = _GOALS.search(system)
        goals = [g.strip() for g in found.group(1).split("; ")] if found else []
        spanish = f"{CUES['language'][1]}spanish".lower() in (system + prompt).lower()
        words = _ES if spanish else _EN
        turns, extra = _turn_and_after(prompt)
        message = self._next_message(goals, turns, extra, words, rng)
        if CUES["end_mark"][1] not in system:  # the end marker is written only when the prompt asks for it
            message = message.replace(END_MARK, "").rstrip()
        return {"content": self._dress(message, rng)}

    def _next_message(
        self, goals: list[str], turns: list[Said], extra: str, words: Words, rng: Random
    ) -> str:
        open_goals = [g for g in goals if _pending(g, turns)]
        last = turns[-1] if turns and turns[-1].speaker == "Chatbot" else None
        left = _GOALS_LEFT.search(extra)
        if left:
            named = [g for g in goals if g in left.group(1)] or goals
            return self._say(named[0], words, rng, again=True)
        if (_REPHRASE in extra or _CHANGE_TOPIC in extra) and not open_goals:
            return self._close(words, rng)  # the chatbot missed the goodbye: say it again
        if _REPHRASE in extra or _CHANGE_TOPIC in extra:
            last_user = next((t.text for t in reversed(turns) if t.speaker == "User"), "")
            current = max(goals, key=lambda g: overlap(g, last_user)) if goals else ""
            if _CHANGE_TOPIC in extra:
                others = [g for g in open_goals if g != current]
                return self._say(others[0], words, rng) if others else self._close(words, rng)
            return self._say(current, words, rng, again=True) if current else self._close(words, rng)
        if last is not None:
            answer = self._answer(last, goals, bool(open_goals), words, rng)
            if answer == "":
                return self._close(words, rng)
            if answer is not None:
                return answer
        if open_goals:
            return self._say(open_goals[0], words, rng)
        return self._close(words, rng)

    def _say(self, goal: str, words: Words, rng: Random, *, again: bool = False) -> str:
        asking = _ASKING.match(goal)
        kind = "again" if again else ("ask" if asking else "do")
        text = asking.group(1) if asking and not again else goal
        template = rng.choice(words[kind])
        return template.replace("{x}", text).replace("{X}", text[:1].upper() + text[1:])

    def _answer(
        self, last: Said, goals: list[str], goals_open: bool, words: Words, rng: Random
    ) -> str | None:
        """The answer to the chatbot's question; None when it asked nothing the goals answer; "" to close."""
        sentences = _sentences(last.text)
        questions = [i for i, s in enumerate(sentences) if "?" in s]
        if not questions:
            return None
        index = questions[-1]
        question = sentences[index]
        context = " ".join(sentences[index : index + 2])
        if _OFFER.search(question):
            return None if goals_open else ""
        wanted = _fold(" ".join(goals))
        value = _value(question, context, last.buttons, wanted, rng)
        if value is None:
            if _YES_NO.match(_fold(question).lstrip("¿")) and goals_open:
                return rng.choice(words["yes"])
            return None
        template = rng.choice(words["value"])
        return template.replace("{v}", value).replace("{V}", value[:1].upper() + value[1:])

    def _close(self, words: Words, rng: Random) -> str:
        slips = self.imperfection
        draw = rng.random()
        if draw < slips.odd_closing:
            return str(rng.choice(words["close_odd"]))
        if draw < slips.odd_closing + slips.plain_closing:
            return str(rng.choice(words["close_plain"]))
        return str(rng.choice(words["close"])).replace("{end}", END_MARK)

    def _dress(self, message: str, rng: Random) -> str:
        slips = self.imperfection
        body, mark = message, ""
        if message.endswith(END_MARK):
            body, mark = message[: -len(END_MARK)].rstrip(), f" {END_MARK}"
        if rng.random() < slips.filler:
            body = rng.choice(("ok, ", "hmm, ", "so ", "right, ")) + body[:1].lower() + body[1:]
        if rng.random() < slips.casing:
            body = body.lower() if rng.random() < 0.7 else body[:1].upper() + body[1:]
        if rng.random() < slips.typo:
            body = _typo(body, rng)
        text = body + mark
        if rng.random() < slips.label:
            text = rng.choice(("User: {t}", '"{t}"')).replace("{t}", text)
        return text

    # -- the judge -----------------------------------------------------------------------------------------------

    def goal_check(self, request: Request) -> Reply:
        rng, slips = request.rng, self.imperfection
        listed, transcript = split_at_transcript(request.prompt)
        goals, items = _GOAL.findall(listed), _ITEM.findall(listed)
        turns = parse_conversation(transcript)
        bot = [t.text for t in turns if t.speaker == "Chatbot"]
        verdicts: list[dict[str, Any]] = []
        for number, goal in goals:
            best = max(bot, key=lambda line: overlap(goal, line), default="")
            answered = bool(bot) and overlap(goal, " ".join(bot)) >= 0.5
            if not answered and _ASKING.match(goal):
                reply = _reply_to(goal, turns)
                answered = reply is not None and _statement(reply)
                best = reply or best
            if answered and rng.random() < slips.judge_miss:
                continue
            if not answered and rng.random() < slips.judge_bogus:
                answered = True
            verdict: dict[str, Any] = {"goal": int(number), "answered": answered}
            if rng.random() < slips.judge_number_as_text:
                verdict["goal"] = number
            if answered and rng.random() >= slips.judge_no_evidence:
                verdict["evidence"] = best
            verdicts.append(verdict)
        given = []
        for name, description in items:
            if _find(name, _item_type(name, description), description, bot) is not None:
                given.append(_spelling(name, rng) if rng.random() < slips.item_spelling else name)
        answer: dict[str, Any] = {"goals": verdicts}
        if rng.random() >= slips.judge_no_items:
            answer["items_given"] = given
        return {"json": answer}

    # -- the extractor -------------------------------------------------------------------------------------------

    def extract_again(self, request: Request) -> Reply:
        """Asked once more (the values no chatbot turn states, or that could not be read, with the reason): the
        same reading of the chatbot's words; a model told what was wrong no longer answers with nothing."""
        return self.extract(request, again=True)

    def extract(self, request: Request, *, again: bool = False) -> Reply:
        """The fields the response schema asks for, each read from its `- name (type): description` line."""
        rng = request.rng
        listed, transcript = split_at_transcript(request.prompt)
        lines = {name: (name, kind, description) for name, kind, description in _FIELD.findall(listed)}
        asked = request.fields or list(lines)  # no schema (a plain call): every listed field
        fields: list[tuple[str, ...]] = [lines.get(name, (name, "string", "")) for name in asked]
        turns = parse_conversation(transcript)
        bot = [t.text for t in turns if t.speaker == "Chatbot"]
        loose = rng.random() < self.imperfection.loose_format
        answer = {
            name: _find(name, kind, description, bot, loose=loose) for name, kind, description in fields
        }
        if rng.random() < self.imperfection.loose_json:
            bot_turns = [(i, t.text) for i, t in enumerate(turns) if t.speaker == "Chatbot"]
            return {"json": loose_json(answer, fields, bot_turns, rng, empty=not again)}
        return {"json": answer}

    def any_list(self, request: Request) -> Reply:
        prompt = _fold(request.prompt)
        count = re.search(rf"{_fold(CUES['count'][1])}(\d+) values", prompt)
        wanted = int(count.group(1)) if count else 3
        existing = _section(prompt, _fold(CUES["existing"][1]))
        for topic, values in _VOCABULARY.items():
            if topic in prompt:
                fresh = [v for v in values if v not in existing]
                return {"json": {"values": fresh[:wanted]}}
        noun = (re.findall(r"[a-z]{3,}", _section(prompt, _fold(CUES["topic"][1]), ".")) or ["item"])[-1]
        return {"json": {"values": [f"{noun} {i + 1}" for i in range(wanted)]}}


_VOCABULARY = {
    "pizza": ("hawaiian", "four cheese", "vegetarian", "carbonara", "marinara"),
    "drink": ("coke", "lemonade", "water"),
    "animal": ("dog", "cat", "bird", "rabbit"),
    "pet": ("dog", "cat", "bird", "rabbit"),
    "colo": ("red", "green", "blue"),
    "name": ("Alex Morgan", "Sam Lee", "Ada King"),
}


_APOLOGY = re.compile(r"^(?:sorry|i'm sorry|perdona|lo siento)\b", re.IGNORECASE)


def _statement(reply: str) -> bool:
    """A reply that states something: no apology first, no question back."""
    return bool(reply.strip()) and not _APOLOGY.match(reply.strip()) and "?" not in reply


def _reply_to(goal: str, turns: list[Said]) -> str | None:
    """The chatbot's reply to the last user message that said `goal`, if there is one."""
    for i in range(len(turns) - 1, -1, -1):
        if turns[i].speaker == "User" and overlap(goal, turns[i].text) >= 0.5:
            return next((t.text for t in turns[i + 1 :] if t.speaker == "Chatbot"), None)
    return None


def _pending(goal: str, turns: list[Said]) -> bool:
    """Whether the user still has to bring `goal` up: not said yet, or said once and the reply took no notice
    of it (a competent user says it again, once)."""
    users = [(i, t) for i, t in enumerate(turns) if t.speaker == "User"]
    if overlap(goal, " ".join(t.text for _, t in users)) < 0.6:
        return True
    if overlap(goal, " ".join(t.text for t in turns if t.speaker == "Chatbot")) >= 0.5:
        return False
    attempts = [i for i, t in users if overlap(goal, t.text) >= 0.4]
    if len(attempts) != 1:
        return False
    said = turns[attempts[0]].text
    reply = next((t.text for t in turns[attempts[0] + 1 :] if t.speaker == "Chatbot"), "")
    return bool(reply) and not set(stems(said)) & set(stems(reply))


def _typo(text: str, rng: Random) -> str:
    words = text.split(" ")
    long = [i for i, w in enumerate(words) if len(w) >= 6 and w.isalpha()]
    if not long:
        return text
    i = rng.choice(long)
    word = words[i]
    j = rng.randrange(1, len(word) - 2)
    words[i] = word[:j] + word[j + 1] + word[j] + word[j + 2 :]
    return " ".join(words)


def _spelling(name: str, rng: Random) -> str:
    words = words_of(name)
    if words and rng.random() < 0.4:
        words[-1] = words[-1] + "s"
    return styled(words, rng.choice(STYLES))


# -- answering the chatbot's questions from the goals --------------------------------------------------------------


def _options(context: str, buttons: tuple[str, ...]) -> list[str]:
    if buttons:
        return list(buttons)
    found: list[str] = []
    for sentence in _sentences(context):
        parts = re.split(r",\s*|\s+(?:or|and|o|y)\s+", sentence.rstrip("?.!"))
        parts = [
            re.sub(r"^(?:we have|we see|we offer|tenemos|hay|either)\s+", "", p, flags=re.IGNORECASE)
            for p in parts
        ]
        short = [p.strip().strip("¿?") for p in parts if 0 < len(p.split()) <= 3]
        if len(short) >= 2 and len(short) >= len(parts) - 1:
            found += short
    return found


def _mentions(text: str, option: str) -> bool:
    wanted = [_singular(w) for w in re.findall(r"[a-z0-9]+", _fold(option))]
    have = {_singular(w) for w in re.findall(r"[a-z0-9]+", text)}
    return bool(wanted) and all(w in have for w in wanted)


def _value(question: str, context: str, buttons: tuple[str, ...], goals: str, rng: Random) -> str | None:
    q = _fold(question)
    options = _options(context, buttons)
    if options:
        named = [o for o in options if _mentions(goals, o)]
        if named:
            return named[0] if len(named) == 1 else ", ".join(named[:-1]) + " and " + named[-1]
        offered = [o for o in options if _mentions(_fold(context), o)]
        if offered and not re.search(r"help|do for you|ayudar", q):
            return str(rng.choice(offered)).lower()  # the goals are silent: any offered option will do
    if re.search(r"how many|cuant", q):
        numbers = re.findall(r"\b\d+\b", goals)
        return numbers[0] if numbers else str(rng.randint(1, 3))
    if re.search(r"\btime\b|\bhora\b", q):
        times = re.findall(r"\b\d{1,2}(?::\d{2})?\s*(?:am|pm)\b|\b\d{1,2}:\d{2}\b|\bnoon\b", goals)
        return times[0] if times else rng.choice(("10am", "11:30", "3pm"))
    if re.search(r"\bday\b|\bdate\b|\bwhen\b|\bdia\b|\bfecha\b", q):
        days = _DATE.findall(goals)
        return days[0] if days else "tomorrow"
    if re.search(r"\bname\b|\bnombre\b", q):
        name = re.search(r"(?:my name is|i am|i'm|called|named|me llamo)\s+([a-z]+(?: [a-z]+)?)", goals)
        return name.group(1).title() if name else rng.choice(("Alex Morgan", "Sam Lee"))
    if re.search(r"phone|telefono", q):
        phone = re.search(r"\+?\d[\d\s-]{6,}\d", goals)
        return phone.group(0) if phone else "555 123 456"
    if re.search(r"e-?mail|correo", q):
        mail = re.search(r"[\w.]+@[\w.]+\w", goals)
        return mail.group(0) if mail else "alex@example.org"
    return None


# -- finding outputs in the chatbot's messages ---------------------------------------------------------------------

_MONEY = re.compile(
    r"(?:(\$|€|£)\s?(\d+(?:[.,]\d+)?))|(?:(\d+(?:[.,]\d+)?)\s?(\$|€|£|(?:euros?|eur|usd|dollars?)\b))",
    re.IGNORECASE,
)
_CODE = re.compile(r"\b(?=[A-Z0-9]*\d)[A-Z0-9]{5,10}\b")
_NAMED_CODE = re.compile(
    r"(?:number|id|code|reference|n[uú]mero|c[oó]digo)\s*(?:is|es|:)?\s*([A-Z0-9]{4,12})\b"
)
_CURRENCY = {"$": "USD", "€": "EUR", "£": "GBP", "euro": "EUR", "euros": "EUR", "eur": "EUR", "usd": "USD"}


def _item_type(name: str, description: str) -> str:
    text = _fold(f"{name} {description}")
    if re.search(r"price|cost|total|fee|amount|precio|importe", text):
        return "money"
    if re.search(r"\btime\b|\bhour\b|\bhora\b", text):
        return "time"
    if re.search(r"\bday\b|\bdate\b|\bdia\b|\bfecha\b", text):
        return "date"
    if re.search(r"\bid\b|number|code|reference|numero|codigo", text):
        return "string"
    return "string"


def _lines(bot: list[str]) -> list[str]:
    return [sentence for text in bot for sentence in _sentences(text)]


def _best(lines: list[str], description: str, has: re.Pattern[str]) -> str | None:
    candidates = [line for line in lines if has.search(line)]
    if not candidates:
        return None
    scores = [(overlap(description, line), i) for i, line in enumerate(candidates)]
    return candidates[max(scores)[1]]


def _find(name: str, kind: str, description: str, bot: list[str], *, loose: bool = False) -> Any:
    lines = _lines(bot)
    label = kind.lower()
    if label == "money":
        line = _best(lines, description, _MONEY)
        if line is None:
            return None
        match = _MONEY.search(line)
        assert match is not None
        symbol = (match.group(1) or match.group(4)).lower()
        amount = float((match.group(2) or match.group(3)).replace(",", "."))
        currency = symbol if loose and symbol in "$€£" else _CURRENCY.get(symbol, symbol.upper())
        return {"amount": str(amount) if loose else amount, "currency": currency}
    if label.startswith("enum["):
        values = [v.strip() for v in label[5:-1].split(",")]
        for line in reversed(lines):
            named = [v for v in values if _mentions(_fold(line), v)]
            if named:
                return named[0]
        return None
    if label == "date":
        for line in reversed(lines):
            found = re.search(r"\b\d{1,2}/\d{1,2}/\d{4}\b|\b\d{4}-\d{2}-\d{2}\b", line)
            if found:
                return found.group(0)
        return None
    if label == "time":
        for line in reversed(lines):
            found = re.search(r"\b\d{1,2}:\d{2}\b|\b\d{1,2}\s?(?:am|pm)\b", line, re.IGNORECASE)
            if found:
                return found.group(0)
        return None
    if label in ("int", "float"):
        line = _best(lines, description, re.compile(r"\b\d+(?:[.,]\d+)?\b"))
        if line is None:
            return None
        numbers = [n for n in re.findall(r"\b\d+(?:[.,]\d+)?\b", line) if ":" not in n]
        if not numbers:
            return None
        number = float(numbers[0].replace(",", "."))
        value: Any = int(number) if label == "int" and number.is_integer() else number
        return str(value) if loose else value
    if re.search(r"\bid\b|number|code|reference|numero|codigo", _fold(f"{name} {description}")):
        for line in reversed(lines):
            labelled = _NAMED_CODE.search(line)
            if labelled:
                return labelled.group(1)
        for line in reversed(lines):
            found = _CODE.search(line)
            if found:
                return found.group(0)
        return None
    line = _best(lines, description, re.compile(r"\w"))
    return line if line is not None and overlap(description, line) >= 0.5 else None
