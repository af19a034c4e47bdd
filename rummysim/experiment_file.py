"""Reading an experiment file: a regular file of at most a megabyte, read by a YAML loader that cannot be made to hurt.

The file is checked before a byte of it is read: a device (``/dev/zero``), a pipe or a
folder is refused, and so is a file over `MAX_FILE_BYTES`. Its YAML is read by a safe
loader (no Python objects) that also refuses:

- a key given twice in one mapping (the second would silently win);
- nesting deeper than `MAX_DEPTH` levels (Python's reader would overflow its stack);
- a number of more than `MAX_NUMBER_CHARS` characters (Python cannot even write one of
  4,300 digits, and some YAML numbers take time quadratic in their length);
- a document that, with every alias (``*name``) written out, would hold more than
  `MAX_FILE_BYTES` characters, or an alias inside the very value it names.

Aliases are allowed, not refused: a lineup or rules written once (``&four``) and named
again (``*four``) is ordinary YAML that a user may well write. What makes an alias
dangerous is only what it stands for: nine aliases of nine aliases, nine levels deep
("a billion laughs"), are a few hundred bytes that stand for a billion values, and
anything that walks them (a check, a message, a fingerprint) runs out of memory. So a
document is measured as if its aliases were written out, and held to the limit a file
written out in full is held to; the measuring itself visits every node once.
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path
from typing import Any

import yaml
from yaml.constructor import ConstructorError, SafeConstructor

from rummysim.errors import ConfigError
from rummysim.excerpt import excerpt, key_text
from rummysim.limits import MAX_DEPTH, MAX_FILE_BYTES, MAX_NUMBER_CHARS


def _a(kind: str) -> str:
    """Return the kind of file with its article: ``"an experiment file"``, ``"a nonces file"``."""
    return f"{'an' if kind[0] in 'aeiou' else 'a'} {kind}"


def _what(kind: str) -> str:
    """Say what a file of this kind must be: ``"an experiment file is a YAML file of at most ... bytes"``."""
    return f"{_a(kind)} is a YAML file of at most {MAX_FILE_BYTES:,} bytes"


Weight = tuple[int, int]
"""A node's size with every alias written out, and how many levels it nests below itself."""


class Refused(yaml.MarkedYAMLError):
    """The YAML is well formed, but breaks one of the loader's limits; `problem` says which, `key` under which key."""

    key: str | None = None


def _too_deep(mark: yaml.Mark) -> Refused:
    return Refused(problem=f"nested more than {MAX_DEPTH} levels deep, aliases followed", problem_mark=mark)


CORE = [
    ("tag:yaml.org,2002:bool", r"^(?:true|True|TRUE|false|False|FALSE)$", "tTfF"),
    ("tag:yaml.org,2002:int", r"^[-+]?[0-9]+$", "-+0123456789"),
    ("tag:yaml.org,2002:float", r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)"
                                r"|\.(?:nan|NaN|NAN))$", "-+0123456789."),
    ("tag:yaml.org,2002:null", r"^(?:~|null|Null|NULL|)$", ["~", "n", "N", ""]),
]  # fmt: skip
"""YAML 1.2's core schema (yaml.org/spec/1.2.2, 10.3): what a plain scalar may be read as besides a string.

PyYAML reads YAML 1.1, where ``1:30`` is the number 90 (base 60), ``017`` is 15 (octal), ``1_000`` a thousand
and ``yes``, ``on`` or ``n`` are booleans; under the core schema a count is a decimal integer and every one
of those is a string, which the key it is given to then refuses in one line (``games: expected a whole
number, got '1:30'``)."""


class ExperimentLoader(yaml.SafeLoader):
    """A safe YAML loader held to the limits of an experiment file (see the module's docstring), reading plain
    scalars by YAML 1.2's core schema (`CORE`)."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self.depth = 0

    def compose_node(self, parent: yaml.Node | None, index: Any) -> yaml.Node | None:
        self.depth += 1
        try:
            if self.depth > MAX_DEPTH:
                raise _too_deep(self.peek_event().start_mark)
            return super().compose_node(parent, index)
        finally:
            self.depth -= 1

    def get_single_node(self) -> yaml.Node | None:
        node = super().get_single_node()
        if node is not None:
            _Scale().weigh(node, 1)
        return node


ExperimentLoader.yaml_implicit_resolvers = {  # YAML 1.1's bool, int, float, null and timestamp left out
    k: [r for r in v if r[0] not in {tag for tag, _, _ in CORE} | {"tag:yaml.org,2002:timestamp"}]
    for k, v in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
for _tag, _pattern, _first in CORE:
    ExperimentLoader.add_implicit_resolver(_tag, re.compile(_pattern), list(_first))


def _decimal(loader: ExperimentLoader, node: yaml.ScalarNode) -> int:
    """Read a core-schema integer as decimal, leading zeros and all (``017`` is 17, never octal)."""
    return int(loader.construct_scalar(node), 10)


class _Scale:
    """Weighs a document's nodes as if every alias were written out, each node once (see the module's docstring)."""

    def __init__(self) -> None:
        self.known: dict[int, Weight] = {}
        self.within: set[int] = set()
        """The nodes being weighed: one met again inside itself is an alias to its own value."""
        self.key: str | None = None
        """The top-level key being weighed, for the error."""

    def weigh(self, node: yaml.Node, depth: int) -> Weight:
        """Return a node's size with every alias written out (a character a node, and its text) and its nesting."""
        weight, height = self.known.get(id(node), (0, -1))
        if height < 0:
            if id(node) in self.within:
                raise self.refuse("an alias (*name) inside the value it names", node)
            self.within.add(id(node))
            weight, height = self._children(node, depth)
            self.within.discard(id(node))
            self.known[id(node)] = weight, height
        if depth + height > MAX_DEPTH:
            raise self.refuse(f"nested more than {MAX_DEPTH} levels deep, aliases followed", node)
        return weight, height

    def _children(self, node: yaml.Node, depth: int) -> Weight:
        if isinstance(node, yaml.ScalarNode):
            return 1 + len(node.value), 0
        pairs = node.value if isinstance(node, yaml.MappingNode) else [(None, child) for child in node.value]
        weight, height = 1, 0
        for key, value in pairs:
            if depth == 1 and isinstance(key, yaml.ScalarNode):
                self.key = key.value
            for child in (key, value) if key is not None else (value,):
                if depth + 1 > MAX_DEPTH:
                    raise self.refuse(f"nested more than {MAX_DEPTH} levels deep, aliases followed", child)
                child_weight, child_height = self.weigh(child, depth + 1)
                weight, height = weight + child_weight, max(height, child_height + 1)
                if weight > MAX_FILE_BYTES:
                    raise self.refuse(
                        f"with its aliases (*name) written out, the file would hold over {MAX_FILE_BYTES:,} "
                        "characters, more than an experiment file may; repeat its values less",
                        node,
                    )
        return weight, height

    def refuse(self, problem: str, node: yaml.Node) -> Refused:
        """Return the error of a broken limit, placed at `node` and under the top-level key being weighed."""
        error = Refused(problem=problem, problem_mark=node.start_mark)
        error.key = self.key
        return error


def _unique_mapping(loader: ExperimentLoader, node: yaml.MappingNode) -> dict[Any, Any]:
    """Construct a mapping, refusing a key given twice (or a key that cannot be one, such as a list)."""
    seen: dict[Any, Any] = {}
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        try:
            twice = key in seen
        except TypeError:
            raise ConstructorError(None, None, f"a key cannot be {excerpt(key)}", key_node.start_mark) from None
        if twice:
            raise ConstructorError(None, None, f"key {excerpt(key)} is given twice", key_node.start_mark)
        seen[key] = loader.construct_object(value_node, deep=True)
    return seen


def _short_number(construct: Any) -> Any:
    def number(loader: ExperimentLoader, node: yaml.ScalarNode) -> Any:
        if len(node.value) > MAX_NUMBER_CHARS:
            raise Refused(
                problem=f"a number of {len(node.value):,} characters; a number in an experiment file has at most "
                f"{MAX_NUMBER_CHARS}",
                problem_mark=node.start_mark,
            )
        return construct(loader, node)

    return number


def _date(loader: ExperimentLoader, node: yaml.ScalarNode) -> Any:
    try:
        return SafeConstructor.construct_yaml_timestamp(loader, node)
    except ValueError as error:  # 2026-02-30 matches YAML's pattern of a date and is none
        raise ConstructorError(None, None, f"{excerpt(node.value)} is not a date ({error})", node.start_mark) from None


ExperimentLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _unique_mapping)
ExperimentLoader.add_constructor("tag:yaml.org,2002:int", _short_number(_decimal))
ExperimentLoader.add_constructor("tag:yaml.org,2002:float", _short_number(SafeConstructor.construct_yaml_float))
ExperimentLoader.add_constructor("tag:yaml.org,2002:timestamp", _date)


def _check_file(status: os.stat_result, where: str, kind: str) -> None:
    """Refuse what is not a regular file of at most `MAX_FILE_BYTES`."""
    if stat.S_ISDIR(status.st_mode):
        raise ConfigError(f"{where}: is a directory, not {_a(kind)}")
    if not stat.S_ISREG(status.st_mode):
        raise ConfigError(f"{where}: is not a regular file (a device, pipe or socket); {_what(kind)}")
    if status.st_size > MAX_FILE_BYTES:
        raise ConfigError(f"{where}: is {status.st_size:,} bytes; {_what(kind)}")


def read_experiment_file(path: str | Path, *, kind: str = "experiment file") -> Any:
    """Return the YAML data of an experiment file, or raise `ConfigError` naming the file (and the line) at fault.

    `kind` names the file in the errors: another file read with the same care (``"nonces file"``).
    """
    where = str(path)
    text = _read_text(Path(path), where, kind)
    try:
        return yaml.load(text, Loader=ExperimentLoader)  # a safe loader, held to limits
    except Refused as error:
        line = f":{error.problem_mark.line + 1}" if error.problem_mark is not None else ""
        key = f" {key_text(error.key)}:" if error.key is not None else ""
        raise ConfigError(f"{where}{line}:{key} {error.problem}", key=error.key) from None
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        line = f":{mark.line + 1}" if mark is not None else ""
        problem = getattr(error, "problem", None) or str(error).splitlines()[0]
        raise ConfigError(f"{where}{line}: YAML syntax error: {problem}") from None


def _read_text(path: Path, where: str, kind: str) -> str:
    """Return a file's text if it is a regular file of at most `MAX_FILE_BYTES` of UTF-8; nothing else is opened.

    The file is checked before it is opened (opening a device may do something) and again
    once open, without waiting (a pipe put in its place would block), then read no further
    than the limit.
    """
    try:
        _check_file(os.stat(path), where, kind)
        handle = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
        try:
            _check_file(os.fstat(handle), where, kind)
            with os.fdopen(handle, "rb", closefd=False) as file:
                data = file.read(MAX_FILE_BYTES + 1)  # a file may grow between the check and the read
        finally:
            os.close(handle)
    except (FileNotFoundError, NotADirectoryError):
        raise ConfigError(f"{where}: no such {kind}") from None
    except OSError as error:
        raise ConfigError(f"{where}: cannot be read ({error.strerror or type(error).__name__})") from None
    if len(data) > MAX_FILE_BYTES:
        raise ConfigError(f"{where}: is over {MAX_FILE_BYTES:,} bytes; {_what(kind)}")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ConfigError(f"{where}: cannot be read as UTF-8 text (byte {error.start:,} is not UTF-8)") from None
