"""A fixture graph for the review's evidence page (D-9 v3.39, D-36 "Review (v3.39)").

Three targets, each with a formalization review opened by its steward, who is its intent
signer (``steve``; ``alice`` on :data:`WAITING`, the pseudonym the browser test's stand-in
service signs in as):

* :data:`FULL` — complete and expert-attested: two person- and model-written candidates
  joined by proved directions into one cluster (the first is the root's statement), a
  third discarded by a vacuity exhibit, a registry import returned by the format rule, a
  negation exhibit no gate has checked (so it discards nothing),
  every survivor's screens attempted, two questions answered (one citing a source, one
  not), two intent tests (one from the sourced answer, one a computation) each survivor
  probed, and three signatures (the intent signer's and an independent one that count, and
  one by a cluster author that does not);
* :data:`THIN` — complete with a model's candidate only, one independent signature: the
  grade capped at screened-and-signed (the thin-pool rule);
* :data:`WAITING` — a candidate not yet judged by a gate with Lean and a question waiting
  for the intent signer: nothing is complete, the missing list says so.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from network.record import models as m
from tests.graphs import GraphBuilder, git_commit

FULL = "conj"
THIN = "conj-thin"
WAITING = "conj-waiting"
INTENT = "steve"
WAITING_INTENT = "alice"
WORDS = "Every good number $n > 2$ is the sum of two good numbers."
CONCEPT = "good number"
ROOT_LEAN = "theorem conj_root : ∀ n, IsGood n → 2 < n → True := sorry\n"


def _review(tid: str, folder: str, ts: str, who: str) -> str:
    return f"targets/{tid}/review/{folder}/{ts}-{who}"


def _date(ts: str) -> str:
    return f"{ts[0:4]}-{ts[4:6]}-{ts[6:8]}"


class ReviewWriter:
    """Writes one target's review records through a :class:`GraphBuilder`; every method
    returns the record's graph path."""

    def __init__(self, b: GraphBuilder, tid: str, intent: str = INTENT) -> None:
        self.b = b
        self.tid = tid
        self.intent = intent

    def opening(self, ts: str, *, cases: list[dict[str, Any]] | None = None) -> str:
        rec = {"schema": "review-opening/v1", "target": self.tid, "role": "steward",
               "words": WORDS, "cases": cases or [], "concepts": [CONCEPT],
               "intent_signer": self.intent,
               "by": self.intent, "date": _date(ts)}
        return self.b.write_yaml(_review(self.tid, "openings", ts, self.intent) + ".yaml",
                                 self.b.signed(m.ReviewOpening, rec, self.intent))

    def candidate(self, ts: str, who: str, lean: str, *, origin: str = "person",
                  concepts: dict[str, str] | None = None, merged: bool = True,
                  **extra: Any) -> str:
        base = _review(self.tid, "candidates", ts, who)
        self.b.write(base + ".lean", lean)
        rec: dict[str, Any] = {
            "schema": "review-candidate/v1", "target": self.tid, "origin": origin,
            "declaration": f"cand_{who.replace('-', '_')}",
            "concepts": {CONCEPT: "IsGood"} if concepts is None else concepts,
            "lean_sha256": self.b.sha(base + ".lean"), "by": who, "date": _date(ts),
            **extra}
        if origin == "person":
            rec.setdefault("read_others", False)
        self.b.write_yaml(base + ".yaml", rec)
        if merged:
            self.b.merge([base + ".lean"], date=_date(ts), target=self.tid, node="root")
        return base + ".yaml"

    def exhibit(self, ts: str, who: str, kind: str, candidate: str,
                other: str | None = None, *, tool: str | None = None,
                test: str | None = None, merged: bool = True) -> str:
        base = _review(self.tid, "exhibits", ts, who)
        self.b.write(base + ".lean", f"theorem ex_{ts[9:15]} : True := trivial -- {kind}\n")
        rec: dict[str, Any] = {
            "schema": "review-exhibit/v1", "target": self.tid, "kind": kind,
            "candidate": candidate, "theorem": f"ex_{ts[9:15]}",
            "lean_sha256": self.b.sha(base + ".lean"), "by": who, "date": _date(ts)}
        if other is not None:
            rec["other"] = other
        if tool is not None:
            rec["tool"] = tool
        if test is not None:
            rec["test"] = test
        self.b.write_yaml(base + ".yaml", rec)
        if merged:
            self.b.merge([base + ".lean"], date=_date(ts), target=self.tid, node="root")
        return base + ".yaml"

    def attempt(self, ts: str, who: str, candidate: str, *, screen: str | None = None,
                other: str | None = None) -> str:
        rec: dict[str, Any] = {"schema": "review-attempt/v1", "target": self.tid,
                               "candidate": candidate, "tool": "aesop",
                               "budget": "60 s", "by": who, "date": _date(ts)}
        if screen is not None:
            rec["screen"] = screen
        if other is not None:
            rec["other"] = other
        return self.b.write_yaml(_review(self.tid, "attempts", ts, who) + ".yaml", rec)

    def screens_attempted(self, ts_prefix: str, who: str, candidate: str) -> None:
        for k, screen in enumerate(("proves", "negation", "vacuity")):
            self.attempt(f"{ts_prefix}{k}0000Z", who, candidate, screen=screen)

    def test(self, ts: str, who: str, args: list[str], *, answer: str | None = None) -> str:
        """An intent test of :data:`CONCEPT` at ``args``: expected ``holds`` from the
        intent signer's ``answer``, else a computation (its value derived)."""
        rec: dict[str, Any] = {"schema": "review-test/v1", "target": self.tid,
                               "concept": CONCEPT, "args": args, "by": who,
                               "date": _date(ts)}
        if answer is not None:
            rec.update(source="answer", answer=answer, expected="holds")
        else:
            rec["source"] = "computation"
        return self.b.write_yaml(_review(self.tid, "tests", ts, who) + ".yaml", rec)

    def question(self, ts: str, who: str, text: str, case: str,
                 candidates: list[str]) -> str:
        return self.b.write_yaml(_review(self.tid, "questions", ts, who) + ".yaml", {
            "schema": "review-question/v1", "target": self.tid, "question": text,
            "case": case, "candidates": candidates, "by": who, "date": _date(ts)})

    def answer(self, ts: str, question: str, text: str, source: str | None = None) -> str:
        rec: dict[str, Any] = {"schema": "review-answer/v1", "target": self.tid,
                               "question": question, "answer": text,
                               "login": f"{self.intent}-gh", "by": self.intent,
                               "date": _date(ts)}
        if source is not None:
            rec["source"] = source
        return self.b.write_yaml(_review(self.tid, "answers", ts, self.intent) + ".yaml",
                                 self.b.signed(m.ReviewAnswer, rec, self.intent))

    def signature(self, ts: str, who: str, role: str, cluster: list[str], *,
                  decision: str = "accept", note: str | None = None) -> str:
        rec: dict[str, Any] = {"schema": "review-signature/v1", "target": self.tid,
                               "role": role, "decision": decision, "cluster": cluster,
                               "login": f"{who}-gh", "by": who, "date": _date(ts)}
        if note is not None:
            rec["note"] = note
        return self.b.write_yaml(_review(self.tid, "signatures", ts, who) + ".yaml",
                                 self.b.signed(m.ReviewSignature, rec, who))


def build_review_graph(root: Path, *, commit: bool = False) -> dict[str, Any]:
    """Write the three reviewed targets under ``root``.

    Returns:
        ``{"builder", "commit", FULL: {name: path}, THIN: {...}, WAITING: {...}}``: the
        record paths the tests look for, by a short name.
    """
    b = GraphBuilder(root)
    b.base()
    paths: dict[str, Any] = {"builder": b}
    # --- FULL: complete, expert-attested ------------------------------------------------
    b.target(FULL, title="A conjecture under review")
    b.node(FULL, "root", statement=ROOT_LEAN)
    b.merge([f"targets/{FULL}/nodes/root/Statement.lean"], date="2026-01-02", node="root")
    w = ReviewWriter(b, FULL)
    p: dict[str, str] = {}
    p["opening"] = w.opening("20260201T000000Z", cases=[
        {"kind": "small-value", "text": "n = 4 is good: 4 = 2 + 2", "source": "OEIS A000001"},
        {"kind": "non-example", "text": "n = 1 is not covered"}])
    p["alice"] = w.candidate("20260202T000000Z", "alice",
                             "theorem cand_alice : ∀ n, IsGood n → 3 ≤ n → True := sorry\n")
    p["bot"] = w.candidate("20260202T010000Z", "bot", "theorem cand_bot : True := sorry\n",
                           origin="model", model="prover-model-7")
    p["carol"] = w.candidate("20260202T020000Z", "carol",
                             "theorem cand_carol : ∀ n : ℕ, n < 0 → True := sorry\n",
                             read_others=True)
    # the registry's statement: the root's own bytes under its declaration (returned: it
    # names no predicate for the concept)
    p["fc"] = w.candidate("20260202T030000Z", "fc-import", ROOT_LEAN, origin="registry",
                          declaration="stmt_root", concepts={}, registry={
                              "name": "formal-conjectures",
                              "repository": "https://github.com/google-deepmind/formal-conjectures",
                              "declaration": "Conj.main"})
    p["vacuity"] = w.exhibit("20260203T000000Z", "dave", "vacuity", p["carol"], tool="grind")
    p["ab"] = w.exhibit("20260203T010000Z", "dave", "implies", p["alice"], p["bot"])
    p["ba"] = w.exhibit("20260203T020000Z", "dave", "implies", p["bot"], p["alice"])
    # an exhibit no gate has checked: on the page, counted nowhere
    p["unchecked"] = w.exhibit("20260203T030000Z", "erin", "negation", p["bot"], merged=False)
    w.screens_attempted("20260204T0", "dave", p["alice"])
    w.screens_attempted("20260204T1", "dave", p["bot"])
    p["q_flagged"] = w.question("20260205T000000Z", "dave", "Is $1$ a good number?",
                                "n = 1 (the non-example)", [p["alice"], p["bot"]])
    p["q_sourced"] = w.question("20260205T010000Z", "dave", "Does the claim hold at $n = 4$?",
                                "n = 4 (the small value)", [p["alice"]])
    p["a_flagged"] = w.answer("20260206T000000Z", p["q_flagged"], "No: 1 is never good.")
    p["a_sourced"] = w.answer("20260206T010000Z", p["q_sourced"], "Yes, 4 = 2 + 2.",
                              source="Erdős 1950, p. 3")
    # intent tests: one answered (n = 4), one a computation (n = 6); each survivor's probe
    p["t_answer"] = w.test("20260206T020000Z", INTENT, ["4"], answer=p["a_sourced"])
    p["t_computed"] = w.test("20260206T030000Z", "dave", ["6"])
    for k, (test, who) in enumerate([(t, c) for t in ("t_answer", "t_computed")
                                     for c in ("alice", "bot")]):
        p[f"probe_{test}_{who}"] = w.exhibit(f"20260206T04{k}000Z", "dave", "probe-holds",
                                             p[who], test=p[test])
    cluster = [p["alice"], p["bot"]]
    p["sig_intent"] = w.signature("20260207T000000Z", INTENT, "intent", cluster)
    p["sig_independent"] = w.signature("20260207T010000Z", "ivan", "independent", cluster,
                                       note="read both against the words")
    p["sig_author"] = w.signature("20260207T020000Z", "alice", "independent", cluster)
    paths[FULL] = p
    # --- THIN: a model's candidate only, capped -------------------------------------------
    b.target(THIN, title="A thinly reviewed conjecture")
    b.node(THIN, "root")
    w = ReviewWriter(b, THIN)
    q: dict[str, str] = {"opening": w.opening("20260201T000000Z")}
    q["bot"] = w.candidate("20260202T000000Z", "bot", "theorem cand_bot : True := sorry\n",
                           origin="model", model="prover-model-7")
    w.screens_attempted("20260204T0", "dave", q["bot"])
    q["sig"] = w.signature("20260207T000000Z", "ivan", "independent", [q["bot"]])
    paths[THIN] = q
    # --- WAITING: a candidate not compiled yet, a question waiting ------------------------
    b.target(WAITING, title="A conjecture whose review waits", steward=WAITING_INTENT)
    b.node(WAITING, "root")
    w = ReviewWriter(b, WAITING, WAITING_INTENT)
    r: dict[str, str] = {"opening": w.opening("20260201T000000Z")}
    r["eve"] = w.candidate("20260202T000000Z", "eve", "theorem cand_eve : True := sorry\n",
                           merged=False)
    r["q"] = w.question("20260205T000000Z", "dave", "Is $0$ a good number?", "n = 0",
                        [r["eve"]])
    paths[WAITING] = r
    paths["commit"] = git_commit(root, "reviewed graph") if commit else None
    return paths
