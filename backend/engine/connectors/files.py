"""Connector files: YAML with `technology: <name>` and that technology's parameters at the top level, and
optionally `volatile:`, a list of regular expressions for values the chatbot changes in every conversation
(`volatile.py`).

Loading reports every problem with its line and column (ruamel.yaml keeps positions), so a user editing the
file finds the spot at once. Export writes the same shape; secret parameters are left out unless asked for,
with a comment saying which ones were withheld.
"""

from __future__ import annotations

import io
from pathlib import Path

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap
from ruamel.yaml.error import MarkedYAMLError, YAMLError

from engine.connectors.errors import ConnectorConfigError
from engine.connectors.registry import ConnectorConfig, get_technology, validate_config
from engine.connectors.volatile import KEY as VOLATILE_KEY
from engine.yamldata import locator, plain
from engine.yamlguard import YAMLRefused, load_yaml

MAX_FILE_BYTES = 1_000_000


def parse_connector_yaml(text: str, *, source: str = "connector file") -> ConnectorConfig:
    """Parse and validate a connector file's text; `source` names it in messages."""
    try:
        document = load_yaml(text)
    except YAMLRefused as exc:
        where = f"line {exc.line}, column {exc.column}: " if exc.line else ""
        raise ConnectorConfigError(
            f"{source}: {where}{exc.user_message}", line=exc.line, column=exc.column
        ) from None
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark else ""
        problem = exc.problem or exc.context or "not valid YAML"
        raise ConnectorConfigError(
            f"{source}: {where}{problem}",
            line=mark.line + 1 if mark else None,
            column=mark.column + 1 if mark else None,
        ) from None
    except YAMLError as exc:
        raise ConnectorConfigError(f"{source}: not valid YAML ({exc})") from None
    if not isinstance(document, CommentedMap):
        raise ConnectorConfigError(
            f"{source}: expected a mapping with 'technology: <name>' at the top level."
        )
    locate = locator(document)
    try:
        config = ConnectorConfig.from_mapping(plain(document))
        get_technology(config.technology)
    except ConnectorConfigError as exc:
        field = exc.field if exc.field == VOLATILE_KEY else "technology"
        line, column = locate((field,)) or (None, None)
        raise ConnectorConfigError(
            f"{source}: line {line}, column {column}: {exc.user_message}",
            field=field,
            line=line,
            column=column,
        ) from None
    # Parameter positions are relative to the file's top level, where the parameters live.
    validate_config(config, locate=locate, source=source)
    return config


def load_connector_file(path: str | Path) -> ConnectorConfig:
    """Read, parse and validate a connector file; any problem is a `ConnectorConfigError` naming the file."""
    path = Path(path)
    try:
        if path.stat().st_size > MAX_FILE_BYTES:
            raise ConnectorConfigError(
                f"{path}: larger than {MAX_FILE_BYTES} bytes; is this a connector file?"
            )
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConnectorConfigError(f"{path}: cannot be read ({exc.strerror or exc}).") from None
    except UnicodeDecodeError:
        raise ConnectorConfigError(f"{path}: is not UTF-8 text.") from None
    return parse_connector_yaml(text, source=str(path))


def dump_connector_yaml(config: ConnectorConfig, *, include_secrets: bool = False) -> str:
    """The connector as file text. Secret parameters are omitted (and listed in a comment) unless requested."""
    secret = {p.name for p in get_technology(config.technology).parameters() if p.secret}
    withheld = sorted(name for name in config.params if name in secret and not include_secrets)
    data = CommentedMap(config.to_mapping())
    for name in withheld:
        del data[name]
    if withheld:
        data.yaml_set_start_comment(f"Secret parameters not exported: {', '.join(withheld)}")
    yaml = YAML(typ="rt")
    yaml.default_flow_style = False
    stream = io.StringIO()
    yaml.dump(data, stream)
    return stream.getvalue()
