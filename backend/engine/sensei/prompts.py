"""Every prompt SENSEI sends, as named templates with one sentence saying what each is for.

Written for Parley. Templates use `str.format` fields only (no code); the simulator fills them. Keeping them
here, named, lets the platform show them, lets tests assert on them, and keeps wording changes reviewable.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Template:
    name: str
    intent: str
    text: str

    def fill(self, **values: str) -> str:
        return self.text.format(**values)


USER_SYSTEM = Template(
    name="user_system",
    intent="Make the LLM play one simulated user with the profile's role, persona, goals, style and language.",
    text=(
        "{role}\n\n"
        "About you: {context}\n\n"
        "What you want from this conversation: {goals}\n\n"
        "How you write: {styles}\n\n"
        "You are a person talking to a chatbot in order to test it. Rules for every message:\n"
        "- Write only your next message, in character, as the user. No preamble, no quotes, no 'User:' label.\n"
        "- Never write the chatbot's part and never write more than one turn.\n"
        "- React to what the chatbot just said when it makes sense, then keep moving towards your goals.\n"
        "- Do not say goodbye or end the conversation before you have covered all your goals. Once they are "
        "all covered, write one short goodbye and end that message with [END].\n"
        "- Unusual or even odd values are fine: this is a test.\n"
        "{language}"
    ),
)

USER_TURN = Template(
    name="user_turn",
    intent="Give the simulated user the conversation so far and ask for its next message.",
    text="You are the user, and you want: {goals}.\n\nThe conversation so far:\n{transcript}\n\n{extra}Your next "
    "message as the user:",
)

FIRST_TURN = Template(
    name="first_turn",
    intent="Ask the simulated user for the opening message when nothing has been said yet.",
    text="Nobody has said anything yet. {extra}You are the user, and you want: {goals}. Write the first message "
    "you send to the chatbot:",
)

STAY_IN_ROLE = Template(
    name="stay_in_role",
    intent="Ask the simulated user once more when its answer was no user's message (engine.sensei.hygiene).",
    text="Your last answer was not a message from the user: it spoke for the chatbot, repeated your "
    "instructions or was empty. Write only what the user says next, in one short message, in the user's own "
    "words.",
)

LANGUAGE = Template(
    name="language",
    intent="Pin the language of the next user message.",
    text="Write in {language}.",
)

LANGUAGE_SWITCH = Template(
    name="language_switch",
    intent="Make the user switch language for this turn (change language style) and hold to it.",
    text="For this message write in {language}, and keep to {language} even if the chatbot says it does "
    "not understand.",
)

REPHRASE = Template(
    name="rephrase",
    intent="After a fallback reply, make the user say its last request again in other words.",
    text="The chatbot did not understand your last message. Say the same thing again, worded differently. ",
)

CHANGE_TOPIC = Template(
    name="change_topic",
    intent="After repeated fallbacks, make the user move on to another of its goals instead of insisting.",
    text="The chatbot keeps failing to understand this point. Leave it and continue with another of your "
    "goals, without starting the conversation over. ",
)

GOALS_LEFT = Template(
    name="goals_left",
    intent="When the user closed the conversation too early, name the goals the chatbot has not answered yet.",
    text="You tried to end the conversation, but the chatbot has not yet answered: {goals}. Do not say goodbye "
    "yet; continue with what is missing. ",
)

INPUTS_LEFT = Template(
    name="inputs_left",
    intent="When the user closed the conversation before saying what its goals are about, name them again.",
    text="You tried to end the conversation, but you have not yet asked for what you want: {goals}. Do not say "
    "goodbye yet; ask for it now. ",
)

GOAL_CHECK = Template(
    name="goal_check",
    intent="Ask a judge which of the user's goals the chatbot has already answered and which outputs it gave.",
    text=(
        "You review a conversation between a user and a chatbot. For each numbered goal of the user, say "
        "whether the CHATBOT's messages answer, confirm or provide it (ignore what the user says), and quote "
        "the chatbot's words that do. For each named item, say whether the chatbot has stated it.\n\n"
        "Goals:\n{goals}\n\nItems:\n{outputs}\n\nConversation:\n{transcript}"
    ),
)

EXTRACT = Template(
    name="extract",
    intent="Extract every output the profile declares from a finished conversation, in one structured answer.",
    text=(
        "You read a finished conversation between a user and a chatbot and extract data from it. Take a value "
        "only if the CHATBOT stated or confirmed it; if it did not, answer null for that field. Do not guess "
        "and do not use what only the user said. For every value give the number of the chatbot's turn that "
        "states it (the N of [turn N]) and quote the chatbot's exact words that state it.\n"
        "The conversation took place on {today} ({weekday}); resolve relative dates such as 'tomorrow' or "
        "'next Friday' against that day. Dates are YYYY-MM-DD, times HH:MM:SS (24-hour), date-times "
        "YYYY-MM-DDTHH:MM:SS. Money is an amount (a number) and a currency code such as EUR or USD, or the "
        "symbol used if no code fits.\n\n"
        "Fields to extract:\n{fields}\n\nConversation:\n{transcript}"
    ),
)

EXTRACT_QUOTES = Template(
    name="extract_quotes",
    intent="Ask once more, for the values the first extraction gave but no chatbot turn states (or did not give "
    "though a chatbot sentence may state them), for the chatbot's exact words, or null.",
    text=(
        "Check these fields of your extraction against the CHATBOT's own words:\n{claims}\n"
        "For each of them, find the chatbot's message that states the value: give the value, the number of that "
        "chatbot turn (the N of [turn N]) and the chatbot's exact words. If no chatbot message states it, answer "
        "null. Only the chatbot's words count, never the user's. The conversation took place on {today}.\n\n"
        "Fields:\n{fields}\n\nConversation:\n{transcript}"
    ),
)

ANY_LIST = Template(
    name="any_list",
    intent="Invent the values of an any(...) item of a variable's list before the run.",
    text=(
        "Produce a list of values for a test of a chatbot: {prompt}. {type_hint}Each value is short, one "
        "item, no numbering. Do not repeat any of these existing values: {existing}."
    ),
)

STYLE_INSTRUCTIONS: dict[str, str] = {
    "default": "Ask about one or two things per message rather than everything at once.",
    "long phrases": "Write long, winding sentences full of asides, so the request is buried in words.",
    "short phrases": "Write very short messages of a few words, like quick notes typed on a phone.",
    "make spelling mistakes": "Make plenty of typing and spelling mistakes, several in every sentence.",
    "single question": "Ask exactly one question or give one piece of information per message.",
    "all questions": "Put everything you want into one single message.",
    "change your mind": "At some point, change a detail you already gave (for example a quantity or an item).",
}

# What the simulated user reads: said back to the chatbot, any of its sentences is a recital (engine.sensei.hygiene).
USER_PROMPTS = (
    USER_SYSTEM,
    USER_TURN,
    FIRST_TURN,
    STAY_IN_ROLE,
    REPHRASE,
    CHANGE_TOPIC,
    GOALS_LEFT,
    INPUTS_LEFT,
)

ALL_TEMPLATES = (
    USER_SYSTEM,
    USER_TURN,
    FIRST_TURN,
    STAY_IN_ROLE,
    LANGUAGE,
    LANGUAGE_SWITCH,
    REPHRASE,
    CHANGE_TOPIC,
    GOALS_LEFT,
    INPUTS_LEFT,
    GOAL_CHECK,
    EXTRACT,
    EXTRACT_QUOTES,
    ANY_LIST,
)
