"""Every prompt the bench sends, as named templates, each with one sentence saying what it is for.

Written for Parley, in the shape of `engine.tracer.prompts` (whose `Prompt` it reuses): `str.format` fields
only, literal braces doubled.
"""

from __future__ import annotations

from engine.tracer.prompts import Prompt

MATCH_FUNCTIONALITIES = Prompt(
    "match_functionalities",
    "Decide, as a careful human reviewer would, which ground-truth item each functionality TRACER found is.",
    """You are reviewing a model of a chatbot that a tool inferred by talking to it. You also have the chatbot's
real definition (its ground truth), split into items with ids. Decide for every inferred functionality which
single ground-truth item it describes.

Rules:
- A functionality describes an item when it is the same thing the chatbot does: the same task or step, the
  same question answered, the same input asked for. Names and wording may differ completely.
- Pick the most specific item that fits: an input rather than its module when the functionality is asking for
  that one input; a FAQ question rather than the FAQ module when it answers that question.
- If no item fits (the functionality describes something the chatbot does not do), answer null. Do not force a
  match.
- Two functionalities may describe the same item; answer that item for both (the reviewer counts duplicates).
- `inputs`: the ids of the ground-truth inputs (kind input) that the functionality's parameters ask for.
- `evidence`: one short sentence saying why, naming the words that decided it.

Ground-truth items of {bot}:
{items}

Inferred functionalities:
{functionalities}

Answer for every inferred functionality, by its exact name, in the order listed.""",
)

ALL = (MATCH_FUNCTIONALITIES,)
