"""Production conversations imported from a chatbot's logs, masked, in one canonical shape (issue 38, README D35).

`import_transcripts(FILE, OUT)` reads JSON lines, CSV, Rasa tracker exports or Botium convo files in bounded
memory, masks personal data (`engine.personal_data`) conversation by conversation before anything is written, and
writes `OUT/conversations.jsonl` and `OUT/summary.json`. Problems are per line and never stop the import.
"""

from engine.transcripts.importer import (
    CONVERSATIONS_FILE,
    MAX_CONVERSATIONS,
    SUMMARY_FILE,
    detect_format,
    import_transcripts,
    read_imported,
)
from engine.transcripts.model import FORMATS, Conversation, Problem, Summary, Turn
from engine.transcripts.records import TranscriptError

__all__ = [
    "CONVERSATIONS_FILE",
    "FORMATS",
    "MAX_CONVERSATIONS",
    "SUMMARY_FILE",
    "Conversation",
    "Problem",
    "Summary",
    "TranscriptError",
    "Turn",
    "detect_format",
    "import_transcripts",
    "read_imported",
]
