"""A shrunk failure as evidence a chatbot developer acts on: a Markdown bug report and a JUnit case.

The Markdown gives the steps to reproduce (the minimal script and the chatbot's replies in a replay that failed),
the failing reply highlighted with the check it fails, the reproduction rate, the pinned profile and what
shrinking removed. Chatbot and user text is untrusted: `<`, `>` and `&` are escaped so a reply cannot inject
HTML into whatever renders the report, and code blocks are fenced with more backticks than the text holds.

`hide` blanks what a reader may not see (the chatbot's address on a public project): the caller decides
(`runs.shrink` on the platform); it runs over the whole text, so no field can slip past it.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Callable

from engine.regression.shrink.result import ShrinkResult

Hide = Callable[[str], str]


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _quoted(text: str) -> str:
    return "\n".join(
        f"   > {_escape(line)}" if line.strip() else "   >" for line in text.splitlines() or [""]
    )


def _fence(text: str, language: str = "") -> str:
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    ticks = "`" * max(3, longest + 1)
    return f"{ticks}{language}\n{text.rstrip()}\n{ticks}"


def _title(result: ShrinkResult) -> str:
    return f"{result.profile} #{result.conversation_index}: {result.failure.reason}"


def to_markdown(result: ShrinkResult, *, hide: Hide | None = None) -> str:
    """The bug report (see the module docstring)."""
    r, failure = result, result.failure
    lines = [f"# Bug report: {_escape(_title(r))}", ""]
    if r.reproduced:
        lines.append(
            f"**Reproduced in {r.reproduction.text()}** ({r.reproduction.needed} needed) with "
            f"**{r.shrunk_turns} user turn(s)**; the original conversation had {r.original_turns} "
            f"({len(r.original_script)} up to the failure)."
        )
    else:
        lines.append(
            f"**Not reproduced**: the original failed in {r.original.text()} ({r.original.needed} needed); "
            "nothing was pinned."
        )
    lines += ["", f"- Failure: {_escape(failure.explanation)}", f"- Check: {_escape(failure.label())}"]
    lines += [
        f"- Derived by: {'the LLM (validated on the recorded reply)' if failure.source == 'llm' else 'code'}"
    ]
    lines += ["", "## Steps to reproduce", ""]
    last_user = max((i for i, t in enumerate(r.transcript) if t.role == "user"), default=-1)
    step = 0
    for i, turn in enumerate(r.transcript):
        if turn.role == "user":
            step += 1
            lines.append(f"{step}. **User:** {_escape(turn.text)}")
        elif turn.role == "error":
            lines += ["   **⚠ The chatbot failed here:**", _quoted(turn.text)]
        elif i == last_user + 1 and failure.kind == "reply":
            lines += [f"   **⚠ Failing reply** (fails `{_escape(failure.label())}`):", _quoted(turn.text)]
        else:
            lines += ["   Chatbot:", _quoted(turn.text)]
    if r.pinned_profile:
        lines += ["", "## Pinned test (no LLM: `parley sensei run`)", "", _fence(r.pinned_profile, "yaml")]
    diff = "\n".join(f"{ {'kept': ' ', 'removed': '-', 'added': '+'}[d.op] } {d.text}" for d in r.diff)
    lines += ["", "## Shrunk from the original user turns", "", _fence(diff or "(none)", "diff")]
    lines += [
        "",
        (
            f"Shrinking cost {r.chatbot_calls} chatbot call(s) and {r.llm_calls} LLM call(s) over {r.candidates} "
            f"candidate script(s){' (stopped at the cap)' if r.capped else ''}. Conversation {_escape(r.record_id)}."
        ),
        "",
    ]
    text = "\n".join(lines)
    return hide(text) if hide else text


def to_junit(result: ShrinkResult, *, hide: Hide | None = None) -> str:
    """One JUnit test case: failed when the failure reproduces (the bug is there), skipped when it did not."""
    show = hide or (lambda text: text)
    suite = ET.Element("testsuite", name="parley-shrink", tests="1", failures="0", skipped="0")
    case = ET.SubElement(suite, "testcase", classname=f"shrink.{result.profile}", name=result.name)
    properties = ET.SubElement(case, "properties")
    for name, value in (
        ("reproduced", str(result.reproduction.failed)),
        ("replays", str(result.reproduction.replays)),
        ("reproduction_rate", f"{result.reproduction.rate:.4f}"),
        ("original_turns", str(result.original_turns)),
        ("shrunk_turns", str(result.shrunk_turns)),
        ("chatbot_calls", str(result.chatbot_calls)),
        ("llm_calls", str(result.llm_calls)),
    ):
        ET.SubElement(properties, "property", name=name, value=value)
    steps = "\n".join(f"{i}. {m}" for i, m in enumerate(result.script, start=1))
    if result.reproduced:
        message = (
            f"{result.failure.reason}: {result.failure.label()} — reproduced in {result.reproduction.text()}"
        )
        suite.set("failures", "1")
        ET.SubElement(case, "failure", message=show(message)).text = show(
            f"{result.failure.explanation}\n{steps}"
        )
    else:
        suite.set("skipped", "1")
        ET.SubElement(case, "skipped", message=show(f"not reproduced: {result.original.text()}"))
    ET.SubElement(case, "system-out").text = show(to_markdown(result))
    return ET.tostring(suite, encoding="unicode", xml_declaration=True) + "\n"
