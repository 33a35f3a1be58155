"""Parse one record file's bytes the way the loader does (network/record/read/loader.py).

JSON for ``*.json``, YAML (libyaml through :class:`RecordYamlLoader`) otherwise, then the
place's model: :func:`parse_record` for code that holds a file's bytes (the gate's step 2,
the post-merge job, the service, the importers), :func:`parse_document` for code that
rewrites a record field by field. Every name here is also importable from
:mod:`network.record.read.loader`.
"""

from __future__ import annotations

import json
import re
from typing import Any, ClassVar, TypeVar

import yaml
from pydantic import BaseModel, ValidationError

from network.errors import LemmataError, Problem
from network.record import models as m
from network.record.read import plain

R = TypeVar("R", bound=BaseModel)

try:  # the C loader is ~10x faster; PyYAML ships it on every platform we target
    _SafeLoader: Any = yaml.CSafeLoader
except AttributeError:  # pragma: no cover
    _SafeLoader = yaml.SafeLoader

_YAML_STR = "tag:yaml.org,2002:str"
_YAML_MAP = "tag:yaml.org,2002:map"
_YAML_SEQ = "tag:yaml.org,2002:seq"
_YAML_PLAIN_SCALARS = frozenset({
    _YAML_STR, "tag:yaml.org,2002:null", "tag:yaml.org,2002:bool", "tag:yaml.org,2002:int",
    "tag:yaml.org,2002:float", "tag:yaml.org,2002:timestamp"})
_RESOLVE_CACHE_MAX = 65536


SEXAGESIMAL_MAX_CHARS = 4300
"""The longest base-60 integer scalar a record may hold (characters)."""


class _FastPath(Exception):
    """The document leaves the plain subset; construct it the standard way."""


class RecordYamlLoader(_SafeLoader):  # type: ignore[misc]
    """PyYAML's safe loader (libyaml's parser) with a faster constructor for the plain
    subset records use, giving exactly the objects ``yaml.load(text, CSafeLoader)`` gives.

    Plain documents (mappings with scalar keys, sequences, and str/null/bool/int/float/
    timestamp scalars, no aliases, no merge keys, no other tags) are built directly,
    each scalar by the safe constructor's own function; any other document is built by the
    standard constructor, which also raises the standard errors. Implicit tag resolution
    is memoised (it depends only on the scalar's kind, text and style while no path
    resolvers are registered). ``tests/test_record_yaml.py`` holds the two equal.
    """

    _resolved: ClassVar[dict[tuple[Any, Any, Any], str]] = {}

    def resolve(self, kind: Any, value: Any, implicit: Any) -> str:
        if self.yaml_path_resolvers:
            return str(super().resolve(kind, value, implicit))
        key = (kind, value, implicit)
        tag = self._resolved.get(key)
        if tag is None:
            tag = str(super().resolve(kind, value, implicit))
            if len(self._resolved) < _RESOLVE_CACHE_MAX:
                self._resolved[key] = tag
        return tag

    def construct_yaml_int(self, node: Any) -> Any:
        """The safe constructor's integer, except a base-60 one (``1:20``) of more than
        :data:`SEXAGESIMAL_MAX_CHARS` characters, which raises ValueError (the record is
        then ``malformed-yaml``): building one takes time quadratic in its length, a
        minute for a 1 MB record, as Python refuses decimal integers past 4,300 digits."""
        value = node.value
        if isinstance(value, str) and ":" in value and len(value) > SEXAGESIMAL_MAX_CHARS:
            raise ValueError(f"a base-60 integer of {len(value)} characters")
        return super().construct_yaml_int(node)

    def construct_document(self, node: Any) -> Any:
        try:
            return self._plain(node, set())
        except _FastPath:
            return super().construct_document(node)

    def _plain(self, node: Any, seen: set[int]) -> Any:
        if id(node) in seen:
            raise _FastPath  # an alias: the standard constructor shares the object
        seen.add(id(node))
        tag = node.tag
        if isinstance(node, yaml.ScalarNode):
            if tag == _YAML_STR:
                return node.value
            if tag not in _YAML_PLAIN_SCALARS:
                raise _FastPath
            try:
                return self.yaml_constructors[tag](self, node)
            except Exception as exc:  # the standard path raises it again
                raise _FastPath from exc
        if isinstance(node, yaml.MappingNode) and tag == _YAML_MAP:
            out: dict[Any, Any] = {}
            for key_node, value_node in node.value:
                if not isinstance(key_node, yaml.ScalarNode):
                    raise _FastPath
                key = self._plain(key_node, seen)  # merge keys (<<) carry another tag
                out[key] = self._plain(value_node, seen)
            return out
        if isinstance(node, yaml.SequenceNode) and tag == _YAML_SEQ:
            return [self._plain(item, seen) for item in node.value]
        raise _FastPath


RecordYamlLoader.add_constructor(  # a copy of the safe loader's table, this entry replaced
    "tag:yaml.org,2002:int", RecordYamlLoader.construct_yaml_int)
_YamlLoader: Any = RecordYamlLoader

# The line-shaped subset most records are written in (what the post-merge job and the
# service dump): ``key: value`` lines, and one level of ``key:`` followed by lines
# indented two spaces, each value a plain scalar of a narrow alphabet or a single-quoted
# one without quotes, line breaks or characters libyaml refuses. :func:`_line_yaml` reads
# such a document without libyaml, resolving and building each scalar with the safe
# loader's own resolver and constructors; anything else goes to libyaml.
_LINE_KEY = r"[A-Za-z_][A-Za-z0-9_]{0,63}"
_LINE_PLAIN = r"[A-Za-z0-9_./](?:[A-Za-z0-9_./@+ -]|:(?=[^ ]))*(?<! )"
_LINE_QUOTED = "'[^'\x00-\x1f\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff\ud800-\udfff]*'"
_LINE_RE = re.compile(f"(  )?({_LINE_KEY}):(?: (?:({_LINE_PLAIN})|({_LINE_QUOTED})))?")
_LINE_SCALARS: dict[str, tuple[Any]] = {}
_LINE_LOADER: Any = None


def _line_scalar(text: str) -> tuple[Any] | None:
    """A plain scalar as the safe loader builds it, in a 1-tuple (None when building it
    raises: libyaml's path raises it again); memoised, as every value built is immutable."""
    global _LINE_LOADER
    got = _LINE_SCALARS.get(text)
    if got is not None:
        return got
    if _LINE_LOADER is None:
        _LINE_LOADER = RecordYamlLoader("")
    tag = _LINE_LOADER.resolve(yaml.ScalarNode, text, (True, False))
    if tag == _YAML_STR:
        got = (text,)
    else:
        try:
            got = (_LINE_LOADER.yaml_constructors[tag](_LINE_LOADER, yaml.ScalarNode(tag, text)),)
        except Exception:  # noqa: BLE001 - libyaml's path raises it again
            return None
    if len(_LINE_SCALARS) < _RESOLVE_CACHE_MAX:
        _LINE_SCALARS[text] = got
    return got


def _line_yaml(text: str) -> dict[Any, Any] | None:
    """``text`` read as ``yaml.load(text, CSafeLoader)`` reads it when it is in the
    line-shaped subset (above), else None. ``tests/test_record_yaml.py`` holds the two
    equal over generated documents."""
    if not text.endswith("\n") or "\r" in text:
        return None
    out: dict[Any, Any] = {}
    inner: dict[Any, Any] | None = None  # the mapping two-space lines go into
    open_key: tuple[Any] | None = None  # a ``key:`` line whose value is not known yet
    for line in text[:-1].split("\n"):
        mt = _LINE_RE.fullmatch(line)
        if mt is None:
            return None
        indent, key_text, plain, quoted = mt.groups()
        key = _line_scalar(key_text)
        if key is None or not isinstance(key[0], str):
            return None
        if plain is not None:
            value = _line_scalar(plain)
            if value is None:
                return None
        elif quoted is not None:
            value = (quoted[1:-1],)
        else:
            value = None
        if indent:
            if open_key is not None:
                inner = out[open_key[0]] = {}
                open_key = None
            if inner is None:
                return None
            if value is None:
                return None  # a nested ``key:`` opens a deeper level
            inner[key[0]] = value[0]
            continue
        if open_key is not None:
            out[open_key[0]] = None
        inner = None
        open_key = key if value is None else None
        if value is not None:
            out[key[0]] = value[0]
    if open_key is not None:
        out[open_key[0]] = None
    return out if out else None


def _parse_text(path: str, text: str) -> tuple[str, Any]:
    """A record's text parsed: JSON for ``*.json``, YAML otherwise (CSafeLoader's objects).
    Syntax errors, nesting too deep for the recursive parsers, and YAML whose aliases are
    not plain data (:func:`network.record.read.plain.shape_problem`) come back as
    ``(code, detail)``; anything else raises."""
    if "*" in text and not path.endswith(".json"):  # aliases: refuse expansion bombs
        shape = plain.shape_problem(path, text)
        if shape is not None:
            return shape.code, shape.detail
    try:
        if path.endswith(".json"):
            return "ok", json.loads(text)
        lined = _line_yaml(text)
        if lined is not None:
            return "ok", lined
        return "ok", yaml.load(text, Loader=_YamlLoader)
    except json.JSONDecodeError as exc:
        return "malformed-json", f"line {exc.lineno} column {exc.colno}: {exc.msg}"
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}: " if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc)
        return "malformed-yaml", f"{where}{problem}"
    except RecursionError:  # a hostile file nests thousands deep (issue 9)
        return ("malformed-json" if path.endswith(".json") else "malformed-yaml",
                "nested too deeply to read")
    except (ValueError, OverflowError) as exc:
        # a scalar the constructors cannot build: an impossible date (2026-13-45), an
        # integer past Python's digit limit — the file is unreadable, never a crash
        return ("malformed-json" if path.endswith(".json") else "malformed-yaml",
                f"a value cannot be read: {str(exc)[:200]}")


def _record_of(path: str, bad_utf8: tuple[int, str] | None, parsed: tuple[str, Any] | None,
               model: type[R], problems: list[Problem]) -> R | None:
    """The record a read file holds, or None after appending every problem found: not
    UTF-8, a syntax error, a top level that is not a mapping, another or an unknown
    ``schema``, or fields that do not validate against ``model``."""
    if bad_utf8 is not None:
        problems.append(Problem("not-utf8", f"byte {bad_utf8[0]}: {bad_utf8[1]}", path))
        return None
    assert parsed is not None
    if parsed[0] != "ok":
        problems.append(Problem(parsed[0], parsed[1], path))
        return None
    obj = parsed[1]
    if not isinstance(obj, dict):
        problems.append(Problem("invalid-record", "the top level is not a mapping", path))
        return None
    declared = obj.get("schema")
    other = next((k for k in m.SAME_PLACE.get(model.SCHEMA_KIND, ())  # type: ignore[attr-defined]
                  if k.SCHEMA_KIND == declared), None)
    if other is not None:  # another version this place reads (D-34, approach/v2)
        model = other  # type: ignore[assignment]
    if declared != model.SCHEMA_KIND:  # type: ignore[attr-defined]
        known = isinstance(declared, str) and declared in m.KIND_BY_SCHEMA
        code = "invalid-record" if known else "unknown-schema"
        problems.append(
            Problem(code, f"schema is {declared!r}; this place holds "
                    f"{model.SCHEMA_KIND}", path, "schema")  # type: ignore[attr-defined]
        )
        return None
    try:
        return model.model_validate(obj)
    except ValidationError as exc:
        for err in exc.errors():
            loc = ".".join(str(p) for p in err["loc"])
            problems.append(Problem("invalid-record", err["msg"], path, loc or None))
        return None


def parse_record(path: str, data: bytes, model: type[R]) -> tuple[R | None, list[Problem]]:
    """Parse one record file's exact bytes as the loader does: JSON for ``*.json``, YAML
    otherwise, checked against ``model`` (its ``schema`` field must be the model's kind).

    This is how code outside the loader (the gate's step 2, the post-merge job, the
    service, the importers) reads a graph file it holds as bytes: one reader (DESIGN.md).

    Args:
        path: the file's graph path (its suffix picks the parser; it names problems).
        data: the file's bytes.
        model: the record model the file's place holds (e.g. ``models.Postmortem``).

    Returns:
        ``(record, [])``, or ``(None, problems)`` with every problem found, each a
        :class:`~network.errors.Problem` with a catalog code (``not-utf8``,
        ``malformed-json``, ``malformed-yaml``, ``invalid-record``, ``unknown-schema``).
    """
    problems: list[Problem] = []
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        _record_of(path, (exc.start, exc.reason), None, model, problems)
        return None, problems
    return _record_of(path, None, _parse_text(path, text), model, problems), problems


def parse_document(path: str, data: bytes) -> dict[str, Any]:
    """Parse one graph file's exact bytes into its raw mapping, as the loader does (JSON
    for ``*.json``, YAML otherwise), for code that rewrites a record field by field (the
    post-merge job's META ``lemmas``) and must keep every other field as written.

    Raises:
        LemmataError: ``not-utf8``, ``malformed-json``, ``malformed-yaml``, or
            ``invalid-record`` when the top level is not a mapping.
    """
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise LemmataError("not-utf8", f"byte {exc.start}: {exc.reason}", path=path) from exc
    code, obj = _parse_text(path, text)
    if code != "ok":
        raise LemmataError(code, str(obj), path=path)
    if not isinstance(obj, dict):
        raise LemmataError("invalid-record", "the top level is not a mapping", path=path)
    return obj


#: the folders of a target (and of a node) holding records: folder → (model, the
#: Target/Node attribute listing them), as network/record/read/loader.py reads them
_TARGET_RECORD_DIRS: dict[str, tuple[type[BaseModel], str]] = {
    "approaches": (m.Approach, "approaches"),
    "status": (m.TargetStatusRecord, "status_records"),
    "registrations": (m.Registration, "registrations"),
    "withdrawals": (m.Withdrawal, "withdrawals"),
    "writeups": (m.Writeup, "writeups"),
    "steward-acts": (m.StewardAct, "steward_acts"),
}

#: D-32 v3.34: a target's panel records, under ``panel/<dir>/<ts>-<pseudonym>.yaml``
_PANEL_DIRS: dict[str, tuple[type[BaseModel], str]] = {
    "motions": (m.Motion, "motions"),
    "votes": (m.Vote, "votes"),
}

_NODE_RECORD_DIRS: dict[str, tuple[type[BaseModel], str]] = {
    "literature": (m.Literature, "literature"),
    "gloss": (m.Gloss, "glosses"),
    "explainer": (m.Explainer, "explainers"),
    "withdrawals": (m.Withdrawal, "withdrawals"),
    "proposed-for": (m.ProposedFor, "proposed_for"),
    "shelving": (m.Shelving, "shelvings"),
    "pertinence": (m.Pertinence, "pertinences"),
    "reviews": (m.ProofReview, "reviews"),
    "defects": (m.Defect, "defects"),
    "disputes": (m.Dispute, "disputes"),
    "revision-requests": (m.RevisionRequest, "revision_requests"),
    "approvals": (m.Approval, "approvals"),
}
