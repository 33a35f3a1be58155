"""The typed results every :class:`~network.gate.lean.toolchain.Toolchain` method returns.

One frozen dataclass per kind of Lean answer (DESIGN.md "Lean"): the installed toolchain
(step 1), a build (step 3), a kernel replay (step 4), a statement comparison with its
axioms (steps 4-5, D-4 v3.27), a witness (step 7), used constants (step 8, v3.25), the
holes of a partial (D-12 #5, D-29), hazard findings (step 6), a definitional-equality test
(D-12 offload rule, v3.21), the relation kinds (D-12 #2/#3, D-30) and a merged proof's
outline (D-3 v3.30). They are data only: the interface that returns them, the missing
toolchain and the parsers of Lean's output stay in :mod:`network.gate.lean.toolchain`, which
re-exports every name here (issue 17).

Every result carries ``ok`` and ``code``: ``ok`` is True only when the check passed, and
then ``code`` is None; otherwise ``code`` is a catalog code (defined in
:mod:`network.gate.lean.toolchain`). A result's data (axioms, constants, holes, findings) comes
from a Lean program's JSON, never from message text (LEAN_NOTES "Never parse data for
verdicts").
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from network.gate.lean.kernels import KernelVerdict
from network.gate.sandbox.sandbox import KilledBy
from network.gate.sandbox.workspace import OleanArtifact


@dataclass(frozen=True)
class ToolchainInfo:
    """What toolchain is installed (step 1).

    Attributes:
        ok: True when lean and lake were found and match the pinned version.
        code: None, ``toolchain-missing`` or ``toolchain-mismatch``.
        pinned: the gate-spec pin, e.g. ``leanprover/lean4:v4.34.0``.
        lean_version: the installed version, e.g. ``4.34.0``; None when unknown.
        githash: the Lean githash (40 hex), None when unknown.
        paths: tool name → absolute path, for lean, lake, leanchecker, comparator, ...
        detail: a sentence for the reader.
    """

    ok: bool
    code: str | None
    pinned: str
    lean_version: str | None = None
    githash: str | None = None
    paths: Mapping[str, str] = field(default_factory=dict)
    detail: str = ""


@dataclass(frozen=True)
class LeanMessage:
    """One message of ``lean --json`` (LEAN_NOTES: lean4 src/Lean/Message.lean).

    ``line`` is 1-based, ``column`` 0-based as Lean prints them. ``data`` is the rendered
    text: a diagnostic for people, never read for a verdict.
    """

    file_name: str
    line: int
    column: int
    severity: Literal["information", "warning", "error"]
    data: str
    end_line: int | None = None
    end_column: int | None = None
    caption: str = ""
    kind: str | None = None


@dataclass(frozen=True)
class BuildResult:
    """A sandboxed ``lake build`` of some modules (D-4 step 3).

    Attributes:
        ok: lake exited 0 and no cap fired.
        code: None, ``lean-build-failed``, ``resource-cap-exceeded``,
            ``sandbox-unavailable``, ``toolchain-missing``.
        modules: the module names built.
        messages: every ``lean --json`` message of those modules' own files.
        rc: lake's exit status (-1 when it never ran).
        killed_by: which cap ended it, if any.
        log: the tail of lake's output (at most 20,000 characters).
        artifacts: the compiled files of the modules ``build`` was asked to ``export``,
            read from the scratch tree without following links, with their SHA-256
            (:func:`~network.gate.sandbox.workspace.export_oleans`); empty unless ``ok``.
    """

    ok: bool
    code: str | None
    modules: tuple[str, ...]
    messages: tuple[LeanMessage, ...] = ()
    rc: int = -1
    killed_by: KilledBy | None = None
    log: str = ""
    artifacts: tuple[OleanArtifact, ...] = ()


@dataclass(frozen=True)
class ReplayResult:
    """Kernel replay of compiled modules (D-4 step 4, v3.16, v3.27).

    Attributes:
        ok: every module replayed cleanly (and Comparator, when used, accepted).
        code: None, ``kernel-replay-failed``, ``resource-cap-exceeded``, ...
        modules: the modules replayed.
        method: "leanchecker" or "comparator".
        fresh: True when replayed into an empty environment (``--fresh``).
        second_kernel: "nanoda" when Comparator also ran nanoda.
        failed_module: the first module that failed, if any.
        log: diagnostic output (stdout/stderr tail).
        kernels: each kernel's verdict (issue 37: Lean's own kernel, then every
            independent kernel the gate's soundness record pins, on the modules'
            export), in the order run; step 4 judges them with
            :func:`network.gate.lean.kernels.judge_kernels`, whatever ``ok`` says.
    """

    ok: bool
    code: str | None
    modules: tuple[str, ...]
    method: Literal["leanchecker", "comparator"] = "leanchecker"
    fresh: bool = False
    second_kernel: str | None = None
    failed_module: str | None = None
    log: str = ""
    kernels: tuple[KernelVerdict, ...] = ()


@dataclass(frozen=True)
class AxiomIdentity:
    """What an axiom is known by (step 5, D-4 v3.27; :mod:`network.gate.lean.axioms`).

    Attributes:
        name: the axiom's full name, e.g. ``propext``.
        module: the module that declares it, e.g. ``Init.Core``; None when the checked
            file itself does (or the checker could not say).
        type_sha256: SHA-256 hex of its identity key (the checkers' ``constKey``:
            universe parameters, ``|``, a structural text of the type); None when unknown.
    """

    name: str
    module: str | None
    type_sha256: str | None


@dataclass(frozen=True)
class TheoremComparison:
    """One theorem of :class:`CompareResult`.

    Attributes:
        name: the declaration name (the same in statement and solution).
        found: the solution module declares it (as a theorem).
        type_equal: its type equals the statement's (alpha-equivalence, same universe
            parameters).
        mismatched_constants: constants the statement's type uses, transitively, that are
            missing or different in the solution's environment.
        axioms: every axiom the solution's proof depends on (collectAxioms), sorted.
        disallowed_axioms: those not in the permitted list (sorryAx and native ones
            included).
        sorry: sorryAx is among the axioms.
        native: axioms that trust the compiler (``Lean.ofReduceBool``, ``Lean.ofReduceNat``,
            ``Lean.trustCompiler``, any name with a ``_native`` component).
        axiom_identities: each axiom's declaring module and type hash, which step 5
            matches against the pinned table for allowed names (issue 10).
    """

    name: str
    found: bool
    type_equal: bool
    mismatched_constants: tuple[str, ...] = ()
    axioms: tuple[str, ...] = ()
    disallowed_axioms: tuple[str, ...] = ()
    sorry: bool = False
    native: tuple[str, ...] = ()
    axiom_identities: tuple[AxiomIdentity, ...] = ()


@dataclass(frozen=True)
class CompareResult:
    """Statement versus solution: types, transitive constants, axioms (D-4 steps 4-5).

    ``code`` is the first failure in this order: ``declaration-missing``,
    ``statement-mismatch``, ``sorry-used``, ``native-code-used``, ``axiom-not-permitted``.
    The gate may still accept ``native-code-used`` under a recorded waiver (D-4), which is
    the steps' decision, not this result's.
    """

    ok: bool
    code: str | None
    theorems: tuple[TheoremComparison, ...] = ()
    detail: str = ""


@dataclass(frozen=True)
class WitnessResult:
    """Step 7: the witness declares the expected existential and is proved cleanly.

    Attributes:
        expected_type: the existential built from the statement (pretty-printed).
        witness_type: the witness declaration's type (pretty-printed), None if absent.
        axioms / disallowed_axioms: of the witness proof.
        axiom_identities: the witness proof's axioms' modules and type hashes (step 5).
    """

    ok: bool
    code: str | None
    witness: str = ""
    expected_type: str | None = None
    witness_type: str | None = None
    axioms: tuple[str, ...] = ()
    disallowed_axioms: tuple[str, ...] = ()
    detail: str = ""
    axiom_identities: tuple[AxiomIdentity, ...] = ()


@dataclass(frozen=True)
class UsedConstantsResult:
    """Step 8: which graph constants and modules a declaration's kernel term uses.

    Attributes:
        decls: the declarations examined.
        constants: graph constants (those defined in modules under ``prefix``) the
            declarations' terms use, through the artifact's own module's constants whole
            and other graph constants by their meaning (types, definitions' values), never
            through another node's proof (UsedConstants.lean), sorted.
        modules: the graph modules defining them, sorted.
    """

    ok: bool
    code: str | None
    decls: tuple[str, ...] = ()
    constants: tuple[str, ...] = ()
    modules: tuple[str, ...] = ()
    detail: str = ""


@dataclass(frozen=True)
class HoleBinder:
    """One local in scope at a hole: name, pretty-printed type, binder info."""

    name: str
    type: str
    binder_info: Literal["default", "implicit", "strictImplicit", "instImplicit"] = "default"


@dataclass(frozen=True)
class Hole:
    """One ``sorry`` of a partial proof (D-12 #5, D-29).

    Attributes:
        index: 1-based, in term traversal order (left to right, outside in).
        name: the ``have`` name the sorry fills, else ``hole<index>``.
        goal: the expected type, pretty-printed in the hole's local context.
        binders: the locals in scope, outermost first.
        statement: the hole closed over its binders, pretty-printed as a Pi type; this is
            the hole node's statement (D-29 v3.22: "closed over everything in scope").
        line / column: the source position decoded from a labelled sorry (Lean ≥ 4.16),
            None when unavailable; the steps match ``-- label:`` comments by it.
    """

    index: int
    name: str
    goal: str
    binders: tuple[HoleBinder, ...] = ()
    statement: str = ""
    line: int | None = None
    column: int | None = None


@dataclass(frozen=True)
class HolesResult:
    """The holes of one declaration of a partial proof."""

    ok: bool
    code: str | None
    decl: str = ""
    holes: tuple[Hole, ...] = ()
    detail: str = ""


HazardChecker = Literal["nat-subtraction", "division-by-zero", "junk-values",
                        "int-truncation", "unused-binders", "off-by-one-ranges"]


@dataclass(frozen=True)
class HazardFinding:
    """One static hazard in a statement (D-4 step 6).

    Attributes:
        checker: which checker fired.
        decl: the declaration whose type holds it.
        location: ``"<decl>: <subterm>"``, at most 200 characters: what an
            acknowledgment in META.yaml names.
        subterm: the offending subterm, pretty-printed.
        proposition: the smallest enclosing proposition, pretty-printed (context).
        message: one sentence on why it is a hazard.
        line: the declaration's first line, when the olean carries ranges.
    """

    checker: str
    decl: str
    location: str
    subterm: str
    proposition: str
    message: str
    line: int | None = None


@dataclass(frozen=True)
class HazardsResult:
    """Step 6: every finding over the statement; ``ok`` means the checkers ran.

    ``ok`` is True (and ``code`` None) when the checkers completed, even with findings:
    deciding which findings are acknowledged in META.yaml, and refusing the rest with
    ``hazard-found``, is the step's job. A failure to run sets ``ok`` False with a code.
    """

    ok: bool
    code: str | None
    findings: tuple[HazardFinding, ...] = ()
    detail: str = ""


@dataclass(frozen=True)
class TermRef:
    """A type to compare: a declaration's type, or one of its holes' statements.

    Attributes:
        module: the module to import.
        decl: the declaration.
        hole: None for the declaration's type, k (1-based) for its k-th hole's statement.
    """

    module: str
    decl: str
    hole: int | None = None


@dataclass(frozen=True)
class DefEqResult:
    """The offload rule's test (D-12 offload rule, v3.21): are two statements defeq?

    Attributes:
        ok: the test ran; read ``defeq`` for its answer.
        defeq: the two are definitionally equal (same term after renaming bound variables,
            unfolding definitions and computing; no theorem used). None when not run.
        comparable: both sides' constants exist and agree in the left side's environment.
    """

    ok: bool
    code: str | None
    defeq: bool | None = None
    comparable: bool = False
    detail: str = ""


RelationKind = Literal["negation", "vacuity", "implies", "implies-not"]
"""What :meth:`~network.gate.lean.toolchain.Toolchain.check_relation` builds from the
statements' declarations:

* ``negation``: ``¬ L`` (a counterexample, D-12 #2: a kernel proof of ¬P, P closed over its
  binders, which a theorem's type already is);
* ``vacuity``: ``¬ ∃ x₁ … xₙ, P₁ ∧ … ∧ Pₘ`` over L's data binders and hypotheses, the
  existential built exactly as the witness's (D-12 #3, D-4 step 7);
* ``implies``: ``L → R`` (D-30: resolves is variant → root, partial is root → variant);
* ``implies-not``: ``L → ¬ R`` (D-30 v3.46: refutes is variant → ¬root).
"""

RELATION_KINDS: tuple[str, ...] = ("negation", "vacuity", "implies", "implies-not")
JOIN_KINDS: tuple[str, ...] = ("implies", "implies-not")


OutlineKind = Literal["have", "let", "theorem"]
#: why a step is Lean only (network/gate/lean/Outline.lean's ``why``; "goal: <why>" when it
#: is the goal left that does not read back)
OUTLINE_WHY: tuple[str, ...] = ("anonymous-name", "inaccessible-name", "sorry-in-claim",
                                "print-failed", "inaccessible-local", "elided-proof",
                                "goal-not-inferred", "shadowing-name")


@dataclass(frozen=True)
class OutlineStep:
    """One named step of a merged proof, read by Outline.lean from the compiled,
    kernel-checked term alone (D-3 v3.30; the source is never read).

    Attributes:
        decl: the declaration whose term holds the step.
        index: 1-based position among the declaration's steps, outside in, left to right.
        kind: ``have`` (a non-dependent let, or ``letFun`` in older terms), ``let``, or
            ``theorem`` when the proof has no named step and the whole theorem is the one.
        depth: how many steps enclose this one's value (0 at the top).
        name: the binder's name (the claim's label); None when anonymous.
        lean_only: True when the step does not read back (``why`` says which test
            failed): then ``claim`` and ``goal`` are None and the step is shown as Lean.
        why: the reason it is Lean only, None otherwise.
        claim: the binder's kernel-checked type, pretty-printed in the step's context.
        goal: the goal left with the step in scope; None when the step closes it (the
            whole theorem) or is Lean only.
        constants: the constants the step's value uses, sorted.
        automation: tactics marked by those constants (Outline.lean's table), sorted.
        hole: the step's value is ``sorry``: a partial's open step, which became a hole.
    """

    decl: str
    index: int
    kind: OutlineKind
    depth: int = 0
    name: str | None = None
    lean_only: bool = True
    why: str | None = None
    claim: str | None = None
    goal: str | None = None
    constants: tuple[str, ...] = ()
    automation: tuple[str, ...] = ()
    hole: bool = False


@dataclass(frozen=True)
class OutlineResult:
    """The outline of one compiled module of a merged proof (D-3 v3.30).

    ``ok`` only when Outline.lean ran and every requested declaration is in the compiled
    module; then ``steps`` are their steps in order (a declaration with no named step has
    one, the whole theorem)."""

    ok: bool
    code: str | None
    module: str = ""
    decls: tuple[str, ...] = ()
    steps: tuple[OutlineStep, ...] = ()
    detail: str = ""
