"""Step 2's rules for a formalization review's records (D-9 v3.39; docs/review.md; issue 27).

Every review act is one pull request holding one record (and, for a candidate or an
exhibit, its Lean file beside it), judged against the review as the base graph derives it
(:func:`network.record.derive.review_state`), so what step 2 admits is what derive counts:

* an **opening** is a steward's or curator's signed act (``background`` too), naming a
  steward of the target as intent signer; a target has one review, so a held opening
  after a held one, or any opening after another when it is a background one, is
  ``review-already-open``; ``proposer`` is refused (``review-opener-role``): no target
  records its proposer yet;
* every other act needs a review that stands (``review-not-open``);
* a **candidate**'s Lean is a statement (the import-time screen and D-3 v3.28's statement
  commands apply, as to a Statement.lean); a registry candidate carries exactly the
  root's Statement.lean bytes (``review-registry-not-root``); no candidate repeats
  another's bytes (``review-candidate-copy``) or declaration name
  (``review-declaration-taken``);
* an **exhibit** or **attempt** names candidates the gate has compiled
  (``review-candidate-unknown``); a probe names a test of the review whose concept its
  candidate gives a predicate (``review-test-unknown``, ``review-test-concept``);
* an **intent test** names a concept of the opening, plain values as its arguments
  (``review-test-term``: the gate writes them into the probe's statement) and, sourced
  to an answer, a counting answer of the intent signer (``review-test-source``);
* a **question** names candidates of the review and what raised it;
* an **answer** is the intent signer's, signed, to a question that waits
  (``review-answer-not-intent-signer``, ``review-question-unknown``,
  ``review-question-answered``);
* a **signature** is signed by its signer, for exactly the surviving cluster once the
  automated stages are complete, by the intent signer for ``intent`` and for
  ``independent`` by someone who is not the intent signer and wrote no candidate in the
  cluster; a role signed once is not signed again (``review-not-complete``,
  ``review-cluster-not-surviving``, ``review-signer-role``, ``review-signer-authored``,
  ``review-signature-repeated``).

The Lean of a candidate or exhibit is built and checked in Lean by
:mod:`network.gate.review_judge`; nothing here reads what Lean would say.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from network import ids
from network.errors import define
from network.gate.artifacts import (
    REVIEW_LEAN_KINDS,
    Artifact,
    Kind,
    import_lines,
    statement_command_findings,
    strip_comments,
)
from network.gate.diff import Diff
from network.gate.records.proof_reviews import same_person
from network.gate.records.role_records import judged_signature
from network.gate.result import Diagnostic
from network.gate.screens.lean_commands import COMMAND_KEYWORDS, DECL, read_commands
from network.record import derive
from network.record import models as m
from network.record.read.loader import Graph, sha256_hex

define("review-acts-batched", 2, 422,
       "A pull request carries more than one review act, or a review act with files of "
       "another's. Each act is judged against the review as main holds it, so two in one "
       "merge could together do what neither may (D-9 v3.39).",
       "Open one pull request per review act: one record, and for a candidate or exhibit "
       "its Lean file of the same name.")
define("review-lean-hash-mismatch", 2, 422,
       "A review candidate's or exhibit's lean_sha256 is not the SHA-256 of the Lean file "
       "beside it.", "Set lean_sha256 to the SHA-256 of the .lean file's bytes.")
define("review-opener-role", 2, 403,
       "A review opening names a role its opener cannot open with: a proposer's opening "
       "is not modelled (no target records its proposer), and a steward's or curator's "
       "opening is signed by a holder of that role (D-9 v3.39).",
       "Open the review as a steward or curator of the target, signed (the site signs "
       "with the approval key).")
define("review-intent-signer-not-steward", 2, 422,
       "A review opening names an intent signer who is not a steward of the target: for "
       "a conjecture inherited from a source, the intent signer is its steward (D-9 "
       "v3.39, D-32).", "Name a steward of the target (GET /targets/<id>/stewards).")
define("review-already-open", 2, 409,
       "The target has a review already: one held opening per target, and a background "
       "opening only where none stands (D-9 v3.39).",
       "Work in the review that stands (GET /reviews/<target>); a held opening may still "
       "follow a background one.")
define("review-not-open", 2, 409, "No review of the target stands to file this act in.",
       "A steward or curator opens the review first (POST /reviews).")
define("review-registry-not-root", 2, 422,
       "A registry candidate's Lean is not byte for byte the root's Statement.lean: the "
       "imported statement enters the review as it is (D-9 v3.39, D-10).",
       "Submit the root's Statement.lean bytes unchanged, or submit the statement as your "
       "own candidate (origin person or model).")
define("review-candidate-copy", 2, 409,
       "A candidate's Lean is byte-identical to a candidate already in the review.",
       "Submit a different formalization, or nothing: a copy adds no candidate.")
define("review-declaration-taken", 2, 409,
       "A candidate declares a name another candidate of the review declares: a pair's "
       "check imports both modules side by side, so each candidate names its own theorem.",
       "Rename the candidate's theorem (its namespace or its name).")
define("review-candidate-unknown", 2, 422,
       "A review act names a candidate the review does not hold, or one the gate has not "
       "compiled yet.", "Name the candidate's record path as GET /reviews/<target> lists it.")
define("review-exhibit-theorem", 2, 422,
       "A proves exhibit's theorem is not its candidate's declaration, or a negation, "
       "vacuity, implies or probe exhibit names its theorem after the candidate's.",
       "A proves exhibit restates the candidate's theorem under its name and proves it; a "
       "negation, vacuity or implies exhibit names a theorem of its own.")
define("review-answer-not-intent-signer", 2, 403,
       "Only the review's intent signer answers its questions (D-9 v3.39).",
       "Ask the intent signer; agents read the questions and never answer them.")
define("review-question-unknown", 2, 422,
       "The answer names no question of this review.",
       "Name the question's record path as GET /reviews/<target> lists it.")
define("review-question-answered", 2, 409, "The question has an answer already.",
       "File a new question if the answer raises one.")
define("review-not-complete", 2, 409,
       "The review's automated stages are not complete, so there is no surviving cluster "
       "to sign (D-9 v3.39: one cluster, every survivor screened, no question waiting).",
       "Read what the review still lacks (GET /reviews/<target>, `missing`).")
define("review-cluster-not-surviving", 2, 409,
       "A signature names another set of candidates than the review's surviving cluster.",
       "Sign for exactly the surviving cluster as GET /reviews/<target> lists it.")
define("review-signer-role", 2, 403,
       "The signer cannot sign in this role: the intent signature is the intent "
       "signer's, and the independent signer is not the intent signer (D-9 v3.39).",
       "Sign in the role you hold.")
define("review-signer-authored", 2, 403,
       "The independent signer wrote a candidate in the surviving cluster: the "
       "independent signer wrote no candidate in it (D-9 v3.39).",
       "Ask someone who wrote no candidate of the cluster to sign.")
define("review-signature-repeated", 2, 409,
       "The review already holds a counting signature in this role, or this signer's "
       "signature with these bytes: a signature is given once.",
       "Nothing to sign: read the review's signatures (GET /reviews/<target>).")

define("review-record-withdrawn", 2, 422,
       "A withdrawal names a record of a formalization review. The review is append-only "
       "(D-9 v3.39): a discarded candidate stays with its exhibit, and a signer's later "
       "decision replaces their earlier one.",
       "Nothing to withdraw: file a later signature (send-back) or a question instead.")
define("review-root-not-registry", 2, 422,
       "A candidate carries the root's statement (comments and whitespace aside) but is "
       "not filed as the registry's: the imported statement is its registry's, never a "
       "person's or a model's own (D-9 v3.39 porting).",
       "File the root's statement as origin registry (the registry named), once.")
define("review-concept-undeclared", 2, 422,
       "A candidate maps a concept to a predicate its own Lean does not declare: the "
       "format rule asks for each concept as the candidate's own predicate (D-9 v3.39).",
       "Declare the predicate (a def) in the candidate's Lean and name it.")
define("review-declaration-undeclared", 2, 422,
       "A candidate's declaration, or an exhibit's theorem, is not declared in its own Lean "
       "(the check at step 4 would find no such declaration).",
       "Name the theorem the file declares, namespace included.")
define("review-candidate-import", 2, 422,
       "A candidate imports a module of the review (another candidate's, an exhibit's): a "
       "candidate states the conjecture itself, never through another's statement.",
       "Import Mathlib, the registry's packages or the target's definitions only.")
define("review-concept-not-predicate", 2, 422,
       "A candidate maps a concept to a theorem, lemma or instance rather than a "
       "definition: the format rule asks for each concept as a predicate (D-9 v3.39).",
       "Define the concept (def or abbrev) and name that definition.")
define("review-claim-concepts", 2, 422,
       "A candidate's claim takes one predicate per concept of the opening, and the "
       "candidate maps not every concept to its own predicate.",
       "Map each concept the opening lists to the candidate's predicate for it.")
define("review-test-claim", 2, 422,
       "A covers or witness probe applies the candidate's claim (its statement as a "
       "function of its concept predicates), and the candidate names none.",
       "Probe a candidate that names its claim, or file a holds test instead.")
define("review-wraps-unknown", 2, 422,
       "A wrapper names no compiled registry candidate of the review to restate.",
       "Name the imported candidate's record path in wraps.")
define("review-mutant-of", 2, 422,
       "A mutant names a candidate that is not a surviving candidate of the review: stage 6 "
       "perturbs the surviving cluster's statements (D-9 v3.39).",
       "Name a surviving candidate's record path in mutant_of.")
define("review-test-concept", 2, 422,
       "An intent test names a concept the review's opening does not, or a probe's "
       "candidate names no predicate for the test's concept.",
       "Name a concept the opening lists; a candidate without a predicate for it is "
       "returned by the format rule, not probed.")
define("review-test-term", 2, 422,
       "An intent test's argument is not a plain term: its parentheses do not balance, or "
       "a word of it is a Lean keyword, a command or sorry. The gate writes the arguments "
       "into a probe statement, so nothing but a value may stand there.",
       "Write each argument as numerals, names, parentheses and arithmetic, e.g. `3` or "
       "`(2 ^ 5 + 1)`.")
define("review-test-source", 2, 422,
       "An intent test's expected value is sourced to an answer that is not a counting "
       "answer of the review's intent signer.",
       "Cite the intent signer's answer (its record path), a published source, or leave "
       "the expected value to the computation every candidate agrees on.")
define("review-test-unknown", 2, 422, "A probe names no intent test of the review.",
       "Name the test's record path as GET /reviews/<target> lists it.")

#: words that may not stand in an intent test's argument (the probe's statement is
#: written by the gate): Lean's keywords and commands, and what would make it no value
_TERM_WORDS_REFUSED = frozenset({
    "at", "by", "do", "else", "end", "fun", "have", "if", "in", "let", "match", "mut", "open",
    "then", "where", "with", "from", "show", "calc", "return", "for", "unless", "try",
    "catch", "finally", "break", "continue", "suffices", "obtain", "nomatch", "nofun",
    "this", "sorry", "admit", "Type", "Sort", "Prop",
}) | COMMAND_KEYWORDS
_WORD_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_'.]*")

_REVIEW_KINDS = frozenset({
    Kind.REVIEW_OPENING, Kind.REVIEW_CANDIDATE, Kind.REVIEW_EXHIBIT, Kind.REVIEW_ATTEMPT,
    Kind.REVIEW_TEST, Kind.REVIEW_QUESTION, Kind.REVIEW_ANSWER, Kind.REVIEW_SIGNATURE,
})


def shape_findings(diff: Diff, artifacts: Iterable[Artifact]) -> list[Diagnostic]:
    """The pull request's shape when it carries a review act: one act alone (one record,
    and for a candidate or exhibit its ``.lean`` of the same name, whose SHA-256 the
    record names).

    Codes: ``review-acts-batched``, ``missing-file``, ``review-lean-hash-mismatch`` (read
    from the record in :func:`record_findings`).
    """
    arts = list(artifacts)
    review = [a for a in arts if a.kind in _REVIEW_KINDS]
    if not review:
        return []
    out: list[Diagnostic] = []
    if len(arts) > 1 or any(sum(p.endswith(".yaml") for p in a.paths) > 1 for a in review):
        out.append(Diagnostic("review-acts-batched", f"{len(diff.changes)} changed paths "
                              "carry more than one act", review[0].main))
    for art in review:
        if art.kind not in REVIEW_LEAN_KINDS:
            continue
        stems = {p.rsplit(".", 1)[0] for p in art.paths}
        for stem in stems:
            for ext in (".yaml", ".lean"):
                if stem + ext not in art.paths:
                    out.append(Diagnostic("missing-file", f"a review {art.kind.value} is "
                                          f"its record and its Lean file", stem + ext))
    return out


def record_findings(base: Graph, diff: Diff, art: Artifact, path: str,
                    rec: m.Record, now: str | None) -> list[Diagnostic]:
    """Every step-2 finding on the review record ``rec`` at ``path`` (the codes in the
    module docstring, and the role-signature codes of
    :func:`network.record.trust.check_role_signature` for an opening, answer or
    signature), judged against ``base``'s review of ``art.target``."""
    tid = art.target
    if getattr(rec, "target", tid) != tid:
        return [Diagnostic("id-mismatch", f"target {getattr(rec, 'target', '')!r} filed "
                           f"under {tid}", path)]
    if isinstance(rec, m.ReviewOpening):
        return _opening(base, tid, path, rec, now)
    state = derive.review_state(base, tid)
    if state is None:
        return [Diagnostic("review-not-open", f"{tid} has no review", path)]
    if isinstance(rec, (m.ReviewCandidate, m.ReviewExhibit)):
        lean = path[:-len(".yaml")] + ".lean"
        ch = next((c for c in diff.changes if c.path == lean and c.new_id), None)
        if ch is None:
            return []  # shape_findings names the missing file
        data = diff.new_bytes(ch)
        if sha256_hex(data) != rec.lean_sha256:
            return [Diagnostic("review-lean-hash-mismatch", f"{lean} hashes to "
                               f"{sha256_hex(data)}", path)]
        if isinstance(rec, m.ReviewCandidate):
            return _candidate(base, tid, state, lean, data, rec)
        undeclared = ([] if rec.theorem in declared_names(data.decode("utf-8", "replace"))
                      else [Diagnostic("review-declaration-undeclared", f"{rec.theorem} is "
                                       "not declared in the exhibit's Lean", lean)])
        return _names_candidates(state, path, [rec.candidate, rec.other]) + _theorem(
            state, path, rec) + _probe(state, path, rec) + undeclared
    if isinstance(rec, m.ReviewTest):
        return _test(state, path, rec)
    if isinstance(rec, m.ReviewAttempt):
        return _names_candidates(state, path, [rec.candidate, rec.other])
    if isinstance(rec, m.ReviewQuestion):
        out = _names_candidates(state, path, rec.candidates, compiled=False)
        if rec.raised_by is not None and not _on_review(base, tid, rec.raised_by):
            out.append(Diagnostic("dangling-reference", f"raised_by {rec.raised_by!r} is no "
                                  "record of the review", path))
        return out
    if isinstance(rec, m.ReviewAnswer):
        return _answer(base, state, path, rec, now)
    if isinstance(rec, m.ReviewSignature):
        return _signature(base, state, path, rec, now)
    return []


def _opening(base: Graph, tid: str, path: str, rec: m.ReviewOpening,
             now: str | None) -> list[Diagnostic]:
    if rec.role == "proposer":
        return [Diagnostic("review-opener-role", "a proposer's opening is not modelled: no "
                           "target records its proposer", path)]
    stewards, curators = rec.role != "curator", rec.role != "steward"
    out = judged_signature(rec, rec.signature, rec.by,
                           lambda who, d: derive.holds_role(base, tid, who, d,
                                                            stewards=stewards,
                                                            curators=curators),
                           (rec.date, now), base,
                           f"a {rec.role} opening is that role's signed act", path)
    if not all(derive.holds_role(base, tid, rec.intent_signer, d, curators=False)
               for d in dict.fromkeys(x for x in (rec.date, now) if x)):
        out.append(Diagnostic("review-intent-signer-not-steward",
                              f"{rec.intent_signer} is no steward of {tid}", path))
    state = derive.review_state(base, tid)
    if state is not None and (state.held or rec.role == "background"):
        out.append(Diagnostic("review-already-open", f"{state.opening} stands", path))
    return out


def declared_names(text: str) -> set[str]:
    """The full names a Lean file's declarations declare, as the command reader reads
    them (:func:`network.gate.screens.lean_commands.read_commands`)."""
    return {c.full_name for c in read_commands(text).commands
            if c.cls == DECL and c.name is not None}


def _clash(a: set[str], b: set[str]) -> str | None:
    """A name of ``a`` that ``b`` also declares, or that is under one of ``b``'s or has
    one of ``b``'s under it (an inductive's constructors, a structure's fields), or None.
    Only ``a``'s own name is returned: ``b`` may be a candidate the caller may not read
    (the blind rule)."""
    for x in sorted(a):
        for y in b:
            if x == y or x.startswith(y + ".") or y.startswith(x + "."):
                return x
    return None


_NOT_PREDICATES = frozenset({"theorem", "lemma", "example", "instance", "axiom"})


def _decl_kinds(text: str) -> dict[str, str]:
    """Each declared full name → its command's keyword (def, theorem, ...)."""
    return {c.full_name: c.kind for c in read_commands(text).commands
            if c.cls == DECL and c.name is not None}


def _renamed(text: str) -> str:
    """:func:`_bare` with every name the file declares (and its last component) replaced
    by one placeholder: the root's statement under another name is still the root's."""
    out = text
    for name in sorted(declared_names(text), key=len, reverse=True):
        out = re.sub(rf"(?<![\w.']){re.escape(name)}(?![\w'])", "_x_", out)
        last = name.rsplit(".", 1)[-1]
        out = re.sub(rf"(?<![\w.']){re.escape(last)}(?![\w'])", "_x_", out)
    return _bare(out)


def _bare(text: str) -> str:
    """Lean text with comments and whitespace set aside (D-25 v3.21's comparison)."""
    return re.sub(r"\s+", "", strip_comments(text))


def _candidate(base: Graph, tid: str, state: derive.ReviewState, lean: str, data: bytes,
               rec: m.ReviewCandidate) -> list[Diagnostic]:
    text = data.decode("utf-8", "replace")
    out = statement_command_findings(text, lean)
    bare = _bare(text)
    kinds = _decl_kinds(text)
    names = set(kinds)
    if rec.declaration not in names:
        out.append(Diagnostic("review-declaration-undeclared", f"{rec.declaration} is not "
                              "declared in the candidate's Lean", lean))
    review_prefix = f"Lemmata.{ids.lean_component(tid)}.Review."
    for line in import_lines(text):
        if line.split()[-1].startswith(review_prefix):
            out.append(Diagnostic("review-candidate-import", line.strip(), lean))
    names |= {rec.declaration}
    for c in state.candidates:
        other = base.text(c.lean) if c.lean in base.targets[tid].review_lean else ""
        if _bare(other) == bare:
            out.append(Diagnostic("review-candidate-copy", f"identical to {c.path}, comments "
                                  "and whitespace aside", lean))
        clash = _clash(names, declared_names(other) | {c.record.declaration})
        if clash is not None:  # a pair's check imports both modules side by side
            out.append(Diagnostic("review-declaration-taken", f"{clash} is declared by "
                                  f"{c.path}", lean))
    missing = sorted(p for p in rec.concepts.values() if p not in kinds)
    if missing:
        out.append(Diagnostic("review-concept-undeclared", f"{', '.join(missing)} is not "
                              "declared in the candidate's Lean", lean))
    if rec.claim is not None:
        if rec.claim not in kinds:
            out.append(Diagnostic("review-declaration-undeclared", f"claim {rec.claim} is not "
                                  "declared in the candidate's Lean", lean))
        unmapped = [w for w in state.opening_record.concepts if w not in rec.concepts]
        if unmapped:
            out.append(Diagnostic("review-claim-concepts", f"the claim takes every concept; "
                                  f"{', '.join(unmapped)} has no predicate", lean))
    proofs = sorted(p for p in [*rec.concepts.values(), *([rec.claim] if rec.claim else [])]
                    if kinds.get(p) in _NOT_PREDICATES)
    if proofs:
        out.append(Diagnostic("review-concept-not-predicate", f"{', '.join(proofs)} is "
                              "no definition", lean))
    root_text = _root_text(base, tid, state)
    if root_text is not None and rec.origin != "registry" and (
            _bare(root_text) == bare or _renamed(root_text) == _renamed(text)):
        out.append(Diagnostic("review-root-not-registry", "the root's statement, filed as "
                              f"{rec.origin}'s", lean))
    if rec.mutant_of is not None and rec.mutant_of not in state.surviving:
        out.append(Diagnostic("review-mutant-of", f"{rec.mutant_of!r} is no surviving "
                              "candidate of the review", lean))
    if rec.wraps is not None:
        wrapped = next((c for c in state.candidates if c.path == rec.wraps), None)
        if wrapped is None or not wrapped.compiled or wrapped.record.origin != "registry" \
                or wrapped.record.wraps is not None:
            out.append(Diagnostic("review-wraps-unknown", f"{rec.wraps!r} is no compiled "
                                  "registry candidate of the review", lean))
    elif rec.origin == "registry" and (sha256_hex(data) != state.root_sha256
                                       or rec.declaration != state.root_declaration):
        out.append(Diagnostic("review-registry-not-root", "not the root's Statement.lean "
                              "bytes under the root's declaration", lean))
    return out


def _root_text(base: Graph, tid: str, state: derive.ReviewState) -> str | None:
    """The current root's Statement.lean text, or None without one."""
    if state.root_sha256 is None:
        return None
    t = base.targets[tid]
    for node in t.nodes.values():
        lf = node.files.get("Statement")
        if lf is not None and lf.sha256 == state.root_sha256:
            return base.text(lf.path)
    return None


def _names_candidates(state: derive.ReviewState, path: str, names: Iterable[str | None],
                      *, compiled: bool = True) -> list[Diagnostic]:
    known = {c.path for c in state.candidates if c.compiled or not compiled}
    return [Diagnostic("review-candidate-unknown", f"{n!r} is no "
                       f"{'compiled ' if compiled else ''}candidate of the review", path)
            for n in names if n is not None and n not in known]


def _theorem(state: derive.ReviewState, path: str, rec: m.ReviewExhibit) -> list[Diagnostic]:
    """A ``proves`` exhibit restates its candidate's theorem under the candidate's own
    name, as a Proof.lean restates its Statement.lean (the check compares the two by
    name); the other kinds name a theorem of their own."""
    decl = next((c.record.declaration for c in state.candidates if c.path == rec.candidate),
                None)
    if rec.kind == "proves" and decl is not None and rec.theorem != decl:
        return [Diagnostic("review-exhibit-theorem", f"a proves exhibit's theorem is the "
                           f"candidate's {decl}", path)]
    if rec.kind != "proves" and decl is not None and rec.theorem == decl:
        return [Diagnostic("review-exhibit-theorem", f"a {rec.kind} exhibit names a theorem "
                           "of its own, not the candidate's", path)]
    return []


def term_problem(text: str) -> str | None:
    """Why ``text`` cannot stand as an intent test's argument, or None: its parentheses
    must balance without closing below zero (so it cannot close the probe's own), and no
    word of it may be a Lean keyword, a command or ``sorry``."""
    depth = 0
    for ch in text:
        depth += (ch == "(") - (ch == ")")
        if depth < 0:
            return "a parenthesis closes before it opens"
    if depth:
        return "its parentheses do not balance"
    bad = sorted({w for w in _WORD_RE.findall(text) if w.split(".")[0] in _TERM_WORDS_REFUSED})
    return f"{', '.join(bad)} may not stand in a value" if bad else None


def _test(state: derive.ReviewState, path: str, rec: m.ReviewTest) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    if rec.concept not in state.opening_record.concepts:
        out.append(Diagnostic("review-test-concept", f"{rec.concept!r} is no concept of "
                              f"the opening {list(state.opening_record.concepts)}", path))
    for arg in rec.args:
        why = term_problem(arg)
        if why is not None:
            out.append(Diagnostic("review-test-term", f"{arg!r}: {why}", path))
    answers = {q.answer_path for q in state.questions if q.answer_path is not None}
    if rec.source == "answer" and rec.answer not in answers:
        out.append(Diagnostic("review-test-source", f"{rec.answer!r} is no counting answer "
                              "of the review", path))
    elif rec.source == "answer" and not same_person(rec.by, state.intent_signer):
        out.append(Diagnostic("review-test-source", "a test sourced to an answer is the "
                              f"intent signer's ({state.intent_signer}) to write", path))
    return out


def _probe(state: derive.ReviewState, path: str, rec: m.ReviewExhibit) -> list[Diagnostic]:
    if rec.test is None:
        return []
    test = next((tv.record for tv in state.tests if tv.path == rec.test), None)
    if test is None:
        return [Diagnostic("review-test-unknown", f"{rec.test!r}", path)]
    cand = next((c.record for c in state.candidates if c.path == rec.candidate), None)
    if cand is not None and test.concept not in cand.concepts:
        return [Diagnostic("review-test-concept", f"{rec.candidate} names no predicate for "
                           f"{test.concept!r}", path)]
    if cand is not None and test.probe != "holds" and cand.claim is None:
        return [Diagnostic("review-test-claim", f"a {test.probe} probe applies the "
                           f"candidate's claim, and {rec.candidate} names none", path)]
    return []


def _on_review(base: Graph, tid: str, ref: str) -> bool:
    t = base.targets[tid]
    return any(rf.path == ref for rows in (t.review_exhibits, t.review_attempts,
                                           t.review_tests, t.review_questions,
                                           t.review_signatures)
               for rf in rows)


def _answer(base: Graph, state: derive.ReviewState, path: str, rec: m.ReviewAnswer,
            now: str | None) -> list[Diagnostic]:
    if not same_person(rec.by, state.intent_signer):
        return [Diagnostic("review-answer-not-intent-signer", f"{rec.by} answers; the "
                           f"intent signer is {state.intent_signer}", path)]
    q = next((q for q in state.questions if q.path == rec.question), None)
    if q is None:
        return [Diagnostic("review-question-unknown", f"{rec.question!r}", path)]
    if q.answer is not None:
        return [Diagnostic("review-question-answered", f"answered by {q.answer_path}", path)]
    return judged_signature(rec, rec.signature, rec.by,
                            lambda who, _d: same_person(who, state.intent_signer),
                            (rec.date, now), base,
                            "an answer is the intent signer's signed act", path)


def _signature(base: Graph, state: derive.ReviewState, path: str, rec: m.ReviewSignature,
               now: str | None) -> list[Diagnostic]:
    out = judged_signature(rec, rec.signature, rec.by, lambda who, _d: who == rec.by,
                           (rec.date, now), base,
                           "a review signature is its signer's signed act", path)
    out += _names_candidates(state, path, rec.cluster, compiled=False)
    if any(s.record == rec for s in state.signatures):
        return out + [Diagnostic("review-signature-repeated", "this signature is on the "
                                 "record already", path)]
    if rec.role == "intent" and not same_person(rec.by, state.intent_signer):
        out.append(Diagnostic("review-signer-role", f"the intent signer is "
                              f"{state.intent_signer}", path))
    if rec.role == "independent" and same_person(rec.by, state.intent_signer):
        out.append(Diagnostic("review-signer-role", "the intent signer is not the "
                              "independent signer", path))
    if rec.decision != "accept":
        return out  # a split or send-back is recorded and shown; it earns nothing
    if not state.complete:
        return out + [Diagnostic("review-not-complete", "; ".join(state.missing), path)]
    cluster = set(state.clusters[0])
    if set(rec.cluster) != cluster:
        out.append(Diagnostic("review-cluster-not-surviving", f"the surviving cluster is "
                              f"{sorted(cluster)}", path))
    authors = {c.record.by.casefold() for c in state.candidates
               if c.path in cluster and c.record.origin != "registry"}
    if state.root_author and any(c.is_root for c in state.candidates if c.path in cluster):
        authors.add(state.root_author.casefold())
    if rec.role == "independent" and rec.by.casefold() in authors:
        out.append(Diagnostic("review-signer-authored", f"{rec.by} wrote a candidate in "
                              "the cluster", path))
    if any(s.counts and s.record.role == rec.role for s in state.signatures):
        out.append(Diagnostic("review-signature-repeated", f"the {rec.role} signature "
                              "counts already", path))
    return out
