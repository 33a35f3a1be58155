"""Private helpers that more than one derivation module reads (issue 17's split).

A node's attempt facts and postmortems (D-13), when it entered the ready set (D-25), its
frontier membership, a route's liveness (D-14 v3.47, D-25 v3.46) and a proof's footprint
(the nodes it rests on through closures and deps, D-12 v3.42); and the rules the index's
closure and dormancy derivations call: whether a root is vouched and a target's status
(D-33), read over an index passed in, so this module imports the index only for its type.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from typing import Any

from network.record import models as m
from network.record.derive._common import (
    CATALOG_EVIDENCE_POINTS,
    CLOSED,
    GRADES_VOUCHING,
    REVIEW_VOUCHING,
    IndexView,
    ReviewCandidateView,
    ReviewDirection,
    ReviewQuestionView,
    ReviewSignatureView,
    ReviewState,
    ReviewTestView,
    TargetStatus,
    norm_date,
)
from network.record.read.loader import Attempt, Node, RecordFile, Target
from network.record.review_models import SCREENS


def _footprint(ix: IndexView, tid: str, nid: str) -> list[str]:
    """Nodes the node's proof rests on, itself first, through closures and deps."""
    out: list[str] = []
    stack = [nid]
    while stack:
        x = stack.pop()
        if x in out or not ix.has(tid, x):
            continue
        out.append(x)
        n = ix.node(tid, x)
        if ix.file_merged(n, "Proof") or ix.file_merged(n, "Refutation"):
            stack.extend(reversed([ix.current(tid, d) for d in n.meta.deps]))
            continue
        for path, rec in ix.closures(tid, x):
            if ix.closure_holds(tid, rec):
                stack.extend(reversed([i.node for i in rec.inputs]))
                break
    return out


def _postmortems(ix: IndexView, n: Node) -> list[Attempt]:
    return [a for a in n.attempts if a.kind == "postmortem" and ix.present(a.path)]


def _attempt_facts(ix: IndexView, n: Node) -> dict[str, Any]:
    key = (n.ref.target, n.ref.node)
    if key not in ix._facts:
        pms = _postmortems(ix, n)
        refuted: list[str] = sorted({a.postmortem.route_class for a in pms
                                     if a.postmortem and a.postmortem.outcome == "refuted-route"})
        hist = Counter(a.postmortem.failure_class for a in pms if a.postmortem)
        ix._facts[key] = (len(pms) + len(ix.own_routes(n)), refuted, sorted(hist.items()))
    facts = ix._facts[key]
    return {"attempts": facts[0],
            "refuted_route_classes": list(facts[1]),
            "failure_classes": dict(facts[2])}


def _proved_date(ix: IndexView, tid: str, nid: str) -> str | None:
    n = ix.node(tid, nid)
    if ix.file_merged(n, "Proof"):
        return ix.date_of(n.files["Proof"].path)
    path = ix.valid_closure(tid, nid, "proved")
    if path is not None:
        for p, rec in ix.closures(tid, nid):
            if p == path:
                return ix.date_of(p) or ix.merge_date.get(rec.merge_seq)
    return None


def _ready_since(ix: IndexView, tid: str, nid: str) -> str | None:
    key = (tid, nid)
    if key not in ix._ready:
        ix._ready[key] = _ready_since_uncached(ix, tid, nid)
    return ix._ready[key]


def _ready_since_uncached(ix: IndexView, tid: str, nid: str) -> str | None:
    if ix.status(tid, nid) != "open":
        return None
    n = ix.node(tid, nid)
    d = ix.dir_of(n)
    dates: list[str | None] = [ix.date_of(f"{d}/Statement.lean") or ix.date_of(f"{d}/META.yaml")]
    if dates[0] is None and n.meta.hole is not None:
        dates[0] = ix.date_of(n.meta.hole.route)
    if dates[0] is None and ix.is_root(tid, nid):
        dates[0] = norm_date(ix.g.targets[tid].record.listed)
    if "Witness" in n.files and n.meta.hole is not None:
        dates.append(ix.date_of(n.files["Witness"].path))
    for dep in n.meta.deps:
        if not ix.has(tid, dep):
            return None
        cur = ix.current(tid, dep)
        if ix.status(tid, cur) != "proved":
            return None
        dates.append(_proved_date(ix, tid, cur))
    known = [x for x in dates if x]
    return max(known) if known else None


def _on_frontier(ix: IndexView, tid: str, nid: str) -> bool:
    if ix.status(tid, nid) not in ("open", "blocked"):
        return False
    if ix.shelved(tid, nid) or ix.disputed(tid, nid):
        return False
    for dep in ix.node(tid, nid).meta.deps:
        if not ix.has(tid, dep) or ix.status(tid, ix.current(tid, dep)) != "proved":
            return False
    return True


def _route_alive(ix: IndexView, tid: str, route: str) -> bool:
    if ix.route_retired(tid, route):
        return False
    return not any(ix.status(tid, h) in ("refuted", "defective")
                   for h in ix.route_holes(tid, route))


def _review_state_ix(ix: IndexView, tid: str) -> ReviewState | None:
    """The target's formalization review as derived (D-9 v3.39), memoised on the index,
    or None when no opening of it counts. See :class:`ReviewState`."""
    if tid not in ix._reviews:
        ix._reviews[tid] = _review_state(ix, tid)
    return ix._reviews[tid]


def _opening_counts(ix: IndexView, tid: str, rf: RecordFile[m.ReviewOpening]) -> bool:
    """An opening counts when it is a steward's or curator's act (or a background one by
    either), signed by its opener holding that role on its date, and names a steward of
    the target as intent signer. ``proposer`` openings are not modelled (no target
    records its proposer yet) and never count."""
    rec = rf.record
    if rec.target != tid or rec.role == "proposer":
        return False
    if not ix.role_signed(rf.path, rec, rec.by, rec.date, tid,
                          stewards=rec.role != "curator", curators=rec.role != "steward"):
        return False
    return ix.holds_role(tid, rec.intent_signer, rec.date, curators=False)


def _lean_merged(ix: IndexView, t: Target, record_path: str, sha: str) -> bool:
    """A review record's Lean (the ``.lean`` beside it) is on the record with the bytes
    the record names, and a pass attestation names it: the gate built and checked it."""
    lean = record_path[:-len(".yaml")] + ".lean"
    lf = t.review_lean.get(lean)
    return lf is not None and lf.sha256 == sha and ix.is_merged(lean, sha)


def _review_state(ix: IndexView, tid: str) -> ReviewState | None:
    t = ix.g.targets[tid]
    openings = [rf for rf in _ordered(ix, tid, t.review_openings) if _opening_counts(ix, tid, rf)]
    if not openings:
        return None
    held = [rf for rf in openings if rf.record.role != "background"]
    opening = (held or openings)[0]
    intent = opening.record.intent_signer
    root = ix.root_of(tid)
    root_node = ix.node(tid, root) if root is not None else None
    root_lean = root_node.files.get("Statement") if root_node is not None else None
    candidates = _ordered(ix, tid, t.review_candidates)
    compiled = {rf.path: _lean_merged(ix, t, rf.path, rf.record.lean_sha256) for rf in candidates}
    exhibits = [rf for rf in _ordered(ix, tid, t.review_exhibits)
                if _lean_merged(ix, t, rf.path, rf.record.lean_sha256)
                and compiled.get(rf.record.candidate)
                and (rf.record.other is None or compiled.get(rf.record.other))]
    attempts = _ordered(ix, tid, t.review_attempts)
    questions = _questions(ix, tid, t, intent)
    answered = {q.answer_path for q in questions if q.answer_path is not None}
    tests = [rf for rf in _ordered(ix, tid, t.review_tests)
             if rf.record.source != "answer" or (rf.record.answer in answered
                                                 and _same(rf.record.by, intent))]
    words = set(opening.record.concepts)
    # a covers or witness probe reads a candidate's claim: without one it is returned
    needs_claim = any(tf.record.probe != "holds" for tf in tests)
    views: list[ReviewCandidateView] = []
    root_screens: list[str] = []
    # the candidates carrying the root's statement (its bytes, under its declaration), and
    # so the compiled wrappers of one (D-9 v3.39 porting: "proved equal by rfl")
    roots = {rf.path for rf in candidates
             if root_lean is not None and root_node is not None
             and rf.record.declaration == root_node.meta.declaration
             and t.review_lean.get(rf.path[:-len(".yaml")] + ".lean") is not None
             and t.review_lean[rf.path[:-len(".yaml")] + ".lean"].sha256 == root_lean.sha256}
    for rf in candidates:
        rec = rf.record
        lean = rf.path[:-len(".yaml")] + ".lean"
        is_root = rf.path in roots or (rec.wraps in roots and compiled[rf.path])
        screens: dict[str, str] = {}
        discarded_by = None
        for screen in SCREENS:
            hit = next((e.path for e in exhibits
                        if e.record.kind == screen and e.record.candidate == rf.path), None)
            tried = any(a.record.screen == screen and a.record.candidate == rf.path
                        for a in attempts)
            screens[screen] = "succeeded" if hit else "attempted" if tried else "untried"
            if hit and is_root:
                # the statement on the graph: a derived falsehood (or a proof) is routed
                # to a person, never a label (D-9 v3.12): a question, not a discard
                root_screens.append(hit)
            else:
                discarded_by = discarded_by or hit
        # an intent test answered or cited, and this candidate's probe proving the opposite
        discarded_by = discarded_by or next(
            (e.path for tf in tests if tf.record.expected is not None
             for e in exhibits if e.record.test == tf.path and e.record.candidate == rf.path
             and e.record.kind != f"probe-{tf.record.expected}"), None)
        formatted = words <= set(rec.concepts) and (rec.claim is not None or not needs_claim)
        outcome = ("uncompiled" if not compiled[rf.path] else "mutant" if rec.mutant_of
                   else "discarded" if discarded_by
                   else "returned" if not formatted else "surviving")
        views.append(ReviewCandidateView(rf.path, lean, rec, compiled[rf.path], outcome,
                                         discarded_by, screens, is_root))
    alive = [v.path for v in views if v.outcome == "surviving"]
    test_views = [_test_view(tf, exhibits, alive) for tf in tests]
    views = [_caught(v, test_views) if v.outcome == "mutant" else v for v in views]
    directions = []
    proved: set[tuple[str, str]] = set()
    for a in alive:
        for b in alive:
            if a == b:
                continue
            ex = next((e.path for e in exhibits if e.record.kind == "implies"
                       and e.record.candidate == a and e.record.other == b), None)
            tries = tuple(x.path for x in attempts
                          if x.record.candidate == a and x.record.other == b)
            if ex:
                proved.add((a, b))
            directions.append(ReviewDirection(a, b, "proved" if ex else "open" if tries
                                              else "untried", ex, tries))
    clusters = _clusters(alive, proved)
    missing: list[str] = []
    if not alive:
        missing.append("no candidate survives stage 3")
    if len(clusters) > 1:
        missing.append(f"{len(clusters)} clusters: no proved equivalence joins them")
    for v in views:
        if v.outcome == "surviving":
            missing += [f"{v.path}: screen '{s}' not attempted"
                        for s, st in v.screens.items() if st == "untried"]
    for tv in test_views:
        missing += [f"{tv.path}: no probe of {c}" for c in alive if c not in tv.results]
        if tv.disagree:
            missing.append(f"{tv.path}: the candidates answer it differently, a question "
                           "for the intent signer")
    settled = {q.record.raised_by for q in questions if q.answer is not None}
    missing += [f"{e}: a screen succeeded on the root's own statement, a question for the "
                "intent signer (a defect claim or a proof, never a label)"
                for e in dict.fromkeys(root_screens) if e not in settled]
    asked = {c for q in questions for c in q.record.candidates}
    for v in views:  # stage 6: a mutant every intent test passes is one more question
        if v.outcome != "mutant" or v.caught_by is not None:
            continue
        unprobed = [tv.path for tv in test_views if v.path not in tv.results]
        if unprobed:
            missing.append(f"{v.path}: no probe of the mutant by {len(unprobed)} test(s)")
        elif v.path not in asked:
            missing.append(f"{v.path}: a mutant every intent test passes, a question for "
                           "the intent signer")
    waiting = [q for q in questions if q.answer is None]
    if waiting:
        missing.append(f"{len(waiting)} question(s) waiting for the intent signer")
    complete = not missing
    cluster = set(clusters[0]) if len(clusters) == 1 else set()
    # who wrote the cluster's Lean: its candidates' authors (a registry's statement is
    # its registry's, and the root's own author's where the root's statement is in it)
    authors = {v.record.by.casefold() for v in views
               if v.path in cluster and v.record.origin != "registry"}
    root_author = root_node.meta.author if root_node is not None else None
    if root_author and any(v.is_root for v in views if v.path in cluster):
        authors.add(root_author.casefold())
    sigs = _signatures(ix, tid, t, intent, cluster, authors, complete)
    counting = [s for s in sigs if s.counts]
    grade, capped = _grade(views, cluster, counting, authors, complete)
    vouches = bool(held) and complete and grade in REVIEW_VOUCHING and any(
        v.is_root for v in views if v.path in cluster)
    mutants = [v for v in views if v.outcome == "mutant"]
    n = len(views) - len(mutants)
    summary = (f"{n} candidate{'s' * (n != 1)}, {len(clusters)} "
               f"cluster{'s' * (len(clusters) != 1)}, {len(waiting)} "
               f"question{'s' * (len(waiting) != 1)} waiting")
    if mutants:
        summary += (f", {sum(v.caught_by is not None for v in mutants)} of {len(mutants)} "
                    f"mutant{'s' * (len(mutants) != 1)} caught")
    return ReviewState(tid, opening.path, opening.record, bool(held), intent, tuple(views),
                       tuple(directions), tuple(clusters), tuple(questions), tuple(sigs),
                       tuple(missing), complete, grade, capped, vouches, summary,
                       root_lean.sha256 if root_lean is not None else None,
                       tuple(test_views),
                       root_node.meta.declaration if root_node is not None else None,
                       root_author)


def _caught(v: ReviewCandidateView, tests: list[ReviewTestView]) -> ReviewCandidateView:
    """The mutant ``v`` with the first intent test that catches it: its probe answers
    against the test's expected value (D-9 v3.39 stage 6: a measure of the tests)."""
    hit = next((tv.path for tv in tests if tv.expected is not None and v.path in tv.results
                and tv.results[v.path][0] != tv.expected), None)
    return dataclasses.replace(v, caught_by=hit)


def _test_view(tf: RecordFile[m.ReviewTest], exhibits: list[Any],
               alive: list[str]) -> ReviewTestView:
    """One intent test's matrix row (D-9 v3.39): each candidate's answer as its first
    merged probe exhibit proves it; the expected value, written (answered or cited) or,
    for a computation, the one every surviving candidate's probe agrees on; and whether
    the survivors disagree, which makes the case a question."""
    results: dict[str, tuple[str, str]] = {}
    for e in exhibits:
        if e.record.test == tf.path and e.record.candidate not in results:
            results[e.record.candidate] = (e.record.kind.removeprefix("probe-"), e.path)
    seen = {results[c][0] for c in alive if c in results}
    expected: str | None = tf.record.expected
    if expected is None and len(seen) == 1 and all(c in results for c in alive):
        expected = next(iter(seen))
    disagree = tf.record.source == "computation" and len(seen) > 1
    return ReviewTestView(tf.path, tf.record, expected, results, disagree)


def _ordered(ix: IndexView, tid: str, rows: list[Any]) -> list[Any]:
    """The review records filed for ``tid``, in the record's order: (date, path). A
    withdrawal reaches none of them (step 2 refuses one, ``review-record-withdrawn``): the
    review is append-only, a signer's later decision replaces their earlier one, and a
    discarded candidate stays on the record with its exhibit (D-9 v3.39)."""
    return sorted((rf for rf in rows if rf.record.target == tid),
                  key=lambda rf: (norm_date(rf.record.date), rf.path))


def _same(a: str, b: str) -> bool:
    """Whether two pseudonyms name one person: compared without case, as everywhere
    (D-19; :func:`network.gate.records.proof_reviews.same_person`)."""
    return a.casefold() == b.casefold()


def _clusters(alive: list[str], proved: set[tuple[str, str]]) -> list[tuple[str, ...]]:
    """Surviving candidates joined by directions proved both ways (D-9 v3.39: a cluster
    is derived from proved equivalences, never claimed), in record order."""
    parent = {a: a for a in alive}

    def find(x: str) -> str:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for a, b in proved:
        if (b, a) in proved:
            parent[find(a)] = find(b)
    groups: dict[str, list[str]] = {}
    for a in alive:
        groups.setdefault(find(a), []).append(a)
    return [tuple(g) for g in groups.values()]


def _questions(ix: IndexView, tid: str, t: Target, intent: str) -> list[ReviewQuestionView]:
    """Every question, each with the first answer that counts: the intent signer's,
    signed by them (their SSH key or the approval key naming them) on its date."""
    answers = [rf for rf in _ordered(ix, tid, t.review_answers)
               if _same(rf.record.by, intent)
               and ix.signature_verifies(rf.record, rf.record.signature, intent,
                                         rf.record.date)]
    out = []
    for rf in _ordered(ix, tid, t.review_questions):
        ans = next((a for a in answers if a.record.question == rf.path), None)
        out.append(ReviewQuestionView(rf.path, rf.record, ans.path if ans else None,
                                      ans.record if ans else None,
                                      ans is not None and not ans.record.source))
    return out


def _signatures(ix: IndexView, tid: str, t: Target, intent: str, cluster: set[str],
                authors: set[str], complete: bool) -> list[ReviewSignatureView]:
    """Every signature record and whether it counts now: an ``accept`` of exactly the
    surviving cluster once the automated stages are complete, signed by its signer on its
    date, by the intent signer for ``intent``, and for ``independent`` by someone who is
    not the intent signer and wrote no candidate in the cluster; one per role (the
    first), so a replayed or repeated signature adds nothing."""
    out: list[ReviewSignatureView] = []
    seen: set[str] = set()
    rows = _ordered(ix, tid, t.review_signatures)
    latest = {(rf.record.by.casefold(), rf.record.role): rf.path for rf in rows}
    for rf in rows:
        rec = rf.record
        why = None
        if rec.decision != "accept":
            why = f"decision {rec.decision}"
        elif latest[(rec.by.casefold(), rec.role)] != rf.path:
            why = "its signer decided again later"
        elif not complete:
            why = "the automated stages are not complete"
        elif set(rec.cluster) != cluster:
            why = "signs another set of candidates than the surviving cluster"
        elif rec.role == "intent" and not _same(rec.by, intent):
            why = f"{rec.by} is not the intent signer ({intent})"
        elif rec.role == "independent" and _same(rec.by, intent):
            why = "the intent signer cannot also sign as the independent signer"
        elif rec.role == "independent" and rec.by.casefold() in authors:
            why = f"{rec.by} wrote a candidate in the cluster"
        elif not ix.signature_verifies(rec, rec.signature, rec.by, rec.date):
            why = "its signature does not verify for its signer"
        elif rec.role in seen:
            why = f"the {rec.role} signature was given already"
        if why is None:
            seen.add(rec.role)
        out.append(ReviewSignatureView(rf.path, rec, why is None, why))
    return out


def _grade(views: list[ReviewCandidateView], cluster: set[str],
           counting: list[ReviewSignatureView], authors: set[str],
           complete: bool) -> tuple[str, bool]:
    """The rung earned under the review (D-9 v3.39): screened-and-signed is the automated
    stages complete and a counting signature by someone who wrote no surviving
    candidate; author-attested adds the intent signer's; expert-attested is both
    signatures and a person-written candidate in the cluster, else the grade caps at
    screened-and-signed and the cap is shown."""
    roles = {s.record.role for s in counting}
    if not complete or not any(s.record.by.casefold() not in authors for s in counting):
        return "mechanical-only", False
    # a person-written candidate, not a copy of the root's (imported) statement
    person = any(v.record.origin == "person" and not v.is_root
                 for v in views if v.path in cluster)
    if not person:
        return "screened-and-signed", True
    if roles == {"intent", "independent"}:
        return "expert-attested", False
    return ("author-attested" if "intent" in roles else "screened-and-signed"), False


def _review_vouches_ix(ix: IndexView, tid: str) -> bool:
    """Whether a completed, held formalization review vouches for the root (D-9 v3.39;
    :class:`ReviewState` ``vouches``)."""
    state = _review_state_ix(ix, tid)
    return state is not None and state.vouches


def root_vouched_ix(ix: IndexView, tid: str) -> bool:
    """:func:`root_vouched` over an index (private helper shared by closure)."""
    t = ix.g.targets[tid]
    root = ix.root_of(tid)
    if root is not None and ix.disputed(tid, root):
        return False
    rec = t.record
    if rec.calibration or rec.target_class == "calibration":
        return True
    if rec.fidelity.grade in GRADES_VOUCHING:
        return True
    if rec.fidelity.catalog_evidence_points >= CATALOG_EVIDENCE_POINTS:
        return True
    return _review_vouches_ix(ix, tid)


def target_status_ix(ix: IndexView, tid: str) -> TargetStatus:
    """:func:`target_status` over an index (private helper)."""
    if tid in ix._target_status:
        return ix._target_status[tid]
    ix._target_status[tid] = TargetStatus("listed")  # recursion guard
    val = _target_status_uncached(ix, tid)
    ix._target_status[tid] = val
    return val


def _target_status_uncached(ix: IndexView, tid: str) -> TargetStatus:
    t = ix.g.targets[tid]
    root = ix.root_of(tid)
    if root is not None:
        st = ix.status(tid, root)
        if st in CLOSED:
            return TargetStatus("resolved", _digestion(ix, tid, root), st)
    cur = ix.curators_of(tid)
    recs = sorted(((norm_date(rf.record.date), rf.path, rf.record) for rf in t.status_records
                   if ix.present(rf.path) and rf.record.curator in cur
                   and ix.role_signed(rf.path, rf.record, rf.record.curator, rf.record.date,
                                      tid, stewards=False)),
                  key=lambda x: (x[0], x[1]))
    if not recs:
        return TargetStatus("listed")
    date, path, rec = recs[-1]
    if rec.declaration == "dormant":
        progress = _progress_since(ix, tid, date, ix.merge_seq_of.get(path))
        if progress is not None:
            return TargetStatus("active", declaration=path, reactivated_by=progress)
    return TargetStatus(rec.declaration, declaration=path)


def _is_progress_path(ix: IndexView, tid: str, path: str) -> bool:
    parts = path.split("/")
    if len(parts) < 5 or parts[0] != "targets" or parts[1] != tid or parts[2] != "nodes":
        return False
    nid, rest = parts[3], "/".join(parts[4:])
    if rest in ("Proof.lean", "Refutation.lean", "Vacuity.lean"):
        return True
    if rest.startswith("attempts/") and (rest.endswith(("-partial.lean", "-reduction.lean"))):
        return True
    if rest in ("Statement.lean", "META.yaml") and ix.has(tid, nid):
        return ix.node(tid, nid).meta.variant is not None
    if rest.endswith("-postmortem.yaml") and ix.has(tid, nid):
        for a in ix.node(tid, nid).attempts:
            if a.path == path and a.postmortem is not None:
                return a.postmortem.outcome == "refuted-route"
    return False


def _progress_since(ix: IndexView, tid: str, date: str, seq: int | None) -> str | None:
    for mr in ix.g.merges:
        rec = mr.record
        later = rec.seq > seq if seq is not None else norm_date(rec.date) > date
        if not later:
            continue
        for p in rec.artifacts:
            if _is_progress_path(ix, tid, p):
                return p
    return None


def _digestion(ix: IndexView, tid: str, root: str) -> str:
    footprint = _footprint(ix, tid, root)
    for nid in footprint:
        n = ix.node(tid, nid)
        proof = n.files.get("Proof")
        if proof is None:
            if ix.proved_by_closure(tid, nid):
                continue  # the join earns nothing and needs no explainer of its own
            return "undigested"
        ok = any(rf.record.describes == proof.path and ix.present(rf.path)
                 and ix.approved(tid, rf.record) for rf in n.explainers)
        if not ok:
            return "undigested"
    return "explained"
