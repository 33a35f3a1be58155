"""``lemmata validate``: every check the record admits, every problem reported at once.

:func:`validate_graph` runs three passes over one snapshot of a graph (work tree or commit)
and returns every :class:`~network.errors.Problem` found, never stopping at the first
(STYLE.md rule 4):

1. the loader (:func:`network.record.read.loader.load_graph`): layout, parsing, the pydantic
   models, ids against directories, statement hashes, hostile paths and sizes;
2. JSON Schema: every record file is validated with draft 2020-12 against
   ``schemas/<kind>/v<N>.json`` named by its own ``schema`` field (D-34), one problem per
   schema error with the file and the dotted field path; products that carry a ``schema``
   field are validated the same way;
3. cross-checks the loader does not make: references that must name an existing node or
   file (deps, lemmas, hole parent and route, supersedes, variant ``of``, attestation and
   merge artifacts, closure inputs, ledger artifacts, withdrawals, disputes, ...), and
   signatures: every record that carries a ``signature`` is verified against ``keys/``
   (Ed25519, ruling 9) or, for ``ssh``, against the signer's ``identities/`` entry;
   gate-written kinds (attestations, closures, merge records) must be signed by a gate key.

The schema pass and the cross-checks read the raw files themselves, so they still run when
the loader refuses the graph as a whole.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError as SchemaError
from jsonschema.exceptions import best_match
from pydantic import ValidationError

from network.errors import LemmataError, Problem, ValidationFailed
from network.record import schemas
from network.record.models import KIND_BY_SCHEMA, Identity, PublicKey, Signature
from network.record.read.loader import PRODUCT_PATHS_RE, load_graph, open_source
from network.record.read.source import DEFAULT_MAX_FILE_BYTES, Source
from network.signing import verify, verify_ssh

try:
    _YamlLoader: Any = yaml.CSafeLoader
except AttributeError:  # pragma: no cover
    _YamlLoader = yaml.SafeLoader

GATE_SIGNED_KINDS = frozenset({"attestation/v1", "attestation/v2", "closure/v1", "merge/v1"})
"""Kinds only the gate writes and signs (D-5, D-12 v3.42, ruling 2)."""

# Problems after which the schema pass cannot, or need not, read a file again.
_UNREADABLE = frozenset({
    "malformed-yaml", "malformed-json", "not-utf8", "file-too-large", "symlink-refused",
    "hostile-path", "unknown-file", "missing-file",
})


@dataclass
class RecordDoc:
    """One parsed record file: graph path, declared kind, the object, and whether it
    passed its JSON Schema."""

    path: str
    kind: str
    obj: dict[str, Any]
    valid: bool


def validate_graph(
    path: str | Path | Source,
    commit: str | None = None,
    *,
    schemas_root: str | Path = schemas.SCHEMAS_DIR,
    check_ssh: bool = True,
) -> list[Problem]:
    """Validate a whole graph; the list is empty when it is valid.

    Args:
        path: the graph root (or an opened :class:`Source`).
        commit: read this git revision instead of the work tree.
        schemas_root: the canonical schemas folder (ruling 10), not the graph's copy.
        check_ssh: verify ``ssh`` signatures with ``ssh-keygen`` (turn off where it is
            not installed; they are then reported as ``bad-signature``).

    Returns:
        Every problem, each with its catalog code, graph-relative file and dotted field,
        ordered by file.

    Raises:
        LemmataError: ``not-a-graph`` or ``git-error`` when nothing can be read at all.
    """
    source = path if not isinstance(path, (str, Path)) else open_source(path, commit)
    problems: list[Problem] = []
    try:
        load_graph(source)
    except ValidationFailed as exc:
        problems.extend(exc.problems)
    files = source.files([])
    skip = {p.path for p in problems
            if p.path is not None and (p.code in _UNREADABLE or p.field == "schema")}
    seen = {(p.path, p.field) for p in problems}
    docs = list(_read_records(source, files, skip))
    validators = schemas.validators(schemas_root)
    for doc in docs:
        for prob in _schema_problems(doc, validators):
            if (prob.path, prob.field) not in seen or prob.code != "invalid-record":
                problems.append(prob)
                seen.add((prob.path, prob.field))
    checks = _CrossChecker(files, [d for d in docs if d.valid], source, check_ssh)
    problems.extend(checks.run())
    return sorted(problems, key=lambda p: p.path or "")


def _read_records(source: Source, files: dict[str, int], skip: set[str]) -> Iterator[RecordDoc]:
    max_bytes = _max_file_bytes(source, files)
    for path, size in files.items():
        if path in skip or size > max_bytes or not path.endswith((".json", ".yaml")):
            continue
        if path.startswith(("schemas/", ".github/")):
            continue
        try:
            text = source.read(path).decode("utf-8")
            obj = json.loads(text) if path.endswith(".json") else yaml.load(text, _YamlLoader)
        except (UnicodeDecodeError, json.JSONDecodeError, yaml.YAMLError, LemmataError):
            continue  # the loader reports these with their own codes
        is_product = PRODUCT_PATHS_RE.fullmatch(path) is not None
        if not isinstance(obj, dict):
            continue
        kind = obj.get("schema")
        if is_product and not isinstance(kind, str):
            continue
        yield RecordDoc(path, kind if isinstance(kind, str) else "", obj, False)


def _max_file_bytes(source: Source, files: dict[str, int]) -> int:
    if files.get("policy.json", 0) <= DEFAULT_MAX_FILE_BYTES:
        try:
            policy = json.loads(source.read("policy.json"))
            value = policy.get("max_file_bytes") if isinstance(policy, dict) else None
            if isinstance(value, int) and value > 0:
                return value
        except (LemmataError, json.JSONDecodeError, UnicodeDecodeError):
            pass
    return DEFAULT_MAX_FILE_BYTES


def field_path(parts: Any) -> str | None:
    """A jsonschema error path as the dotted field the loader uses: ``hole.k``,
    ``artifacts.0.sha256``; None for the whole record."""
    text = ".".join(str(p) for p in parts)
    return text or None


def _schema_problems(
    doc: RecordDoc, validators: dict[str, Draft202012Validator]
) -> list[Problem]:
    if not doc.kind:
        return [Problem("unknown-schema", "the record has no schema field naming its kind",
                        doc.path, "schema")]
    validator = validators.get(doc.kind)
    if validator is None:
        return [Problem("unknown-schema", f"no published schema {doc.kind!r} under schemas/",
                        doc.path, "schema")]
    out: list[Problem] = []
    for err in sorted(validator.iter_errors(doc.obj), key=lambda e: list(e.absolute_path)):
        deepest = _most_telling(err)
        out.append(Problem("invalid-record", deepest.message[:500], doc.path,
                           field_path(deepest.absolute_path)))
    doc.valid = not out
    return out


def _most_telling(err: SchemaError) -> SchemaError:
    """The error a reader should see: for ``anyOf`` (e.g. an object or null) the error
    inside the branch whose type the value has, not "is not of type 'null'"."""
    if not err.context:
        return err
    inner = [e for e in err.context if not (e.validator == "type" and not e.relative_path)]
    best = best_match(inner or err.context)
    return _most_telling(best) if best is not None else err


# --- cross-checks ----------------------------------------------------------------------


class ReferenceIndex:
    """The files, nodes and targets one snapshot of a graph holds, and the per-kind
    reference rules run over one record against them (the one rule ``lemmata validate``
    and the gate's step 2 share).

    Args:
        files: every graph-relative path of the snapshot (a node exists when its
            ``targets/<t>/nodes/<n>/META.yaml`` is among them, a target when any path lies
            under ``targets/<t>/``).
    """

    def __init__(self, files: Iterable[str]) -> None:
        self.files: Collection[str] = files if isinstance(files, (dict, set, frozenset)) \
            else set(files)
        self.problems: list[Problem] = []
        self.nodes: set[tuple[str, str]] = set()
        self.targets: set[str] = set()
        for p in self.files:
            parts = p.split("/")
            if len(parts) >= 3 and parts[0] == "targets":
                self.targets.add(parts[1])
            if len(parts) == 5 and parts[0] == "targets" and parts[2] == "nodes" \
                    and parts[4] == "META.yaml":
                self.nodes.add((parts[1], parts[3]))

    def references(self, path: str, obj: dict[str, Any]) -> list[Problem]:
        """Every ``dangling-reference`` of the record ``obj`` stored at ``path``, judged by
        the rule for its ``schema`` kind (none for a kind that names nothing).

        Returns:
            Problems with code ``dangling-reference``, the record's path and the dotted
            field; empty when every reference resolves.
        """
        kind = obj.get("schema")
        check = _REFERENCE_CHECKS.get(kind) if isinstance(kind, str) else None
        if check is None:
            return []
        before = len(self.problems)
        check(self, RecordDoc(path, str(kind), obj, True))
        found = self.problems[before:]
        del self.problems[before:]
        return found

    # helpers used by the per-kind checks
    def target_of(self, doc: RecordDoc) -> str | None:
        """The target id of the folder ``doc`` lies in, or None outside ``targets/``."""
        parts = doc.path.split("/")
        return parts[1] if len(parts) >= 3 and parts[0] == "targets" else None

    def node(self, doc: RecordDoc, fld: str, target: str | None, node: Any) -> None:
        """Record a problem unless ``target/node`` exists (None names nothing)."""
        if node is None:
            return
        if target is None or (target, str(node)) not in self.nodes:
            where = f"{target}/{node}" if target else str(node)
            self.problems.append(Problem("dangling-reference", f"no node {where}", doc.path, fld))

    def target(self, doc: RecordDoc, fld: str, target: Any) -> None:
        """Record a problem unless ``target`` exists (None names nothing)."""
        if target is not None and str(target) not in self.targets:
            self.problems.append(Problem("dangling-reference", f"no target {target}", doc.path,
                                         fld))

    def file(self, doc: RecordDoc, fld: str, path: Any) -> None:
        """Record a problem unless the file ``path`` exists (None names nothing)."""
        if path is not None and str(path) not in self.files:
            self.problems.append(Problem("dangling-reference", f"no file {path} in the graph",
                                         doc.path, fld))


def signature_problem(path: str, kind: str, obj: dict[str, Any], *,
                      keys: dict[str, PublicKey], identities: dict[str, Identity],
                      at_date: str | None, check_ssh: bool = True) -> Problem | None:
    """Judge the ``signature`` a record carries, as ``lemmata validate`` does (ruling 9):
    Ed25519 kinds against ``keys``, ``ssh`` against the signer's ``identities`` entry, and
    gate-written kinds only with a gate key.

    Args:
        path: the record's graph path (reported).
        kind: its ``schema`` kind.
        obj: the record as parsed; its ``signature`` must not be None.
        keys, identities: the graph's ``keys/`` by key id and ``identities/`` by pseudonym.
        at_date: the date the key must be valid on (None skips that check).
        check_ssh: verify ``ssh`` signatures (else they are ``bad-signature``).

    Returns:
        A problem with code ``bad-signature``, ``unknown-key`` or ``key-expired``, or None
        when the signature verifies (or its envelope does not parse: the schema reports it).
    """
    try:
        sig = Signature.model_validate(obj["signature"])
    except ValidationError:
        return None
    if kind in GATE_SIGNED_KINDS and sig.kind != "gate":
        return Problem("bad-signature", f"{kind} records are signed by the gate key, not a "
                       f"{sig.kind} key", path, "signature.kind")
    body: Any = obj
    model = KIND_BY_SCHEMA.get(kind)
    if model is not None:
        try:
            body = model.model_validate(obj)  # signed as its model dumps it
        except ValidationError:
            return None  # the loader has reported it
    try:
        if sig.kind == "ssh":
            ident = identities.get(sig.signer)
            if ident is None:
                raise LemmataError("unknown-key",
                                   f"no identities/{sig.signer}.yaml lists SSH signers")
            if not check_ssh:
                raise LemmataError("bad-signature", "ssh signatures were not checked")
            verify_ssh(body, sig, ident.ssh_signers)
        else:
            verify(body, sig, keys, at_date)
    except LemmataError as exc:
        return Problem(exc.code, exc.detail, path, "signature")
    return None


def record_date(obj: dict[str, Any], merge_dates: dict[int, str] | None = None) -> str | None:
    """The date a record's signing key must be valid on: its ``date``, ``timestamp`` or
    ``since`` field, else the date of the merge its ``merge_seq`` names."""
    for key in ("date", "timestamp", "since"):
        value = obj.get(key)
        if isinstance(value, str):
            return value
    seq = obj.get("merge_seq")
    return (merge_dates or {}).get(seq) if isinstance(seq, int) else None


class _CrossChecker(ReferenceIndex):
    """References and signatures over the records that passed their schema."""

    def __init__(self, files: dict[str, int], docs: list[RecordDoc], source: Source,
                 check_ssh: bool) -> None:
        super().__init__(files)
        self.docs = docs
        self.source = source
        self.check_ssh = check_ssh
        self.keys: dict[str, PublicKey] = {}
        self.identities: dict[str, Identity] = {}
        self.merge_dates: dict[int, str] = {}
        for d in docs:
            try:
                if d.kind == "key/v1":
                    key = PublicKey.model_validate(d.obj)
                    self.keys[key.key_id] = key
                elif d.kind == "identity/v1":
                    ident = Identity.model_validate(d.obj)
                    self.identities[ident.pseudonym] = ident
            except ValidationError:
                continue  # the loader has reported it
            if d.kind == "merge/v1":
                self.merge_dates[int(d.obj["seq"])] = str(d.obj["date"])

    def run(self) -> list[Problem]:
        for doc in self.docs:
            check = _REFERENCE_CHECKS.get(doc.kind)
            if check is not None:
                check(self, doc)
            if doc.obj.get("signature") is not None:
                prob = signature_problem(doc.path, doc.kind, doc.obj, keys=self.keys,
                                         identities=self.identities,
                                         at_date=record_date(doc.obj, self.merge_dates),
                                         check_ssh=self.check_ssh)
                if prob is not None:
                    self.problems.append(prob)
        return self.problems


def _meta(c: ReferenceIndex, doc: RecordDoc) -> None:
    t = c.target_of(doc)
    o = doc.obj
    for i, dep in enumerate(o.get("deps", [])):
        c.node(doc, f"deps.{i}", t, dep)
    for i, lemma in enumerate(o.get("lemmas", [])):
        c.node(doc, f"lemmas.{i}", t, lemma)
    hole = o.get("hole") or {}
    c.node(doc, "hole.parent", t, hole.get("parent"))
    c.file(doc, "hole.route", hole.get("route"))
    c.node(doc, "supersedes", t, o.get("supersedes"))
    c.node(doc, "variant.of", t, (o.get("variant") or {}).get("of"))


def _target(c: ReferenceIndex, doc: RecordDoc) -> None:
    t = c.target_of(doc)
    for i, n in enumerate(doc.obj.get("bountied_nodes", [])):
        c.node(doc, f"bountied_nodes.{i}", t, n)
    intake = doc.obj.get("intake") or {}
    c.file(doc, "intake.witness", intake.get("witness"))
    c.file(doc, "fidelity.certificate", (doc.obj.get("fidelity") or {}).get("certificate"))


def _attestation(c: ReferenceIndex, doc: RecordDoc) -> None:
    o = doc.obj
    if o.get("verdict") != "pass":
        return  # a failed, held or bounced run's files were never merged
    c.target(doc, "target", o.get("target"))
    c.node(doc, "node", o.get("target"), o.get("node"))
    for i, art in enumerate(o.get("artifacts", [])):
        c.file(doc, f"artifacts.{i}.path", art.get("path"))
    c.file(doc, "step9.certificate", (o.get("step9") or {}).get("certificate"))


def _merge(c: ReferenceIndex, doc: RecordDoc) -> None:
    for i, art in enumerate(doc.obj.get("artifacts", [])):
        c.file(doc, f"artifacts.{i}", art)
    c.file(doc, "attestation", doc.obj.get("attestation"))


def _closure(c: ReferenceIndex, doc: RecordDoc) -> None:
    o = doc.obj
    c.node(doc, "node", o.get("target"), o.get("node"))
    c.file(doc, "route", o.get("route"))
    for i, inp in enumerate(o.get("inputs", [])):
        c.node(doc, f"inputs.{i}.node", o.get("target"), inp.get("node"))
        c.file(doc, f"inputs.{i}.proof", inp.get("proof"))


def _ledger_line(c: ReferenceIndex, doc: RecordDoc) -> None:
    o = doc.obj
    c.target(doc, "target", o.get("target"))
    c.node(doc, "node", o.get("target"), o.get("node"))
    c.file(doc, "artifact", o.get("artifact"))


def _files(*fields: str) -> Callable[[ReferenceIndex, RecordDoc], None]:
    def check(c: ReferenceIndex, doc: RecordDoc) -> None:
        for fld in fields:
            c.file(doc, fld, doc.obj.get(fld))
    return check


def _file_lists(*fields: str) -> Callable[[ReferenceIndex, RecordDoc], None]:
    def check(c: ReferenceIndex, doc: RecordDoc) -> None:
        for fld in fields:
            value = doc.obj.get(fld)
            for i, path in enumerate(value if isinstance(value, list) else []):
                c.file(doc, f"{fld}.{i}", path)
    return check


def _review_question(c: ReferenceIndex, doc: RecordDoc) -> None:
    _files("raised_by")(c, doc)
    _file_lists("candidates")(c, doc)


def _nodes_here(*fields: str) -> Callable[[ReferenceIndex, RecordDoc], None]:
    def check(c: ReferenceIndex, doc: RecordDoc) -> None:
        t = c.target_of(doc)
        for fld in fields:
            value = doc.obj.get(fld)
            for i, n in enumerate(value) if isinstance(value, list) else [(None, value)]:
                c.node(doc, fld if i is None else f"{fld}.{i}", t, n)
    return check


def _shelving(c: ReferenceIndex, doc: RecordDoc) -> None:
    subject = doc.obj.get("subject")
    if isinstance(subject, str) and "/" in subject:
        c.file(doc, "subject", subject)
    else:
        c.node(doc, "subject", c.target_of(doc), subject)
    c.file(doc, "lifts", doc.obj.get("lifts"))


_REFERENCE_CHECKS: dict[str, Callable[[ReferenceIndex, RecordDoc], None]] = {
    "meta/v1": _meta,
    "target/v1": _target,
    "attestation/v1": _attestation,
    "attestation/v2": _attestation,
    "merge/v1": _merge,
    "closure/v1": _closure,
    "ledger-line/v1": _ledger_line,
    "ledger-line/v2": _ledger_line,
    "revocation/v1": _files("revokes"),
    "correction/v1": _files("corrects"),
    "withdrawal/v1": _files("withdraws"),
    "dispute/v1": _files("defect"),
    "literature/v1": _files("confirms", "disputes", "supersedes"),
    "gloss/v1": _files("describes", "supersedes"),
    "explainer/v1": _files("describes", "supersedes"),
    "defect/v1": _files("exhibit"),
    "registration/v1": _files("proof", "attestation"),
    "proposed-for/v1": _nodes_here("node"),
    "revision-request/v1": _nodes_here("node"),
    "approach/v1": _nodes_here("nodes"),
    "approach/v2": _nodes_here("nodes"),
    "shelving/v1": _shelving,
    "pertinence/v1": _nodes_here("variant"),
    "proof-review/v1": _files("attestation"),
    # D-9 v3.39: the review's records name its candidates, questions and exhibits
    "review-exhibit/v1": _files("candidate", "other", "test"),
    "review-test/v1": _files("answer"),
    "review-attempt/v1": _files("candidate", "other"),
    "review-question/v1": _review_question,
    "review-answer/v1": _files("question"),
    "review-signature/v1": _file_lists("cluster"),
}
