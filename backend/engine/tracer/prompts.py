"""Every prompt TRACER sends, as named templates, each with one sentence saying what it is for.

Written for Parley. Templates use `str.format` fields only; the nodes fill them. Literal braces in the text
are doubled. Keeping them here lets the platform show them and tests assert on them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Prompt:
    name: str
    intent: str
    text: str

    def format(self, **fields: Any) -> str:
        return self.text.format(**fields)


PROBE = Prompt(
    "probe",
    "Find the chatbot's languages and its generic 'not understood' sentence from a few probe replies.",
    """You are studying a chatbot before testing it. Below are the messages it sent: its greeting (if any), its
answer to "Hello", and its answers to deliberately meaningless or off-topic questions.

{replies}

1. Which languages does the chatbot speak or say it supports? Use English names of the languages and put
   the one it actually writes in first.
2. Which sentence does it use when it does not understand? Copy it exactly as it appears (only the generic
   part, not the menu it may add). If the off-topic answers differ and none is generic, give null.""",
)

EXPLORER_SYSTEM = Prompt(
    "explorer_system",
    "Make the LLM play a curious customer who maps what the chatbot can do, one short message at a time.",
    """You play a customer talking to a chatbot, in order to discover everything the chatbot can do.
You are the human customer, never the assistant: do not offer help, do not list options yourself, do not
say you are an AI.

How to talk:
- Write short messages, one request or answer per message, like someone typing in a chat window.
- When the chatbot offers choices, answer with one of the choices, worded as the chatbot worded it.
- When it asks for information (a date, a name, a quantity), invent a plausible value and give it.
- Follow each task to its end (confirmation, price, summary) before starting another one.
- If the chatbot does not understand you, say the same thing more simply; if it still does not understand,
  move to a different topic instead of insisting.
- Write in {language}. The chatbot seems to speak: {languages}.

{focus}

You have at most {turns} messages. When you have seen everything this conversation can show, or when the
chatbot keeps failing, answer with exactly: EXPLORATION COMPLETE""",
)

GENERAL_FOCUS = Prompt(
    "general_focus",
    "Tell the explorer that this session is an open search for capabilities.",
    """Goal of this conversation: find out what the chatbot offers. Ask what it can do if it does not say, pick
one of the services it mentions and go through it completely.{known}""",
)

BRANCH_FOCUS = Prompt(
    "branch_focus",
    "Point the explorer at one discovered functionality so it looks for its variations and next steps.",
    """Goal of this conversation: use this functionality of the chatbot and explore its variations.
  {name}: {description}{parameters}
Reach it as directly as you can, then try the different choices it offers and see where each one leads
(what the chatbot asks next, what it confirms at the end).""",
)

KNOWN_FUNCTIONALITIES = Prompt(
    "known_functionalities",
    "Remind a general session of what is already known, so it prefers unexplored services.",
    """
Already known (prefer services not in this list): {names}.""",
)

OPENER_NUDGE = Prompt(
    "opener_nudge",
    "Ask the explorer for its first message of the conversation.",
    "Write your first message to the chatbot.",
)

REPHRASE_NUDGE = Prompt(
    "rephrase_nudge",
    "Tell the explorer its last message was not understood and should be said more simply.",
    "The chatbot did not understand your last message. Say the same thing in fewer, simpler words.",
)

TOPIC_NUDGE = Prompt(
    "topic_nudge",
    "Tell the explorer to stop insisting on a topic the chatbot keeps failing on.",
    "The chatbot has not understood you several times in a row. Drop this topic and ask about something else.",
)

ERROR_NUDGE = Prompt(
    "error_nudge",
    "Tell the explorer the chatbot failed to answer its last message, so it tries again or moves on.",
    "The chatbot failed to answer your last message (an error on its side). Send it again in other words, or "
    "ask about something else.",
)

TURN_REMINDER = Prompt(
    "turn_reminder",
    "Keep the explorer in the customer's role just before it writes its next message.",
    "Reply as the customer, with one short message ({left} left). If a choice was offered, pick one.",
)

OPENERS: tuple[str, ...] = (
    "Hi! What can you help me with?",
    "Hello, what services do you offer?",
    "Hi there. What can I do here?",
    "Hello! Could you tell me what you can do for me?",
)

FALLBACK_CHECK = Prompt(
    "fallback_check",
    "Decide whether a chatbot reply that resembles its fallback really means it did not understand.",
    """A chatbot's generic answer when it does not understand is:
"{fallback}"

The user wrote: "{message}"
The chatbot replied: "{reply}"

Does this reply mean the chatbot did not understand or cannot handle the request (rather than answering it)?""",
)

REWRITE_TURN = Prompt(
    "rewrite_turn",
    "Turn an explorer message that slipped into the assistant's voice back into a customer's message.",
    """This message was meant to be written by a customer talking to a chatbot, but it reads as if the assistant
wrote it:
"{message}"

The chatbot's last message was:
"{last_reply}"

Rewrite it as the customer's short reply or request, in {language}, keeping its intent.""",
)

EXTRACT = Prompt(
    "extract",
    "Turn one exploration transcript into the chatbot's functionalities with their inputs and outputs.",
    """Below is a conversation between a customer ("User") and a chatbot ("Chatbot").{focus}
{known}
{transcript}

List the functionalities the CHATBOT showed, as steps of its workflow:
- A functionality is something the chatbot does: asks for a piece of information, offers choices, gives
  information, confirms or completes a task. Name it in snake_case from the chatbot's point of view
  (prompt_for_pizza_size, present_drink_menu, confirm_order), general enough to cover other values
  (prompt_for_pizza_size, not prompt_for_large_pizza).
- One functionality per distinct step; a different path is a different functionality.
- Do not list the user's actions, the greeting, the "I did not understand" answers, or failures.
- parameters: what the chatbot asks the user to provide; options: the values it offered for it in that same
  message, verbatim (empty when it offered none).
- outputs: pieces of information the chatbot gave (a price, an id, opening hours, a list of choices with its
  items written in the description).
If the chatbot showed nothing but greetings and misunderstandings, return an empty list.""",
)

KNOWN_IN_EXTRACTION = Prompt(
    "known_in_extraction",
    "Show extraction the functionalities found so far, so that a step seen again keeps its name.",
    """
Functionalities already known from earlier conversations with this chatbot:
{functionalities}
When this conversation shows one of these steps again, even worded differently, give it exactly the name
listed here (and report the options and outputs seen in this conversation). Name a new functionality only
for a step that is not in this list.
""",
)

CONSOLIDATE = Prompt(
    "consolidate",
    "Decide which functionalities are the same chatbot step under two names, on a wide shortlist of candidates.",
    """These functionalities were found in different conversations with the same chatbot, so one step of the
chatbot may appear under two names.

Functionalities:
{functionalities}

Questions:
{questions}

For each question, decide whether the functionality is the SAME step of the chatbot as one of the listed
candidates: same action, same purpose, inputs that mean the same thing, so that one node should replace both.
Names worded differently can be the same step (other verbs, synonyms, word order); judge by what the chatbot
does. Different steps of one task (asking for the size vs. asking for the toppings), asking for something vs.
confirming it, or different topics are NOT the same. Answer with the number of the candidate that is the
same step, or null when none is (and when unsure); when it is the same, write one description that covers
both.""",
)

CLASSIFY = Prompt(
    "classify",
    "Decide whether the chatbot mainly performs transactions or mainly answers questions.",
    """Here is what a chatbot was observed to do, and extracts of conversations with it.

Functionalities:
{functionalities}

Conversation extracts:
{snippets}

Is this chatbot transactional (it guides users through tasks that end in something being done: an order, a
booking, a registration) or informational (it mostly answers questions and points to resources)?""",
)

WORKFLOW_TRANSACTIONAL = Prompt(
    "workflow_transactional",
    "Infer the step order (parents, branches, joins) and categories of a transactional chatbot's functionalities.",
    """You are modelling the workflow of a chatbot that guides users through tasks. These are ALL its observed
functionalities (name: description; inputs; exploration hint = the step during which it was discovered):

{functionalities}

Conversation extracts:
{snippets}

For every functionality give:
- parents: the functionalities that come IMMEDIATELY before it in the chatbot's flow and that it depends on
  (the chatbot asks for the size after the pizza type was chosen → the type step is a parent of the size
  step). Use the closest necessary step only. Several alternative paths leading to the same step make that
  step a join with several parents; one step leading to alternative paths is a branch. Entry points (what a
  user can start with, greetings, general information) have no parents. Never make small talk or
  acknowledgements a parent.
- category: a short theme (e.g. "Ordering", "Payment", "Bookings", "Information", "Chatbot meta"). Use few
  categories and reuse them; {categories}
Use the names exactly as listed and include every functionality once.""",
)

WORKFLOW_INFORMATIONAL = Prompt(
    "workflow_informational",
    "Infer the (usually flat) structure and categories of an informational chatbot's functionalities.",
    """You are modelling a chatbot that mainly answers questions. These are ALL its observed functionalities
(name: description; inputs; exploration hint = the step during which it was discovered):

{functionalities}

Conversation extracts:
{snippets}

For every functionality give:
- parents: almost always []. Questions can be asked directly, so they are entry points. Only give a parent
  when the conversations show that the chatbot FORCES a previous step (it asks which subtopic before it can
  answer, or needs an identifier first). Asking two questions one after the other is not a dependency.
- category: a short theme (e.g. "Opening hours & location", "Prices", "Services", "Chatbot meta"). Use few
  categories and reuse them; {categories}
Use the names exactly as listed and include every functionality once.""",
)

GROUP_PROFILES = Prompt(
    "group_profiles",
    "Group the model's functionalities into a few realistic users, each of which becomes one test profile.",
    """A {chatbot_type} chatbot has these functionalities (workflow order shown by "after"):

{functionalities}

Conversation extract:
{snippets}

Propose at most {max_profiles} realistic users of this chatbot. Each user has one purpose ({strategy}) and
exercises several functionalities. Together they must cover every functionality; a functionality that leads
to several paths may appear in more than one user. No testers, no personas that only chat about the bot.""",
)

PROFILE_CONTENT = Prompt(
    "profile_content",
    "Write one test profile's goals, variables, context and expected outputs for a grouped user.",
    """Write a test scenario for a simulated user of a chatbot.

User: {name}. {role}
Functionalities this user must exercise:
{functionalities}

Data sources observed in the chatbot (values it offered or listed):
{sources}

Write:
- goals: 2 to 5 things the user wants, in order, in the user's words. Put every value that can vary in a
  {{{{placeholder}}}} (e.g. "order a {{{{pizza_size}}}} {{{{pizza_type}}}} pizza"). When the chatbot lists
  choices first, a goal can ask for the list and a later goal pick {{{{chosen_x}}}} from it.
- variables: one per placeholder. If a data source fits, give its id as source and one out_of_range value the
  chatbot probably does not accept (e.g. "extra large" for sizes). Only match a source that really holds
  values of this variable; otherwise leave source null and give values: 3 to 6 realistic text values, ISO
  dates (YYYY-MM-DD) for dates, or minimum and maximum for numbers.
- context: 2 or 3 short sentences of background that motivate the goals without fixing the variable values.
- outputs: granular facts the chatbot should state so a tester can verify the goals were met (a total
  price, an order id, a booking date), each with a type and a three-to-eight-word description.
Write goals and context in {language}.""",
)

REPAIR_PROFILE = Prompt(
    "repair_profile",
    "Fix a generated test profile that the SENSEI validator rejected, given the validator's errors.",
    """This SENSEI user profile does not validate.

Errors:
{errors}

Profile:
```yaml
{yaml}
```

Return the whole profile with the errors fixed and everything else unchanged. Every {{{{placeholder}}}} in a
goal needs a variable entry in the goals list (name: {{function: forward(), type: string, data: [...]}}).""",
)

ALL: tuple[Prompt, ...] = (
    PROBE,
    EXPLORER_SYSTEM,
    GENERAL_FOCUS,
    BRANCH_FOCUS,
    KNOWN_FUNCTIONALITIES,
    OPENER_NUDGE,
    REPHRASE_NUDGE,
    TOPIC_NUDGE,
    ERROR_NUDGE,
    TURN_REMINDER,
    FALLBACK_CHECK,
    REWRITE_TURN,
    EXTRACT,
    KNOWN_IN_EXTRACTION,
    CONSOLIDATE,
    CLASSIFY,
    WORKFLOW_TRANSACTIONAL,
    WORKFLOW_INFORMATIONAL,
    GROUP_PROFILES,
    PROFILE_CONTENT,
    REPAIR_PROFILE,
)

PROBE_GREETING = "Hello"
"""The first probe: the reply shows the chatbot's language."""

PROBE_NONSENSE: tuple[str, ...] = (
    "Purple elevators hum when the Tuesday cheese forgets to whistle?",
    "Qwpoeiru zmxncb lkjhgf??",
    "Please translate the full text of every traffic law ever written into whale song.",
)
"""Off-topic or meaningless probes: what the chatbot answers to all of them is its fallback."""
