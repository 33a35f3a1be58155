"""A formalization review's operations, behind its routes and MCP tools (D-9 v3.39, D-28 v3.39, D-35 "reviews:
submit_candidate, and the intent signer's and the signers' acts"; issue 27).

A target has one review, so a review is addressed by its target's id: ``review_id`` in
every path below *is* the target id. The HTTP routes are
:mod:`network.api.records.review_routes`'s, each a thin shell over one function here (the
tools call the same, ``network/api/tools.py``).

Writes. Each opens ONE pull request appending one record under
``targets/<id>/review/<folder>/<ts>-<pseudonym>.yaml`` (and, for a candidate or an exhibit,
its Lean as the ``.lean`` of the same stem) through the one path
(:func:`network.api.submit.record_pr.file_record`): the gate's own steps 1-2 judge the
change first (the review rules are :mod:`network.gate.records.review_rules`, whose catalog
codes every refusal here carries; none is defined twice), so nothing opens that step 2
would refuse, and one review act is one pull request.

* ``POST /reviews`` (:func:`open_review`; a person's act, no tool): a signed-in steward
  of the target or curator opens the review, naming the conjecture's words, its cases and
  the intent signer (a steward of the target); signed with the network's approval key for
  the person (ruling 14, as a shelving is).
* ``POST /reviews/{review_id}/candidates`` (:func:`submit_candidate`, tool
  ``submit_candidate``; a bearer token): one candidate statement, the author the token's
  identity; ``lean_sha256`` is the SHA-256 of the Lean's UTF-8 bytes.
* ``POST /reviews/{review_id}/answers`` (:func:`answer_question`; a person, no tool): the
  intent signer's answer to a question, signed, naming the GitHub login.
* ``POST /reviews/{review_id}/signatures`` (:func:`sign_review`; a person, no tool): an
  intent or independent signature, signed, naming the login.
* ``POST /reviews/{review_id}/exhibits``, ``/attempts``, ``/tests`` and ``/questions``
  (:func:`submit_exhibit`, :func:`file_attempt`, :func:`file_test`,
  :func:`file_question`; tools ``submit_review_exhibit``, ``file_review_attempt``,
  ``file_review_test``, ``file_review_question``; a bearer token): the agent work of
  stages 3-6 (screens and pair directions, intent tests and their probes, questions). D-28 says a pair proof goes "through
  submit_proof", but ``submit_proof`` files a node's artifact (a proof, partial ... under
  ``nodes/<id>/``, with a precheck attestation of the node's statement); a review exhibit
  lives under ``review/exhibits/`` beside a record naming its candidates, so it has its
  own route, judged by the same gate (steps 3-5 build and check it in Lean at the merge).

Reads (no token needed):

* ``GET /reviews/{review_id}`` (:func:`get_review`, tool ``get_review``): graph.json's
  ``review`` (:func:`network.record.derive.review_view`) under the blind rule (D-9 v3.39:
  "people submit blind ... never another candidate's Lean until their own is on the
  record"): each candidate's Lean text is added only for a caller whose token's identity
  has a candidate of its own merged in the review; anyone else gets paths and hashes only.
  The graph's files are public, so this is a courtesy the service keeps, not a secret.
* ``GET /review-questions`` (tool ``list_review_questions``) and ``GET
  /reviews/{review_id}/questions`` (the same list for one review): the questions waiting.
* ``GET /review-pairs`` (tool ``list_open_pairs``): pair directions open or untried, each
  with its two candidates and the attempts recorded.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from network.api import db
from network.api.identity.pseudonyms import write_identity
from network.api.identity.role_acts import sign_role_act
from network.api.people import web_session
from network.api.service import Caller, Service, Who, authenticate, iso, sha256_hex
from network.api.submit.names import record_path
from network.api.submit.openings import follow
from network.api.submit.record_pr import Conflict, file_record, normalized_lean_sha256
from network.api.submit.records import (
    IndexKey,
    dump_yaml,
    graph_of,
    normalized_record_sha256,
    receipt,
    target_of,
    validate_record,
)
from network.errors import LemmataError
from network.gate.artifacts import Kind
from network.gate.records import review_rules  # noqa: F401  (the review-* codes)
from network.gate.screens.lean_commands import DECL, read_commands
from network.gate.steps.step2 import roles_of
from network.record import derive
from network.record import models as m
from network.record.read.loader import Graph

#: the roles a review is opened in through the service (D-9 v3.39; ``proposer`` is not
#: modelled: no target records its proposer, ``review-opener-role``)
OPENER_ROLES = ("steward", "curator", "background")
_DECISION = "Record-only kind: step 2 alone (ruling 6); D-9 v3.39"
_LEAN_DECISION = "Steps 1-4 (a candidate) or 1-5 (an exhibit) check its Lean; D-9 v3.39"
_NEXT = ("Poll GET /submissions/mine (get_my_submissions) for the pull request; the gate "
         "judges it and merges it. The review then reads it: GET /reviews/{target} "
         "(get_review).")


# --- shared steps ----------------------------------------------------------------------


def _review(graph: Graph, review_id: str) -> derive.ReviewState:
    """The review of target ``review_id`` as main derives it.

    Raises:
        LemmataError: ``bad-target-id``; ``target-not-found``; ``review-not-open``.
    """
    target_of(graph, review_id)
    state = derive.review_state(graph, review_id)
    if state is None:
        raise LemmataError("review-not-open", f"{review_id} has no review: a steward of "
                           "the target or a curator opens one (POST /reviews)",
                           field="review_id")
    return state


def _open_same(kind: Kind, digest: str, code: str, what: str) -> Conflict:
    """An index check refusing ``code`` while a pull request of ``kind`` with the key
    ``digest`` is open on the target (the gate's refusal, said before the second opens)."""

    def check(rows: list[db.SubmissionRow]) -> None:
        for r in rows:
            if r.kind == kind.value and r.normalized_sha256 == digest:
                raise LemmataError(code, f"{what}: open submission {r.id} ({follow(r)}, "
                                   f"by {r.pseudonym})")

    return check


def _file(svc: Service, who: Who, graph: Graph, target: str, folder: str,
          model: type[m.Record], record: dict[str, Any], *, kind: Kind, what: str,
          lean: str | None = None, signed: bool = False,
          conflicts: Iterable[Conflict] = (), copy_key: dict[str, Any] | None = None,
          copy: str | None = None, **extra: Any) -> dict[str, Any]:
    """Validate ``record`` against ``model`` (D-34), sign it with the approval key for
    ``who`` when ``signed`` (ruling 14), and open ONE pull request appending it at
    ``targets/<target>/review/<folder>/<ts>-<pseudonym>.yaml`` (with ``lean`` as the
    ``.lean`` beside it) through :func:`network.api.submit.record_pr.file_record`.

    Returns:
        The receipt (``submission_id``, ``pull_request``, ``paths``, ``record``, ``next``
        and ``extra``).

    Raises:
        LemmataError: ``invalid-record``; ``approval-key-missing``; the first step-1/2
            finding's code (the review rules'); ``record-copy`` or a conflict's code;
            ``forge-not-configured``; ``queue-down``.
    """
    path = record_path(svc, f"targets/{target}/review/{folder}", who.pseudonym, ".yaml")
    rec = validate_record(model, {"target": target, **record, "by": who.pseudonym,
                                  "date": iso(svc.now())}, path)
    if signed:
        rec = sign_role_act(svc, model, rec, who)
    files = {path: dump_yaml(rec)}
    if lean is not None:
        files[path[:-len(".yaml")] + ".lean"] = lean.encode("utf-8")
    body = copy_key if copy_key is not None else {
        k: v for k, v in rec.items() if k not in ("signature", "login")}
    key = IndexKey(target, "", kind.value, None, normalized_record_sha256(body))
    opened = file_record(svc, who, graph, files, kind=kind, key=key,
                         title=f"{kind.value}: {target}", what=what,
                         decision=_LEAN_DECISION if lean is not None else _DECISION,
                         copy=copy, conflicts=list(conflicts))
    return receipt(opened, kind=kind.value, target=target, node=None, record=rec,
                   next_step=_NEXT.replace("{target}", target), **extra)


def _declared(lean: str) -> str:
    """The one theorem (or lemma) ``lean`` declares, namespace included, read by the
    gate's command reader (:func:`network.gate.screens.lean_commands.read_commands`).

    Raises:
        LemmataError: ``bad-request`` (none, several, or text the reader cannot place:
            name ``declaration``).
    """
    try:
        cmds = read_commands(lean).commands
    except LemmataError:
        cmds = []
    names = [f"{c.namespace}.{c.name}" if c.namespace else c.name for c in cmds
             if c.cls == DECL and c.kind in ("theorem", "lemma") and c.name]
    if len(names) != 1:
        raise LemmataError("bad-request", f"the Lean declares {len(names)} theorems; name "
                           "the candidate's in `declaration`", field="declaration")
    return str(names[0])


# --- the person's acts (no tool: only a person holds the roles) --------------------------


def open_review(svc: Service, person: web_session.Person, *, target: str, role: str,
                words: str, intent_signer: str,
                cases: list[dict[str, Any]] | None = None,
                concepts: list[str] | None = None) -> dict[str, Any]:
    """Open a target's formalization review (POST /reviews; D-9 v3.39 stage 1): a pull
    request appending ``targets/<target>/review/openings/<ts>-<pseudonym>.yaml``
    (``review-opening/v1``), signed with the approval key for the signed-in person.

    Args:
        person: the signed-in steward of the target or curator.
        target: the target reviewed (its id is the review's id).
        role: ``steward``, ``curator`` (held: the review holds D-4 step 9 on a proof that
            would settle the root) or ``background`` (a review of a target listed before
            v3.39, which never holds it).
        words: the conjecture in words.
        intent_signer: the pseudonym who answers the questions and signs for intent: a
            steward of the target (D-32).
        cases: ``[{kind, text, source?}]``, kind ``special-case``, ``small-value``,
            ``consequence`` or ``non-example``.
        concepts: the concepts the words use (``prime``, ``twin prime pair``), each of
            which a candidate names as its own predicate (the format rule) and an intent
            test probes.

    Returns:
        The receipt; ``review`` is the review's id (the target's).

    Raises:
        LemmataError: the write guard's codes; ``bad-target-id``; ``target-not-found``;
            ``bad-request`` (an unknown role); ``review-opener-role`` (``proposer``, or
            a role the person does not hold on the target); ``review-intent-signer-not-
            steward``; ``review-already-open`` (a held review stands, a background one
            after any, or an opening is open for the target); ``invalid-record``;
            ``approval-key-missing``; step-2 codes; ``forge-not-configured``;
            ``queue-down``.
    """
    who = write_identity(svc, person.caller)
    graph = graph_of(svc)
    target_of(graph, target)
    if role == "proposer":
        raise LemmataError("review-opener-role", "a proposer's opening is not modelled: no "
                           "target records its proposer", field="role")
    if role not in OPENER_ROLES:
        raise LemmataError("bad-request", f"role must be one of {list(OPENER_ROLES)}",
                           field="role")
    held = roles_of(graph, target, who.pseudonym)
    may = {"steward": {"steward"}, "curator": {"curator"}}.get(role, {"steward", "curator"})
    if not held & may:
        raise LemmataError("review-opener-role", f"{who.pseudonym} holds no {role} role on "
                           f"{target} (D-9 v3.39)", field="role")
    if intent_signer not in derive.stewards_of(graph, target):
        raise LemmataError("review-intent-signer-not-steward", f"{intent_signer} is no "
                           f"steward of {target}", field="intent_signer")
    state = derive.review_state(graph, target)
    if state is not None and (state.held or role == "background"):
        raise LemmataError("review-already-open", f"{state.opening} stands", path=state.opening)
    one = normalized_record_sha256({"opening": target})  # one open opening per target
    return _file(svc, who, graph, target, "openings", m.ReviewOpening, {
        "role": role, "words": words, "cases": [dict(c) for c in cases or []],
        "concepts": list(concepts or []), "intent_signer": intent_signer}, kind=Kind.REVIEW_OPENING, signed=True,
        what=f"Opens the formalization review of {target} as {role}, {intent_signer} its "
             "intent signer (D-9 v3.39).", copy_key={"opening": target},
        conflicts=[_open_same(Kind.REVIEW_OPENING, one, "review-already-open",
                              "an opening of this review is open")],
        review=target)


def answer_question(svc: Service, person: web_session.Person, *, review_id: str,
                    question: str, answer: str, source: str | None = None) -> dict[str, Any]:
    """Answer one of the review's questions as its intent signer (POST
    /reviews/{review_id}/answers; D-9 v3.39 stage 5, "the evidence page"): a pull request
    appending a ``review-answer/v1`` signed with the approval key for the person and
    naming their GitHub login (v3.33).

    Args:
        review_id: the target's id.
        question: the question's record path, as GET /reviews/{review_id} lists it.
        answer: the answer, in mathematics.
        source: where it comes from; an answer without one is flagged on the page.

    Raises:
        LemmataError: the write guard's codes; ``bad-target-id``; ``target-not-found``;
            ``review-not-open``; ``review-answer-not-intent-signer``;
            ``review-question-unknown``; ``review-question-answered`` (answered on main,
            or an answer to it is open); ``invalid-record``; ``approval-key-missing``;
            step-2 codes; ``forge-not-configured``; ``queue-down``.
    """
    who = write_identity(svc, person.caller)
    graph = graph_of(svc)
    state = _review(graph, review_id)
    if who.pseudonym != state.intent_signer:
        raise LemmataError("review-answer-not-intent-signer", f"{who.pseudonym} answers; "
                           f"the intent signer is {state.intent_signer}")
    q = next((q for q in state.questions if q.path == question), None)
    if q is None:
        raise LemmataError("review-question-unknown", f"{question!r}", field="question")
    if q.answer is not None:
        raise LemmataError("review-question-answered", f"answered by {q.answer_path}",
                           path=q.answer_path)
    one = normalized_record_sha256({"question": question})
    rec: dict[str, Any] = {"question": question, "answer": answer, "source": source,
                           "login": person.login or who.github_login}
    return _file(svc, who, graph, review_id, "answers", m.ReviewAnswer,
                 {k: v for k, v in rec.items() if v is not None}, kind=Kind.REVIEW_ANSWER,
                 signed=True, what=f"The intent signer's answer to {question} (D-9 v3.39).",
                 copy_key={"question": question},
                 conflicts=[_open_same(Kind.REVIEW_ANSWER, one, "review-question-answered",
                                       "an answer to this question is open")])


def sign_review(svc: Service, person: web_session.Person, *, review_id: str, role: str,
                decision: str, cluster: list[str], note: str | None = None
                ) -> dict[str, Any]:
    """Sign the review (POST /reviews/{review_id}/signatures; D-9 v3.39 stage 7): a pull
    request appending a ``review-signature/v1`` signed with the approval key for the
    person and naming their login. A signature is a decision written by a person; only
    ``accept`` of exactly the surviving cluster of a complete review earns a grade, and a
    ``split`` or ``send-back`` is recorded and shown.

    Args:
        review_id: the target's id.
        role: ``intent`` (the intent signer's) or ``independent`` (someone who is not the
            intent signer and wrote no candidate in the cluster).
        decision: ``accept``, ``split`` or ``send-back``.
        cluster: the candidate record paths signed for.
        note: a sentence on the record.

    Raises:
        LemmataError: the write guard's codes; ``bad-target-id``; ``target-not-found``;
            ``review-not-open``; ``review-signer-role``; ``review-not-complete`` (an
            accept while the automated stages are not complete); from step 2:
            ``review-cluster-not-surviving``, ``review-signer-authored``,
            ``review-signature-repeated``; ``invalid-record``; ``approval-key-missing``;
            ``record-copy`` (the same signature open); ``forge-not-configured``;
            ``queue-down``.
    """
    who = write_identity(svc, person.caller)
    graph = graph_of(svc)
    state = _review(graph, review_id)
    if role == "intent" and who.pseudonym != state.intent_signer:
        raise LemmataError("review-signer-role", f"the intent signer is "
                           f"{state.intent_signer}", field="role")
    if role == "independent" and who.pseudonym == state.intent_signer:
        raise LemmataError("review-signer-role", "the intent signer is not the independent "
                           "signer", field="role")
    if decision == "accept" and not state.complete:
        raise LemmataError("review-not-complete", "; ".join(state.missing) or "incomplete")
    rec: dict[str, Any] = {"role": role, "decision": decision, "cluster": list(cluster),
                           "note": note, "login": person.login or who.github_login}
    return _file(svc, who, graph, review_id, "signatures", m.ReviewSignature,
                 {k: v for k, v in rec.items() if v is not None},
                 kind=Kind.REVIEW_SIGNATURE, signed=True, copy="this review signature",
                 what=f"A {role} signature ({decision}) of the review of {review_id} "
                      "(D-9 v3.39).")


# --- the agents' acts (bearer token; tools) -----------------------------------------------


def submit_candidate(svc: Service, caller: Caller, *, review_id: str, lean: str,
                     declaration: str | None = None,
                     concepts: dict[str, str] | None = None,
                     origin: str | None = None, models: list[str] | None = None,
                     read_others: bool | None = None,
                     registry: dict[str, Any] | None = None, mutant_of: str | None = None,
                     defect_class: str | None = None,
                     wraps: str | None = None, claim: str | None = None) -> dict[str, Any]:
    """Submit one candidate formalization of the review's words (POST
    /reviews/{review_id}/candidates, submit_candidate; D-9 v3.39 stage 2, D-28 v3.39): a
    pull request appending a ``review-candidate/v1`` record and its Lean
    (``<ts>-<pseudonym>.lean``, ``lean_sha256`` the SHA-256 of its UTF-8 bytes), the
    author the token's identity.

    Args:
        review_id: the target's id.
        lean: the candidate statement (a theorem whose proof is ``sorry``).
        declaration: the theorem's full name; default the one theorem ``lean`` declares.
        concepts: each concept the opening names → the candidate's own predicate for it
            (a ``def`` of ``lean``; the format rule): a candidate that misses one is
            returned to its author, never discarded.
        origin: ``person``, ``model`` or ``registry``; default ``model`` when ``models``
            names any, else ``person``.
        models: the models that made or helped (v3.31), recorded joined by ``, ``.
        read_others: a person's declaration of whether they read another candidate's
            Lean first (the blind rule, shown as a claim); required of ``person``.
        registry: ``{name, repository, commit?, file?, declaration?}`` for ``registry``.
        mutant_of, defect_class: a mutant (stage 6): the surviving candidate it perturbs
            and the way it goes wrong (D-11's classes); both or neither.
        wraps: a wrapper (origin ``registry``): the imported candidate it restates with
            each concept its own predicate (D-9 v3.39 porting).
        claim: the definition of the candidate's statement over its concept predicates,
            in the opening's concept order (what the covers and witness probes apply).

    Raises:
        LemmataError: the write guard's codes; ``bad-target-id``; ``target-not-found``;
            ``review-not-open``; ``bad-request`` (no single theorem to name);
            ``invalid-record`` (e.g. a person's candidate without ``read_others``);
            ``review-candidate-copy`` (byte-identical to a candidate merged or open);
            from step 2: ``review-declaration-taken``, ``review-registry-not-root`` and
            the statement's own findings; ``forge-not-configured``; ``queue-down``.
    """
    who = write_identity(svc, caller)
    graph = graph_of(svc)
    _review(graph, review_id)
    decl = declaration or _declared(lean)
    digest = sha256_hex(lean.encode("utf-8"))
    if models and len(", ".join(models)) > 200:
        raise LemmataError("invalid-record", "the models named come to more than 200 "
                           "characters", field="models")
    # an open copy is the gate's copy: comments and whitespace aside (D-25 v3.21)
    same = normalized_lean_sha256(lean)
    rec: dict[str, Any] = {
        "origin": origin or ("model" if models else "person"),
        "model": ", ".join(models) if models else None, "read_others": read_others,
        "registry": registry, "declaration": decl, "concepts": dict(concepts or {}),
        "mutant_of": mutant_of, "defect_class": defect_class, "wraps": wraps,
        "claim": claim, "lean_sha256": digest}
    return _file(svc, who, graph, review_id, "candidates", m.ReviewCandidate,
                 {k: v for k, v in rec.items() if v is not None},
                 kind=Kind.REVIEW_CANDIDATE, lean=lean, copy_key={"lean": same},
                 what=f"A candidate formalization ({decl}) for the review of {review_id} "
                      "(D-9 v3.39).",
                 conflicts=[_open_same(Kind.REVIEW_CANDIDATE,
                                       normalized_record_sha256({"lean": same}),
                                       "review-candidate-copy",
                                       "the same Lean is open as a candidate")],
                 blind="GET /reviews/{id} shows the other candidates' Lean once yours is "
                       "merged (the blind rule, D-9 v3.39)".replace("{id}", review_id))


def submit_exhibit(svc: Service, caller: Caller, *, review_id: str, kind: str,
                   candidate: str, theorem: str, lean: str, other: str | None = None,
                   test: str | None = None, tool: str | None = None) -> dict[str, Any]:
    """Submit a kernel-checked exhibit (POST /reviews/{review_id}/exhibits,
    submit_review_exhibit; D-9 v3.39 stages 3-4, D-35): a pull request appending a
    ``review-exhibit/v1`` and its Lean proof, which the gate builds and checks in Lean
    (steps 3-5) against the type built from the candidates' declarations.

    Args:
        review_id: the target's id.
        kind: ``proves``, ``negation`` or ``vacuity`` (a screen of ``candidate``
            succeeded: it discards it), ``implies`` (the direction ``candidate → other``
            is proved), or ``probe-holds``/``probe-fails`` (``candidate``'s answer to
            the intent test ``test``).
        candidate, other: candidate record paths (``other`` for ``implies`` only).
        test: the intent test's record path (for a probe only).
        theorem: the theorem ``lean`` proves (a ``proves`` exhibit restates the
            candidate's own declaration).
        lean: the Lean proof.
        tool: what found it.

    Raises:
        LemmataError: the write guard's codes; ``bad-target-id``; ``target-not-found``;
            ``review-not-open``; ``invalid-record``; from step 2:
            ``review-candidate-unknown``, ``review-exhibit-theorem``,
            ``review-test-unknown``, ``review-test-concept`` and the Lean's own findings; ``record-copy``; ``forge-not-configured``; ``queue-down``.
    """
    who = write_identity(svc, caller)
    graph = graph_of(svc)
    _review(graph, review_id)
    rec: dict[str, Any] = {"kind": kind, "candidate": candidate, "other": other,
                           "test": test, "theorem": theorem, "tool": tool,
                           "lean_sha256": sha256_hex(lean.encode("utf-8"))}
    rec = {k: v for k, v in rec.items() if v is not None}
    return _file(svc, who, graph, review_id, "exhibits", m.ReviewExhibit, rec,
                 kind=Kind.REVIEW_EXHIBIT, lean=lean, copy="this review exhibit",
                 copy_key={k: v for k, v in rec.items() if k != "tool"},
                 what=f"A {kind} exhibit of {candidate}"
                      + (f" → {other}" if other else "") + " (D-9 v3.39).")


def file_attempt(svc: Service, caller: Caller, *, review_id: str, candidate: str,
                 tool: str, budget: str, other: str | None = None,
                 screen: str | None = None) -> dict[str, Any]:
    """Record a screen or pair direction attempted without a result (POST
    /reviews/{review_id}/attempts, file_review_attempt; D-9 v3.39 "pairs": who, what tool,
    what budget): a pull request appending a ``review-attempt/v1``. A failed attempt is
    never a refutation.

    Args:
        review_id: the target's id.
        candidate: the candidate record path.
        other: the other candidate (a direction ``candidate → other``), or
        screen: ``proves``, ``negation`` or ``vacuity``; exactly one of the two.
        tool, budget: what was run and for how long.

    Raises:
        LemmataError: the write guard's codes; ``bad-target-id``; ``target-not-found``;
            ``review-not-open``; ``invalid-record`` (both or neither of other and
            screen); ``review-candidate-unknown`` (step 2); ``record-copy``;
            ``forge-not-configured``; ``queue-down``.
    """
    who = write_identity(svc, caller)
    graph = graph_of(svc)
    _review(graph, review_id)
    rec = {k: v for k, v in {"candidate": candidate, "other": other, "screen": screen,
                             "tool": tool, "budget": budget}.items() if v is not None}
    return _file(svc, who, graph, review_id, "attempts", m.ReviewAttempt, rec,
                 kind=Kind.REVIEW_ATTEMPT, copy="this review attempt",
                 what=f"An attempt on {candidate} ({screen or '→ ' + str(other)}) with "
                      f"{tool}, {budget}, without a result (D-9 v3.39).")


def file_test(svc: Service, caller: Caller, *, review_id: str, concept: str,
              args: list[str], source: str, expected: str | None = None,
              answer: str | None = None, citation: str | None = None,
              probe: str | None = None) -> dict[str, Any]:
    """Write an intent test (POST /reviews/{review_id}/tests, file_review_test; D-9 v3.39
    "intent tests"): a pull request appending a ``review-test/v1``: does the concept hold
    at ``args``? Each candidate then answers it by a probe exhibit. No model supplies an
    expected value: it comes from the intent signer's answer, a citation, or the
    computation every surviving candidate agrees on.

    Args:
        review_id: the target's id.
        concept: a concept the opening names.
        args: the case, as plain Lean terms (``3``, ``(2 ^ 5 + 1)``).
        source: ``answer`` (with ``answer``, the intent signer's answer's record path),
            ``cited`` (with ``citation``) or ``computation`` (no ``expected``).
        expected: ``holds`` or ``fails``, for ``answer`` and ``cited`` only.
        probe: ``holds`` (the concept at ``args``), ``covers`` (the claim with every
            concept empty; no ``args``) or ``witness`` (the claim with the concept
            exactly the values ``args``).

    Raises:
        LemmataError: the write guard's codes; ``bad-target-id``; ``target-not-found``;
            ``review-not-open``; ``invalid-record`` (the source's fields); from step 2:
            ``review-test-concept``, ``review-test-term``, ``review-test-source``;
            ``record-copy``; ``forge-not-configured``; ``queue-down``.
    """
    who = write_identity(svc, caller)
    graph = graph_of(svc)
    _review(graph, review_id)
    rec = {k: v for k, v in {"probe": probe, "concept": concept, "args": list(args),
                             "source": source, "expected": expected, "answer": answer,
                             "citation": citation}.items() if v is not None}
    return _file(svc, who, graph, review_id, "tests", m.ReviewTest, rec,
                 kind=Kind.REVIEW_TEST, copy="this intent test",
                 what=f"An intent test of {review_id}'s review: {concept} at "
                      f"{', '.join(args)} ({source}; D-9 v3.39).")


def file_question(svc: Service, caller: Caller, *, review_id: str, question: str,
                  case: str, candidates: list[str] | None = None,
                  raised_by: str | None = None) -> dict[str, Any]:
    """Ask the intent signer a question (POST /reviews/{review_id}/questions,
    file_review_question; D-9 v3.39 stage 5): a pull request appending a
    ``review-question/v1``, in mathematics, never in Lean.

    Args:
        review_id: the target's id.
        question: the question.
        case: the small case or probe that raised it.
        candidates: the candidates that answer it differently (record paths).
        raised_by: the review record (an exhibit, attempt, question or signature) that
            raised it.

    Raises:
        LemmataError: the write guard's codes; ``bad-target-id``; ``target-not-found``;
            ``review-not-open``; ``invalid-record``; from step 2:
            ``review-candidate-unknown``, ``dangling-reference``; ``record-copy``;
            ``forge-not-configured``; ``queue-down``.
    """
    who = write_identity(svc, caller)
    graph = graph_of(svc)
    _review(graph, review_id)
    rec = {k: v for k, v in {"question": question, "case": case,
                             "candidates": list(candidates or []),
                             "raised_by": raised_by}.items() if v is not None}
    return _file(svc, who, graph, review_id, "questions", m.ReviewQuestion, rec,
                 kind=Kind.REVIEW_QUESTION, copy="this review question",
                 what=f"A question to the intent signer of {review_id}'s review: {case} "
                      "(D-9 v3.39).")


# --- reads ------------------------------------------------------------------------------


def _reader(svc: Service, caller: Caller | None) -> str | None:
    """The pseudonym behind a read's token, or None for an anonymous read.

    Raises:
        LemmataError: ``token-invalid``/``token-expired``; ``rate-limited``.
    """
    if caller is None or (caller.who is None and not caller.token):
        return None
    who = caller.who or authenticate(svc, caller.token, caller.address_hash)
    return who.pseudonym


def get_review(svc: Service, caller: Caller | None = None, *,
               review_id: str) -> dict[str, Any]:
    """A target's formalization review as main holds it (GET /reviews/{review_id},
    get_review; D-9 v3.39, D-28 v3.39), under the blind rule.

    Args:
        caller: the reader; a token is optional and only decides what Lean is shown.
        review_id: the target's id.

    Returns:
        ``{target, graph_commit, review, lean_shown, blind}``: ``review`` is
        :func:`network.record.derive.review_view`'s dict (None when no review stands);
        when the caller's identity has a candidate of its own merged in the review
        (``lean_shown``), each candidate also carries ``lean_text`` (its Lean, or None if
        unreadable). ``blind`` says the rule in a sentence.

    Raises:
        LemmataError: ``bad-target-id``; ``target-not-found``; ``graph-unavailable``;
            ``token-invalid``/``token-expired`` (a token presented and refused);
            ``rate-limited`` (an address's failed tokens past the limit).
    """
    reader = _reader(svc, caller)
    graph = graph_of(svc)
    target_of(graph, review_id)
    view = derive.review_view(graph, review_id)
    own = view is not None and reader is not None and any(
        c["author"] == reader for c in view["candidates"])
    if view is not None and own:
        for c in view["candidates"]:
            try:
                c["lean_text"] = graph.text(c["lean"])
            except (LemmataError, KeyError):
                c["lean_text"] = None
    return {"target": review_id, "graph_commit": graph.commit, "review": view,
            "lean_shown": own,
            "blind": "People submit blind (D-9 v3.39): candidates' Lean is shown only to a "
                     "caller whose token's identity has a candidate of its own merged in "
                     "this review; everyone else sees paths, hashes and results."}


def _states(graph: Graph, target: str | None) -> list[derive.ReviewState]:
    """The standing reviews of ``target`` (or of every target), in target order.

    Raises:
        LemmataError: ``bad-target-id``; ``target-not-found``.
    """
    if target is not None:
        target_of(graph, target)
    out = []
    for tid in ([target] if target is not None else sorted(graph.targets)):
        state = derive.review_state(graph, tid)
        if state is not None:
            out.append(state)
    return out


def list_review_questions(svc: Service, target: str | None = None) -> dict[str, Any]:
    """The questions waiting on reviews (GET /review-questions and GET
    /reviews/{review_id}/questions, list_review_questions; D-9 v3.39 stage 5, D-28 v3.39):
    each in words, with the case that raised it and who is asked (the intent signer).
    Agents read them; only the intent signer answers. Nothing is ranked.

    Args:
        target: a target id; None answers every review.

    Returns:
        ``{graph_commit, target, questions: [{target, path, question, case, candidates,
        raised_by, by, date, asked}]}`` in target then record order.

    Raises:
        LemmataError: ``bad-target-id``; ``target-not-found``; ``graph-unavailable``.
    """
    graph = graph_of(svc)
    out = [{"target": st.target, "path": q.path, "question": q.record.question,
            "case": q.record.case, "candidates": list(q.record.candidates),
            "raised_by": q.record.raised_by, "by": q.record.by, "date": q.record.date,
            "asked": st.intent_signer}
           for st in _states(graph, target) for q in st.questions if q.answer is None]
    return {"graph_commit": graph.commit, "target": target, "questions": out}


def list_open_pairs(svc: Service, target: str | None = None) -> dict[str, Any]:
    """The pair directions reviews leave open (GET /review-pairs, list_open_pairs; D-9
    v3.39 "pairs", D-28 v3.39): each direction ``left → right`` of two surviving
    candidates that is ``open`` (attempted without a result) or ``untried``, with the two
    candidates and the attempts recorded. A proof of one is submitted as an ``implies``
    exhibit (submit_review_exhibit); a failed attempt is recorded (file_review_attempt).
    Nothing is ranked.

    Args:
        target: a target id; None answers every review.

    Returns:
        ``{graph_commit, target, pairs: [{target, grade, status, left, right,
        attempts}]}``; ``left``/``right`` are ``{path, lean, declaration, author}``,
        ``attempts`` ``[{path, by, tool, budget, date}]``.

    Raises:
        LemmataError: ``bad-target-id``; ``target-not-found``; ``graph-unavailable``.
    """
    graph = graph_of(svc)
    pairs = []
    for st in _states(graph, target):
        cands = {c.path: {"path": c.path, "lean": c.lean, "declaration": c.record.declaration,
                          "author": c.record.by} for c in st.candidates}
        tried = {rf.path: rf.record for rf in graph.targets[st.target].review_attempts}
        for d in st.directions:
            if d.status not in ("open", "untried"):
                continue
            pairs.append({
                "target": st.target, "grade": st.grade, "status": d.status,
                "left": cands.get(d.left, {"path": d.left}),
                "right": cands.get(d.right, {"path": d.right}),
                "attempts": [{"path": p, "by": tried[p].by, "tool": tried[p].tool,
                              "budget": tried[p].budget, "date": tried[p].date}
                             for p in d.attempts if p in tried]})
    return {"graph_commit": graph.commit, "target": target, "pairs": pairs}
