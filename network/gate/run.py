"""The gate runner: steps 0-9 over one pull request, fail-closed, in order (D-4, D-5, D-34).

:func:`run_gate` is the one entry point. The authoritative gate (``mode="authoritative"``),
the service's precheck and ``pregate.sh`` (``mode="precheck"``) all call it, so the three
invocations run the same code from the same pins (D-4 "Three invocations, one codebase").

Per artifact (D-2: a pull request may span nodes; the gate applies per node) it runs the
row of :data:`~network.gate.artifacts.STEP_PLAN` for the artifact's kind and stops at the
first failing step, with one exception (issue 9): step 2 needs no toolchain and runs
first, so its findings are reported whether or not Lean is installed; when it refuses,
steps 0 and 1 still run and are listed after it (``[2, 0, 1]``), so that one round names
everything to fix, and the verdict is step 2's ``fail`` (see ``_static_steps``):

0. precheck attestation (authoritative runs of building kinds only; ruling 7): bounced
   before any build when missing, stale, unsigned where required or for other bytes.
1. the toolchain: resolved from the target's gate-spec.json alone; a submitted pin file is
   refused; ``Toolchain.describe()`` must match the pin; with no toolchain the answer is
   ``toolchain-missing`` and never a pass.
2. paths, hashes and roles (:func:`network.gate.step2.run_steps_1_2`).
3. the build, always through the sandbox runner handed in (D-4 step 3; the precheck's
   "ordinary build" is the same sandboxed build, DESIGN.md: nothing is elaborated outside
   the sandbox).
4. kernel replay and the declaration's type against the statement, in a second run that
   executes none of the contributor's code (v3.16, v3.27); for a partial or reduction also
   the holes, their labels (D-12 v3.44) and the offload rule (D-12, v3.21; ruling 13); for
   a counterexample (``<decl>.refutation : ¬P``), a vacuity certificate (``<decl>.vacuity :
   ¬∃ binders, hyps``) or a labelled variant's Relation.lean (``<variant decl>.relation``:
   resolves V → R, partial R → V, refutes V → ¬R) the declaration against the type built
   from the statements' declarations (:meth:`~network.gate.toolchain.Toolchain.
   check_relation`; D-12 #2/#3, D-30).
5. axioms: exactly the gate-spec's allowlist; ``sorryAx`` refused except as a partial's
   holes; compiler-trusting axioms only under ``waivers/native_decide.yaml`` plus a
   reviewer's sign-off, flagged on the attestation (D-4 Detail).
6. hazards over the statement, findings matched against META.yaml's
   ``acknowledged_hazards`` (see :func:`hazard_location_key` for the one location format);
   and the anti-echo check of a proposed statement's filled ``answer(…)``
   (:mod:`network.gate.answers`, issue 12): its syntactic layer beside step 2, with no
   Lean, its definitional layer here through ``defeq`` against the plan's answer probe.
7. the non-vacuity witness (and every witness a route carries, D-29 v3.24); a vacuity
   certificate, which proves none exists, passes with ``witness-not-applicable``.
8. declared dependencies: the nodes the kernel term uses against deps, lemmas and use
   lines (D-3 v3.25, D-4 v3.25).
9. statement review (D-4 v3.11/v3.15/v3.20/v3.39; ruling 5): asked only of an artifact
   that would settle the target while its root is not :func:`~network.record.derive.
   root_vouched`; without an approving non-author review the verdict is ``held``. The
   review is the forge's, or a merged, signed review record on the base graph naming
   exactly this artifact's bytes (:mod:`network.gate.proof_reviews`).

Record-only kinds (ruling 6) run step 2 alone: no Lean, no precheck. Every artifact yields
one attestation (D-5, D-34), signed with the gate key when one is given; a precheck run
yields a :class:`~network.record.models.PrecheckAttestation` instead.
"""

from __future__ import annotations

import re
import shutil
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath
from typing import Any, Literal

import pygit2
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from pydantic import ValidationError

from network import ids, signing
from network.errors import LemmataError, define
from network.gate import answers, proof_reviews
from network.gate import attestation as A
from network.gate.artifacts import Artifact, Kind, import_lines, partial_label_findings
from network.gate.axioms import identity_problems, is_native_axiom
from network.gate.diff import Diff, diff_commits
from network.gate.result import Diagnostic, StepResult
from network.gate.sandbox import SandboxRunner
from network.gate.step2 import run_steps_1_2
from network.gate.toolchain import (
    BuildResult,
    CompareResult,
    Hole,
    HolesResult,
    RelationKind,
    TermRef,
    Toolchain,
    WitnessResult,
)
from network.gate.workspace import (
    Source,
    Workspace,
    node_source,
    place_carried,
    write_workspace,
)
from network.record import derive, layout
from network.record import models as m
from network.record.loader import Graph, load_graph, parse_record, sha256_hex

define("submitter-invalid", None, 422,
       "The submitter the gate was given is not a pseudonym ([A-Za-z0-9][A-Za-z0-9_.-]{0,38}).",
       "Pass the pull request's ledger identity as it is recorded (the forge's author "
       "binding), with no spaces or line breaks.")
#: a ledger identity as models.Pseudonym writes it
_PSEUDONYM_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,38}")
define("artifact-check-unsupported", 4, 422,
       "The gate's checkers cannot compare this artifact's declaration with the statement it "
       "claims on this target (e.g. a Relation.lean, counterexample or vacuity certificate "
       "where the gate-spec selects Comparator, which judges only a challenge module's "
       "text), so it is refused rather than passed unchecked.",
       "Submit it where the gate-spec replays with leanchecker, or as an annex meanwhile.")
define("witness-not-applicable", 7, 200,
       "A vacuity certificate claims the statement's hypotheses are unsatisfiable, so no "
       "non-vacuity witness is asked of it (informational, D-12 #3).",
       "Nothing.")
define("partial-without-holes", 4, 422,
       "A partial proof or reduction holds no sorry: it is not a decomposition.",
       "Submit a complete proof as Proof.lean, or leave the holes as named sorrys.")
define("offload-restates-goal", 4, 422,
       "A hole of the partial is definitionally equal to the node's own statement "
       "(D-12 offload rule).",
       "Split the goal into genuinely smaller statements; restating it is not progress.")
define("offload-restates-ancestor", 4, 422,
       "A hole of the partial is definitionally equal to the statement of a node that "
       "depends on this one (D-12 v3.21).",
       "Do not reduce a node to one of its ancestors; that decomposition is circular.")
define("carried-witness-unknown-hole", 7, 422,
       "A carried witness names a hole number the partial or reduction does not have "
       "(D-29 v3.24).",
       "Name the file after its route and the route's k-th hole: "
       "…-partial.h<k>.witness.lean, …-reduction.h<k>.witness.lean.")
define("undeclared-dependency", 8, 422,
       "The proof term uses a node it did not declare (deps, lemmas or use lines).",
       "Add an import line (a use, D-3 v3.25) for the merged proof you draw on.")
define("unused-use", 8, 422,
       "A use line imports a node's proof that the proof term never touches (D-4 v3.25).",
       "Remove the import line.")
define("circular-use", 8, 422,
       "The proof uses a node that rests on the node being proved (D-12 v3.25).",
       "A node is never proved from the node it was cut from, nor from anything above it.")
define("hazard-acknowledged", 6, 200,
       "A hazard finding matched an acknowledgment in META.yaml (informational).",
       "Nothing: the statement's author acknowledged the construct at admission.")
define("hazard-on-hole", 6, 200,
       "A hazard finding on a gate-written hole statement (informational: a hole's "
       "statement is the gap of a merged assembly and has no author to acknowledge it).",
       "Nothing; a steward may revise the hole (D-8) if the construct is unintended.")
define("gate-internal-error", None, 500, "The gate failed for a reason that is a bug.",
       "Report it with the log; the pull request is neither merged nor refused.")

Mode = Literal["authoritative", "precheck"]
Verdict = Literal["pass", "fail", "held", "bounced"]

#: exit codes of ``lemmata gate run`` (STYLE.md rule 1; held is the third outcome, ruling 5)
EXIT_CODES: dict[str, int] = {"pass": 0, "fail": 1, "bounced": 1, "held": 2}
EXIT_INTERNAL = 3

_CLAIMING = {Kind.PROOF, Kind.ALTERNATE, Kind.PARTIAL, Kind.REDUCTION}
_ROUTES = {Kind.PARTIAL, Kind.REDUCTION}
#: what a closing artifact other than a proof must state, built from the statement (D-12)
_NEGATING: dict[Kind, RelationKind] = {Kind.COUNTEREXAMPLE: "negation", Kind.VACUITY: "vacuity"}
_SOLUTION_STEM = {Kind.PROOF: "Proof", Kind.ALTERNATE: "Alternate", Kind.PARTIAL: "Partial",
                  Kind.REDUCTION: "Reduction", Kind.COUNTEREXAMPLE: "Refutation",
                  Kind.VACUITY: "Vacuity"}
_SETTLING = {Kind.PROOF, Kind.COUNTEREXAMPLE, Kind.VACUITY}


@dataclass(frozen=True)
class Review:
    """An approving review (D-4 step 9 and Detail): the forge's (a GitHub approval,
    :func:`network.gate.github_trusted.review_for`) or a merged ``proof-review/v1`` record
    naming the artifact's bytes (:func:`artifact_review`; issue 13).

    Attributes:
        reviewer: the reviewer's pseudonym; it must differ from the submitter.
        approved: True for an approving review; anything else satisfies nothing.
        signs_off: waivers the review names, e.g. ``("native_decide",)`` (D-4 Detail:
            "the sign-off is a line in the approving review naming the waiver").
    """

    reviewer: str
    approved: bool = True
    signs_off: tuple[str, ...] = ()


@dataclass(frozen=True)
class ArtifactRun:
    """One artifact's gate run.

    Attributes:
        artifact: what was judged.
        steps: every step result in order, ending at the first failing step.
        verdict: pass, fail, held or bounced (D-34).
        attestation: the authoritative attestation (None in precheck mode).
        precheck: the precheck attestation (precheck mode only).
        holes: the holes of a partial or reduction, as extracted at step 4.
        build_messages: error messages of the build, for a precheck record's goal state.
    """

    artifact: Artifact
    steps: tuple[StepResult, ...]
    verdict: Verdict
    attestation: m.Attestation | None = None
    precheck: m.PrecheckAttestation | None = None
    holes: tuple[Hole, ...] = ()
    build_messages: tuple[str, ...] = ()

    @property
    def first_failing(self) -> StepResult | None:
        """The step that refused, or None."""
        return next((s for s in self.steps if not s.ok), None)


@dataclass(frozen=True)
class GateOutcome:
    """A whole pull request's gate run (D-4).

    Attributes:
        mode: authoritative or precheck.
        base, head: resolved 40-hex commits.
        head_date: the head commit's committer date, ISO UTC (ruling 2).
        verdict: fail when any artifact failed, else bounced when any bounced, else held
            when any waits on step 9, else pass. A pull request with no artifact at all
            fails.
        runs: one per artifact.
        unplaced: findings on paths no artifact holds (they also refuse the artifacts).
    """

    mode: Mode
    base: str
    head: str
    head_date: str
    verdict: Verdict
    runs: tuple[ArtifactRun, ...]
    unplaced: tuple[Diagnostic, ...] = ()

    @property
    def exit_code(self) -> int:
        """0 merge, 1 refused (fail or bounced), 2 held (``lemmata gate run``)."""
        return EXIT_CODES[self.verdict]

    @property
    def attestations(self) -> list[m.Attestation]:
        """Every authoritative attestation, one per artifact, in artifact order."""
        return [r.attestation for r in self.runs if r.attestation is not None]

    @property
    def precheck_attestations(self) -> list[m.PrecheckAttestation]:
        """Every precheck attestation (precheck mode), one per artifact."""
        return [r.precheck for r in self.runs if r.precheck is not None]

    def to_dict(self) -> dict[str, Any]:
        """JSON verdicts for people and agents (``pregate.sh`` prints this, D-27)."""
        return {
            "mode": self.mode, "base": self.base, "head": self.head, "verdict": self.verdict,
            "exit_code": self.exit_code,
            "unplaced": [d.to_dict() for d in self.unplaced],
            "artifacts": [{
                "kind": r.artifact.kind.value, "target": r.artifact.target,
                "node": r.artifact.node, "paths": r.artifact.paths, "verdict": r.verdict,
                "first_failing_step": r.first_failing.step if r.first_failing else None,
                "code": r.first_failing.code if r.first_failing else None,
                "steps": [s.to_record().model_dump() for s in r.steps],
                "holes": [{"index": h.index, "name": h.name, "statement": h.statement}
                          for h in r.holes],
            } for r in self.runs],
        }


ToolchainSource = Toolchain | Callable[[m.GateSpec], Toolchain]


# --- small helpers -------------------------------------------------------------------


def commit_date(repo: pygit2.Repository | str | Path, rev: str) -> str:
    """A commit's committer date as ``YYYY-MM-DDTHH:MM:SSZ`` (UTC) (ruling 2).

    Raises:
        LemmataError: ``git-error`` when ``rev`` does not resolve.
    """
    r = repo if isinstance(repo, pygit2.Repository) else pygit2.Repository(str(repo))
    try:
        c = r.revparse_single(rev).peel(pygit2.Commit)
    except (KeyError, ValueError, pygit2.GitError) as exc:
        raise LemmataError("git-error", f"cannot resolve {rev!r}: {exc}") from exc
    return datetime.fromtimestamp(c.commit_time, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def hazard_location_key(checker: str, location: str) -> tuple[str, str]:
    """The one form in which hazard findings and acknowledgments are compared (D-4 step 6).

    A location is ``"<declaration>: <subterm>"`` exactly as ``Hazards.lean`` prints it
    (the subterm pretty-printed by Lean, e.g. ``Erdos242.erdos_242: 4 / ↑n``); an
    acknowledgment in META.yaml names the same string. Runs of whitespace compare equal;
    nothing else is normalised.
    """
    return checker.strip(), " ".join(location.split())


def _resolve_toolchain(toolchain: ToolchainSource, spec: m.GateSpec) -> Toolchain:
    if isinstance(toolchain, type) or not hasattr(toolchain, "describe"):
        return toolchain(spec)
    return toolchain  # type: ignore[return-value]


def witness_decl(decl: str) -> str:
    """The graph's witness convention: ``<declaration>.witness`` (graph/AGENTS.md §8)."""
    return f"{decl}.witness"


def refutation_decl(decl: str) -> str:
    """The graph's counterexample convention: Refutation.lean declares
    ``<declaration>.refutation : ¬ <statement>`` (D-12 #2)."""
    return f"{decl}.refutation"


def vacuity_decl(decl: str) -> str:
    """The graph's vacuity convention: Vacuity.lean declares ``<declaration>.vacuity :
    ¬ ∃ <data binders>, <hypotheses>`` (D-12 #3; the witness's existential negated)."""
    return f"{decl}.vacuity"


def relation_decl(decl: str) -> str:
    """The graph's relation convention: a variant's Relation.lean declares
    ``<variant declaration>.relation`` stating its D-30 label: resolves ``V → R``, partial
    ``R → V``, refutes ``V → ¬R`` (V, R the variant's and the root's statements)."""
    return f"{decl}.relation"


def relation_terms(relation: str, variant: TermRef, root: TermRef
                   ) -> tuple[RelationKind, TermRef, TermRef] | None:
    """What a D-30 label asks of Relation.lean, as :meth:`~network.gate.toolchain.
    Toolchain.check_relation`'s (kind, left, right); None for ``related`` (nothing
    proved)."""
    if relation == "resolves":
        return "implies", variant, root
    if relation == "partial":
        return "implies", root, variant
    if relation == "refutes":
        return "implies-not", variant, root
    return None


def _unquote(module: str) -> str:
    return module.replace("«", "").replace("»", "")


def ancestors_of(graph: Graph, target: str, node: str) -> list[str]:
    """Every node that depends on ``node``, however indirectly (D-12 v3.21): the node a
    hole was cut from, nodes listing it in deps or lemmas, and revisions' predecessors'
    ancestors; sorted, ``node`` itself excluded."""
    t = graph.targets[target]
    up: dict[str, set[str]] = {}
    for nid, n in t.nodes.items():
        meta = n.meta
        if meta.hole is not None:
            up.setdefault(nid, set()).add(meta.hole.parent)
        for d in [*meta.deps, *meta.lemmas]:
            up.setdefault(d, set()).add(nid)
        if meta.supersedes:
            up.setdefault(nid, set()).update(up.get(meta.supersedes, set()))
    seen: set[str] = set()
    stack = [node]
    sup = t.nodes[node].meta.supersedes if node in t.nodes else None
    if sup:
        stack.append(sup)
    while stack:
        cur = stack.pop()
        for p in sorted(up.get(cur, ())):
            if p not in seen and p != node:
                seen.add(p)
                stack.append(p)
    return sorted(x for x in seen if x in t.nodes)


# --- workspaces ----------------------------------------------------------------------


@dataclass
class WorkPlan:
    """The Lean files one artifact's run needs and the names the checks use.

    Attributes:
        sources: every workspace source (exact bytes, names from :mod:`network.ids`).
        statement_module: the module holding the statement the artifact claims.
        solution_module: the artifact's module (None for a proposal or witness).
        decl: the declaration name (META's ``declaration``).
        witness_module: the witness's module, None when the node has none.
        node_of_module: graph modules → the node they belong to (for step 8).
        ancestor_statements: ancestor node → (Statement module, declaration) (offload rule).
        other_statements: every other node of the target, the same (D-12 v3.38).
        use_nodes: nodes the artifact's use lines import.
        solution_decl: the declaration the solution module must hold: the node's for a
            proof, ``.refutation``/``.vacuity`` for a counterexample or vacuity certificate.
        relation_module: a variant's Relation.lean module, when it carries one.
        relation: what that Relation.lean must state: (kind, left, right) of
            :func:`relation_terms` (D-30).
        contributed: the modules whose bytes come from the pull request (the solution, or
            a proposal's Statement, Witness and Relation): built only in scratch, their
            oleans carried into the check workspace (issue 10, D-4 v3.27).
        answer_probes: a proposal whose statement fills ``answer(…)``: the probes step
            6's definitional anti-echo layer compares it with (:func:`answers.answer_probes`,
            issue 12), contributed like the statement.
    """

    sources: list[Source]
    statement_module: str
    solution_module: str | None
    decl: str
    witness_module: str | None
    node_of_module: dict[str, str] = field(default_factory=dict)
    ancestor_statements: dict[str, tuple[str, str]] = field(default_factory=dict)
    other_statements: dict[str, tuple[str, str]] = field(default_factory=dict)
    use_nodes: list[str] = field(default_factory=list)
    solution_decl: str = ""
    relation_module: str | None = None
    relation: tuple[RelationKind, TermRef, TermRef] | None = None
    contributed: list[str] = field(default_factory=list)
    answer_probes: list[answers.AnswerProbe] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not self.solution_decl:
            self.solution_decl = self.decl

    @property
    def modules(self) -> list[str]:
        """Every module to build, in source order."""
        return [s.module for s in self.sources]

    @property
    def base_sources(self) -> list[Source]:
        """The sources built from base bytes: what the check workspace holds."""
        return [s for s in self.sources if s.module not in set(self.contributed)]

    @property
    def contributed_sources(self) -> list[Source]:
        """The pull request's own sources (withheld from the check workspace)."""
        return [s for s in self.sources if s.module in set(self.contributed)]


def _proof_import_closure(base: Graph, target: str, text: str, plan: WorkPlan,
                          seen: set[str]) -> list[str]:
    """Add the merged Proof.lean of every node ``text`` imports (use lines, transitively);
    returns the nodes imported directly."""
    t = base.targets[target]
    by_module = {_unquote(ids.module_name(target, nid, "Proof")): nid
                 for nid, n in t.nodes.items() if "Proof" in n.files}
    direct: list[str] = []
    for mod in import_lines(text):
        nid = by_module.get(_unquote(mod))
        if nid is None:
            continue
        direct.append(nid)
        if nid in seen:
            continue
        seen.add(nid)
        data = base.source.read(t.nodes[nid].files["Proof"].path)
        src = node_source(target, nid, "Proof", data)
        plan.sources.append(src)
        plan.node_of_module[_unquote(src.module)] = nid
        _proof_import_closure(base, target, data.decode("utf-8", "replace"), plan, seen)
    return direct


def plan_workspace(base: Graph, head_bytes: Mapping[str, bytes], art: Artifact) -> WorkPlan:
    """Which Lean files the run of ``art`` builds, from the graph at base plus the
    artifact's own bytes at head (ruling 6; D-3 v3.25; D-12 v3.21).

    * claiming kinds: the node's Statement, the artifact as its own module, the node's
      Witness, the target's defs, the merged proofs its use lines import (transitively);
      a partial or reduction adds its ancestors' statements for the offload rule.
    * proposals: the new Statement, Witness (and Relation) at head, and the defs.
    * a witness proposal: the hole's Statement and the new Witness.

    ``head_bytes`` maps the artifact's paths to their bytes at head (the post-merge job
    passes them from the merged graph).

    Raises:
        LemmataError: ``missing-file`` when a file the record lists cannot be read.
    """
    tid = art.target
    nid = art.node
    assert nid is not None
    t = base.targets[tid]
    node_dir = f"targets/{tid}/nodes/{nid}"
    defs = [Source(ids.defs_module_name(tid, stem),
                   PurePosixPath("Lemmata") / tid / "Defs" / f"{stem}.lean",
                   base.source.read(lf.path))
            for stem, lf in sorted(t.defs.items())]
    node = t.nodes.get(nid)
    if art.kind in (Kind.VARIANT, Kind.SPECULATIVE) or node is None:
        meta_path = f"{node_dir}/META.yaml"
        parsed, problems = parse_record(meta_path, head_bytes[meta_path], m.Meta)
        if parsed is None:  # step 2 refused it already; a plan is never made for it
            raise LemmataError("invalid-record", "; ".join(map(str, problems)),
                               path=meta_path)
        meta = parsed
        stmt = node_source(tid, nid, "Statement", head_bytes[f"{node_dir}/Statement.lean"])
        sources = [*defs, stmt]
        wit = None
        if f"{node_dir}/Witness.lean" in head_bytes:
            w = node_source(tid, nid, "Witness", head_bytes[f"{node_dir}/Witness.lean"])
            sources.append(w)
            wit = w.module
        rel_module: str | None = None
        rel_terms = None
        if f"{node_dir}/Relation.lean" in head_bytes and meta.variant is not None:
            of = meta.variant.of
            of_node = t.nodes.get(of)
            if of_node is None or "Statement" not in of_node.files:
                raise LemmataError("missing-file", f"the variant's {of} has no Statement.lean",
                                   path=f"targets/{tid}/nodes/{of}/Statement.lean")
            of_src = node_source(tid, of, "Statement",
                                 base.source.read(of_node.files["Statement"].path))
            rel = node_source(tid, nid, "Relation", head_bytes[f"{node_dir}/Relation.lean"])
            sources += [of_src, rel]
            rel_module = rel.module
            rel_terms = relation_terms(meta.variant.relation,
                                       TermRef(stmt.module, meta.declaration),
                                       TermRef(of_src.module, of_node.meta.declaration))
        elif f"{node_dir}/Relation.lean" in head_bytes:
            sources.append(node_source(tid, nid, "Relation",
                                       head_bytes[f"{node_dir}/Relation.lean"]))
        plan = WorkPlan(sources, stmt.module, None, meta.declaration, wit,
                        relation_module=rel_module, relation=rel_terms)
        plan.contributed = [src.module for src in sources
                            if src.module not in {d.module for d in defs}
                            and (not rel_terms or src.module != rel_terms[2].module)]
        plan.node_of_module[_unquote(stmt.module)] = nid
        plan.answer_probes = answers.answer_probes(tid, nid, stmt.data, meta.declaration)
        for probe in plan.answer_probes:
            plan.sources.append(probe.source)
            plan.contributed.append(probe.source.module)
        return plan
    stmt_bytes = base.source.read(node.files["Statement"].path)
    stmt = node_source(tid, nid, "Statement", stmt_bytes)
    sources = [*defs, stmt]
    wit_module: str | None = None
    if art.kind is Kind.WITNESS:
        w = node_source(tid, nid, "Witness", head_bytes[art.main])
        sources.append(w)
        plan = WorkPlan(sources, stmt.module, None, node.meta.declaration, w.module,
                        contributed=[w.module])
        plan.node_of_module[_unquote(stmt.module)] = nid
        return plan
    if "Witness" in node.files:
        w = node_source(tid, nid, "Witness", base.source.read(node.files["Witness"].path))
        sources.append(w)
        wit_module = w.module
    sol_bytes = head_bytes[art.main]
    sol = node_source(tid, nid, _SOLUTION_STEM[art.kind], sol_bytes)
    sources.append(sol)
    decl = node.meta.declaration
    sol_decl = (refutation_decl(decl) if art.kind is Kind.COUNTEREXAMPLE else
                vacuity_decl(decl) if art.kind is Kind.VACUITY else decl)
    plan = WorkPlan(sources, stmt.module, sol.module, decl, wit_module, solution_decl=sol_decl,
                    contributed=[sol.module])
    plan.node_of_module[_unquote(stmt.module)] = nid
    plan.node_of_module[_unquote(sol.module)] = nid
    plan.use_nodes = _proof_import_closure(base, tid, sol_bytes.decode("utf-8", "replace"),
                                           plan, {nid})
    if art.kind in _ROUTES:
        add_route_statements(base, tid, nid, plan)
    return plan


def add_route_statements(base: Graph, tid: str, nid: str, plan: WorkPlan) -> None:
    """A route's workspace also holds every other node's statement: its ancestors' for the
    offload rule at step 4 (D-12 v3.21), the rest for the post-merge job's test of a hole
    restating an existing node (D-12 v3.38), so both run in one built workspace."""
    t = base.targets[tid]
    ancestors = set(ancestors_of(base, tid, nid))
    for other, on in sorted(t.nodes.items()):
        if other == nid or "Statement" not in on.files:
            continue
        src = node_source(tid, other, "Statement", base.source.read(on.files["Statement"].path))
        plan.sources.append(src)
        plan.node_of_module.setdefault(_unquote(src.module), other)
        target = plan.ancestor_statements if other in ancestors else plan.other_statements
        target[other] = (src.module, on.meta.declaration)


def write_plan(work_dir: Path, name: str, spec: m.GateSpec, plan_sources: Sequence[Source],
               toolchain: Toolchain) -> Workspace:
    """Write a check workspace of ``plan_sources`` under ``work_dir/name`` with the
    toolchain's prebuilt pins (when it has any); raises what :func:`write_workspace` raises.

    For sources that are all merged base bytes (the post-merge job): the gate builds it
    itself and checks in it; nothing of a pull request's own is in it."""
    return _write(work_dir, name, spec, plan_sources, toolchain)


def _write(work_dir: Path, name: str, spec: m.GateSpec, sources: Sequence[Source],
           toolchain: Toolchain, *, role: Literal["scratch", "check"] = "check",
           withheld: Sequence[Source] = ()) -> Workspace:
    pins_root = getattr(toolchain, "pins_root", None)
    return write_workspace(work_dir / name, spec, sources,
                           pins_root=pins_root if isinstance(pins_root, Path) else None,
                           role=role, withheld=withheld)


def build_two_domains(tc: Toolchain, sandbox: SandboxRunner, work_dir: Path, name: str,
                      spec: m.GateSpec, sources: Sequence[Source], contributed: Sequence[str],
                      caps: m.Caps) -> tuple[BuildResult, StepResult | None, Workspace | None]:
    """Build the pull request's sources in a throwaway scratch workspace, then a fresh check
    workspace from base bytes only, with the contributed modules' oleans carried over
    hash-checked (issue 10; D-4 step 3, v3.27).

    Returns:
        (the scratch build, the failure of the check workspace's set-up as a step-4
        result or None, the check workspace or None). A failed scratch build returns
        (build, None, None): step 3's to report.

    Raises:
        LemmataError: what :func:`write_workspace` raises (``toolchain-mismatch``,
            ``hostile-path``).
    """
    held = set(contributed)
    scratch = _write(work_dir, f"{name}-scratch", spec, sources, tc, role="scratch")
    built = tc.build(scratch, [s.module for s in sources], sandbox, caps,
                     export=[s.module for s in sources if s.module in held])
    if not built.ok:
        return built, None, None
    base = [s for s in sources if s.module not in held]
    check = _write(work_dir, f"{name}-check", spec, base, tc,
                   withheld=[s for s in sources if s.module in held])
    trusted = tc.build(check, [s.module for s in base], sandbox, caps)
    if not trusted.ok:
        return built, _fail(4, trusted.code or "lean-build-failed",
                            "the gate's own build of the base files failed: "
                            + (trusted.log or "")[-400:]), None
    try:
        check = place_carried(check, built.artifacts)
    except LemmataError as exc:
        return built, _fail(4, exc.code, exc.detail), None
    return built, None, check


# --- hole statements (shared with the post-merge job) -------------------------------


def hole_decl(parent_decl: str, k: int) -> str:
    """The declaration of hole node number ``k`` cut from a node declaring ``parent_decl``:
    ``<parent_decl>.h<k>`` (Foundation ruling 3 numbering)."""
    return f"{parent_decl}.h{k}"


def hole_statement_text(parent_statement: str, decl: str, hole: Hole, route: str,
                        parent: str) -> bytes:
    """The Statement.lean the gate writes for a hole (D-29 v3.22, v3.25): the parent
    statement's imports and top-level ``open`` lines, then the hole closed over its
    binders as Lean printed it, body ``sorry``. Only gate-written text is added; the
    contributor's text appears only through the toolchain's pretty-printer."""
    header = [f"import {mod}" for mod in import_lines(parent_statement)]
    opens = [ln for ln in parent_statement.splitlines()
             if ln.startswith("open ") and "--" not in ln]
    lines = [*header, "", *opens, "" if opens else None,
             (f"/-- Hole {hole.index} (`{hole.name}`) of the route `{route}`, cut from "
              f"`{parent}` (written by the gate, D-12 #5). -/"),
             f"theorem {decl} : {hole.statement} := by", "  sorry", ""]
    return "\n".join(x for x in lines if x is not None).encode("utf-8")


# --- the steps -----------------------------------------------------------------------


@dataclass
class _Run:
    """State of one artifact's run."""

    art: Artifact
    steps: list[StepResult] = field(default_factory=list)
    held: bool = False
    step9: m.Step9 | None = None
    waivers: list[str] = field(default_factory=list)
    holes: tuple[Hole, ...] = ()
    compare: CompareResult | None = None
    compare_decl: str = ""  # the declaration whose row of `compare` steps 4-5 read
    witness: WitnessResult | None = None
    build_errors: tuple[str, ...] = ()
    consumed: m.PrecheckConsumed | None = None
    toolchain_hash: str | None = None
    toolchain: Toolchain | None = None
    orphan: bool = False
    review: Review | None = None  # the forge's or the record's (:func:`artifact_review`)

    def add(self, res: StepResult) -> bool:
        self.steps.append(res)
        return res.ok


@dataclass
class _Ctx:
    repo: pygit2.Repository
    diff: Diff
    base: Graph
    head_date: str
    submitter: str | None
    mode: Mode
    toolchain: ToolchainSource
    sandbox: SandboxRunner
    review: Review | None
    precheck_raw: str | None
    work_dir: Path
    step0: Mapping[str, tuple[StepResult, m.PrecheckConsumed | None]] | None
    base_sha: str


def _fail(step: int, code: str, message: str, path: str | None = None,
          line: int | None = None) -> StepResult:
    return StepResult.refused(step, [Diagnostic(code, message, path, line)])


def _ssh_verifier(base: Graph) -> Callable[[Any, m.Signature], None]:
    def verify(att: Any, sig: m.Signature) -> None:
        ident = base.identities.get(sig.signer)
        if ident is None:
            raise LemmataError("unknown-key", f"no identity {sig.signer!r} under identities/")
        signing.verify_ssh(att, sig, list(ident.ssh_signers))
    return verify


def _artifact_hashes(diff: Diff, art: Artifact) -> list[m.ArtifactHash]:
    out = []
    for c in diff.changes:
        if c.path in art.paths and c.new_id is not None:
            try:
                out.append(m.ArtifactHash(path=c.path, sha256=sha256_hex(diff.new_bytes(c))))
            except ValidationError:  # a path no graph may hold: its refusal names it
                continue
    return out


def _step0(ctx: _Ctx, art: Artifact, spec: m.GateSpec, spec_sha: str
           ) -> tuple[StepResult, m.PrecheckConsumed | None]:
    key = f"{art.target}/{art.node}"
    if ctx.step0 is not None and key in ctx.step0:
        return ctx.step0[key]
    return A.check_precheck(
        ctx.precheck_raw, spec=spec, gate_spec_sha256=spec_sha, target=art.target,
        node=art.node or "root", artifacts=_artifact_hashes(ctx.diff, art),
        head_date=ctx.head_date, keys=ctx.base.keys, ssh_verify=_ssh_verifier(ctx.base))


def _step1(tc: Toolchain, spec: m.GateSpec, diff_findings: list[Diagnostic]
           ) -> tuple[StepResult, str | None]:
    """Step 1: no submitted pin file, the toolchain follows this gate-spec, and what is
    installed matches the pin; returns (result, the Lean githash when known)."""
    if diff_findings:
        return StepResult.refused(1, diff_findings), None
    if tc.spec != spec:
        return _fail(1, "toolchain-mismatch", "the toolchain was set up for another "
                     "gate-spec than the target's"), None
    info = tc.describe()
    if not info.ok:
        return _fail(1, info.code or "toolchain-missing",
                     info.detail or "toolchain not usable"), None
    return StepResult.passed(1), info.githash


def _step4(ctx: _Ctx, run: _Run, tc: Toolchain, ws: Workspace, plan: WorkPlan,
           caps: m.Caps, meta: m.Meta) -> StepResult:
    art = run.art
    solution = plan.solution_module
    to_replay = [solution] if solution else [s for s in (plan.statement_module,
                                                         plan.witness_module,
                                                         plan.relation_module) if s]
    rep = tc.replay(ws, to_replay, ctx.sandbox, caps)
    if not rep.ok:
        return _fail(4, rep.code or "kernel-replay-failed", rep.log[-500:] or "replay failed",
                     art.main)
    labelled = (art.kind is Kind.VARIANT and meta.variant is not None
                and meta.variant.relation != "related")
    if labelled:  # D-30: the label is kernel-checked through Relation.lean
        rel_path = f"targets/{art.target}/nodes/{art.node}/Relation.lean"
        if plan.relation is None or plan.relation_module is None:
            return _fail(4, "missing-file", "a labelled variant carries Relation.lean (D-30)",
                         rel_path)
        kind, left, right = plan.relation
        cmp = tc.check_relation(ws, kind, left, right, plan.relation_module,
                                relation_decl(plan.decl), list(tc.spec.axioms), ctx.sandbox,
                                caps)
        run.compare, run.compare_decl = cmp, relation_decl(plan.decl)
        return _compare_step4(cmp, relation_decl(plan.decl), rel_path)
    if solution is None:
        return StepResult.passed(4)
    if art.kind in _NEGATING:  # D-12 #2/#3: ¬statement, or ¬∃ its hypotheses
        cmp = tc.check_relation(ws, _NEGATING[art.kind], TermRef(plan.statement_module,
                                                                 plan.decl), None,
                                solution, plan.solution_decl, list(tc.spec.axioms),
                                ctx.sandbox, caps)
    else:
        cmp = tc.check_statement(ws, plan.statement_module, solution, [plan.decl],
                                 list(tc.spec.axioms), ctx.sandbox, caps)
    run.compare, run.compare_decl = cmp, plan.solution_decl
    refused = _compare_step4(cmp, plan.solution_decl, art.main)
    if not refused.ok or art.kind not in _ROUTES:
        return refused
    return _route_step4(ctx, run, tc, ws, plan, caps, solution)


def _compare_step4(cmp: CompareResult, decl: str, path: str) -> StepResult:
    """Step 4's reading of a comparison: the declaration exists and states exactly what it
    must (axioms are step 5's); a failure to run keeps its own code."""
    rows = {t.name: t for t in cmp.theorems}
    row = rows.get(decl)
    if cmp.code in ("declaration-missing", "statement-mismatch") or (
            row is not None and (not row.found or not row.type_equal
                                 or row.mismatched_constants)):
        code = "declaration-missing" if row is not None and not row.found else (
            cmp.code if cmp.code in ("declaration-missing", "statement-mismatch")
            else "statement-mismatch")
        msg = cmp.detail or (f"constants differ: {', '.join(row.mismatched_constants)}"
                             if row and row.mismatched_constants else "type differs")
        return _fail(4, code, msg, path)
    if row is None:
        code = cmp.code if cmp.code and not cmp.ok and cmp.code not in (
            "sorry-used", "native-code-used", "axiom-not-permitted") else "checker-failed"
        return _fail(4, code, cmp.detail or f"no report for {decl}", path)
    return StepResult.passed(4)


def _route_step4(ctx: _Ctx, run: _Run, tc: Toolchain, ws: Workspace, plan: WorkPlan,
                 caps: m.Caps, solution: str) -> StepResult:
    """A partial or reduction: holes, labels (D-12 v3.44), offload rule (D-12, v3.21)."""
    art = run.art
    holes = tc.extract_holes(ws, solution, plan.decl, ctx.sandbox, caps)
    if not holes.ok:
        return _fail(4, holes.code or "checker-failed", holes.detail, art.main)
    run.holes = holes.holes
    if not holes.holes:
        return _fail(4, "partial-without-holes", "no sorry in the assembly", art.main)
    findings: list[Diagnostic] = []
    if art.kind is Kind.PARTIAL:
        text = ctx.diff.new_bytes(next(c for c in ctx.diff.changes if c.path == art.main))
        lines = [h.line for h in holes.holes if h.line is not None]
        if len(lines) != len(holes.holes):
            findings.append(Diagnostic("partial-unlabelled", "the toolchain reported no "
                                       "source line for a hole, so its label cannot be read",
                                       art.main))
        findings.extend(partial_label_findings(text.decode("utf-8", "replace"), art.main,
                                               sorted(lines)))
    findings.extend(_offload_findings(ctx, tc, ws, plan, holes, caps))
    return StepResult.from_findings(4, findings)


def _offload_findings(ctx: _Ctx, tc: Toolchain, ws: Workspace, plan: WorkPlan,
                      holes: HolesResult, caps: m.Caps) -> list[Diagnostic]:
    """D-12 offload rule and v3.21: no hole defeq to the node's goal or any ancestor's."""
    assert plan.solution_module is not None
    out: list[Diagnostic] = []
    targets: list[tuple[str, str, str, str]] = [
        ("offload-restates-goal", "the node's own statement", plan.statement_module, plan.decl)]
    for anc, (mod, decl) in sorted(plan.ancestor_statements.items()):
        targets.append(("offload-restates-ancestor", f"ancestor {anc}", mod, decl))
    for h in holes.holes:
        left = TermRef(plan.solution_module, plan.decl, h.index)
        for code, what, mod, decl in targets:
            res = tc.defeq(ws, left, TermRef(mod, decl), ctx.sandbox, caps)
            if not res.ok:
                out.append(Diagnostic(res.code or "checker-failed",
                                      f"hole {h.index}: {res.detail}", None, h.line))
                return out
            if res.defeq:
                out.append(Diagnostic(code, f"hole {h.index} ({h.name}) restates {what}",
                                      None, h.line))
    return out


def _step5(ctx: _Ctx, run: _Run, spec: m.GateSpec, meta: m.Meta) -> StepResult:
    """Step 5 (D-4, v3.27; issue 10): the axioms of the declaration under check, read from
    its own result row (never another row of the report). ``sorryAx`` only where a route
    has holes; compiler-trusting axioms only under a signed waiver; every other axiom must
    be allowed by the gate-spec and, being allowed by name, be the pinned one: declared in
    the pinned module with the pinned type (:func:`network.gate.axioms.identity_problems`,
    ``axiom-identity-mismatch``). A missing row refuses (fail closed)."""
    art = run.art
    allowed = set(spec.axioms)
    if run.compare is not None:
        row = next((t for t in run.compare.theorems if t.name == run.compare_decl), None)
        if row is None:
            return _fail(5, "checker-failed",
                         "the checker's report has no row for "
                         f"{run.compare_decl or 'the declaration under check'}", art.main)
        axioms = list(row.axioms)
        identities = row.axiom_identities
        native = set(row.native) | {a for a in axioms if is_native_axiom(a)}
        sorry = row.sorry or "sorryAx" in axioms
    elif run.witness is not None:
        axioms = list(run.witness.axioms)
        identities = run.witness.axiom_identities
        native = {a for a in axioms if is_native_axiom(a)}
        sorry = "sorryAx" in axioms
    else:
        return StepResult.passed(5)
    findings: list[Diagnostic] = []
    if sorry and not (art.kind in _ROUTES and run.holes):
        findings.append(Diagnostic("sorry-used", "the proof depends on sorryAx", art.main))
    if native:
        waiver_path = f"targets/{art.target}/nodes/{art.node}/waivers/native_decide.yaml"
        has_waiver = waiver_path in art.paths or waiver_path in ctx.base.files
        signed = (run.review is not None and run.review.approved
                  and "native_decide" in run.review.signs_off
                  and run.review.reviewer != ctx.submitter)
        if has_waiver and signed:
            run.waivers = ["native_decide"]
        else:
            why = "no waivers/native_decide.yaml" if not has_waiver else \
                "no approving non-author review signs the waiver off"
            findings.append(Diagnostic("native-code-used",
                                       f"{', '.join(sorted(native))}: {why}", art.main))
    extra = [a for a in axioms if a not in allowed and a != "sorryAx" and a not in native]
    if extra:
        findings.append(Diagnostic("axiom-not-permitted", ", ".join(sorted(extra)), art.main))
    for problem in identity_problems(axioms, identities, sorted(allowed), spec.lean_toolchain):
        findings.append(Diagnostic("axiom-identity-mismatch", problem, art.main))
    return StepResult.from_findings(5, findings)


def _step6(ctx: _Ctx, tc: Toolchain, ws: Workspace, plan: WorkPlan, caps: m.Caps,
           meta: m.Meta, stmt_path: str) -> StepResult:
    """Step 6 (D-4): hazards, then the definitional anti-echo layer for each answer probe
    of the plan (``answer-defeq-target``; a test that did not run refuses with its code)."""
    res = tc.hazards(ws, plan.statement_module, [plan.decl], list(tc.spec.hazard_checkers),
                     ctx.sandbox, caps)
    if not res.ok:
        return _fail(6, res.code or "checker-failed", res.detail, stmt_path)
    acked = {hazard_location_key(a.checker, a.location) for a in meta.acknowledged_hazards}
    refused: list[Diagnostic] = []
    notes: list[Diagnostic] = []
    for f in res.findings:
        msg = f"{f.checker} at {f.location}: {f.message}"
        if hazard_location_key(f.checker, f.location) in acked:
            notes.append(Diagnostic("hazard-acknowledged", msg, stmt_path, f.line))
        elif meta.hole is not None:
            notes.append(Diagnostic("hazard-on-hole", msg, stmt_path, f.line))
        else:
            refused.append(Diagnostic("hazard-found", msg, stmt_path, f.line))
    for probe in plan.answer_probes:  # the definitional anti-echo layer (issue 12)
        found = answers.definitional_echo(
            tc, ws, TermRef(plan.statement_module, plan.decl),
            TermRef(probe.source.module, probe.decl), ctx.sandbox, caps, stmt_path, probe.line)
        if found and found[0].code != "answer-defeq-target":
            return StepResult.refused(6, found)  # the test did not run: fail closed
        refused += found
    return StepResult.refused(6, refused) if refused else StepResult.passed(6, *notes)


def _step7(ctx: _Ctx, run: _Run, tc: Toolchain, ws: Workspace, plan: WorkPlan,
           caps: m.Caps, spec: m.GateSpec) -> StepResult:
    art = run.art
    if art.kind is Kind.VACUITY:  # it proves no witness can exist (D-12 #3)
        return StepResult.passed(7, Diagnostic(
            "witness-not-applicable", "a vacuity certificate asks no witness", art.main))
    if plan.witness_module is None:
        return _fail(7, "witness-failed", "the node has no Witness.lean (D-29: a hole waits "
                     "for its witness before it can be proved)",
                     f"targets/{art.target}/nodes/{art.node}/Witness.lean")
    if run.witness is None:
        run.witness = tc.check_witness(ws, plan.statement_module, plan.decl,
                                       plan.witness_module, witness_decl(plan.decl),
                                       list(spec.axioms), ctx.sandbox, caps)
    if not run.witness.ok:
        return _fail(7, run.witness.code or "witness-failed",
                     run.witness.detail or "the witness does not check", art.main)
    if art.kind in _ROUTES and run.holes:
        return _carried_witnesses(ctx, run, tc, plan, caps, spec)
    return StepResult.passed(7)


def _carried_witnesses(ctx: _Ctx, run: _Run, tc: Toolchain, plan: WorkPlan, caps: m.Caps,
                       spec: m.GateSpec) -> StepResult:
    """D-29 v3.24: each witness a partial or reduction carries
    (``<route path without .lean>.h<k>.witness.lean``) against the statement its hole node
    will have."""
    art = run.art
    assert art.node is not None
    prefix = art.main[: -len(".lean")] + ".h"
    carried = {int(p[len(prefix):-len(".witness.lean")]): p for p in art.paths
               if p.startswith(prefix) and p.endswith(".witness.lean")}
    if not carried:
        return StepResult.passed(7)
    by_index = {h.index: h for h in run.holes}
    unknown = [Diagnostic("carried-witness-unknown-hole", f"no hole {k}", p)
               for k, p in sorted(carried.items()) if k not in by_index]
    if unknown:
        return StepResult.refused(7, unknown)
    parent_stmt = ctx.base.text(ctx.base.node(art.target, art.node).files["Statement"].path)
    sources = ws_defs(plan)
    checks: list[tuple[int, str, str]] = []
    for k, path in sorted(carried.items()):
        h = by_index[k]
        hid = f"{art.node}-carried-h{k}"  # a scratch folder, never a graph id
        decl = hole_decl(plan.decl, k)
        stmt = hole_statement_text(parent_stmt, decl, h, art.main, art.node)
        folder = PurePosixPath("Lemmata") / "Carried" / hid
        s_src = Source(f"Lemmata.Carried.{ids.lean_component(hid)}.Statement",
                       folder / "Statement.lean", stmt)
        w_src = Source(f"Lemmata.Carried.{ids.lean_component(hid)}.Witness",
                       folder / "Witness.lean",
                       ctx.diff.new_bytes(next(c for c in ctx.diff.changes if c.path == path)))
        sources += [s_src, w_src]
        checks.append((k, s_src.module, w_src.module))
    built, setup, ws2 = build_two_domains(tc, ctx.sandbox, ctx.work_dir,
                                          f"{_slug(art)}-carried", spec, sources,
                                          [w for _k, _s, w in checks], caps)
    if not built.ok:
        return _fail(7, built.code or "lean-build-failed", built.log[-500:], art.main)
    if ws2 is None:
        assert setup is not None
        return StepResult.refused(7, [Diagnostic(d.code, d.message, art.main)
                                      for d in setup.diagnostics])
    findings: list[Diagnostic] = []
    for k, smod, wmod in checks:
        decl = hole_decl(plan.decl, k)
        res = tc.check_witness(ws2, smod, decl, wmod, witness_decl(decl), list(spec.axioms),
                               ctx.sandbox, caps)
        if not res.ok:
            findings.append(Diagnostic(res.code or "witness-failed",
                                       f"hole {k}: {res.detail or 'the witness does not check'}",
                                       carried[k]))
    return StepResult.from_findings(7, findings)


def ws_defs(plan: WorkPlan) -> list[Source]:
    """The defs sources of a plan (a carried-witness workspace needs them too)."""
    return [s for s in plan.sources if ".Defs." in s.module]


def _slug(art: Artifact) -> str:
    return f"{art.target}--{art.node}--{art.kind.value}"


def _step8(ctx: _Ctx, run: _Run, tc: Toolchain, ws: Workspace, plan: WorkPlan,
           caps: m.Caps, meta: m.Meta) -> StepResult:
    art = run.art
    module = plan.solution_module or plan.statement_module
    decl = plan.solution_decl if plan.solution_module else plan.decl
    res = tc.used_constants(ws, module, [decl], ctx.sandbox, caps)
    if not res.ok:
        return _fail(8, res.code or "checker-failed", res.detail, art.main)
    used: set[str] = set()
    for mod in res.modules:
        nid = plan.node_of_module.get(_unquote(mod))
        if nid is not None and nid != art.node:
            used.add(nid)
    declared = set(meta.deps) | set(meta.lemmas) | set(plan.use_nodes)
    findings = [Diagnostic("undeclared-dependency", f"uses {n} without declaring it", art.main)
                for n in sorted(used - declared)]
    findings += [Diagnostic("unused-use", f"imports the proof of {n} but never uses it",
                            art.main) for n in sorted(set(plan.use_nodes) - used)]
    if art.node is not None and art.node in ctx.base.targets[art.target].nodes:
        ancestors = set(ancestors_of(ctx.base, art.target, art.node))
        findings += [Diagnostic("circular-use", f"{n} rests on {art.node}", art.main)
                     for n in sorted(used & ancestors)]
    return StepResult.from_findings(8, findings)


def settles_target(base: Graph, art: Artifact) -> bool:
    """Would ``art`` settle its target? (D-4 v3.20, D-30 v3.46): a closing artifact
    (proof, refutation, vacuity) on the root, or a proof of a resolves/refutes variant
    while the root is not closed."""
    if art.kind not in _SETTLING or art.node is None:
        return False
    t = base.targets[art.target]
    node = t.nodes.get(art.node)
    if node is None:
        return False
    if ids.revision_base(art.node)[0] == ids.ROOT and ids.parent_of(art.node) is None:
        return True
    rel = node.meta.variant
    if art.kind is Kind.PROOF and rel is not None and rel.relation in ("resolves", "refutes"):
        root = t.nodes.get(ids.ROOT)
        return root is None or derive.node_status(base, art.target, ids.ROOT) not in derive.CLOSED
    return False


def _answers_a_question(base: Graph, art: Artifact) -> bool:
    """Would ``art`` settle a target whose root is a question (``answer(sorry)``,
    :func:`derive.is_question`)? Not an alternate: its node was settled already."""
    t = base.targets[art.target]
    if art.kind is Kind.ALTERNATE or not t.record.answer_question or ids.ROOT not in t.nodes:
        return False
    return derive.is_question(base, art.target, ids.ROOT) and settles_target(base, art)


def step9_basis(base: Graph, art: Artifact, submitter: str | None,
                review: Review | None) -> tuple[m.Step9, bool]:
    """Step 9's recorded basis and whether the run is held (D-4 v3.11/v3.13/v3.15/v3.20,
    D-9 v3.39; ruling 5).

    An artifact that would settle a target whose root is a question (a proof of a
    resolving variant that fills the answer) always waits on a non-author's review, even
    on a calibration target (issue 12).

    Returns:
        (the attestation's ``step9``, True when the artifact waits on a review).
    """
    t = base.targets[art.target]
    rec = t.record
    node = t.nodes.get(art.node or "")
    if rec.target_class == "tutorial" or (node is not None and node.meta.tutorial):
        return m.Step9(basis="tutorial"), False
    if _answers_a_question(base, art):
        # whether a filled answer really answers is a person's judgment, on a calibration
        # target too and whatever vouches for the question's own statement (issue 12;
        # DESIGN.md "Importing from public registries")
        if review is not None and review.approved and review.reviewer != submitter:
            return m.Step9(basis="review", reviewer=review.reviewer), False
        return m.Step9(basis="awaiting-review"), True
    if rec.calibration or rec.target_class == "calibration":
        return m.Step9(basis="calibration"), False
    if art.kind is Kind.ALTERNATE:
        return m.Step9(basis="alternate"), False
    if not settles_target(base, art):
        return m.Step9(basis="intermediate"), False
    if derive.root_vouched(base, art.target):
        if rec.fidelity.grade in derive.GRADES_VOUCHING:
            return m.Step9(basis="certificate", certificate=rec.fidelity.certificate), False
        if rec.fidelity.catalog_evidence_points >= derive.CATALOG_EVIDENCE_POINTS:
            return m.Step9(basis="catalog-evidence"), False
        return m.Step9(basis="certificate"), False
    if review is not None and review.approved and review.reviewer != submitter:
        return m.Step9(basis="review", reviewer=review.reviewer), False
    return m.Step9(basis="awaiting-review"), True


def artifact_review(base: Graph, diff: Diff, art: Artifact, submitter: str | None,
                    forge_review: Review | None) -> Review | None:
    """The review steps 5 and 9 read for one artifact (D-4 step 9 v3.11/v3.15, D-4 Detail;
    ruling 5; issue 13): the forge's approving review when it is a non-author's, else the
    first merged review record on the base graph naming exactly this artifact's bytes
    (:func:`network.gate.proof_reviews.recorded_review`), else whatever the forge gave.
    The LocalForge queue and ``lemmata gate trusted`` both take the record this way."""
    if (forge_review is not None and forge_review.approved
            and not proof_reviews.same_person(forge_review.reviewer, submitter)):
        return forge_review
    rec = proof_reviews.recorded_review(base, art.target, art.node,
                                        _artifact_hashes(diff, art), submitter)
    if rec is not None:
        return Review(rec.by, True, tuple(rec.signs_off))
    return forge_review


# --- one artifact --------------------------------------------------------------------


def _meta_for(ctx: _Ctx, art: Artifact) -> m.Meta | None:
    t = ctx.base.targets.get(art.target)
    if t is None or art.node is None:
        return None
    node = t.nodes.get(art.node)
    if node is not None:
        return node.meta
    path = f"targets/{art.target}/nodes/{art.node}/META.yaml"
    ch = next((c for c in ctx.diff.changes if c.path == path and c.new_id), None)
    if ch is None:
        return None
    meta, _ = parse_record(path, ctx.diff.new_bytes(ch), m.Meta)
    return meta


def _answer_echo_findings(ctx: _Ctx, art: Artifact) -> list[Diagnostic]:
    """Step 6's syntactic anti-echo check over every Statement.lean the artifact adds
    (:func:`network.gate.answers.syntactic_findings`; issue 12, Formal Conjectures #4923)."""
    out: list[Diagnostic] = []
    for ch in ctx.diff.changes:
        if ch.path not in art.paths or not ch.path.endswith("/Statement.lean") \
                or not ch.new_id or ch.mode == 0o120000:
            continue
        row = layout.match(ch.path)
        if row is None or ctx.diff.new_size(ch) > row[0].max_bytes(
                ctx.base.policy.max_file_bytes):
            continue  # step 2 refuses it and its bytes stay unread
        try:
            text = ctx.diff.new_bytes(ch).decode("utf-8", "replace")
        except LemmataError:
            continue  # not a file: step 2's finding
        out += answers.syntactic_findings(text, ch.path)
    return out


def _static_steps(ctx: _Ctx, run: _Run, spec: m.GateSpec, spec_sha: str,
                  step1_diff: list[Diagnostic], step2_findings: list[Diagnostic]) -> bool:
    """Steps 2, 0 and 1 of a building artifact, in that order (issue 9); True when all
    three passed and the build may start (``run.toolchain`` is then set).

    Step 2 needs no toolchain and runs first, so its findings are reported whether or not
    Lean is installed. When it passes, step 0 (authoritative runs) may bounce the artifact
    before any toolchain is looked for (ruling 7). When it fails, the artifact is refused
    whatever follows, and steps 0 and 1 still run so that one round shows everything to
    fix (STYLE.md rule 4): a missing precheck and ``toolchain-missing`` are listed beside
    the step-2 findings. The steps list is in the order run, ``[2, 0, 1]`` (``[2, 1]`` in
    precheck mode), and the verdict is read from the first failing entry: ``fail`` for a
    step-2 refusal, ``bounced`` for step 0 after a passing step 2, never a pass without
    a toolchain (its step 1 refuses). Step 6's syntactic anti-echo finding (issue 12) needs
    no Lean either: it is listed right after step 2 (``[2, 6, 0, 1]``) and refuses the
    artifact before any build.
    """
    res2 = run.add(StepResult.from_findings(2, step2_findings))
    echoes = _answer_echo_findings(ctx, run.art)
    if echoes:  # step 6's syntactic anti-echo layer needs no Lean (issue 12)
        run.add(StepResult.refused(6, echoes))
    if ctx.mode == "authoritative":
        res0, run.consumed = _step0(ctx, run.art, spec, spec_sha)
        if not run.add(res0) and res2:
            return False
    run.toolchain = _resolve_toolchain(ctx.toolchain, spec)
    res1, run.toolchain_hash = _step1(run.toolchain, spec, step1_diff)
    return run.add(res1) and res2 and all(st.ok for st in run.steps)


def _judge(ctx: _Ctx, art: Artifact, step1_diff: list[Diagnostic],
           step2_findings: list[Diagnostic]) -> _Run:
    run = _Run(art)
    plan_steps = art.plan.steps
    builds = art.plan.builds
    t = ctx.base.targets.get(art.target)
    if t is None:
        run.add(StepResult.refused(2, step2_findings or [Diagnostic("unknown-target",
                                                                   art.target)]))
        return run
    spec, spec_sha = t.gate_spec, t.gate_spec_sha256
    if not builds:  # record-only kinds: schema, signature and role checks (ruling 6)
        run.add(StepResult.from_findings(2, step1_diff + step2_findings))
        return run
    if not _static_steps(ctx, run, spec, spec_sha, step1_diff, step2_findings):
        return run
    run.review = artifact_review(ctx.base, ctx.diff, art, ctx.submitter, ctx.review)
    tc = run.toolchain
    assert tc is not None
    meta = _meta_for(ctx, art)
    if meta is None or art.node is None:
        run.add(_fail(3, "missing-file", "the node's META.yaml cannot be read", art.main))
        return run
    caps = spec.caps
    try:
        head_bytes = {c.path: ctx.diff.new_bytes(c) for c in ctx.diff.changes
                      if c.path in art.paths and c.new_id is not None}
        plan = plan_workspace(ctx.base, head_bytes, art)
        built, setup, check = build_two_domains(tc, ctx.sandbox, ctx.work_dir, _slug(art),
                                                spec, plan.sources, plan.contributed, caps)
    except LemmataError as exc:
        step = 1 if exc.code == "toolchain-mismatch" else 3
        run.add(_fail(step, exc.code, exc.detail, exc.path))
        return run
    run.build_errors = tuple(msg.data for msg in built.messages if msg.severity == "error")
    if not run.add(StepResult.passed(3) if built.ok else
                   _fail(3, built.code or "lean-build-failed",
                         (built.log or "build failed")[-500:], art.main)):
        return run
    if check is None:  # the check workspace could not be set up: no check runs
        assert setup is not None
        run.add(StepResult.refused(4, [Diagnostic(d.code, d.message, art.main)
                                       for d in setup.diagnostics]))
        return run
    ws = check
    if not run.add(_step4(ctx, run, tc, ws, plan, caps, meta)):
        return run
    if plan.solution_module is None and plan.witness_module is not None:
        run.witness = tc.check_witness(ws, plan.statement_module, plan.decl,
                                       plan.witness_module, witness_decl(plan.decl),
                                       list(spec.axioms), ctx.sandbox, caps)
    if not run.add(_step5(ctx, run, spec, meta)):
        return run
    stmt_path = f"targets/{art.target}/nodes/{art.node}/Statement.lean"
    if not run.add(_step6(ctx, tc, ws, plan, caps, meta, stmt_path)):
        return run
    if not run.add(_step7(ctx, run, tc, ws, plan, caps, spec)):
        return run
    if not run.add(_step8(ctx, run, tc, ws, plan, caps, meta)):
        return run
    if ctx.mode == "authoritative" and 9 in plan_steps:
        run.step9, run.held = step9_basis(ctx.base, art, ctx.submitter, run.review)
        run.add(StepResult.passed(9))
    return run


def _placed(diag: Diagnostic, art: Artifact) -> bool:
    if diag.path is None:
        return False
    if diag.path in art.paths:
        return True
    return art.node is not None and diag.path.startswith(
        f"targets/{art.target}/nodes/{art.node}/")


def _verdict(steps: Sequence[StepResult], held: bool) -> Verdict:
    v, _ = A.verdict_of(steps, held)
    return v  # type: ignore[return-value]


def _finish(ctx: _Ctx, run: _Run, *, gate_key: Ed25519PrivateKey | None, key_id: str,
            runner: str, disclosure: m.Disclosure | None) -> ArtifactRun:
    art = run.art
    verdict = _verdict(run.steps, run.held)
    t = ctx.base.targets.get(art.target)
    meta = _meta_for(ctx, art)
    statement_hash = meta.statement_hash if meta is not None else None
    artifacts = _artifact_hashes(ctx.diff, art)
    first = next((s for s in run.steps if not s.ok), None)
    elaboration = None
    if first is not None and first.step >= 3 and run.build_errors:
        elaboration = "\n".join(run.build_errors)[:100_000]
    node = art.node or "root"
    if ctx.mode == "precheck":
        spec_sha = t.gate_spec_sha256 if t else "0" * 64
        pre = m.PrecheckAttestation(
            graph_id=ctx.base.policy.graph_id, target=art.target, node=node,
            artifact_kind="unplaced" if run.orphan else art.kind.value, artifacts=artifacts,
            statement_hash=statement_hash,
            gate_spec_sha256=spec_sha,
            toolchain=t.gate_spec.lean_toolchain if t else "unknown",
            verdict="precheck-pass" if verdict == "pass" else "precheck-fail",
            first_failing_step=first.step if first else None,
            steps=[s.to_record() for s in run.steps], submitter=ctx.submitter,
            date=ctx.head_date)
        return ArtifactRun(art, tuple(run.steps), verdict, precheck=pre, holes=run.holes,
                           build_messages=run.build_errors)
    spec = t.gate_spec if t else m.GateSpec(lean_toolchain="leanprover/lean4:v0.0.0")
    att = A.build_attestation(
        graph_id=ctx.base.policy.graph_id, target=art.target, node=node,
        statement_hash=statement_hash,
        artifact_kind="unplaced" if run.orphan else art.kind.value, artifacts=artifacts,
        spec=spec, gate_spec_sha256=t.gate_spec_sha256 if t else "0" * 64,
        toolchain_hash=run.toolchain_hash, base_commit=ctx.base_sha,
        head_commit=ctx.diff.head, graph_commit=ctx.base_sha, head_date=ctx.head_date,
        steps=run.steps, step9=run.step9 or (m.Step9(basis="not-applicable")
                                             if not art.plan.builds else None),
        held=run.held, submitter=ctx.submitter, disclosure=disclosure,
        precheck=run.consumed, waivers=run.waivers,
        elaboration_state=elaboration, runner=runner)
    if gate_key is not None:
        att = A.sign_attestation(att, gate_key, key_id)
    return ArtifactRun(art, tuple(run.steps), verdict, attestation=att, holes=run.holes,
                       build_messages=run.build_errors)


def _orphan_artifact(unplaced: list[Diagnostic], base: Graph) -> Artifact | None:
    """An artifact to carry findings that no artifact holds, so the run is published: on
    the target (and node) the first finding's path names, else on the graph's first
    target in id order (a root-level path such as a ``..`` entry names none; the
    attestation still publishes the refusal, issue 9). None only for a graph with no
    target."""
    for d in unplaced:
        parts = (d.path or "").split("/")
        if len(parts) >= 2 and parts[0] == "targets" and parts[1] in base.targets:
            node = parts[3] if len(parts) >= 5 and parts[2] == "nodes" else "root"
            try:
                ids.check_node_id(node)
            except LemmataError:
                node = "root"
            return Artifact(Kind.PROOF, parts[1], node, [d.path or ""], d.path or "")
    if base.targets:
        return Artifact(Kind.PROOF, min(base.targets), "root", [], "")
    return None


def run_gate(
    repo: str | Path,
    base: str,
    head: str,
    *,
    toolchain: ToolchainSource,
    sandbox: SandboxRunner,
    precheck_raw: str | None = None,
    submitter: str | None = None,
    gate_key: Ed25519PrivateKey | None = None,
    key_id: str = "gate",
    runner: Literal["local", "hosted"] = "local",
    mode: Mode = "authoritative",
    review: Review | None = None,
    disclosure: m.Disclosure | None = None,
    work_dir: Path | None = None,
    recorded_step0: Mapping[str, tuple[StepResult, m.PrecheckConsumed | None]] | None = None,
    base_graph: Graph | None = None,
) -> GateOutcome:
    """Run the gate over the pull request ``base..head`` of the graph repository ``repo``.

    Args:
        repo: the graph repository (bare or not; the graph is its root).
        base: the main commit the pull request is judged against (40 hex or a revision);
            the changes are those of ``merge-base(base, head)..head``, judged against the
            graph at ``base``.
        head: the pull request's head commit.
        toolchain: a :class:`~network.gate.toolchain.Toolchain` whose ``spec`` must be the
            target's gate-spec, or a callable ``spec -> Toolchain`` (product code passes
            :func:`~network.gate.toolchain.detect_toolchain`; tests the recorded stand-in).
        sandbox: the step-3 sandbox every Lean call runs in
            (:class:`~network.gate.sandbox.Sandbox`).
        precheck_raw: the pull request's precheck attestation JSON (ruling 7), or None.
        submitter: the pseudonym credited (the commit author on the forge).
        gate_key, key_id: the gate's Ed25519 key; None leaves attestations unsigned.
        runner: the attestation's runner class (masked in reproduction, D-34).
        mode: ``authoritative`` (steps 0-9) or ``precheck`` (steps 1-8, D-27/D-28).
        review: the approving review, if any (step 9 and the native_decide sign-off).
        disclosure: model and tooling as the operator declared them (D-23 v3.37).
        work_dir: where workspaces are written (a fresh temporary folder when None,
            removed afterwards).
        recorded_step0: ``"<target>/<node>" -> (step-0 result, consumed)`` to reuse
            instead of re-deriving step 0 (``reproduce.sh``: D-5 replays steps 1-8).
        base_graph: the graph already loaded at ``base`` (a queue or service judging many
            submissions against one main reuses it); ignored unless its ``commit`` is
            ``base``'s.

    Returns:
        :class:`GateOutcome`; its ``exit_code`` is 0 merge, 1 refused, 2 held.

    Raises:
        LemmataError: ``submitter-invalid`` for a submitter that is no pseudonym;
            ``git-error`` when a commit does not resolve; ``not-a-graph`` or
            ``validation-failed`` when the base graph cannot be loaded. Anything else
            escaping is a bug (exit 3).

    Implements D-4 steps 0-9, D-5, D-34, rulings 2, 5, 6, 7.
    """
    if submitter is not None and not _PSEUDONYM_RE.fullmatch(submitter):
        raise LemmataError("submitter-invalid", f"{submitter[:80]!r} is not a pseudonym")
    r = pygit2.Repository(str(repo))
    try:
        base_sha = str(r.revparse_single(base).peel(pygit2.Commit).id)
        head_sha = str(r.revparse_single(head).peel(pygit2.Commit).id)
    except (KeyError, ValueError, pygit2.GitError) as exc:
        raise LemmataError("git-error", f"cannot resolve {base!r}..{head!r}: {exc}") from exc
    mb = r.merge_base(pygit2.Oid(hex=base_sha), pygit2.Oid(hex=head_sha))
    from_sha = str(mb) if mb is not None else base_sha
    diff = diff_commits(repo, from_sha, head_sha)
    if base_graph is None or base_graph.commit != base_sha:
        base_graph = load_graph(repo, commit=base_sha)
    head_date = commit_date(r, head_sha)
    own_tmp = work_dir is None
    wd = Path(tempfile.mkdtemp(prefix="lemmata-gate-")) if work_dir is None else work_dir
    try:
        ctx = _Ctx(r, diff, base_graph, head_date, submitter, mode, toolchain, sandbox,
                   review, precheck_raw, wd, recorded_step0, base_sha)
        s12 = run_steps_1_2(diff, base_graph, submitter, head_date)
        arts = s12.artifacts
        s1 = list(s12.step1.diagnostics)
        s2 = list(s12.step2.diagnostics)
        unplaced = [d for d in s1 + s2 if not any(_placed(d, a) for a in arts)]
        runs_in: list[tuple[Artifact, list[Diagnostic], list[Diagnostic]]] = []
        for art in arts:
            mine1 = [d for d in s1 if d in unplaced or _placed(d, art)]
            mine2 = [d for d in s2 if d in unplaced or _placed(d, art)]
            runs_in.append((art, mine1, mine2))
        if not arts:
            orphan = _orphan_artifact(unplaced or [Diagnostic("path-not-permitted",
                                                              "the pull request changes "
                                                              "nothing")], base_graph)
            if orphan is not None:
                findings = unplaced or [Diagnostic("path-not-permitted", "no artifact")]
                runs_in.append((orphan, [], findings))
        runs: list[ArtifactRun] = []
        for art, mine1, mine2 in runs_in:
            run = _judge(ctx, art, mine1, mine2) if arts else _Run(
                art, [StepResult.refused(2, mine2)], orphan=True)
            runs.append(_finish(ctx, run, gate_key=gate_key, key_id=key_id, runner=runner,
                                disclosure=disclosure))
        verdicts = {x.verdict for x in runs}
        verdict: Verdict = ("fail" if "fail" in verdicts or not runs else
                            "bounced" if "bounced" in verdicts else
                            "held" if "held" in verdicts else "pass")
        return GateOutcome(mode, base_sha, head_sha, head_date, verdict, tuple(runs),
                           tuple(unplaced))
    finally:
        if own_tmp:
            shutil.rmtree(wd, ignore_errors=True)


def attestation_path(att: m.Attestation) -> str:
    """Where an attestation lands on main: ``attestations/<id>.json`` (ruling 8)."""
    return f"attestations/{A.attestation_id(att)}.json"


def attestation_files(outcome: GateOutcome) -> dict[str, bytes]:
    """The files that publish an outcome's attestations (ruling 8), path → bytes."""
    return {attestation_path(a): A.attestation_bytes(a) for a in outcome.attestations}
