"""``lemmata trainer`` (issue 14; docs/trainer.md): compile, sft, eval, iterate, grpo,
propose and status. The ML imports are inside the command bodies, so importing this module
stays ML-free; it is registered on the root group by :mod:`network.cli`.
"""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from network.cli_base import EXIT_OK, guarded
from network.errors import LemmataError, define

F = TypeVar("F", bound=Callable[..., Any])


def _options(*decorators: Callable[[F], F]) -> Callable[[F], F]:
    """One decorator applying ``decorators`` in the order written, as if stacked there (so
    ``--help`` lists the options in that order)."""
    def apply(fn: F) -> F:
        for d in reversed(decorators):
            fn = d(fn)
        return fn
    return apply


def _folder(name: str) -> Callable[[F], F]:
    """A positional folder argument (``DATASET``, ``GRAPH``, ``BASE``, ``RUN_DIR``, ...)."""
    return click.argument(name, type=click.Path(path_type=Path, file_okay=False))


_BUDGET = _options(
    click.option("--samples", type=int, default=2, show_default=True),
    click.option("--max-new-tokens", type=int, default=128, show_default=True),
    click.option("--verification-calls", type=int, default=64, show_default=True),
    click.option("--temperature", type=float, default=0.8, show_default=True),
    click.option("--seed", type=int, default=0, show_default=True),
)
"""The sampling budget eval and iterate share (``network.trainer.evaluate.Budget``)."""

_LORA = _options(
    click.option("--rank", type=int, default=8, show_default=True, help="LoRA rank."),
    click.option("--alpha", type=int, default=16, show_default=True, help="LoRA alpha."),
)
"""The LoRA adapter's shape sft and grpo share (``network.trainer.sft.LoraSettings``)."""

_POOL_MINIF2F = click.option(
    "--minif2f", "minif2f", multiple=True,
    type=click.Path(path_type=Path, dir_okay=False, exists=True),
    help="A miniF2F archive the dataset was compiled from: its train Valid "
         "statements join the pool (Test stays sealed).")
"""iterate's and grpo's miniF2F: its Valid rows join the training pool."""


def _history(folder: str) -> Callable[[F], F]:
    """``--history``: the history.json a run records into, by default in ``folder``."""
    return click.option("--history", type=click.Path(path_type=Path), default=None,
                        help=f"The history.json to record into (default: "
                             f"{folder}/history.json).")



#: the commands that load a model (torch, transformers, peft, TRL); compile and status
#: read files only and run on the network's own install
ML_COMMANDS = frozenset({"sft", "eval", "iterate", "grpo", "propose"})
#: the trainer extra's modules (pyproject.toml ``[project.optional-dependencies] trainer``)
ML_MODULES = ("torch", "transformers", "peft", "trl")

define("trainer-extra-missing", None, 500,
       "This trainer command needs the trainer's ML stack (torch, transformers, peft, TRL), "
       "which `make run` does not install: the network runs without it (issue 35).",
       "Install the locked extra once: .venv/bin/pip install --require-hashes -r "
       "requirements.lock (what `make test` installs), then run the command again.")


def require_ml_stack() -> None:
    """Refuse a model-loading trainer command on an install without the trainer extra.

    Raises:
        LemmataError: ``trainer-extra-missing``, naming the modules not found.
    """
    missing = [m for m in ML_MODULES if importlib.util.find_spec(m) is None]
    if missing:
        raise LemmataError("trainer-extra-missing", f"not installed: {', '.join(missing)}")


@click.group("trainer")
def trainer_group() -> None:
    """Proposer policies learned from the record, judged only by the gate (issue 14)."""


@trainer_group.command("compile")
@click.argument("graph", type=click.Path(path_type=Path))
@click.argument("out", type=click.Path(path_type=Path))
@click.option("--commit", default=None, help="The graph commit to read (default: HEAD).")
@click.option("--minif2f", "minif2f", multiple=True, type=click.Path(path_type=Path),
              help="A miniF2F archive: Valid trains, Test is sealed (repeatable).")
@click.option("--seed", default=None, help="The split seed (default lemmata-split/v1).")
@click.option("--valid-fraction", type=float, default=0.1, show_default=True)
@guarded
def trainer_compile(graph: Path, out: Path, commit: str | None, minif2f: tuple[Path, ...],
                    seed: str | None, valid_fraction: float) -> int:
    """Compile GRAPH's verified attempt corpus into a dataset in OUT (network/trainer)."""
    from network.trainer.dataset import SPLIT_SEED, compile_dataset, write_dataset

    compiled = compile_dataset(graph, commit=commit, minif2f=minif2f,
                               seed=seed or SPLIT_SEED, valid_fraction=valid_fraction)
    path = write_dataset(compiled, out)
    man = compiled["manifest"]
    click.echo(json.dumps({"manifest": str(path), "commit": man["graph"]["commit"],
                           "items": man["split"]["items"],
                           "rows": {k: len(v["rows"]) for k, v in man["files"].items()},
                           "refused": len(man["refused"])}, sort_keys=True))
    return EXIT_OK


@trainer_group.command("sft")
@_folder("dataset")
@_folder("base")
@_folder("run_dir")
@click.option("--steps", type=int, default=2, show_default=True)
@click.option("--batch-size", type=int, default=2, show_default=True)
@click.option("--lr", type=float, default=1e-3, show_default=True)
@click.option("--max-length", type=int, default=1024, show_default=True)
@click.option("--seed", type=int, default=0, show_default=True)
@_LORA
@_history("RUN_DIR")
@guarded
def trainer_sft(dataset: Path, base: Path, run_dir: Path, steps: int, batch_size: int,
                lr: float, max_length: int, seed: int, rank: int, alpha: int,
                history: Path | None) -> int:
    """LoRA SFT of BASE on DATASET's training rows into RUN_DIR, then admission."""
    require_ml_stack()  # the trainer extra, which `make run` does not install
    from network.trainer.pipeline import sft
    from network.trainer.sft import LoraSettings, SFTConfig

    cfg = SFTConfig(steps=steps, batch_size=batch_size, learning_rate=lr,
                    max_length=max_length, seed=seed, lora=LoraSettings(r=rank, alpha=alpha))
    out = sft(dataset, base, run_dir, cfg, history=history or run_dir / "history.json")
    click.echo(json.dumps(out, sort_keys=True))
    return EXIT_OK


@trainer_group.command("eval")
@_folder("dataset")
@_folder("graph")
@_folder("base")
@_folder("run_dir")
@_BUDGET
@click.option("-k", "ks", type=int, multiple=True, help="A k of pass@k (default 1).")
@click.option("--limit", type=int, default=None, help="At most this many sealed items.")
@click.option("--sealed", "sealed", multiple=True,
              type=click.Choice(["frontier", "joined", "minif2f-test"]),
              help="Which sealed rows, by why they are sealed (default: frontier).")
@click.option("--minif2f", "minif2f", multiple=True,
              type=click.Path(path_type=Path, dir_okay=False, exists=True),
              help="A miniF2F archive the dataset was compiled from: its rows are judged "
                   "by the same gate (a scratch node each) instead of listed as not judged.")
@click.option("--report", type=click.Path(path_type=Path), default=None,
              help="Where to write the report (default: RUN_DIR/eval.json).")
@_history("RUN_DIR")
@guarded
def trainer_eval(dataset: Path, graph: Path, base: Path, run_dir: Path, samples: int,
                 max_new_tokens: int, verification_calls: int, temperature: float, seed: int,
                 ks: tuple[int, ...], limit: int | None, sealed: tuple[str, ...],
                 minif2f: tuple[Path, ...], report: Path | None,
                 history: Path | None) -> int:
    """Judge RUN_DIR's admitted policy and the untrained BASE on DATASET's sealed items."""
    require_ml_stack()  # the trainer extra, which `make run` does not install
    from network.gate.lean.detect import detect_toolchain
    from network.gate.sandbox.sandbox import Sandbox
    from network.trainer.evaluate import Budget
    from network.trainer.pipeline import eval_run

    budget = Budget(samples=samples, max_new_tokens=max_new_tokens,
                    verification_calls=verification_calls, temperature=temperature, seed=seed)
    rep = eval_run(dataset, graph, base, run_dir, budget, toolchain=detect_toolchain,
                   sandbox=Sandbox(), history=history or run_dir / "history.json",
                   ks=ks or (1,), limit=limit, sealed=sealed or ("frontier",),
                   minif2f=minif2f)
    path = report or run_dir / "eval.json"
    path.write_text(json.dumps(rep, sort_keys=True, indent=2) + "\n", encoding="utf-8")
    click.echo(json.dumps({"report": str(path), "items": len(rep["items"]),
                           "rates": {c: {m: r["value"] for m, r in v["rates"].items()}
                                     for c, v in rep["conditions"].items()}}, sort_keys=True))
    return EXIT_OK


@trainer_group.command("iterate")
@_folder("dataset")
@_folder("graph")
@_folder("base")
@_folder("work")
@click.option("--rounds", type=int, default=2, show_default=True)
@_BUDGET
@click.option("--steps", type=int, default=2, show_default=True, help="SFT steps a round.")
@click.option("--ray-address", default=None, help="Run the actors on Ray (auto, or an address).")
@_POOL_MINIF2F
@_history("WORK")
@guarded
def trainer_iterate(dataset: Path, graph: Path, base: Path, work: Path, rounds: int,
                    samples: int, max_new_tokens: int, verification_calls: int,
                    temperature: float, seed: int, steps: int, ray_address: str | None,
                    minif2f: tuple[Path, ...], history: Path | None) -> int:
    """Expert iteration on DATASET's pool from the record: sample, judge by the gate (proved
    nodes as alternates), train SFT on new passes, admit, sync."""
    require_ml_stack()  # the trainer extra, which `make run` does not install
    from dataclasses import asdict

    from network.gate.lean.detect import detect_toolchain
    from network.gate.sandbox.sandbox import Sandbox
    from network.trainer.orchestrate import IterationConfig
    from network.trainer.pipeline import iterate
    from network.trainer.sft import SFTConfig

    cfg = IterationConfig(rounds=rounds, samples=samples, max_new_tokens=max_new_tokens,
                          verification_calls=verification_calls, temperature=temperature,
                          seed=seed)
    work.mkdir(parents=True, exist_ok=True)
    recs = iterate(dataset, graph, base, work, cfg, SFTConfig(steps=steps, seed=seed),
                   toolchain=detect_toolchain, sandbox=Sandbox(),
                   history=history or work / "history.json", ray_address=ray_address,
                   minif2f=minif2f)
    click.echo(json.dumps([asdict(r) for r in recs], sort_keys=True))
    return EXIT_OK


@trainer_group.command("grpo")
@_folder("dataset")
@_folder("graph")
@_folder("base")
@_folder("run_dir")
@click.option("--from-run", "init_run", type=click.Path(path_type=Path, file_okay=False),
              default=None, help="Start from this SFT run's admitted adapter (default: "
                                 "a fresh LoRA adapter on BASE).")
@click.option("--steps", type=int, default=2, show_default=True)
@click.option("--num-generations", type=int, default=2, show_default=True,
              help="Completions per prompt (the group; the reward's k).")
@click.option("--prompts-per-step", type=int, default=1, show_default=True)
@click.option("--max-completion-length", type=int, default=64, show_default=True)
@click.option("--lr", type=float, default=1e-3, show_default=True)
@click.option("--beta", type=float, default=0.0, show_default=True, help="KL coefficient.")
@click.option("--temperature", type=float, default=1.0, show_default=True)
@click.option("--seed", type=int, default=0, show_default=True)
@_LORA
@click.option("--vllm", "use_vllm", is_flag=True, help="Generate with vLLM (gpu extra).")
@_POOL_MINIF2F
@_history("RUN_DIR")
@guarded
def trainer_grpo(dataset: Path, graph: Path, base: Path, run_dir: Path, init_run: Path | None,
                 steps: int, num_generations: int, prompts_per_step: int,
                 max_completion_length: int, lr: float, beta: float, temperature: float,
                 seed: int, rank: int, alpha: int, use_vllm: bool, minif2f: tuple[Path, ...],
                 history: Path | None) -> int:
    """GRPO on DATASET's train pool, the gate's verdict as the reward, into RUN_DIR (resumes
    only into the same identity), then saved-policy admission."""
    require_ml_stack()  # the trainer extra, which `make run` does not install
    from network.gate.lean.detect import detect_toolchain
    from network.gate.sandbox.sandbox import Sandbox
    from network.trainer.grpo import GRPOSettings
    from network.trainer.pipeline import grpo
    from network.trainer.sft import LoraSettings

    settings = GRPOSettings(steps=steps, num_generations=num_generations,
                            prompts_per_step=prompts_per_step,
                            max_completion_length=max_completion_length, learning_rate=lr,
                            beta=beta, temperature=temperature, seed=seed, use_vllm=use_vllm,
                            lora=LoraSettings(r=rank, alpha=alpha))
    out = grpo(dataset, graph, base, run_dir, settings, toolchain=detect_toolchain,
               sandbox=Sandbox(), history=history or run_dir / "history.json",
               init_run=init_run, minif2f=minif2f)
    click.echo(json.dumps(out, sort_keys=True))
    return EXIT_OK


@trainer_group.command("propose")
@click.argument("service")
@click.argument("base", type=click.Path(path_type=Path, file_okay=False))
@click.option("--adapter", type=click.Path(path_type=Path, file_okay=False), default=None,
              help="An admitted adapter folder (RUN_DIR/adapter) to serve.")
@click.option("--version", "adapter_version", type=int, default=1, show_default=True,
              help="The adapter's version (its served name is v<N>).")
@click.option("--token", envvar="LEMMATA_TOKEN", default=None,
              help="An operator-issued token (default: earn one through the tutorial).")
@click.option("--pseudonym", default=None, help="The pseudonym to earn a token as.")
@click.option("--model", "model_name", default=None,
              help="The base model's name in the disclosure (default: BASE's folder name).")
@click.option("--samples", type=int, default=4, show_default=True)
@click.option("--max-new-tokens", type=int, default=512, show_default=True)
@click.option("--temperature", type=float, default=0.8, show_default=True)
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--prechecks-per-node", type=int, default=4, show_default=True)
@click.option("--max-nodes", type=int, default=8, show_default=True)
@click.option("--ttl", type=int, default=None, help="Claim TTL in seconds (default: minimum).")
@click.option("--target", "targets", multiple=True, help="Only this target (repeatable).")
@guarded
def trainer_propose(service: str, base: Path, adapter: Path | None, adapter_version: int,
                    token: str | None, pseudonym: str | None, model_name: str | None,
                    samples: int, max_new_tokens: int, temperature: float, seed: int,
                    prechecks_per_node: int, max_nodes: int, ttl: int | None,
                    targets: tuple[str, ...]) -> int:
    """Work SERVICE's frontier as a contributor with BASE (+ an adapter): claim, precheck,
    submit passes with the disclosure block, release the rest."""
    require_ml_stack()  # the trainer extra, which `make run` does not install
    from network.trainer.engines import HFEngine
    from network.trainer.propose import ProposeConfig, ServiceClient, propose

    engine = HFEngine(base)
    if adapter is not None:
        engine.sync(adapter, adapter_version)
    cfg = ProposeConfig(model=model_name or base.resolve().name, samples=samples,
                        max_new_tokens=max_new_tokens, temperature=temperature, seed=seed,
                        prechecks_per_node=prechecks_per_node, max_nodes=max_nodes,
                        ttl_s=ttl, targets=targets)
    client = ServiceClient(service.rstrip("/"), token)
    try:
        out = propose(client, engine, cfg, pseudonym=pseudonym,
                      on_node=lambda o: click.echo(json.dumps(
                          {"node": f"{o.target}/{o.node}", "prechecks": len(o.prechecks),
                           "submitted": o.submission is not None}), err=True))
    finally:
        client.close()
    if out["token_earned"]:
        click.echo(f"earned a token for {pseudonym}: {client.token} (keep it; pass it as "
                   "--token or LEMMATA_TOKEN next time)", err=True)
    click.echo(json.dumps(out, sort_keys=True))
    return EXIT_OK


@trainer_group.command("status")
@click.argument("history", type=click.Path(path_type=Path, dir_okay=False, exists=True))
@guarded
def trainer_status(history: Path) -> int:
    """Print HISTORY (a history.json): series per run and condition, events, hardware."""
    from network.trainer.history import load, render_status

    click.echo(render_status(load(history)), nl=False)
    return EXIT_OK
