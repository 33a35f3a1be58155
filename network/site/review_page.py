"""The evidence page of a target's formalization review (D-9 v3.39 "the evidence page",
D-36 "Review (v3.39)"): ``targets/<id>/review.html``.

The page is built from the record only: graph.json's ``review``
(:func:`network.record.derive.review_view`) says what the review's records add up to
(each candidate's stage-3 outcome, the pair directions, the clusters, the questions with
their counting answers, the signatures with whether each counts, the grade); the Lean of
every candidate and exhibit, and the details the view names by path only (an exhibit's
kind and theorem, an attempt's tool and budget, a signature's note), are read from the
loaded records. Nothing here decides an outcome, a cluster, a count or a grade.

The page keeps exhibits and judgements apart (D-9 v3.12): the kernel-checked part
(candidates, screens, pairs, exhibits) is one section, people's words (answers and
signatures) another.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from network.record import derive
from network.record.read.loader import Graph
from network.site import definitions

SCREEN_WORDS = {
    "proves": "prove it",
    "negation": "prove its negation",
    "vacuity": "prove False from its hypotheses",
}
"""Stage 3's screens (D-9 v3.12 layer 2), each in words; a screen that succeeds discards
the candidate."""
SCREEN_RESULT_WORDS = {
    "succeeded": "succeeded: a kernel-checked exhibit, which discards the candidate",
    "attempted": "attempted without a result (never a refutation)",
    "untried": "not attempted",
}
OUTCOME_WORDS = {
    "surviving": "survives stage 3",
    "discarded": "discarded by a kernel-checked exhibit",
    "returned": ("returned to its author: it names no concept of the words as its own "
                 "predicate (the format rule), so it cannot be probed; never discarded"),
    "uncompiled": "not judged yet: no gate with Lean has built it",
}
"""Each candidate outcome of :func:`network.record.derive.review_view`, in words."""
DIRECTION_WORDS = {
    "proved": "proved",
    "open": "open: attempted without a result (never a refutation)",
    "untried": "untried",
}
EXHIBIT_WORDS = {
    "proves": "proves the candidate's statement",
    "negation": "proves the candidate's negation",
    "vacuity": "proves False from the candidate's hypotheses",
    "implies": "proves that one candidate implies the other",
    "probe-holds": "proves that the test's probe holds for the candidate (its predicate at "
                   "the case, or its claim with the concept empty or a small set)",
    "probe-fails": "proves that the test's probe fails for the candidate (its predicate at "
                   "the case, or its claim with the concept empty or a small set)",
}
GRADE_LADDER = ("mechanical-only", "screened-and-signed", "author-attested",
                "expert-attested")
"""D-9 v3.39's ladder as a review earns it, lowest first (the page shows where the grade
stands on it)."""
SIGNATURE_SLOTS = (
    ("intent", "Intent signature",
     "by the intent signer: the surviving cluster says what the conjecture says"),
    ("independent", "Independent signature",
     ("by someone who reads Lean, is not the intent signer and wrote no candidate in the "
      "surviving cluster: the evidence supports the cluster")),
)

TEST_SOURCE_WORDS = {
    "answer": "the intent signer's answer",
    "cited": "a cited source",
    "computation": "a computation every surviving candidate agrees on (the weakest source)",
}
"""Where an intent test's expected value comes from (D-9 v3.39 "intent tests"); no model
supplies one."""
TEMPLATE_GLOBALS = {"SCREEN_WORDS": SCREEN_WORDS, "SCREEN_RESULT_WORDS": SCREEN_RESULT_WORDS,
                    "OUTCOME_WORDS": OUTCOME_WORDS, "DIRECTION_WORDS": DIRECTION_WORDS,
                    "EXHIBIT_WORDS": EXHIBIT_WORDS, "TEST_SOURCE_WORDS": TEST_SOURCE_WORDS}
"""The words the evidence page's template reads by name."""


def review_anchor(path: str) -> str:
    """The fragment naming a review record on its evidence page: ``<folder>-<stem>`` of
    ``targets/<id>/review/<folder>/<stem>.yaml`` (a candidate's or exhibit's ``.lean``
    shares its record's). Unique per target, since a stem is unique in its folder."""
    parts = path.split("/")
    stem = parts[-1].rsplit(".", 1)[0]
    return f"{parts[-2]}-{stem}" if len(parts) >= 2 else stem


def _lean_of(record_path: str) -> str:
    return record_path[: -len(".yaml")] + ".lean"


def _source(graph: Graph, path: str) -> str | None:
    return graph.text(path) if path in graph.files else None


def review_context(graph: Graph, tid: str, review: dict[str, Any],
                   defs: list[dict[str, Any]]) -> dict[str, Any]:
    """What ``review.html`` shows of target ``tid``'s review.

    Args:
        graph: the loaded graph.
        tid: the target.
        review: its graph.json ``review`` (:func:`network.record.derive.review_view`),
            not None.
        defs: the target's definitions (flat, as :func:`definitions.definitions_used`
            takes them), to show beside each candidate's Lean.

    Returns:
        ``{review, concepts (the opening's), labels: {candidate path: "Candidate n"},
        candidates: [view row + label, anchor, concept_pairs, source, defs_used,
        exhibit_anchor, screen_attempts], tests: [matrix row + label, anchor, cells (one
        per candidate, None without a probe)], exhibits: [named exhibit],
        other_exhibits: [exhibit record not named by the view], directions: [view row +
        attempt details], clusters: [{paths, labels, anchor}], questions: [view row +
        anchor, answer_anchor, tests], slots: [{role, title, who, counting, others}],
        signature_notes, ladder}``; every anchor an ``id`` on the page
        (:func:`review_anchor`).
    """
    t = graph.targets[tid]
    labels = {c["path"]: f"Candidate {k}" for k, c in enumerate(review["candidates"], 1)}
    tests = review.get("tests", [])
    test_labels = {x["path"]: f"Test {k}" for k, x in enumerate(tests, 1)}
    gone = derive.withdrawn(graph)  # a withdrawn record reads as absent (D-18 v3.27)
    exhibit_records = {rf.path: rf.record for rf in t.review_exhibits
                       if rf.record.target == tid and rf.path not in gone}
    attempt_records = {rf.path: rf.record for rf in t.review_attempts
                       if rf.record.target == tid and rf.path not in gone}

    def attempt(path: str) -> dict[str, Any]:
        rec = attempt_records.get(path)
        return {"path": path, "anchor": review_anchor(path),
                "by": rec.by if rec else None, "tool": rec.tool if rec else None,
                "budget": rec.budget if rec else None, "date": rec.date if rec else None,
                "screen": rec.screen if rec else None}

    named: dict[str, str] = {}  # exhibit path → what the view uses it for, in words
    for c in review["candidates"]:
        if c["discarded_by"]:
            named.setdefault(c["discarded_by"], f"discards {labels[c['path']]}")
    for d in review["directions"]:
        if d["exhibit"]:
            named.setdefault(d["exhibit"],
                             f"proves {labels[d['left']]} → {labels[d['right']]}")
    for x in tests:
        for cand, r in x["results"].items():
            named.setdefault(r["exhibit"], f"{labels.get(cand, cand)}'s answer to "
                                           f"{test_labels[x['path']]}: {r['result']}")
    return {
        "review": review, "concepts": review.get("concepts", []), "labels": labels,
        "candidates": [_candidate(graph, c, labels[c["path"]], defs, attempt_records)
                       for c in review["candidates"]],
        "tests": [{**x, "label": test_labels[x["path"]], "anchor": review_anchor(x["path"]),
                   "answer_anchor": review_anchor(x["answer"]) if x.get("answer") else None,
                   "cells": [({**x["results"][c["path"]],
                               "anchor": review_anchor(x["results"][c["path"]]["exhibit"])}
                              if c["path"] in x["results"] else None)
                             for c in review["candidates"]]}
                  for x in tests],
        "exhibits": [_exhibit(graph, path, exhibit_records.get(path), labels, use)
                     for path, use in named.items()],
        "other_exhibits": [_exhibit(graph, path, rec, labels, None)
                           for path, rec in exhibit_records.items() if path not in named],
        "directions": [{**d, "anchor": review_anchor(d["exhibit"]) if d["exhibit"] else None,
                        "attempt_rows": [attempt(p) for p in d["attempts"]]}
                       for d in review["directions"]],
        "clusters": [{"paths": list(cl), "labels": [labels.get(p, p) for p in cl],
                      "anchor": f"cluster-{k}"}
                     for k, cl in enumerate(review["clusters"], 1)],
        "questions": [{**q, "anchor": review_anchor(q["path"]),
                       "answer_anchor": (review_anchor(q["answer_path"])
                                         if q["answer_path"] else None),
                       "tests": [(test_labels[x["path"]], review_anchor(x["path"]))
                                 for x in tests if q["answer_path"]
                                 and x.get("answer") == q["answer_path"]]}
                      for q in review["questions"]],
        "slots": [{"role": role, "title": title, "who": who,
                   "counting": next((s for s in review["signatures"]
                                     if s["role"] == role and s["counts"]), None),
                   "others": [{**s, "anchor": review_anchor(s["path"])}
                              for s in review["signatures"]
                              if s["role"] == role and not s["counts"]]}
                  for role, title, who in SIGNATURE_SLOTS],
        "signature_notes": {rf.path: rf.record.note for rf in t.review_signatures},
        "ladder": GRADE_LADDER,
    }


def _candidate(graph: Graph, c: dict[str, Any], label: str, defs: list[dict[str, Any]],
               attempts: dict[str, Any]) -> dict[str, Any]:
    """One candidate as the page shows it: the view's row with its label and anchor, its
    concepts as ``(word, predicate)`` pairs, its Lean and the definitions it uses, the
    anchor of the exhibit that discarded it, and its screens' attempts."""
    src = _source(graph, c["lean"])
    concepts = c["concepts"]
    pairs = (list(concepts.items()) if isinstance(concepts, dict)
             else [(None, k) for k in concepts])
    return {
        **c, "label": label, "anchor": review_anchor(c["path"]), "concept_pairs": pairs,
        "source": src, "defs_used": definitions.definitions_used(src, defs) if src else [],
        "exhibit_anchor": review_anchor(c["discarded_by"]) if c["discarded_by"] else None,
        "screen_attempts": [
            {"anchor": review_anchor(p), "screen": a.screen, "by": a.by, "tool": a.tool,
             "budget": a.budget, "date": a.date}
            for p, a in attempts.items() if a.candidate == c["path"] and a.screen is not None],
    }


def _exhibit(graph: Graph, path: str, rec: Any, labels: dict[str, str],
             use: str | None) -> dict[str, Any]:
    """One exhibit as the page shows it: the record's kind, candidate(s), theorem, tool
    and author, what the review uses it for (None: the view names it nowhere), and its
    Lean."""
    lean = _lean_of(path)
    return {
        "path": path, "anchor": review_anchor(path), "lean": lean, "use": use,
        "kind": rec.kind if rec else None,
        "candidate": labels.get(rec.candidate, rec.candidate) if rec else None,
        "other": labels.get(rec.other, rec.other) if rec and rec.other else None,
        "theorem": rec.theorem if rec else None, "tool": rec.tool if rec else None,
        "by": rec.by if rec else None, "date": rec.date if rec else None,
        "source": _source(graph, lean),
    }


def review_texts(graph: Graph) -> Iterator[str | None]:
    """Every informal text the evidence pages show (the words, cases, questions, answers
    and their sources), so their formulas are typeset in the build's one KaTeX run."""
    for t in graph.targets.values():
        for op in t.review_openings:
            yield op.record.words
            for case in op.record.cases:
                yield case.text
        for q in t.review_questions:
            yield q.record.question
            yield q.record.case
        for a in t.review_answers:
            yield a.record.answer
            yield a.record.source
