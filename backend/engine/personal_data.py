"""Personal data in free text: the detectors, and the masking of imported transcripts (README D35).

One module, in the engine's lowest layer, so that every part may use it: the security `pii` oracle looks for
personal data in a chatbot's replies, the transcript import masks it before anything is written, and TRACER and
SENSEI read only what the import wrote.

What is found (`RULES` lists it with examples, `parley transcripts rules` prints it):

- e-mail addresses;
- phone numbers: 9 to 15 digits, optionally with `+`, spaces, dots, dashes and brackets — never a date;
- card numbers: 13 to 19 digits whose Luhn check digit is right;
- IBANs: country code, check digits and account, whose mod-97 check is right;
- names a user gives about themselves: "my name is …", "call me …", "me llamo …", "mi nombre es …" take the
  next word in any case; "I'm …", "I am …", "this is …", "soy …" only a capitalised word that is not a common
  one ("I'm Looking for…" is not a name); after the chatbot asked for the name ("What's your name?"), a reply
  of one to three capitalised words. A name learned in a conversation is masked wherever it appears in it, the
  chatbot's turns included ("Thanks, Ana!").

Every value gets a placeholder such as `[EMAIL_1]`, stable within one conversation: the same address twice is
`[EMAIL_1]` twice, another one `[EMAIL_2]`. A `Masker` lives for one conversation and is thrown away after it.
"""

from __future__ import annotations

import bisect
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

KINDS = ("email", "phone", "card", "iban", "name")

# The look-behind holds every character of the local part, so a match is tried only where a run of them starts:
# a line of 2 Mi "%" and one "@" stays linear.
_EMAIL = re.compile(r"(?<![\w.%+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b")
_CARD = re.compile(r"(?<!\d)(?:\d[ -]?){12,18}\d(?!\d)")
_PHONE = re.compile(r"(?<![\w+])\+?\(?\d[\d ().-]{6,18}\d(?!\d)")
_IBAN = re.compile(r"\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]){11,30}\b", re.IGNORECASE)
# A run of digits that is a date (2024-03-15, 15/03/2024, 15.03.2024) or a time is not a phone number, even when
# a date and an hour together reach nine digits.
_DATE = re.compile(r"\d{4}[-/.]\d{1,2}[-/.]\d{1,2}|\d{1,2}[-/.]\d{1,2}[-/.]\d{2,4}")


_NO_DIGITS = str.maketrans("", "", "0123456789")


def luhn_valid(digits: str) -> bool:
    total = 0
    for position, char in enumerate(reversed(digits)):
        value = int(char)
        if position % 2 == 1:
            value *= 2
            if value > 9:
                value -= 9
        total += value
    return total % 10 == 0


def iban_valid(text: str) -> bool:
    compact = text.replace(" ", "").upper()
    if not 15 <= len(compact) <= 34 or not compact.isalnum() or not compact.isascii():
        return False
    moved = compact[4:] + compact[:4]
    number = "".join(str(int(c, 36)) for c in moved)
    return int(number) % 97 == 1


@dataclass(frozen=True)
class PIIMatch:
    kind: str
    text: str  # as it stands in the text
    start: int = 0
    end: int = 0


def find_pii(text: str, kinds: Iterable[str]) -> list[PIIMatch]:
    """E-mail addresses, phone numbers (9 to 15 digits), card numbers (Luhn-valid) and IBANs (check digits
    valid) in `text`, in the order of `KINDS`, never overlapping. Names need a conversation: see `Masker`."""
    wanted = set(kinds)
    found: list[PIIMatch] = []
    taken: list[tuple[int, int]] = []  # the spans found so far, sorted and disjoint

    def add(kind: str, match: re.Match[str]) -> None:
        # Bisect rather than compare with every span found: a turn of thousands of numbers stays fast.
        start, end = match.span()
        index = bisect.bisect_left(taken, (start, end))
        if (index and taken[index - 1][1] > start) or (index < len(taken) and taken[index][0] < end):
            return
        taken.insert(index, (start, end))
        stripped = match.group(0).rstrip()
        found.append(PIIMatch(kind, stripped.strip(), start, start + len(stripped)))

    if "iban" in wanted:
        for match in _IBAN.finditer(text):
            if iban_valid(match.group(0)):
                add("iban", match)
    # Most turns hold no address and few digits: skip the patterns that cannot match (a third of the import).
    digit_count = len(text) - len(text.translate(_NO_DIGITS))
    if "email" in wanted and "@" in text:
        for match in _EMAIL.finditer(text):
            add("email", match)
    if "card" in wanted and digit_count >= 13:
        for match in _CARD.finditer(text):
            digits = re.sub(r"\D", "", match.group(0))
            if 13 <= len(digits) <= 19 and luhn_valid(digits):
                add("card", match)
    if "phone" in wanted and digit_count >= 9:
        for match in _PHONE.finditer(text):
            digits = re.sub(r"\D", "", match.group(0))
            if 9 <= len(digits) <= 15 and not _DATE.search(match.group(0)):
                add("phone", match)
    return found


# -- names ---------------------------------------------------------------------------------------------------
_LETTERS = r"[^\W\d_][\w'\u2019-]*"
# "I'm Dr. Smith": the title is skipped, the name is Smith.
_TITLE = r"(?:(?i:mr|mrs|ms|miss|dr|prof|sr|sra|srta|don|doña)\.?\s+)?"
# After these the next word is a name in any case ("my name is ana").
_STRONG_CUE = re.compile(
    r"(?i:\bmy\s+name\s+is|\bmy\s+name['\u2019]s|\bcall\s+me|\bme\s+llamo|\bmi\s+nombre\s+es)\s+"
    + _TITLE
    + "("
    + _LETTERS
    + ")"
)
# After these only a capitalised word that is not a common one: "I'm Ana", not "I'm looking" or "I'm Sorry".
_WEAK_CUE = re.compile(r"(?i:\bi['\u2019]m|\bi\s+am|\bthis\s+is|\bsoy)\s+" + _TITLE + "(" + _LETTERS + ")")
# A chatbot asking for the user's name; the user's whole reply may then be the name ("Ana López.").
_ASKS_NAME = re.compile(
    r"(?i)\b(?:your\s+(?:full\s+|first\s+)?name|who\s+am\s+i\s+(?:speaking|talking)\s+(?:to|with)|"
    r"(?:tu|su)\s+nombre|c[oó]mo\s+te\s+llamas|c[oó]mo\s+se\s+llama)\b"
)
_ANSWER = re.compile(
    r"\s*(?:(?i:it['\u2019]s|i['\u2019]m|es|soy)\s+)?"
    + _TITLE
    + "("
    + _LETTERS
    + r"(?:\s+"
    + _LETTERS
    + r"){0,2})\s*[.!]?\s*"
)
_POSSESSIVE = re.compile(r"['\u2019]s$")  # "Carla's phone": the name is Carla
_NEXT_CAPITALISED = re.compile(r"\s+(" + _LETTERS + ")")
# Capitalised words that follow "I'm", "this is" or "soy" without being a name (a sentence in title case,
# "I'm Not sure", "This is Great", "Soy Vegetariano").
_NOT_NAMES = frozenset(
    [
        "a",
        "an",
        "the",
        "just",
        "not",
        "so",
        "very",
        "really",
        "also",
        "still",
        "here",
        "there",
        "back",
        "new",
        "done",
        "fine",
        "good",
        "great",
        "ok",
        "okay",
        "sorry",
        "sure",
        "afraid",
        "glad",
        "happy",
        "hungry",
        "interested",
        "looking",
        "trying",
        "going",
        "calling",
        "writing",
        "asking",
        "wondering",
        "waiting",
        "ready",
        "busy",
        "tired",
        "lost",
        "confused",
        "unable",
        "able",
        "from",
        "in",
        "at",
        "on",
        "with",
        "about",
        "for",
        "to",
        "of",
        "and",
        "or",
        "but",
        "your",
        "my",
        "our",
        "their",
        "his",
        "her",
        "its",
        "this",
        "that",
        "what",
        "who",
        "which",
        "how",
        "when",
        "where",
        "why",
        "yes",
        "no",
        "hi",
        "hello",
        "hey",
        "thanks",
        "thank",
        "please",
        "help",
        "customer",
        "client",
        "user",
        "member",
        "vegetarian",
        "vegan",
        "allergic",
        "pregnant",
        "single",
        "married",
        "student",
        "teacher",
        "urgent",
        "important",
        "correct",
        "right",
        "wrong",
        "it",
        "he",
        "she",
        "we",
        "they",
        "you",
        "i",
        "me",
        "us",
        "them",
        "tomorrow",
        "today",
        "tonight",
        "later",
        "now",
        "soon",
        "again",
        "maybe",
        "when",
        "if",
        "asap",
        "anytime",
        "whenever",
        "anything",
        "something",
        "nothing",
        "everything",
        "all",
        "both",
        "none",
        "de",
        "del",
        "la",
        "el",
        "los",
        "las",
        "un",
        "una",
        "muy",
        "tu",
        "su",
        "mi",
        "cliente",
        "vegetariano",
        "vegetariana",
        "alérgico",
        "alérgica",
        "nuevo",
        "nueva",
        "yo",
        "i'm",
        "i\u2019m",
        "im",
        # moods and origins users write in title case ("I'm Italian", "I am Angry")
        "angry",
        "upset",
        "annoyed",
        "frustrated",
        "disappointed",
        "worried",
        "excited",
        "english",
        "spanish",
        "italian",
        "french",
        "german",
        "american",
        "british",
        "mexican",
        "español",
        "española",
    ]
)
_MAX_NAME_WORDS = 3
MAX_NAMES = 50  # names (and their parts) one conversation may teach the masker
_MIN_NAME_PART = 3  # parts of a name shorter than this ("Li" in "Ana Li") are masked only with the whole name


def asks_name(text: str) -> bool:
    """Whether a chatbot's turn asks the user for their name ("What's your name?", "¿Cómo te llamas?")."""
    return bool(_ASKS_NAME.search(text))


def _capitalised(word: str) -> bool:
    return word[0].isupper() and not (len(word) > 1 and word.isupper()) and word.casefold() not in _NOT_NAMES


def names_given(text: str, *, asked: bool = False) -> list[str]:
    """The names the writer of `text` gives for themselves, as written ("Ana López"). `asked`: the chatbot's
    turn before asked for the name, so a reply of one to three capitalised words is one."""
    names: list[str] = []
    answer = _ANSWER.fullmatch(text) if asked else None
    if answer and all(_capitalised(word) for word in answer.group(1).split()):
        names.append(answer.group(1))
    for pattern, strong in ((_STRONG_CUE, True), (_WEAK_CUE, False)):
        for match in pattern.finditer(text):
            first = _POSSESSIVE.sub("", match.group(1))
            # After a weak cue, a name is Capitalised: not lower case, and not SHOUTED ("I'M ANGRY").
            weak_fails = not first[0].isupper() or (len(first) > 1 and first.isupper())
            if first.casefold() in _NOT_NAMES or (not strong and weak_fails):
                continue
            words = [first]
            end = match.end(1)
            while len(words) < _MAX_NAME_WORDS:
                more = _NEXT_CAPITALISED.match(text, end)
                if not more or not more.group(1)[0].isupper() or more.group(1).casefold() in _NOT_NAMES:
                    break
                words.append(_POSSESSIVE.sub("", more.group(1)))
                end = more.end(1)
            names.append(" ".join(words))
    return names


# -- masking -------------------------------------------------------------------------------------------------
def _key(kind: str, value: str) -> str:
    """What makes two spellings of one value the same value (so they share a placeholder)."""
    if kind in {"phone", "card", "iban"}:
        return re.sub(r"[^0-9A-Za-z]", "", value).upper()
    return " ".join(value.split()).casefold()


class Masker:
    """Masks the personal data of ONE conversation with placeholders that stay the same across its turns.

    Call `learn_names` with every user turn first (`asked` when the chatbot's turn before asked for the name),
    then `mask` each turn: a name given in turn 3 is then also masked where the chatbot used it in turn 2.
    """

    def __init__(self) -> None:
        self._placeholders: dict[tuple[str, str], str] = {}
        self._numbers: Counter[str] = Counter()
        self.counts: Counter[str] = Counter()  # masked occurrences by kind
        self._names: dict[str, str] = {}  # casefolded name or part -> the key of its whole name
        self._name_pattern: re.Pattern[str] | None = None

    def learn_names(self, text: str, *, asked: bool = False) -> None:
        before = len(self._names)
        for name in names_given(text, asked=asked):
            if len(self._names) >= MAX_NAMES:
                break  # a real conversation gives a handful; thousands would make masking quadratic
            whole = _key("name", name)
            self._names.setdefault(whole, whole)
            parts = name.split()
            if len(parts) > 1:
                for part in parts:
                    if len(part) >= _MIN_NAME_PART and part.casefold() not in _NOT_NAMES:
                        self._names.setdefault(part.casefold(), whole)
        if len(self._names) > before:
            # Longest first, so "Ana López" is one name rather than "Ana" followed by "López".
            alternatives = sorted(self._names, key=len, reverse=True)
            spelled = "|".join(r"\s+".join(re.escape(w) for w in n.split()) for n in alternatives)
            self._name_pattern = re.compile(rf"(?<!\w)(?:{spelled})(?!\w)", re.IGNORECASE)

    def placeholder(self, kind: str, value: str) -> str:
        key = (
            kind,
            self._names.get(_key(kind, value), _key(kind, value)) if kind == "name" else _key(kind, value),
        )
        if key not in self._placeholders:
            self._numbers[kind] += 1
            self._placeholders[key] = f"[{kind.upper()}_{self._numbers[kind]}]"
        return self._placeholders[key]

    def mask(self, text: str) -> str:
        spans = sorted(
            (m.start, m.end, m.kind, m.text) for m in find_pii(text, ("iban", "email", "card", "phone"))
        )
        if self._name_pattern is not None:
            names = []
            for match in self._name_pattern.finditer(text):
                # the number found last that starts before this name: does it reach into it?
                index = bisect.bisect_left(spans, (match.start(),))
                before = spans[index - 1] if index else None
                after = spans[index] if index < len(spans) else None
                if (before and before[1] > match.start()) or (after and after[0] < match.end()):
                    continue
                names.append((match.start(), match.end(), "name", match.group(0)))
            spans = sorted(spans + names)
        if not spans:
            return text
        pieces: list[str] = []
        position = 0
        for start, end, kind, value in sorted(spans):
            pieces += [text[position:start], self.placeholder(kind, value)]
            self.counts[kind] += 1
            position = end
        pieces.append(text[position:])
        return "".join(pieces)


def mask_text(text: str) -> str:
    """`text` with its personal data masked, as one conversation of one turn (for error messages and ids)."""
    masker = Masker()
    masker.learn_names(text)
    return masker.mask(text)


# -- the rules, shown and tested -----------------------------------------------------------------------------
@dataclass(frozen=True)
class Rule:
    kind: str
    placeholder: str
    what: str
    masked: tuple[str, ...]  # written by a user, each is masked
    kept: tuple[str, ...]  # each is left as it is


RULES = (
    Rule(
        "email",
        "[EMAIL_n]",
        "an e-mail address",
        ("write to ana.lopez@example.com please", "ANA@Example.ORG"),
        ("follow @pizzabot", "version 2.1@beta"),
    ),
    Rule(
        "phone",
        "[PHONE_n]",
        "9 to 15 digits, optionally with +, spaces, dots, dashes or brackets; not a date",
        ("call me at +34 612 345 678", "my number is (555) 123-4567"),
        ("order 3FA9C1", "it costs 13.75", "on 2024-03-15 10:30", "table for 4 at 8"),
    ),
    Rule(
        "card",
        "[CARD_n]",
        "13 to 19 digits with a valid Luhn check digit",
        ("card 4111 1111 1111 1111", "5500-0000-0000-0004"),
        ("4111 1111 1111 1112",),
    ),
    Rule(
        "iban",
        "[IBAN_n]",
        "an IBAN whose check digits are right (spaces allowed, any case); a wrong one's digit groups may still "
        "be masked as a phone number",
        ("IBAN GB82 WEST 1234 5698 7654 32", "es9121000418450200051332"),
        ("GB00WEST12345698765432",),
    ),
    Rule(
        "name",
        "[NAME_n]",
        "a name the user gives: after 'my name is', 'call me', 'me llamo', 'mi nombre es' (any case), or a "
        "capitalised uncommon word after 'I'm', 'I am', 'this is', 'soy' (a title such as 'Dr.' skipped), or a "
        "reply of one to three capitalised words when the chatbot asked for the name; then everywhere in that "
        "conversation",
        ("my name is Ana López", "I'm Bob", "this is Carla", "me llamo lucía", "soy Marta", "I'm Dr. Smith"),
        ("I'm looking for a pizza", "I'm Sorry", "this is great", "soy vegetariano", "I am not sure"),
    ),
)
