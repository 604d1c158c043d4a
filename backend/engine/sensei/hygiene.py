"""Simulated-user hygiene: what the user LLM wrote, made into one message of the user, or judged unusable.

Small and not-so-small models slip out of the user's role. What is done about each slip:

- it speaks for the chatbot — a line opening with a speaker label (`Chatbot:`, `Assistant:`, `Bot:`, `PizzaBot:`,
  `**Agent:**`, the chatbot's own name as its messages give it, "Your next message as the chatbot:"), or such a
  label after the end of a sentence: the message is **cut** there, and what comes before it is sent;
- it writes the rest of the transcript — a later line labelled as the user again (`User:`): cut there too;
- it recites its instructions — the profile's role sentence as written ("You order a pizza…"), the prompt's
  headings or rules ("Your next message as the user:"), or it answers in the assistant's voice ("How can I help
  you today?", "As an AI…"): the turn is **regenerated**;
- nothing is left after cleaning: regenerated too.

`clean_user_turn` does the cleaning and says what it found; the simulator regenerates a turn once and, when the
second answer is no better, ends the conversation inconclusive (error 3002, the user left its role). Every slip
is recorded on the conversation (`settings.simulator_slips`) and counted per run. A message is never sent to the
chatbot with a line that speaks for it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from rapidfuzz import fuzz

from engine.conversation import RecordedSlip
from engine.sensei import prompts
from engine.sensei.closing import normalise

SlipKind = Literal[
    "spoke_for_chatbot", "wrote_transcript", "recited_instructions", "assistant_voice", "empty"
]
# Kinds that cannot be fixed by cutting: the turn is written again.
REGENERATE: frozenset[SlipKind] = frozenset({"recited_instructions", "assistant_voice", "empty"})

_DECOR = r"[\s>*_#`\[\](){}\-\u2013\u2014|]*"  # markdown, brackets, dashes around a label
_CHATBOT_WORDS = (
    r"chat\s?bot|assistant|ai\s+assistant|virtual\s+assistant|bot|agent|system|ai|support|a|"
    r"[a-z][\w'-]{0,20}\s?bot|[a-z][\w'-]{0,20}\s+assistant"
)
_USER_WORDS = r"user|usuario|utilisateur|you|me|customer|human|client"
_LABEL_END = r"[*_\])]*\s*[:\uff1a]"  # the colon, or the full-width one
_CHATBOT_LABEL = re.compile(rf"^{_DECOR}(?:the\s+)?(?:{_CHATBOT_WORDS}){_LABEL_END}", re.IGNORECASE)
# A heading the model writes over its message ("Here is my next message:", "My next message was:").
_HEADING = (
    r"(?:here\s+is\s+|here'?s\s+)?(?:my|your|the)\s+(?:next\s+|last\s+|final\s+)?(?:message|reply|answer)"
    r"(?:\s+as\s+[\w' ]{1,30})?(?:\s+was|\s+is)?"
)
_USER_LABEL = re.compile(
    rf"^{_DECOR}(?:(?:the\s+)?(?:{_USER_WORDS})|{_HEADING}){_LABEL_END}\s*", re.IGNORECASE
)
# A heading that announces the chatbot's part: "Your next message as the chatbot: …", "Reply from the bot:".
_ROLE_HEADING = re.compile(
    r"^\W*(?:[\w' ]{0,40}?\s)?(?:as|from|of|by)\s+the\s+(?:chat\s?bot|assistant|bot)\s*[:\uff1a]",
    re.IGNORECASE,
)
# The same labels inside a line, after the end of a sentence: "Sure! Chatbot: Welcome back…".
_INLINE_CHATBOT = re.compile(rf"(?<=[.!?…])\s+{_DECOR}(?:{_CHATBOT_WORDS}){_LABEL_END}", re.IGNORECASE)

# The prompt's own scaffolding (engine.sensei.prompts): written back, it is the prompt, not a message.
_SCAFFOLDING = (
    "your next message as the user",
    "the conversation so far",
    "what you want from this conversation",
    "rules for every message",
    "about you",
    "how you write",
    "write only your next message",
    "never write the chatbot s part",
    "you are a person talking to a chatbot in order to test it",
    "write the first message you send to the chatbot",
    "nobody has said anything yet",
    "as the user no preamble",
)
# An assistant's voice, not a customer's.
_ASSISTANT_VOICE = (
    "how can i help you today",
    "how may i help you today",
    "how can i assist you today",
    "how may i assist you today",
    "how can i help you",
    "how may i help you",
    "how can i assist you",
    "how may i assist you",
    "what can i do for you today",
    "what can i do for you",
    "i m here to help you",
    "i am here to help you",
    "i m here to assist you",
    "i am here to assist you",
    "i can help you find",
    "i d be happy to help you",
    "i would be happy to help you",
    "i m happy to help you",
    "feel free to ask me",
    "let me know if you need anything",
    "let me know how i can help",
    "thank you for contacting us",
    "thanks for contacting us",
    "as an ai",
    "as a language model",
    "i am an ai",
    "i m an ai",
    "i am a chatbot",
    "i m a chatbot",
    "i am an assistant",
    "i m an assistant",
    "i am your assistant",
    "i m your assistant",
    "i m just a chatbot",
    "i am just a chatbot",
    "i m the chatbot",
    "i am the chatbot",
    "i m the user",
    "i am the user",
    "you are the chatbot",
    "you re the chatbot",
)
_MIN_RECITED_WORDS = 5
_PROMPT_WINDOW = 6


@dataclass(frozen=True)
class Slip:
    """One way the user LLM left its role in one turn, and what it wrote there (shortened)."""

    kind: SlipKind
    text: str

    def recorded(self, turn: int, attempt: int) -> RecordedSlip:
        return RecordedSlip(turn=turn, attempt=attempt, kind=self.kind, text=self.text[:200])


@dataclass
class CleanTurn:
    """The message to send (possibly empty) and the slips found on the way."""

    message: str
    slips: list[Slip] = field(default_factory=list)

    @property
    def usable(self) -> bool:
        """False when the turn must be written again (a recital, an assistant's voice, nothing left)."""
        return bool(self.message) and not any(slip.kind in REGENERATE for slip in self.slips)


_NAME = r"[A-Z][\w'-]+(?:\s+(?:&\s+)?[A-Z][\w'-]+){0,3}"
_NAMED = (
    re.compile(rf"(?i:\bI am|\bI'm|\bthis is|\bwelcome to|\bmy name is|\bcall me)\s+({_NAME})"),
    re.compile(rf"(?:^|[.!?]\s+)({_NAME}) here\b"),
)


def chatbot_names(bot_messages: Iterable[str]) -> list[str]:
    """Names the chatbot gives itself ("I'm Sparky", "Welcome to Slice Station", "Spoke & Chain Cycles here"),
    to recognise them as speaker labels."""
    names: list[str] = []
    for text in bot_messages:
        for pattern in _NAMED:
            for found in pattern.findall(text):
                if found not in names:
                    names.append(found)
    return names


def _label_of_chatbot(line: str, names: Sequence[str]) -> bool:
    if _CHATBOT_LABEL.match(line) or _ROLE_HEADING.match(line):
        return True
    bare = line.lstrip(" >*_#`[](){}-\u2013\u2014|")
    return any(
        re.match(rf"{re.escape(name)}{_LABEL_END}", bare, re.IGNORECASE) for name in names if name.strip()
    )


def _strip_quotes(message: str) -> str:
    if len(message) >= 2 and message[0] == message[-1] and message[0] in "\"'“”":
        return message[1:-1].strip()
    if len(message) >= 2 and message[0] == "“" and message[-1] == "”":
        return message[1:-1].strip()
    return message


def _prompt_sentences() -> tuple[str, ...]:
    """The fixed sentences of the prompts the simulated user gets (placeholders left out)."""
    texts = [re.sub(r"\{\w+\}", "\n", t.text) for t in prompts.USER_PROMPTS]
    return tuple(dict.fromkeys(_instruction_sentences(texts)))


def _instruction_sentences(instructions: Iterable[str]) -> list[str]:
    sentences: list[str] = []
    for text in instructions:
        for sentence in re.split(r"(?<=[.!?])\s+|\n+", text):
            clean = normalise(sentence)
            if len(clean.split()) >= _MIN_RECITED_WORDS:
                sentences.append(clean)
    return sentences


_PROMPT_SENTENCES = _prompt_sentences()


def recited(message: str, instructions: Iterable[str]) -> str | None:
    """The instruction (a sentence of the role or context as written, a sentence of the simulated user's own
    prompts, or their headings) the message repeats, if it does. The user may say what it wants in its own
    words; it may not read its brief aloud. The prompts' sentences are ours and no user would say them: six
    words of one in a row are a recital, however the rest was paraphrased ("Your last answer was not a message
    from the chatbot…")."""
    text = f" {normalise(message)} "
    for phrase in _SCAFFOLDING:
        if f" {phrase} " in text:
            return phrase
    for sentence in _PROMPT_SENTENCES:
        words = sentence.split()
        windows = [
            " ".join(words[i : i + _PROMPT_WINDOW]) for i in range(max(1, len(words) - _PROMPT_WINDOW + 1))
        ]
        if any(f" {window} " in text for window in windows):
            return sentence
    for sentence in _instruction_sentences(instructions):
        if f" {sentence} " in text:
            return sentence
        if len(sentence) >= 40 and fuzz.partial_ratio(sentence, text) >= 95:
            return sentence
    return None


def assistant_voice(message: str) -> str | None:
    text = f" {normalise(message)} "
    return next((phrase for phrase in _ASSISTANT_VOICE if f" {phrase} " in text), None)


def clean_user_turn(text: str, *, names: Sequence[str] = (), instructions: Iterable[str] = ()) -> CleanTurn:
    """The user's message from what the user LLM wrote: its own label and wrapping quotes removed, cut where it
    starts speaking for the chatbot or writing further turns; with the slips found (see the module docstring)."""
    slips: list[Slip] = []
    raw_lines = text.strip().splitlines()
    kept: list[str] = []
    for index, line in enumerate(raw_lines):
        if _label_of_chatbot(line, names):
            slips.append(Slip("spoke_for_chatbot", "\n".join(raw_lines[index:])))
            break
        user_label = _USER_LABEL.match(line)
        if user_label is not None:
            if any(part.strip() for part in kept):
                slips.append(Slip("wrote_transcript", "\n".join(raw_lines[index:])))
                break
            line = line[user_label.end() :]
        inline = _INLINE_CHATBOT.search(line)
        if inline is not None:
            slips.append(
                Slip("spoke_for_chatbot", "\n".join([line[inline.start() :], *raw_lines[index + 1 :]]))
            )
            kept.append(line[: inline.start()])
            break
        kept.append(line)
    message = _strip_quotes("\n".join(kept).strip())
    if not message:
        slips.append(Slip("empty", text.strip()))
        return CleanTurn("", slips)
    found = recited(message, instructions)
    if found is not None:
        slips.append(Slip("recited_instructions", found))
    voice = assistant_voice(message)
    if voice is not None:
        slips.append(Slip("assistant_voice", voice))
    return CleanTurn(message, slips)
