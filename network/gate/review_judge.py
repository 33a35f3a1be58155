"""The gate judging a review candidate's statement or a review exhibit's proof in Lean (D-9
v3.39 stages 3 and 4, v3.12 layers 1, 2 and 4; docs/review.md; issue 27).

A review's Lean is untrusted contributor code and is judged as a proof is (issue 10, D-4
v3.27): built in a throwaway scratch workspace, then checked in a fresh workspace built
from base bytes with only the contributed module's compiled files carried over, so no
check executes its code. Steps, in order ``[2, (4,) 1, 3, 4, 5]``:

* step 2's findings (:mod:`network.gate.records.review_rules`), then step 4's
  ``toolchain-known-unsound`` for the target's pin, which need no Lean;
* step 1: the pinned toolchain (``toolchain-missing`` without one: never a pass);
* step 3: the build of the target's defs, the candidates the act names (base bytes) and
  the contributed module (head bytes);
* step 4: kernel replay of the contributed module in every kernel the pin runs, then
  - a **candidate**: its ``declaration`` exists in its module (compared with itself, so
    ``declaration-missing`` when it does not), which is stage 3's "compile"; a wrapper's
    theorem is also definitionally equal to the imported candidate's it restates
    (``defeq``; ``review-wrapper-not-rfl`` otherwise);
  - a **proves** exhibit: its theorem states exactly the candidate's statement (the
    same name, ``check_statement``);
  - a **probe**: its theorem states exactly the probe statement the gate writes from the
    base's test and candidate (holds: the concept's predicate at the arguments; covers and
    witness: the candidate's claim applied to empty or small-set predicates, the claim
    first shown definitionally the candidate's theorem, ``review-claim-not-rfl``);
  - a **negation** or **vacuity** exhibit: its theorem states ``¬ C`` or ``¬ ∃`` C's
    hypotheses, built in Lean from the candidate's declaration (``check_relation``);
  - an **implies** exhibit: its theorem states ``C → D`` for the two candidates' declarations;
* step 5 (exhibits): the axioms of the theorem, as a proof's: no ``sorryAx``, nothing that
  trusts the compiler, only the gate-spec's allowlist, each the pinned one.

Step 9 is never asked: a review act settles nothing (D-4 v3.20).
"""

from __future__ import annotations

from network import ids
from network.errors import LemmataError, define
from network.gate.lean.kernels import replay_refusal, replayed_kernels
from network.gate.lean.toolchain import TermRef
from network.gate.result import Diagnostic, StepResult
from network.gate.sandbox.workspace import Source
from network.gate.steps.context import _Ctx, _fail, _resolve_toolchain, _Run, _slug
from network.gate.steps.plan import target_def_sources
from network.gate.steps.step1_toolchain import _step1
from network.gate.steps.step3_build import build_two_domains
from network.gate.steps.step4_kernel import _compare_step4, known_unsound_result
from network.gate.steps.step5_axioms import _step5
from network.record import derive
from network.record import models as m
from network.record.read.loader import Graph, parse_record

define("review-claim-not-rfl", 4, 422,
       "A candidate's claim applied to its own concept predicates is not definitionally "
       "its theorem, so a covers or witness probe of the claim says nothing of it (D-9 "
       "v3.39).",
       "Define the claim so that `claim P₁ … Pₖ` unfolds to the theorem's statement, the "
       "predicates in the opening's concept order.")
define("review-wrapper-not-rfl", 4, 422,
       "A wrapper's statement is not definitionally equal to the imported statement it "
       "restates: the original's meaning must be kept exactly (D-9 v3.39 porting).",
       "Name the parts as definitions that unfold to the original's, and state the "
       "theorem with them; nothing else may change.")


def judge_review_lean(ctx: _Ctx, run: _Run, step1_diff: list[Diagnostic],
                      step2_findings: list[Diagnostic]) -> _Run:
    """Judge one review candidate or exhibit into ``run`` (see the module docstring) and
    return it.

    Args:
        ctx: the gate run's context (base graph, diff, toolchain source, sandbox, work dir).
        run: the artifact's run, with no steps yet.
        step1_diff: step 1's findings from the diff (a submitted pin file).
        step2_findings: step 2's findings placed on this artifact.

    Returns:
        ``run``; it passes only when Lean built the module and every check of step 4 (and
        step 5 for an exhibit) passed. Without a toolchain step 1 refuses with
        ``toolchain-missing`` after listing every finding that needs no Lean.
    """
    art = run.art
    t = ctx.base.targets[art.target]
    spec = t.gate_spec
    ok2 = run.add(StepResult.from_findings(2, step2_findings))
    unsound = known_unsound_result(spec)
    if unsound is not None:
        run.add(unsound)
    run.toolchain = _resolve_toolchain(ctx.toolchain, spec)
    res1, run.toolchain_hash = _step1(run.toolchain, spec, step1_diff)
    if not (run.add(res1) and ok2 and unsound is None):
        return run
    head = {c.path: ctx.diff.new_bytes(c) for c in ctx.diff.changes
            if c.path in art.paths and c.new_id is not None}
    rec = _record(art.main, head[art.main])
    if rec is None:  # step 2 refused it already
        run.add(_fail(3, "invalid-record", "the review record does not parse", art.main))
        return run
    lean = art.main[:-len(".yaml")] + ".lean"
    own = Source(ids.review_module_name(art.target, lean),
                 ids.review_module_path(art.target, lean), head[lean])
    named = ([rec.wraps] if isinstance(rec, m.ReviewCandidate) and rec.wraps else []
             if isinstance(rec, m.ReviewCandidate)
             else [p for p in (rec.candidate, rec.other) if p is not None])
    try:
        refs = [TermRef(ids.review_module_name(art.target, p),
                        _declaration(ctx.base, art.target, p)) for p in named]
        probe = (probe_source(ctx.base, art.target, art.main, rec)
                 if isinstance(rec, m.ReviewExhibit) and rec.test is not None else None)
        claim = (claim_source(ctx.base, art.target, art.main, rec)
                 if isinstance(rec, m.ReviewExhibit) and rec.test is not None else None)
        sources = [*target_def_sources(ctx.base, art.target), *_candidates(ctx.base, art.target, named),
                   *(s for s in (probe, claim) if s is not None), own]
        built, setup, check = build_two_domains(run.toolchain, ctx.sandbox, ctx.work_dir,
                                                _slug(art), spec, sources, [own.module],
                                                spec.caps)
    except LemmataError as exc:
        run.add(_fail(1 if exc.code == "toolchain-mismatch" else 3, exc.code, exc.detail,
                      exc.path))
        return run
    run.build_errors = tuple(msg.data for msg in built.messages if msg.severity == "error")
    if not run.add(StepResult.passed(3) if built.ok else
                   _fail(3, built.code or "lean-build-failed",
                         (built.log or "build failed")[-500:], lean)):
        return run
    if check is None:
        assert setup is not None
        run.add(StepResult.refused(4, [Diagnostic(d.code, d.message, lean)
                                       for d in setup.diagnostics]))
        return run
    tc = run.toolchain
    decl = rec.declaration if isinstance(rec, m.ReviewCandidate) else rec.theorem
    rep = tc.replay(check, [own.module], ctx.sandbox, spec.caps, [decl])
    run.kernels = rep.kernels
    refused = replay_refusal(replayed_kernels(spec), rep)
    if refused is not None:
        run.add(_fail(4, *refused, lean))
        return run
    axioms = list(spec.axioms)
    if isinstance(rec, m.ReviewCandidate):  # stage 3's compile: the declaration is there
        cmp = tc.check_statement(check, own.module, own.module, [decl], axioms,
                                 ctx.sandbox, spec.caps)
        if not run.add(_compare_step4(cmp, decl, lean)) or not refs:
            return run
        # a wrapper: its statement is the original's, definitionally ("proved equal by rfl")
        eq = tc.defeq(check, TermRef(own.module, decl), refs[0], ctx.sandbox, spec.caps)
        if not eq.ok:
            run.add(_fail(4, eq.code or "checker-failed", eq.detail or "defeq did not run",
                          lean))
        elif not (eq.defeq and eq.comparable):
            run.add(_fail(4, "review-wrapper-not-rfl", f"{decl} is not definitionally "
                          f"{refs[0].decl}", lean))
        return run
    if rec.kind == "proves":  # the exhibit restates the candidate's theorem, proved
        cmp = tc.check_statement(check, refs[0].module, own.module, [decl], axioms,
                                 ctx.sandbox, spec.caps)
    elif probe is not None:  # the exhibit proves the probe statement the gate wrote
        if claim is not None:  # the claim it applies is the candidate's theorem, by rfl
            eq = tc.defeq(check, TermRef(claim.module, CLAIM_CHECK), refs[0], ctx.sandbox,
                          spec.caps)
            if not eq.ok or not (eq.defeq and eq.comparable):
                run.add(_fail(4, (eq.code or "checker-failed") if not eq.ok
                              else "review-claim-not-rfl",
                              eq.detail or "the candidate's claim applied to its own "
                              "predicates is not definitionally its theorem", lean))
                return run
        cmp = tc.check_statement(check, probe.module, own.module, [decl], axioms,
                                 ctx.sandbox, spec.caps)
    elif rec.kind in ("negation", "vacuity", "implies"):
        cmp = tc.check_relation(check, rec.kind, refs[0], refs[1] if len(refs) > 1 else None,
                                own.module, decl, axioms, ctx.sandbox, spec.caps)
    else:  # a probe whose test is gone: step 2 refuses it first
        run.add(_fail(4, "review-test-unknown", "the probe names no test", art.main))
        return run
    run.compare, run.compare_decl = cmp, decl
    if run.add(_compare_step4(cmp, decl, lean)):
        run.add(_step5(ctx, run, spec))
    return run


def probe_statement(candidate_module: str, predicate: str, args: list[str], theorem: str,
                    holds: bool) -> bytes:
    """The statement the gate writes for a holds probe (D-9 v3.39 intent tests): the
    candidate's predicate for the test's concept applied to the test's arguments (each
    parenthesised), or its negation (:func:`statement_of`)."""
    return statement_of(candidate_module, " ".join([predicate, *(f"({a})" for a in args)]),
                        theorem, holds)


def statement_of(candidate_module: str, proposition: str, theorem: str,
                 holds: bool) -> bytes:
    """A module the gate writes: ``theorem`` stating ``proposition`` (or its negation) with
    ``sorry``, importing the candidate's module. A probe exhibit restates it under the
    same name and proves it; the check compares the two (``check_statement``)."""
    claim = proposition if holds else f"¬ ({proposition})"
    return (f"import {candidate_module}\n\ntheorem {theorem} : {claim} := by\n  sorry\n"
            ).encode()


def probe_proposition(test: m.ReviewTest, cand: m.ReviewCandidate,
                      concepts: list[str]) -> str:
    """What a probe asks of one candidate (D-9 v3.39's three probes), as Lean text built
    from the record's names and the test's plain-value arguments only:

    * ``holds``: the candidate's predicate for the concept at the arguments;
    * ``covers``: the candidate's claim with every concept ``fun _ => False``;
    * ``witness``: the claim with the test's concept ``fun x => x = a₁ ∨ …``, every other
      concept the candidate's own predicate.

    ``concepts`` is the opening's concept order (the claim's argument order).

    Raises:
        LemmataError: ``missing-file`` when the candidate names no claim (covers, witness)
            or no predicate for a concept.
    """
    if any(w not in cand.concepts for w in concepts) or test.concept not in cand.concepts:
        raise LemmataError("missing-file", "the candidate names no predicate for a concept")
    if test.probe == "holds":
        return " ".join([cand.concepts[test.concept], *(f"({a})" for a in test.args)])
    if cand.claim is None:
        raise LemmataError("missing-file", "the candidate names no claim")
    if test.probe == "covers":
        preds = ["(fun _ => False)"] * len(concepts)
    else:
        members = " ∨ ".join(f"x = ({a})" for a in test.args)
        preds = [f"(fun x => {members})" if w == test.concept else cand.concepts[w]
                 for w in concepts]
    return " ".join([cand.claim, *preds])


def probe_source(base: Graph, tid: str, exhibit_path: str, rec: m.ReviewExhibit) -> Source:
    """The probe statement of the probe exhibit ``rec`` at ``exhibit_path`` as a workspace
    source, built from the base's test and candidate (gate bytes, built in the check
    workspace like a base file).

    Raises:
        LemmataError: ``missing-file`` when the base holds no such test or candidate, or
            the candidate names no predicate (or claim) the probe needs.
    """
    t = base.targets[tid]
    test = next((tf.record for tf in t.review_tests if tf.path == rec.test), None)
    cand = next((cf.record for cf in t.review_candidates if cf.path == rec.candidate), None)
    state = derive.review_state(base, tid)
    if test is None or cand is None or state is None:
        raise LemmataError("missing-file", f"{rec.test} or {rec.candidate} is not on the base",
                           path=exhibit_path)
    prop = probe_proposition(test, cand, list(state.opening_record.concepts))
    data = statement_of(ids.review_module_name(tid, rec.candidate), prop, rec.theorem,
                        rec.kind == "probe-holds")
    return Source(ids.review_probe_module_name(tid, exhibit_path),
                  ids.review_probe_module_path(tid, exhibit_path), data)


CLAIM_CHECK = "LemmataReview.claim_check"
"""The theorem of the module the gate writes to check a candidate's claim."""


def claim_source(base: Graph, tid: str, exhibit_path: str, rec: m.ReviewExhibit
                 ) -> Source | None:
    """For a covers or witness probe, the module the gate writes stating the candidate's
    claim applied to its own predicates (:data:`CLAIM_CHECK`), which must be
    definitionally the candidate's theorem for the probe to speak of it; None for a
    holds probe or another exhibit.

    Raises:
        LemmataError: ``missing-file`` as :func:`probe_proposition`.
    """
    t = base.targets[tid]
    test = next((tf.record for tf in t.review_tests if tf.path == rec.test), None)
    cand = next((cf.record for cf in t.review_candidates if cf.path == rec.candidate), None)
    state = derive.review_state(base, tid)
    if test is None or test.probe == "holds" or cand is None or state is None:
        return None
    concepts = list(state.opening_record.concepts)
    if cand.claim is None or any(w not in cand.concepts for w in concepts):
        raise LemmataError("missing-file", "the candidate names no claim for every concept",
                           path=exhibit_path)
    prop = " ".join([cand.claim, *(cand.concepts[w] for w in concepts)])
    data = statement_of(ids.review_module_name(tid, rec.candidate), prop, CLAIM_CHECK, True)
    return Source(ids.review_probe_module_name(tid, exhibit_path, "Claims"),
                  ids.review_probe_module_path(tid, exhibit_path, "Claims"), data)


def _record(path: str, data: bytes) -> m.ReviewCandidate | m.ReviewExhibit | None:
    """The candidate or exhibit record at ``path`` (its bytes ``data``), or None when it
    does not parse without a problem."""
    if path.split("/")[3] == "candidates":
        cand, problems = parse_record(path, data, m.ReviewCandidate)
        return None if problems else cand
    ex, problems = parse_record(path, data, m.ReviewExhibit)
    return None if problems else ex


def _candidates(base: Graph, tid: str, records: list[str]) -> list[Source]:
    """The named candidates' Lean modules, base bytes.

    Raises:
        LemmataError: ``missing-file`` when a named candidate has no Lean on the base.
    """
    t = base.targets[tid]
    out = []
    for rec_path in dict.fromkeys(records):
        lean = rec_path[:-len(".yaml")] + ".lean"
        if lean not in t.review_lean:
            raise LemmataError("missing-file", f"{lean} is not on the base", path=lean)
        out.append(Source(ids.review_module_name(tid, lean), ids.review_module_path(tid, lean),
                          base.source.read(lean)))
    return out


def _declaration(base: Graph, tid: str, rec_path: str) -> str:
    """The declaration a candidate of the base names.

    Raises:
        LemmataError: ``missing-file`` when the base holds no such candidate.
    """
    rf = next((c for c in base.targets[tid].review_candidates if c.path == rec_path), None)
    if rf is None:
        raise LemmataError("missing-file", f"{rec_path} is not on the base", path=rec_path)
    return rf.record.declaration
