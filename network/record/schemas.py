"""The JSON Schemas of the record: one file per kind and version (D-34, Foundation ruling 10).

Every record file names its schema in a ``schema`` field (``meta/v1``); the schema lives at
``schemas/<kind>/v<N>.json`` (draft 2020-12). The files for record kinds are generated once
from the pydantic models of :mod:`network.record.models` and then frozen: D-34 says a schema
bump is a new version, never an edit, so :func:`check` reports every committed file that no
longer equals what its model generates, and :func:`write` refuses to change a published
file. The product schemas (``frontier/v1``, ``frontier/v2``, ``graph/v1``, ``index/v1``, ``info/v1``,
``errors/v1``) are written by hand in :data:`PRODUCT_SCHEMAS`, because products are derived
by code rather than parsed into a model.

``lemmata products`` calls :func:`copy_into` so a graph carries the schemas it was cut
against (``graph/schemas/``, what ``get_schema`` serves and what snapshots carry).
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator

from network.errors import LemmataError, define
from network.record import models as m
from network.record.read.source import Source

define("schemas-differ", None, 409,
       "A committed JSON Schema differs from what its model generates, or is missing.",
       "Never edit a published schema: add a new version of the model (kind/vN+1) and run "
       "`lemmata schemas --write`.")
define("schema-published", None, 409,
       "Writing would change a schema file that is already published.",
       "Published schemas are never edited (D-34): give the changed model a new version.")

DRAFT = "https://json-schema.org/draft/2020-12/schema"
ID_PREFIX = "urn:lemmata:schema:"
SCHEMAS_DIR = Path(__file__).resolve().parents[2] / "schemas"
"""The canonical set: top-level ``schemas/`` of this repository (ruling 10)."""


def schema_path(kind: str) -> str:
    """The path of a schema relative to the schemas folder: ``meta/v1`` → ``meta/v1.json``.

    Raises:
        LemmataError: ``unknown-schema`` when ``kind`` is not ``<name>/v<N>``.
    """
    name, _, version = kind.partition("/")
    if not name or not version.startswith("v") or not version[1:].isdigit() or "." in name:
        raise LemmataError("unknown-schema", f"{kind!r} is not <kind>/v<N>")
    return f"{name}/{version}.json"


def schema_id(kind: str) -> str:
    """The ``$id`` of a schema: ``urn:lemmata:schema:meta/v1``."""
    return ID_PREFIX + kind


# --- generated from the models ---------------------------------------------------------


def _strip_descriptions(node: Any, in_properties: bool = False) -> Any:
    """Drop ``description`` keywords (the models' docstrings) so prose edits never look like
    schema changes; property *names* called ``description`` are kept."""
    if isinstance(node, dict):
        out: dict[str, Any] = {}
        for key, value in node.items():
            if key == "description" and not in_properties and isinstance(value, str):
                continue
            out[key] = _strip_descriptions(value, in_properties=key in {"properties", "$defs"})
        return out
    if isinstance(node, list):
        return [_strip_descriptions(v) for v in node]
    return node


def model_schema(model: type[m.Record]) -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of one record model, as a dict.

    The ``schema`` field is made required: every record file must name its kind (D-34),
    even though the pydantic model can default it. Docstrings are not copied.
    """
    kind = model.SCHEMA_KIND
    body = _strip_descriptions(model.model_json_schema(by_alias=True, mode="validation"))
    required = list(body.get("required", []))
    if "schema" not in required:
        required.insert(0, "schema")
    body["required"] = required
    head: dict[str, Any] = {"$schema": DRAFT, "$id": schema_id(kind), "title": kind}
    body.pop("title", None)
    return {**head, **body}


# --- written by hand: the products -----------------------------------------------------
# Products are regenerated on every merge and are still moving (H1's products.py), so these
# schemas pin the core keys and the `schema` constant and allow further keys.

_SHA256 = {"type": "string", "pattern": "^[0-9a-f]{64}$"}
_NODE_ID = {"type": "string", "maxLength": 200}
_TARGET_ID = {"type": "string", "pattern": "^[a-z0-9]+(-[a-z0-9]+)*$", "maxLength": 64}
_NULLABLE_DATE = {
    "type": ["string", "null"],
    "pattern": r"^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}:\d{2}Z)?$",
}
_STATUS = {"enum": ["open", "blocked", "proved", "refuted", "defective", "superseded"]}
"""A node's one proof status (Foundation ruling 1)."""


def _product(kind: str, title: str, required: list[str], properties: dict[str, Any],
             defs: dict[str, Any] | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {
        "$schema": DRAFT,
        "$id": schema_id(kind),
        "title": kind,
        "description": title,
        "type": "object",
        "required": ["schema", *required],
        "properties": {"schema": {"const": kind}, **properties},
        "additionalProperties": True,
    }
    if defs:
        body["$defs"] = defs
    return body


PRODUCT_SCHEMAS: dict[str, dict[str, Any]] = {
    "errors/v1": {
        "$schema": DRAFT,
        "$id": schema_id("errors/v1"),
        "title": "errors/v1",
        "description": "errors.json: the error-code catalog (product).",
        "type": "object",
        "required": ["schema", "errors"],
        "properties": {
            "schema": {"const": "errors/v1"},
            "errors": {
                "type": "array",
                "items": {
                    "type": "object",
                    "required": ["code", "step", "http_status", "meaning", "action"],
                    "properties": {
                        "code": {"type": "string", "pattern": "^[a-z0-9]+(-[a-z0-9]+)*$"},
                        "step": {"type": ["integer", "null"], "minimum": 0, "maximum": 9},
                        "http_status": {"type": "integer", "minimum": 100, "maximum": 599},
                        "meaning": {"type": "string", "minLength": 1},
                        "action": {"type": "string", "minLength": 1},
                    },
                    "additionalProperties": False,
                },
            },
        },
        "additionalProperties": False,
    },
    "frontier/v1": _product(
        "frontier/v1",
        "frontier.json: every claimable node with its D-25 observed facts (product).",
        ["graph_id", "as_of", "nodes"],
        {
            "graph_id": _TARGET_ID,
            "as_of": _NULLABLE_DATE,
            "nodes": {
                "type": "array",
                "items": {
                    "type": "object",
                    "required": ["target", "node"],
                    "properties": {"target": _TARGET_ID, "node": _NODE_ID,
                                   "status": _STATUS},
                    "additionalProperties": True,
                },
            },
        },
    ),
    "frontier/v2": {
        "$schema": DRAFT,
        "$id": schema_id("frontier/v2"),
        "title": "frontier/v2",
        "description": "frontier.json: every frontier entry with every D-25 observed fact "
                       "and its amendments' fields required (product; issue 18, D-34).",
        "type": "object",
        "required": ["schema", "graph_id", "as_of", "nodes"],
        "properties": {
            "schema": {"const": "frontier/v2"},
            "graph_id": _TARGET_ID,
            "as_of": _NULLABLE_DATE,
            "live_claims_as_of": _NULLABLE_DATE,
            "nodes": {"type": "array", "items": {"$ref": "#/$defs/entry"}},
        },
        "additionalProperties": False,
        "$defs": {
            "claim": {
                "type": "object",
                "required": ["pseudonym", "claimed_at", "expires_at"],
                "properties": {
                    "pseudonym": {"type": "string", "maxLength": 64},
                    "claimed_at": _NULLABLE_DATE, "expires_at": _NULLABLE_DATE,
                    "ended_at": _NULLABLE_DATE,
                    "ended": {"enum": ["live", "released", "expired"]},
                },
                "additionalProperties": False,
            },
            "entry": {
                "type": "object",
                "required": [
                    # D-25: target and relation label; dependency and library tags; origin;
                    # attempt count; refuted route_classes and the failure_class histogram
                    # (D-13); age since entering ready; claim status and claim history;
                    # annex presence (D-31); bounty flag; literature status (v3.35)
                    "target", "node", "status", "relation", "deps", "library_tags",
                    "origin", "attempts", "refuted_route_classes", "failure_classes",
                    "ready_since", "claim_status", "claim_history", "annex", "bounty",
                    "literature",
                    # amendments: claimable (D-25 v3.15), shelved (v3.47), dormant (D-33),
                    # speculative (D-14), closable (v3.42), question (v3.17), label, claim
                    # and label_source (v3.44)
                    "claimable", "claimable_reason", "shelved", "dormant", "speculative",
                    "closable", "question", "label", "claim", "label_source",
                ],
                "properties": {
                    "target": _TARGET_ID,
                    "node": _NODE_ID,
                    "status": _STATUS,
                    "relation": {"enum": ["resolves", "partial", "related", "refutes", None]},
                    "deps": {"type": "array", "items": _NODE_ID},
                    "library_tags": {"type": "array", "items": {"type": "string"}},
                    "origin": {"enum": ["authored", "compiler-derived", "variant",
                                        "skeleton-hole"]},
                    "attempts": {"type": "integer", "minimum": 0},
                    "refuted_route_classes": {"type": "array", "items": {"type": "string"}},
                    "failure_classes": {"type": "object",
                                        "additionalProperties": {"type": "integer",
                                                                 "minimum": 0}},
                    "ready_since": _NULLABLE_DATE,
                    "claim_status": {"enum": ["claimed", "unclaimed", None]},
                    "claim_history": {"type": "array", "items": {"$ref": "#/$defs/claim"}},
                    "annex": {"type": "boolean"},
                    "bounty": {"type": "boolean"},
                    "literature": {"type": ["object", "null"]},
                    "claimable": {"type": "boolean"},
                    "claimable_reason": {"type": ["string", "null"]},
                    "shelved": {"type": "boolean"},
                    "dormant": {"type": "boolean"},
                    "speculative": {"type": "boolean"},
                    "closable": {"type": "boolean"},
                    "question": {"type": "boolean"},
                    "label": {"type": ["string", "null"]},
                    "claim": {"type": ["string", "null"]},
                    "label_source": {"enum": ["gloss", "hole", "target", "id", None]},
                    # the service's overlay (D-35, ruling 13): never in the committed file
                    "live_claims": {"type": "array", "items": {"$ref": "#/$defs/claim"}},
                    "claim_holders": {"type": "integer", "minimum": 0},
                    "claim_history_total": {"type": "integer", "minimum": 0},
                    "claimed_since": _NULLABLE_DATE,
                },
                "additionalProperties": False,
            },
        },
    },
    "graph/v1": _product(
        "graph/v1",
        "targets/<id>/graph.json: a target's nodes, edges, routes, closures and labels "
        "(product).",
        ["target", "as_of", "nodes", "edges"],
        {
            "target": _TARGET_ID,
            "as_of": _NULLABLE_DATE,
            "nodes": {
                "type": "array",
                "items": {
                    "type": "object",
                    "required": ["id", "status"],
                    "properties": {"id": _NODE_ID, "statement_hash": _SHA256,
                                   "status": _STATUS},
                    "additionalProperties": True,
                },
            },
            "edges": {"type": "array", "items": {"type": "object"}},
            "routes": {"type": "array"},
            "closures": {"type": "array"},
        },
    ),
    "index/v1": _product(
        "index/v1",
        "targets/index.json: every target with its status and fidelity grade (product).",
        ["as_of", "targets"],
        {
            "as_of": _NULLABLE_DATE,
            "targets": {
                "type": "array",
                "items": {
                    "type": "object",
                    "required": ["id"],
                    "properties": {"id": _TARGET_ID},
                    "additionalProperties": True,
                },
            },
        },
    ),
    "info/v1": _product(
        "info/v1",
        "info.json: protocol version, gate-spec hashes, schema index (product).",
        ["graph_id", "as_of", "schemas"],
        {
            "graph_id": _TARGET_ID,
            "as_of": _NULLABLE_DATE,
            "schemas": {"type": "array", "items": {"type": "string",
                                                   "pattern": "^[a-z0-9-]+/v[1-9][0-9]*$"}},
            "gate_specs": {"type": "object", "additionalProperties": _SHA256},
        },
    ),
}


# --- the set, checking, writing --------------------------------------------------------


def all_kinds() -> list[str]:
    """Every schema kind this code generates: record kinds then product kinds, sorted."""
    return sorted({k.SCHEMA_KIND for k in m.ALL_KINDS} | set(PRODUCT_SCHEMAS))


def schema_for(kind: str) -> dict[str, Any]:
    """The current schema dict of one kind, generated (records) or hand-written (products).

    Raises:
        LemmataError: ``unknown-schema``.
    """
    if kind in m.KIND_BY_SCHEMA:
        return model_schema(m.KIND_BY_SCHEMA[kind])
    if kind in PRODUCT_SCHEMAS:
        return PRODUCT_SCHEMAS[kind]
    raise LemmataError("unknown-schema", f"no schema {kind!r}")


def render(schema: dict[str, Any]) -> bytes:
    """The committed bytes of a schema: 2-space indented UTF-8 JSON ending in a newline."""
    return (json.dumps(schema, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def generate() -> dict[str, bytes]:
    """Every schema file this code defines, as ``<kind>/v<N>.json`` → exact bytes.

    Each is a valid draft 2020-12 schema with ``$schema`` and ``$id`` (D-34, ruling 10).
    """
    return {schema_path(kind): render(schema_for(kind)) for kind in all_kinds()}


def check(root: str | Path = SCHEMAS_DIR) -> list[str]:
    """Which committed schemas differ from what the code generates.

    Compares parsed JSON, so key order is not a difference. Files under ``root`` that the
    code no longer generates (older versions) are kept and not reported: versions are
    added, never removed (D-34).

    Args:
        root: the schemas folder.

    Returns:
        One line per problem, ``<path>: missing`` or ``<path>: differs from its model``,
        sorted; empty when all match.
    """
    base = Path(root)
    out: list[str] = []
    for rel, data in generate().items():
        path = base / rel
        if not path.is_file():
            out.append(f"{rel}: missing")
            continue
        try:
            committed = json.loads(path.read_bytes())
        except (json.JSONDecodeError, UnicodeDecodeError):
            out.append(f"{rel}: not valid JSON")
            continue
        if committed != json.loads(data):
            out.append(f"{rel}: differs from its model (a change needs a new version)")
    return sorted(out)


def write(root: str | Path = SCHEMAS_DIR, *, force: bool = False) -> list[str]:
    """Write every missing schema file under ``root``; returns the paths written.

    Raises:
        LemmataError: ``schema-published`` when a file exists with different content and
            ``force`` is false (D-34: published schemas are never edited; ``force`` is for
            the time before first publication only).
    """
    base = Path(root)
    changed = [line.split(":", 1)[0] for line in check(base) if not line.endswith("missing")]
    if changed and not force:
        raise LemmataError("schema-published",
                           f"{len(changed)} schema(s) would change: {', '.join(changed)}")
    written: list[str] = []
    for rel, data in generate().items():
        path = base / rel
        if path.is_file() and path.read_bytes() == data:
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        written.append(rel)
    return written


def load(kind: str, root: str | Path = SCHEMAS_DIR) -> dict[str, Any]:
    """The committed schema of ``kind`` read from ``root``.

    Raises:
        LemmataError: ``unknown-schema`` when no such file exists.
    """
    path = Path(root) / schema_path(kind)
    if not path.is_file():
        raise LemmataError("unknown-schema", f"no schema file {schema_path(kind)}")
    result: dict[str, Any] = json.loads(path.read_bytes())
    return result


def committed_kinds(root: str | Path = SCHEMAS_DIR) -> list[str]:
    """Every ``kind/vN`` with a file under ``root``, sorted."""
    base = Path(root)
    return sorted(
        f"{p.parent.name}/{p.stem}" for p in base.glob("*/v*.json") if p.stem[1:].isdigit()
    )


def validators(root: str | Path = SCHEMAS_DIR) -> dict[str, Draft202012Validator]:
    """A draft 2020-12 validator for every committed schema, keyed by ``kind/vN``."""
    return {kind: Draft202012Validator(load(kind, root)) for kind in committed_kinds(root)}


def copy_into(graph_root: str | Path, root: str | Path = SCHEMAS_DIR) -> list[str]:
    """Copy the canonical schemas into ``<graph_root>/schemas/`` (ruling 10).

    Files are copied byte for byte; stale files there that are not in ``root`` are removed,
    so the graph's copy equals the canonical set exactly.

    Returns:
        The graph-relative paths of every schema file now in the graph, sorted.
    """
    src = Path(root)
    dest = Path(graph_root) / "schemas"
    wanted = {f"{k}.json" for k in committed_kinds(src)}
    if dest.is_dir():
        for p in sorted(dest.rglob("*")):
            rel = p.relative_to(dest).as_posix()
            if p.is_file() and rel not in wanted:
                p.unlink()
    for rel in sorted(wanted):
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        data = (src / rel).read_bytes()
        if not target.is_file() or target.read_bytes() != data:
            shutil.copyfile(src / rel, target)
    for d in sorted((p for p in dest.rglob("*") if p.is_dir()), reverse=True):
        if not any(d.iterdir()):
            d.rmdir()
    return sorted(f"schemas/{rel}" for rel in wanted)


def check_copy(source: Source, root: str | Path = SCHEMAS_DIR) -> list[str]:
    """The graph-relative paths under ``schemas/`` where a graph's copy differs from the
    canonical set (ruling 10): missing, different bytes, or extra. For ``lemmata products
    --check``; works at a commit as well as on a work tree.

    Args:
        source: the graph snapshot (:class:`~network.record.read.source.Source`).
        root: the canonical schemas folder.
    """
    have = {p: n for p, n in source.files([]).items() if p.startswith("schemas/")}
    src = Path(root)
    want = {f"schemas/{k}.json": src / f"{k}.json" for k in committed_kinds(src)}
    out = [p for p in have if p not in want]
    for rel, path in want.items():
        if rel not in have or source.read(rel) != path.read_bytes():
            out.append(rel)
    return sorted(out)


def check_schemas_valid(schemas: Iterable[dict[str, Any]]) -> None:
    """Check each schema against the draft 2020-12 metaschema.

    Raises:
        jsonschema.exceptions.SchemaError: the first invalid schema (a programming error).
    """
    for s in schemas:
        Draft202012Validator.check_schema(s)
