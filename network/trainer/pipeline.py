"""What ``lemmata trainer sft`` and ``lemmata trainer eval`` do, with the history they
write (issue 14): train then admit, and evaluate an admitted policy beside the untrained
base model under one budget. The CLI and the integration test call these."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from network.errors import LemmataError, define
from network.gate.run import ToolchainSource
from network.gate.sandbox.sandbox import SandboxRunner
from network.trainer import history as H
from network.trainer.engines import HFEngine, adapter_file_tensors, tensors_sha256
from network.trainer.evaluate import Budget, GraphVerifier, Verifier, evaluate, sealed_rows
from network.trainer.sft import SFTConfig, admit, hardware, run_sft

define("trainer-policy-not-admitted", None, 409,
       "The run's adapter has no saved-policy admission, or the adapter files changed "
       "after it was admitted, so it is not evaluated as a policy (seed 000).",
       "Run lemmata trainer sft to the end (it admits the adapter), then evaluate.")


def sft(dataset: Path, base: Path, run_dir: Path, config: SFTConfig, *,
        history: Path) -> dict[str, Any]:
    """Train (resuming into the same identity), admit, and record loss and events.

    Raises:
        LemmataError: :func:`network.trainer.sft.run_sft`'s and
            :func:`network.trainer.sft.admit`'s codes; a refused admission is recorded in
            the history as an event before it is raised.
    """
    result = run_sft(dataset, base, run_dir, config)
    rid = result.identity["run_id"]
    doc = H.load(history)
    hw = hardware()
    H.add_loss(doc, rid, hardware=hw, identity=result.identity, points=list(result.losses))
    H.event(doc, rid, "trained", steps=result.steps_done, adapter_sha256=result.adapter_sha256)
    try:
        adm = admit(run_dir, dataset, base)
    except LemmataError as exc:
        H.event(doc, rid, "admission-refused", code=exc.code)
        H.save(history, doc)
        raise
    H.event(doc, rid, "admitted", changed=sum(p["changed"] for p in adm["probes"]),
            probes=len(adm["probes"]))
    H.save(history, doc)
    return {"run_id": rid, "steps": result.steps_done, "losses": [list(x) for x in result.losses],
            "adapter_sha256": result.adapter_sha256, "admitted": True}


def admitted_adapter(run_dir: Path) -> tuple[Path, str]:
    """The run's admitted adapter folder and run id.

    Raises:
        LemmataError: ``trainer-policy-not-admitted``.
    """
    adm_path = run_dir / "admission.json"
    if not adm_path.is_file():
        raise LemmataError("trainer-policy-not-admitted", f"{run_dir}: no admission.json")
    adm = json.loads(adm_path.read_text("utf-8"))
    if not adm.get("admitted") or \
            tensors_sha256(adapter_file_tensors(run_dir / "adapter")) != adm["adapter_sha256"]:
        raise LemmataError("trainer-policy-not-admitted",
                           f"{run_dir}: the adapter is not the admitted one")
    return run_dir / "adapter", str(adm["run_id"])


def check_archives(dataset: Path, minif2f: tuple[Path, ...]) -> None:
    """Refuse a miniF2F archive the dataset's manifest does not name by SHA-256: the
    statements judged must be the dataset's own.

    Raises:
        LemmataError: ``trainer-source-malformed``.
    """
    if not minif2f:
        return
    named = {str(src["sha256"]) for src in json.loads(
        (dataset / "manifest.json").read_text("utf-8")).get("sources", {}).get(
            "minif2f", [])}
    for archive in minif2f:
        if hashlib.sha256(Path(archive).read_bytes()).hexdigest() not in named:
            raise LemmataError("trainer-source-malformed", f"{archive}: not a miniF2F "
                               "archive the dataset was compiled from")


def dataset_verifier(dataset: Path, graph: Path, toolchain: ToolchainSource,
                     sandbox: SandboxRunner, minif2f: tuple[Path, ...] = ()) -> Verifier:
    """The gate's judge at the dataset's graph commit: graph rows by
    :class:`GraphVerifier`, and with ``minif2f`` archives (checked by
    :func:`check_archives`) miniF2F rows by
    :class:`~network.trainer.minif2f_judge.MiniF2FVerifier`, through
    :class:`~network.trainer.minif2f_judge.CombinedVerifier`.

    Raises:
        LemmataError: ``trainer-source-malformed``.
    """
    check_archives(dataset, minif2f)
    commit = str(json.loads((dataset / "manifest.json").read_text("utf-8"))["graph"]["commit"])
    verifier: Verifier = GraphVerifier(graph, commit, toolchain, sandbox)
    if minif2f:
        from network.trainer.minif2f_judge import CombinedVerifier, MiniF2FVerifier

        verifier = CombinedVerifier((verifier, MiniF2FVerifier(graph, commit, minif2f,
                                                               toolchain, sandbox)))
    return verifier


def eval_run(dataset: Path, graph: Path, base: Path, run_dir: Path, budget: Budget, *,
             toolchain: ToolchainSource, sandbox: SandboxRunner, history: Path,
             ks: tuple[int, ...] = (1,), limit: int | None = None,
             sealed: tuple[str, ...] = ("frontier",),
             minif2f: tuple[Path, ...] = ()) -> dict[str, Any]:
    """Evaluate the run's admitted adapter and the untrained base (the control) on the
    dataset's sealed items at the dataset's graph commit; record the rates.

    ``sealed`` picks rows by why they are sealed (``frontier``: the open nodes a proposer
    works on; ``joined``: held out with a sealed neighbour, often already proved, where a
    new Proof.lean is refused as ``merged-proof-modified``; ``minif2f-test``). With
    ``minif2f`` archives (each must be one the dataset's manifest names, by SHA-256),
    miniF2F rows are judged too, by the same gate through
    :class:`~network.trainer.minif2f_judge.MiniF2FVerifier`; without, they are listed as
    not judged.

    Raises:
        LemmataError: ``trainer-policy-not-admitted``; :func:`evaluate`'s codes;
            ``trainer-source-malformed``.
    """
    check_archives(dataset, minif2f)  # before anything loads
    adapter, rid = admitted_adapter(run_dir)
    rows = [r for r in sealed_rows(dataset) if r.get("sealed") in sealed]
    policy = HFEngine(base)
    policy.sync(adapter, 1)
    verifier = dataset_verifier(dataset, graph, toolchain, sandbox, minif2f)
    report = evaluate(rows, {"base": HFEngine(base), "policy": policy}, verifier, budget,
                      ks=ks, limit=limit)
    trained = json.loads((run_dir / "trained.json").read_text("utf-8"))
    doc = H.load(history)
    H.add_report(doc, rid, report, hardware=hardware(), step=int(trained["steps"]))
    H.save(history, doc)
    return report


def iterate(dataset: Path, graph: Path, base: Path, work: Path, config: Any,
            sft_config: SFTConfig, *, toolchain: ToolchainSource, sandbox: SandboxRunner,
            history: Path, ray_address: str | None = None,
            minif2f: tuple[Path, ...] = ()) -> list[Any]:
    """Expert iteration on the record's pool (``lemmata trainer iterate``): the dataset's
    ``train`` statements of graph items, proved nodes judged as alternates beside their
    merged proof and their verified texts known
    (:func:`network.trainer.orchestrate.record_pool`); the gate judges in-process at the
    dataset's graph commit; each round with new passes trains LoRA SFT from the base on
    the dataset's positives plus the passes and admits it. In this process
    (:class:`~network.trainer.orchestrate.LocalExecutor`), or on Ray actors when
    ``ray_address`` is given (``auto``, or a cluster's address).

    Args:
        config: an :class:`~network.trainer.orchestrate.IterationConfig`.
        minif2f: miniF2F archives the dataset was compiled from (checked by SHA-256):
            its ``train`` miniF2F Valid rows join the pool, judged by
            :class:`~network.trainer.minif2f_judge.MiniF2FVerifier` through
            :class:`~network.trainer.minif2f_judge.CombinedVerifier`; Test stays sealed.

    Raises:
        LemmataError: :func:`~network.trainer.orchestrate.expert_iteration`'s codes;
            ``trainer-source-malformed``; ``trainer-no-training-rows`` (no pool);
            ``trainer-split-contaminated`` (a sealed item labelled train).
    """
    import functools

    from network.trainer.orchestrate import (
        LocalExecutor,
        RayExecutor,
        TrainerWorker,
        expert_iteration,
        record_pool,
    )

    check_archives(dataset, minif2f)
    rows, known = record_pool(dataset, minif2f_valid=bool(minif2f))
    if not rows:
        raise LemmataError("trainer-no-training-rows", f"{dataset}: no train statement of a node")
    kwargs: dict[str, Any] = {
        "engine_factory": functools.partial(HFEngine, str(base)),
        "verifier_factory": functools.partial(dataset_verifier, Path(dataset), Path(graph),
                                              toolchain, sandbox, tuple(minif2f)),
        "trainer": (TrainerWorker, (str(base), str(dataset), str(work), sft_config)),
        "config": config, "history": history, "known": known}
    if ray_address is None:
        return expert_iteration(LocalExecutor(), rows, **kwargs)
    import ray

    ray.init(address=ray_address)
    try:
        return expert_iteration(RayExecutor(), rows, **kwargs)
    finally:
        ray.shutdown()


def grpo(dataset: Path, graph: Path, base: Path, run_dir: Path, settings: Any, *,
         toolchain: ToolchainSource, sandbox: SandboxRunner, history: Path,
         init_run: Path | None = None, minif2f: tuple[Path, ...] = (),
         rollout_func: Any = None) -> dict[str, Any]:
    """``lemmata trainer grpo``: GRPO (TRL's GRPOTrainer, :func:`network.trainer.grpo.run_grpo`)
    over the dataset's ``train`` pool (:func:`~network.trainer.orchestrate.record_pool`,
    with miniF2F Valid rows when ``minif2f`` archives are given), the reward the gate's
    verdict at the dataset's graph commit (:func:`dataset_verifier`), starting from the
    base or from ``init_run``'s admitted SFT adapter; the identity is written before the
    first step, and an interrupted run resumes into the same identity only. The saved
    adapter then goes through saved-policy admission like SFT's
    (:func:`network.trainer.sft.admit`: reloaded, and it must change a probe's output); an
    adapter GRPO did not move (every reward 0 or unjudged) is refused
    ``trainer-policy-inert`` before that, since it is no new policy. Records the per-step
    loss (labelled loss) and the mean reward (labelled reward: the rate of gate passes
    among a step's judged completions, with k = completions per prompt and the budget) in
    the history, with the events.

    Args:
        settings: a :class:`~network.trainer.grpo.GRPOSettings`.
        rollout_func: TRL's generation hook (tests); None: the model generates.

    Returns:
        ``{run_id, steps, resumed_from_step, log, verdicts, adapter_sha256, admitted}``.

    Raises:
        LemmataError: ``run_grpo``'s codes; ``trainer-policy-not-admitted`` (``init_run``);
            ``trainer-source-malformed``; ``trainer-no-training-rows``;
            ``trainer-policy-inert``; :func:`~network.trainer.sft.admit`'s codes (a refused
            admission is recorded as an event before it is raised).
    """
    from network.trainer.orchestrate import record_pool

    verifier = dataset_verifier(dataset, graph, toolchain, sandbox, minif2f)
    rows, _known = record_pool(dataset, minif2f_valid=bool(minif2f))
    if not rows:
        raise LemmataError("trainer-no-training-rows", f"{dataset}: no train statement")
    return grpo_admitted(rows, verifier, dataset, base, run_dir, settings, history=history,
                         init_run=init_run, rollout_func=rollout_func)


def grpo_admitted(rows: list[dict[str, Any]], verifier: Verifier, dataset: Path, base: Path,
                  run_dir: Path, settings: Any, *, history: Path,
                  init_run: Path | None = None, rollout_func: Any = None) -> dict[str, Any]:
    """:func:`grpo`'s training, admission and history on a pool and a judge already built
    (``rows`` of the ``train`` split; ``verifier`` the gate's); ``dataset`` gives the
    admission's probe prompts. Returns and raises as :func:`grpo`."""
    from network.trainer.grpo import run_grpo

    init_adapter, init = None, None
    if init_run is not None:
        init_adapter, init_rid = admitted_adapter(init_run)
        init = {"run_id": init_rid,
                "adapter_sha256": tensors_sha256(adapter_file_tensors(init_adapter))}
    result = run_grpo(rows, base, run_dir, settings, verifier, rollout_func=rollout_func,
                      init_adapter=init_adapter, init=init)
    rid = result.identity["run_id"]
    doc = H.load(history)
    hw = hardware()
    budget = (f"{settings.num_generations} completions/prompt, "
              f"{settings.max_completion_length} tokens/completion, "
              f"{settings.prompts_per_step} prompts/step")
    H.add_loss(doc, rid, hardware=hw, identity=result.identity, kind="grpo",
               points=[(int(s["step"]), float(s["loss"])) for s in result.steps])
    H.add_reward(doc, rid, hardware=hw, k=settings.num_generations, budget=budget,
                 points=[(int(s["step"]), s["reward"]) for s in result.steps])
    H.event(doc, rid, "trained", method="grpo", steps=settings.steps,
            resumed_from_step=result.resumed_from_step, verdicts=result.verdicts,
            adapter_sha256=result.adapter_sha256)
    try:
        if result.adapter_sha256 == result.initial_sha256:
            raise LemmataError("trainer-policy-inert", f"{run_dir}: GRPO moved no tensor of "
                               f"the adapter (verdicts {result.verdicts})")
        adm = admit(run_dir, dataset, base)
    except LemmataError as exc:
        H.event(doc, rid, "admission-refused", code=exc.code)
        H.save(history, doc)
        raise
    H.event(doc, rid, "admitted", changed=sum(p["changed"] for p in adm["probes"]),
            probes=len(adm["probes"]))
    H.save(history, doc)
    return {"run_id": rid, "steps": settings.steps,
            "resumed_from_step": result.resumed_from_step, "log": list(result.steps),
            "verdicts": result.verdicts, "adapter_sha256": result.adapter_sha256,
            "admitted": True}
