"""Gate steps 1 and 2 over a pull request's diff: pins, paths, hashes, roles (D-4, D-3).

Step 1's half that reads the diff refuses submitted pin files (lakefile, lean-toolchain,
lake-manifest.json); resolving the pins themselves from gate-spec.json is the toolchain
adapter's. Step 2 places every changed path into an artifact (:mod:`network.gate.artifacts`)
and applies the rules that need no elaboration: permitted paths per kind, statement hash
unchanged, merged files never modified, byte-identical copies refused, annexes named after
their bytes' hash with valid annex/v1 metadata (D-31), proposals' statement commands
(v3.28), use lines (v3.25), a partial's approach and licence lines (D-12 v3.44), a
skeleton's annex citation (D-31 v3.12), options that weaken checking, anything in a
contributor's Lean file that runs code when its module is imported (``import-time-code``,
D-4 v3.27), hidden characters in any Lean file and look-alike names in one that states
something (:mod:`network.gate.screens.unicode_screen`, issue 37), record schemas, who
may write each kind (:mod:`network.gate.records.actors`), and that every added record's references
resolve and its signature verifies (:mod:`network.gate.records.references`).
"""

from __future__ import annotations

from dataclasses import dataclass

from network.gate.artifacts import (
    ANNEX_FILE_RE,
    Artifact,
    Kind,
    annex_citation_findings,
    classify,
    forbidden_option_findings,
    import_time_findings,
    partial_label_findings,
    record_model,
    statement_command_findings,
    use_findings,
)
from network.gate.diff import Diff
from network.gate.records import dormancy_gate
from network.gate.records.actors import ValidRecords, actor_findings
from network.gate.records.references import reference_findings
from network.gate.records.review_rules import shape_findings as review_shape_findings
from network.gate.records.role_records import curators_findings, steward_batch_findings
from network.gate.result import Diagnostic, StepResult
from network.gate.screens.unicode_screen import (
    delimiter_lookalike_findings,
    format_character_findings,
    identifier_findings,
    statement_bearing,
)
from network.record import derive
from network.record import models as m
from network.record.read import plain
from network.record.read.loader import ATTEMPT_RE, Graph, parse_record, sha256_hex
from network.record.read.scoped import paths_under

_LEAN_ARTIFACTS = {Kind.PROOF, Kind.ALTERNATE, Kind.PARTIAL, Kind.REDUCTION,
                   Kind.COUNTEREXAMPLE, Kind.VACUITY}


@dataclass
class Steps12:
    """The artifacts found and the results of steps 1 and 2."""

    artifacts: list[Artifact]
    step1: StepResult
    step2: StepResult


def roles_of(base: Graph, target: str, pseudonym: str | None) -> frozenset[str]:
    """The roles ``pseudonym`` holds on ``target`` at base: contributor, steward, curator.

    Read from the graph (ruling 9): curators.json and targets/<id>/stewards/.
    """
    if pseudonym is None:
        return frozenset({"contributor"})
    roles = {"contributor"}
    for c in base.curators.curators:
        if c.pseudonym.lower() == pseudonym.lower() and ("*" in c.targets or target in c.targets):
            roles.add("curator")
    t = base.targets.get(target)
    if t is not None and any(s.lower() == pseudonym.lower()  # verified records (ruling 14)
                             for s in derive.stewards_of(base, target)):
        roles.add("steward")
    return frozenset(roles)


def _decode(diff: Diff, path: str, findings: list[Diagnostic]) -> str | None:
    ch = next(c for c in diff.changes if c.path == path)
    data = diff.new_bytes(ch)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        findings.append(Diagnostic("not-utf8", f"byte {exc.start}", path))
        return None


def _check_record(diff: Diff, art: Artifact, path: str, findings: list[Diagnostic],
                  model: type[m.Record] | None = None) -> m.Record | None:
    """Validate one record file against its kind's model (or ``model``); returns the
    record, or None after appending why it does not validate."""
    model = model or record_model(art.kind)
    if model is None:
        return None
    text = _decode(diff, path, findings)
    if text is None:
        return None
    shape = record_shape_finding(path, text)
    if shape is not None:
        findings.append(shape)
        return None
    rec, problems = parse_record(path, text.encode("utf-8"), model)
    for p in problems:
        where = f"{p.field}: " if p.field else ""
        findings.append(Diagnostic(p.code, f"{where}{p.detail}", path))
    return rec


def record_shape_finding(path: str, text: str) -> Diagnostic | None:
    """:func:`network.record.read.plain.shape_problem` as a step-2 finding (None when plain)."""
    problem = plain.shape_problem(path, text)
    return None if problem is None else Diagnostic(problem.code, problem.detail, path)


def annex_findings(diff: Diff, base: Graph, art: Artifact) -> list[Diagnostic]:
    """D-31: every ``annex/<sha256>.md`` an annex artifact adds hashes to its name and comes
    with ``annex/<sha256>.yaml``, which validates as ``annex/v1`` and names that same
    SHA-256; a ``.yaml`` comes with its ``.md`` (in the pull request or already on the
    node at base).

    Codes: ``annex-hash-mismatch``, ``annex-metadata-missing``, ``missing-file``,
    ``invalid-record``, ``malformed-yaml``.
    """
    findings: list[Diagnostic] = []
    pairs: dict[str, dict[str, str]] = {}
    for path in art.paths:
        mt = ANNEX_FILE_RE.fullmatch(path.rsplit("/", 1)[-1])
        if mt is not None:
            pairs.setdefault(mt.group("sha"), {})[mt.group("ext")] = path
    for sha, by_ext in sorted(pairs.items()):
        md, meta = by_ext.get("md"), by_ext.get("yaml")
        if md is not None:
            data = diff.new_bytes(next(c for c in diff.changes if c.path == md))
            if sha256_hex(data) != sha:
                findings.append(Diagnostic("annex-hash-mismatch", "the annex's bytes hash to "
                                           f"{sha256_hex(data)}, not to its name", md))
            if meta is None and md[: -len(".md")] + ".yaml" not in base.files:
                findings.append(Diagnostic("annex-metadata-missing",
                                           f"no annex/{sha}.yaml", md))
        if meta is None:
            continue
        if md is None and meta[: -len(".yaml")] + ".md" not in base.files:
            findings.append(Diagnostic("missing-file", f"annex/{sha}.yaml describes no "
                                       f"annex/{sha}.md", meta))
        rec = _check_record(diff, art, meta, findings, m.Annex)
        if isinstance(rec, m.Annex) and rec.sha256 != sha:
            findings.append(Diagnostic("annex-hash-mismatch", f"sha256 {rec.sha256} is not "
                                       "the file's name", meta))
    return findings


def _check_proposal(diff: Diff, base: Graph, art: Artifact, findings: list[Diagnostic]) -> None:
    """A new node directory: META, Statement, Witness (+ Relation for proved relations)."""
    d = f"targets/{art.target}/nodes/{art.node}/"
    names = {p[len(d):] for p in art.paths}
    for need in ("META.yaml", "Statement.lean", "Witness.lean"):
        if need not in names:
            findings.append(Diagnostic("missing-file", f"a proposal needs {need}", d + need))
    if "META.yaml" not in names or "Statement.lean" not in names:
        return
    meta_text = _decode(diff, d + "META.yaml", findings)
    stmt_ch = next(c for c in diff.changes if c.path == d + "Statement.lean")
    stmt = diff.new_bytes(stmt_ch)
    if meta_text is None:
        return
    meta = _check_record(diff, art, d + "META.yaml", findings, m.Meta)
    if not isinstance(meta, m.Meta):
        return
    if meta.id != art.node or meta.target != art.target:
        findings.append(Diagnostic("id-mismatch", "META id/target must match the directory",
                                   d + "META.yaml"))
    if meta.statement_hash != sha256_hex(stmt):
        findings.append(Diagnostic("statement-hash-mismatch", "META.statement_hash is not the "
                                   "SHA-256 of Statement.lean", d + "META.yaml"))
    if meta.hole is not None or meta.lemmas or meta.tutorial:
        findings.append(Diagnostic("gate-only-path", "hole, lemmas and tutorial are the gate's",
                                   d + "META.yaml"))
    if meta.variant is not None:
        art.kind = Kind.VARIANT
        if meta.variant.relation != "related" and "Relation.lean" not in names:
            findings.append(Diagnostic("missing-file", f"a {meta.variant.relation} variant "
                                       "carries Relation.lean (D-30)", d + "Relation.lean"))
    elif meta.speculative:
        art.kind = Kind.SPECULATIVE
    else:
        findings.append(Diagnostic("path-not-permitted", "a new node is a variant or a "
                                   "speculative crux", d + "META.yaml"))
    for dep in meta.deps:
        if dep not in base.targets[art.target].nodes:
            findings.append(Diagnostic("dangling-reference", f"dep {dep!r} does not exist",
                                       d + "META.yaml"))
    try:
        text = stmt.decode("utf-8")
    except UnicodeDecodeError as exc:
        findings.append(Diagnostic("not-utf8", f"byte {exc.start}", d + "Statement.lean"))
        return
    findings.extend(statement_command_findings(text, d + "Statement.lean"))


def _annexes_on_node(diff: Diff, base: Graph, target: str, node: str) -> set[str]:
    """SHA-256 names of the node's ``annex/<sha256>.md`` at base and added by the diff."""
    prefix = f"targets/{target}/nodes/{node}/annex/"
    paths = paths_under(base, prefix)
    paths += [c.path for c in diff.changes if c.path.startswith(prefix) and c.new_id]
    out: set[str] = set()
    for p in paths:
        mt = ANNEX_FILE_RE.fullmatch(p[len(prefix):])
        if mt is not None and mt.group("ext") == "md":
            out.add(mt.group("sha"))
    return out


def run_steps_1_2(diff: Diff, base: Graph, submitter: str | None,
                  head_date: str | None = None) -> Steps12:
    """Classify a pull request and judge steps 1 and 2 (D-4).

    Args:
        diff: the pull request's changes.
        base: the graph at ``diff.base``.
        submitter: the pseudonym the pull request is credited to, or None when unknown.
        head_date: the head commit's date (ISO), when known: the latest date a dormancy
            declaration may carry (D-33, issue 18).

    Returns:
        :class:`Steps12`; each step's result carries every finding, step 2 failing when
        step 1 did (the gate stops at the first failing step).
    """
    c = classify(diff, base)
    findings = list(c.step2)
    for art in c.artifacts:
        roles = roles_of(base, art.target, submitter)
        big = c.oversized.intersection(art.paths)  # refused already; their bytes stay unread
        if art.kind in (Kind.VARIANT, Kind.SPECULATIVE) and not big:
            _check_proposal(diff, base, art, findings)
        if art.kind is Kind.ANNEX:
            findings.extend(annex_findings(diff, base, art))
        if art.kind is Kind.DORMANCY and not big:  # D-33's K/N evidence (issue 18)
            findings.extend(dormancy_gate.dormancy_findings(diff, base, art, head_date))
        if not (roles & art.plan.roles):
            findings.append(Diagnostic("role-not-permitted",
                                       f"{art.kind.value} needs {sorted(art.plan.roles)}",
                                       art.main))
        for path in art.paths:
            if path in big:
                continue
            if path.endswith(".lean"):
                text = _decode(diff, path, findings)
                if text is not None:
                    # text a person reads as Lean reads it (issue 37): no hidden character
                    # in any Lean file, no look-alike name in one that states something
                    findings.extend(format_character_findings(text, path))
                    findings.extend(delimiter_lookalike_findings(text, path))
                    if statement_bearing(path):
                        findings.extend(identifier_findings(text, path))
                    findings.extend(forbidden_option_findings(text, path))
                    # every contributor-written Lean file (D-4 v3.27, attack d30): the
                    # checkers import it with its extension entries; the lexer's own
                    # findings are forbidden_option_findings' already
                    findings.extend(d for d in import_time_findings(text, path)
                                    if d.code != "lean-lex-ambiguous")
            elif path.endswith((".yaml", ".json")) and not path.endswith("META.yaml"):
                if art.kind is Kind.ANNEX or path.endswith("native_decide.yaml"):
                    continue
                _check_record(diff, art, path, findings)
        if art.kind in _LEAN_ARTIFACTS and art.node is not None and art.main not in big:
            node = base.targets[art.target].nodes[art.node]
            statement = base.text(node.files["Statement"].path)
            text = _decode(diff, art.main, findings)
            if text is None:
                continue
            findings.extend(use_findings(statement, text, base, art.target, art.main))
            is_partial = art.kind is Kind.PARTIAL or (
                (mt := ATTEMPT_RE.fullmatch(art.main.rsplit("/", 1)[-1])) is not None
                and mt.group("kind") == "partial.lean"
            )
            if is_partial:
                findings.extend(partial_label_findings(text, art.main))
            if art.kind in (Kind.PARTIAL, Kind.REDUCTION):
                findings.extend(annex_citation_findings(
                    text, art.main, _annexes_on_node(diff, base, art.target, art.node)))
    records = ValidRecords(diff)  # each record parsed once for both checks
    actors = actor_findings(diff, base, c.artifacts, submitter, c.oversized, records)
    findings.extend(actors)
    findings.extend(curators_findings(diff, base, c.artifacts, submitter))  # D-22 v3.33
    findings.extend(steward_batch_findings(c.artifacts))  # D-32 v3.34
    findings.extend(review_shape_findings(diff, c.artifacts))  # D-9 v3.39
    findings.extend(reference_findings(diff, base, c.artifacts, c.oversized, actors,
                                       records))
    step1 = StepResult.from_findings(1, c.step1)
    step2 = StepResult.from_findings(2, findings)
    return Steps12(c.artifacts, step1, step2)
