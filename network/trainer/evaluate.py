"""Kernel-judged evaluation on sealed items (issue 14, "Kernel-judged evaluation"; seed 000,
"mandatory baselines"; seed 004, "a reward computed by a program").

Every condition (the policy, and always the untrained base model as the control) gets the
same sealed items and the same fixed budget: samples per item, new tokens per sample, and
verification calls in all. Each sample is judged by :mod:`network.trainer.reward` (the
gate's precheck verdict; a missing toolchain is "not judged", never a pass). The report
gives, per condition:

* pass@k for each k (the unbiased estimator over n samples), with a bootstrap 95%
  interval over items;
* how each attempt failed: gate step and code only, never Lean text or a gate message;
* tokens per solved item (all tokens the condition generated over the items it solved).

Items the verifier cannot judge (a miniF2F statement has no graph node to judge at) are
listed as not judged, by source, and count in no rate.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from math import comb
from pathlib import Path
from typing import Any, Protocol

from network.errors import LemmataError, define
from network.gate.run import ToolchainSource
from network.gate.sandbox.sandbox import SandboxRunner
from network.trainer.dataset import canonical_json, sha256_text, verify_dataset
from network.trainer.engines import Engine
from network.trainer.reward import Reward, proof_reward
from network.trainer.sft import CONFIG_INVALID

define("trainer-eval-no-control", None, 422,
       "The evaluation has no untrained-base control: no condition named base, or the "
       "engine given as base serves an adapter, so no rate could be read against the base "
       "model under the same budget (seed 000).",
       "Pass the bare base model's engine as the base condition beside the policy.")

REPORT_SCHEMA = "trainer-eval/v1"
CONTROL = "base"

class Verifier(Protocol):
    """Judges a sealed row's candidate text (the gate's verdict as a Reward)."""

    def can_judge(self, row: Mapping[str, Any]) -> bool:
        """Whether this verifier has somewhere to judge ``row`` (without judging)."""

    def __call__(self, row: Mapping[str, Any], text: str) -> Reward:
        """The reward of ``text`` as ``row``'s answer."""


@dataclass(frozen=True)
class Budget:
    """The fixed budget every condition gets.

    Attributes:
        samples: samples per item (n of pass@k; every k must be at most n).
        max_new_tokens: new tokens per sample.
        verification_calls: gate calls per condition in all; a sample past it is recorded
            as ``budget-exhausted`` and not judged.
        temperature, seed: sampling (the same seeds for every condition).
    """

    samples: int = 2
    max_new_tokens: int = 128
    verification_calls: int = 64
    temperature: float = 0.8
    seed: int = 0

    def label(self) -> str:
        """``n samples, t tokens, v verification calls``."""
        return (f"{self.samples} samples/item, {self.max_new_tokens} tokens/sample, "
                f"{self.verification_calls} verification calls")


@dataclass(frozen=True)
class GraphVerifier:
    """Judges graph rows (``item`` ``graph:<target>/<node>``): the candidate is the node's
    Proof.lean, judged by :func:`network.trainer.reward.proof_reward` at ``commit`` with
    the given toolchain source and sandbox (the stand-in in tests). A row marked
    ``judge_as: alternate`` (a node the record already proves,
    :func:`network.trainer.orchestrate.record_pool`) is judged as an alternate filed by
    ``submitter`` at ``attempts/<ts>-<submitter>-alternate.lean``, never as a replacement
    of the merged proof (which the gate refuses at step 2). Other rows (miniF2F) have no
    node to be judged at."""

    repo: Path
    commit: str
    toolchain: ToolchainSource
    sandbox: SandboxRunner
    submitter: str = "policy"

    def can_judge(self, row: Mapping[str, Any]) -> bool:
        """True for a ``graph:<target>/<node>`` item."""
        item = str(row.get("item", ""))
        return item.startswith("graph:") and "/" in item

    def __call__(self, row: Mapping[str, Any], text: str) -> Reward:
        """The gate's verdict on ``text`` as the node's proof; a bundle the service would
        not build is a 0 with its code."""
        target, node = str(row["item"])[len("graph:"):].split("/", 1)
        kind = str(row.get("judge_as") or "proof")
        if kind not in ("proof", "alternate"):
            return Reward(0.0, "fail", None, "artifact-type-unsupported", ())
        try:
            return proof_reward(self.repo, self.commit, target=target, node=node, text=text,
                                toolchain=self.toolchain, sandbox=self.sandbox,
                                artifact_type=kind,
                                submitter=self.submitter if kind == "alternate" else None)
        except LemmataError as exc:
            return Reward(0.0, "fail", None, exc.code, ())


def pass_at_k(n: int, c: int, k: int) -> float:
    """The unbiased pass@k of one item with ``c`` passes among ``n`` samples."""
    if n - c < k:
        return 1.0
    return 1.0 - comb(n - c, k) / comb(n, k)


def bootstrap_ci(values: Sequence[float], *, seed: int, rounds: int = 1000) -> list[float]:
    """A 95% percentile interval of the mean, resampling items (seeded)."""
    if not values:
        return [0.0, 0.0]
    rng = random.Random(f"bootstrap:{seed}")
    means = sorted(sum(rng.choice(values) for _ in values) / len(values)
                   for _ in range(rounds))
    return [means[int(0.025 * (rounds - 1))], means[int(0.975 * (rounds - 1))]]


def sealed_rows(dataset_dir: str | Path) -> list[dict[str, Any]]:
    """``sealed.jsonl``'s rows after the dataset verifies against its manifest.

    Raises:
        LemmataError: ``trainer-source-malformed``.
    """
    verify_dataset(dataset_dir)
    text = (Path(dataset_dir) / "sealed.jsonl").read_text("utf-8")
    return [json.loads(line) for line in text.splitlines() if line]


def evaluate(rows: Sequence[Mapping[str, Any]], conditions: Mapping[str, Engine],
             verifier: Verifier, budget: Budget, *, ks: Sequence[int] = (1,),
             limit: int | None = None) -> dict[str, Any]:
    """Evaluate every condition on the same judgeable sealed rows under ``budget``.

    Args:
        rows: sealed rows (:func:`sealed_rows`), taken in item order.
        conditions: name -> engine; ``base`` (the untrained base model) is required.
        verifier: judges a row's candidate (:class:`GraphVerifier`).
        ks: the k of each pass@k reported (each at most ``budget.samples``).
        limit: evaluate at most this many judgeable items.

    Raises:
        LemmataError: ``trainer-eval-no-control``; ``trainer-config-invalid`` (a k above
            the samples, a budget below 1).
    """
    base = conditions.get(CONTROL)
    if base is None or base.serving().version is not None:
        raise LemmataError("trainer-eval-no-control",
                           f"conditions {sorted(conditions)}: no bare base model as {CONTROL}")
    if budget.samples < 1 or budget.max_new_tokens < 1 or budget.verification_calls < 0 \
            or not ks or any(k < 1 or k > budget.samples for k in ks):
        raise LemmataError(CONFIG_INVALID.code, f"{asdict(budget)} ks={list(ks)}")
    ordered = sorted(rows, key=lambda r: (str(r["item"]), str(r["id"])))
    judged: list[Mapping[str, Any]] = []
    not_judged: Counter[str] = Counter()
    for row in ordered:
        if not verifier.can_judge(row):
            not_judged[str(row.get("source"))] += 1
        elif limit is None or len(judged) < limit:
            judged.append(row)
    out: dict[str, Any] = {}
    for name, engine in conditions.items():
        gens = engine.generate([str(r["prompt"]) for r in judged], samples=budget.samples,
                               max_new_tokens=budget.max_new_tokens,
                               temperature=budget.temperature, seed=budget.seed)
        calls = 0
        attempts: list[dict[str, Any]] = []
        per_item: list[tuple[int, int]] = []
        tokens_solved = 0
        solved = 0
        for row, samples in zip(judged, gens):
            c = 0
            for si, g in enumerate(samples):
                if calls >= budget.verification_calls:
                    attempts.append({"item": row["item"], "sample": si, "verdict": "not-judged",
                                     "step": None, "code": "budget-exhausted", "tokens": g.tokens})
                    continue
                calls += 1
                r = verifier(row, g.text)
                passed = r.reward == 1.0
                c += passed
                verdict = "pass" if passed else ("not-judged" if r.reward is None else "fail")
                attempts.append({"item": row["item"], "sample": si, "verdict": verdict,
                                 "step": r.first_failing_step, "code": None if passed else r.code,
                                 "tokens": g.tokens})
            per_item.append((len(samples), c))
            if c:
                solved += 1
                tokens_solved += sum(g.tokens for g in samples)
        rates = {}
        for k in ks:
            vals = [pass_at_k(n, c, k) for n, c in per_item]
            rates[f"pass@{k}"] = {
                "label": f"pass rate pass@{k} (k={k}; {budget.label()})", "k": k,
                "value": sum(vals) / len(vals) if vals else 0.0,
                "ci95": bootstrap_ci(vals, seed=budget.seed), "items": len(vals)}
        failures = Counter(f"step {a['step']}: {a['code']}" for a in attempts
                           if a["verdict"] != "pass")
        out[name] = {"serving": asdict(engine.serving()), "rates": rates,
                     "solved": solved, "items": len(judged), "verification_calls": calls,
                     "tokens": sum(a["tokens"] for a in attempts),
                     "tokens_per_solved": tokens_solved / solved if solved else None,
                     "failures": dict(sorted(failures.items())), "attempts": attempts}
    report = {"schema": REPORT_SCHEMA, "control": CONTROL, "budget": asdict(budget),
              "budget_label": budget.label(), "ks": list(ks),
              "items": [str(r["item"]) for r in judged],
              "not_judged": dict(sorted(not_judged.items())), "conditions": out}
    return {**report, "report_sha256": sha256_text(canonical_json(report))}
