"""Expert iteration on actors: sample → verify → SFT on new passes (issue 14, "Ray
orchestration"; seed 000; seed 004, "a reward computed by a program").

Three kinds of actor, each a plain class:

* :class:`RolloutWorker` holds an :class:`~network.trainer.engines.Engine` and samples
  prompts; it syncs adapters by versioned name (adapter-only, the engine checks the held
  tensors against the files);
* :class:`VerifyWorker` is one member of the verification pool: it calls a verifier
  (:class:`network.trainer.evaluate.GraphVerifier`, which runs the gate in-process with
  the same sandbox the service's precheck uses, through :mod:`network.trainer.reward`).
  The reward is the gate's verdict and nothing weaker: only 1.0 is a pass; ``None``
  (``toolchain-missing``: nothing judged) never is;
* :class:`TrainerWorker` runs LoRA SFT (:func:`network.trainer.sft.run_sft`) on the
  dataset's own positives plus every new pass so far, each round from the base model (as
  STaR restarts from the base), then saved-policy admission
  (:func:`network.trainer.sft.admit`); only an admitted adapter is handed on.

An :class:`Executor` places actors and calls them. :class:`LocalExecutor` runs them in
this process (the unit tests, no Ray); :class:`RayExecutor` makes each a Ray actor
(``ray.init(num_cpus=2)`` in the integration test, or a cluster address), imported only
when used. :func:`expert_iteration` is the loop, the same on both.

After each training round every rollout worker is synced to the new version, and each
must then report that version and the trainer's tensor digest, or the round stops with
``trainer-adapter-sync-failed`` (verl #7495: LoRA weights that never reached the rollout
engine; ms-swift #9855: a server serving the old adapter).
"""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Protocol

from network.errors import LemmataError
from network.trainer import history as H
from network.trainer.dataset import SCHEMA, canonical_json, sha256_text
from network.trainer.engines import Engine
from network.trainer.evaluate import bootstrap_ci
from network.trainer.prompts import PROMPT_CONTRACT
from network.trainer.reward import Reward
from network.trainer.sft import SFTConfig

# --- executors --------------------------------------------------------------------------


class Executor(Protocol):
    """Places actors and calls their methods; :meth:`get` waits for results."""

    def actor(self, cls: type, *args: Any, **kwargs: Any) -> Any:
        """A handle on a new ``cls(*args, **kwargs)``."""

    def call(self, handle: Any, method: str, *args: Any, **kwargs: Any) -> Any:
        """Start ``handle.method(*args, **kwargs)``; a future."""

    def get(self, futures: Sequence[Any]) -> list[Any]:
        """The futures' results, in order (an actor's exception is raised here)."""


class LocalExecutor:
    """Runs actors in this process, one call at a time (unit tests, no Ray)."""

    def actor(self, cls: type, *args: Any, **kwargs: Any) -> Any:
        """The instance itself."""
        return cls(*args, **kwargs)

    def call(self, handle: Any, method: str, *args: Any, **kwargs: Any) -> Any:
        """Runs the call now; the future is its outcome."""
        try:
            return ("ok", getattr(handle, method)(*args, **kwargs))
        except Exception as exc:  # noqa: BLE001  (re-raised by get, as ray.get re-raises)
            return ("err", exc)

    def get(self, futures: Sequence[Any]) -> list[Any]:
        """The outcomes' results; the first error is raised."""
        out = []
        for kind, value in futures:
            if kind == "err":
                raise value
            out.append(value)
        return out


class RayExecutor:
    """Each actor a Ray actor (``num_cpus`` each). Ray must be initialised by the caller
    (``ray.init(num_cpus=2)`` or ``ray.init(address=...)``).

    Raises:
        LemmataError: ``trainer-config-invalid`` when ray is not installed (the ``ray``
            extra) or not initialised.
    """

    def __init__(self, num_cpus: float = 1.0) -> None:
        try:
            import ray
        except ImportError as exc:
            raise LemmataError("trainer-config-invalid",
                               "ray is not installed (pip install '.[ray]')") from exc
        if not ray.is_initialized():
            raise LemmataError("trainer-config-invalid", "call ray.init(...) first")
        self._ray = ray
        self.num_cpus = num_cpus

    def actor(self, cls: type, *args: Any, **kwargs: Any) -> Any:
        """A Ray actor hosting ``cls(*args, **kwargs)`` (:class:`_Host`)."""
        remote: Any = self._ray.remote(_Host)
        return remote.options(num_cpus=self.num_cpus).remote(cls, args, kwargs)

    def call(self, handle: Any, method: str, *args: Any, **kwargs: Any) -> Any:
        """``handle.run.remote(method, args, kwargs)``."""
        return handle.run.remote(method, args, kwargs)

    def get(self, futures: Sequence[Any]) -> list[Any]:
        """``ray.get``; an actor's catalog error is raised here with its code."""
        out = []
        for got in self._ray.get(list(futures)):
            if got[0] == "lemmata-error":
                raise LemmataError(got[1], got[2], path=got[3], field=got[4])
            out.append(got[1])
        return out


class _Host:
    """Hosts one actor object in a Ray actor. A :class:`LemmataError` does not survive
    Ray's exception pickling (its constructor takes a code), so it comes back as data
    and :meth:`RayExecutor.get` raises it again with its catalog code."""

    def __init__(self, cls: type, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        self.obj = cls(*args, **kwargs)

    def run(self, method: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, ...]:
        try:
            return ("ok", getattr(self.obj, method)(*args, **kwargs))
        except LemmataError as exc:
            return ("lemmata-error", exc.code, exc.detail, exc.path, exc.field)


# --- actors -----------------------------------------------------------------------------


class RolloutWorker:
    """Samples prompts from an engine built by ``engine_factory()`` in the actor."""

    def __init__(self, engine_factory: Callable[[], Engine]) -> None:
        self.engine = engine_factory()

    def serving(self) -> dict[str, Any]:
        """What the engine serves (:class:`~network.trainer.engines.Serving` as a dict)."""
        return asdict(self.engine.serving())

    def sync(self, adapter_dir: str, version: int) -> dict[str, Any]:
        """Adapter-only sync to ``v<version>``; what is served after it."""
        return asdict(self.engine.sync(adapter_dir, version))

    def rollout(self, rows: Sequence[Mapping[str, Any]], *, samples: int, max_new_tokens: int,
                temperature: float, seed: int) -> list[dict[str, Any]]:
        """``samples`` candidates per row: ``{row, text, tokens, version}``."""
        version = self.engine.serving().version
        gens = self.engine.generate([str(r["prompt"]) for r in rows], samples=samples,
                                    max_new_tokens=max_new_tokens, temperature=temperature,
                                    seed=seed)
        return [{"row": dict(r), "text": g.text, "tokens": g.tokens, "version": version}
                for r, got in zip(rows, gens, strict=True) for g in got]


class VerifyWorker:
    """One member of the verification pool: ``verifier_factory()`` gives a callable
    ``(row, text) -> Reward`` (a :class:`~network.trainer.evaluate.GraphVerifier`)."""

    def __init__(self, verifier_factory: Callable[[], Callable[[Mapping[str, Any], str],
                                                                Reward]]) -> None:
        self.verifier = verifier_factory()

    def verify(self, candidates: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
        """Each candidate with ``reward``, ``verdict``, ``step`` and ``code`` added."""
        out = []
        for c in candidates:
            r = self.verifier(c["row"], str(c["text"]))
            out.append({**c, "reward": r.reward, "verdict": r.verdict,
                        "step": r.first_failing_step, "code": r.code})
        return out


class TrainerWorker:
    """SFT on the dataset's positives plus the passes so far, from the base, then
    admission. Each round writes ``work/round-<r>/data`` (a dataset in the compiler's
    format, its manifest naming the source manifest and every pass) and
    ``work/round-<r>/run``."""

    def __init__(self, base_dir: str | Path, dataset_dir: str | Path, work_dir: str | Path,
                 config: SFTConfig) -> None:
        self.base_dir, self.dataset_dir = Path(base_dir), Path(dataset_dir)
        self.work, self.config = Path(work_dir), config

    def train(self, round_: int, passes: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
        """Train round ``round_`` on the passes; ``{version, adapter_dir, adapter_sha256,
        run_id, losses, admission}``.

        Raises:
            LemmataError: :func:`run_sft`'s and :func:`admit`'s codes
                (``trainer-policy-inert``, ``trainer-policy-mismatch``...).
        """
        from network.trainer.sft import admit, run_sft

        root = self.work / f"round-{round_}"
        data = derived_dataset(self.dataset_dir, root / "data", passes, round_=round_)
        result = run_sft(data, self.base_dir, root / "run", self.config)
        adm = admit(root / "run", data, self.base_dir)
        return {"version": round_, "adapter_dir": str(root / "run" / "adapter"),
                "adapter_sha256": result.adapter_sha256, "run_id": result.identity["run_id"],
                "identity": result.identity, "losses": [list(x) for x in result.losses],
                "admission": {"changed": sum(p["changed"] for p in adm["probes"]),
                              "probes": len(adm["probes"])}}


# --- the derived dataset ----------------------------------------------------------------


_ROW_KEYS = ("item", "split", "source", "prompt_contract", "statement_sha256",
             "canonical_sha256", "target_key")


def statement_row(bundle: Mapping[str, Any], *, item: str, split: str = "train",
                  source: str = "graph") -> dict[str, Any]:
    """A ``statements.jsonl`` row (prompt only) for a node bundle, as the compiler writes
    it, for a pool that does not come from a compiled dataset (tests; a live frontier)."""
    from network.trainer.dataset import canonical_statement_sha256
    from network.trainer.prompts import prompt_input, render

    inp = prompt_input(bundle)
    prompt = render(bundle, "proof")
    row = {"item": item, "split": split, "source": source, "prompt_contract": PROMPT_CONTRACT,
           "statement_sha256": sha256_text(inp.statement),
           "canonical_sha256": canonical_statement_sha256(inp.statement),
           "target_key": f"graph:{inp.target}", "task": "proof", "prompt": prompt,
           "prompt_sha256": sha256_text(prompt)}
    return {**row, "id": sha256_text(canonical_json({"kind": "statement", **row}))}


def _sft_row(row: Mapping[str, Any], completion: str) -> dict[str, Any]:
    full: dict[str, Any] = {k: row[k] for k in _ROW_KEYS}
    full.update(task="proof", prompt=row["prompt"], completion=completion,
                prompt_sha256=sha256_text(str(row["prompt"])), origin="expert-iteration")
    if row.get("judge_as") == "alternate":  # judged as an alternate beside the merged proof
        full["artifact_kind"] = "alternate"
    return {**full, "id": sha256_text(canonical_json({"kind": "sft", **full}))}


def record_pool(dataset_dir: str | Path, *, minif2f_valid: bool = False
                ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The expert-iteration pool read from the record, through a compiled dataset.

    With ``minif2f_valid``, the dataset's ``train`` rows of miniF2F Valid statements
    (``minif2f:Valid/<name>``) join the pool as extra items (judged by
    :class:`~network.trainer.minif2f_judge.MiniF2FVerifier`); miniF2F Test is sealed and
    never enters: a ``minif2f:Test/`` row, or a row of an item the manifest seals, that a
    dataset labels ``train`` is refused (``trainer-split-contaminated``), never pooled.

    The pool is ``statements.jsonl``'s ``train`` rows of graph items (sealed and valid
    items never enter it). A node the record already proves is one whose merged proof is
    a verified positive in ``sft.jsonl`` (the compiler admitted its gate-signed passing
    attestation). Its row is marked ``judge_as: alternate``: what the loop samples for it
    is judged by the gate as an alternate beside the merged proof
    (:class:`~network.trainer.evaluate.GraphVerifier`), never as a replacement, and a new
    pass trains as an alternate row; the merged proof stays the node's positive (it is in
    ``sft.jsonl``, which every round's dataset copies). Every verified text of the node
    (the merged proof, verified alternates) is returned as known, so sampling one of them
    again is no new pass (the gate refuses it as a copy anyway).

    Returns:
        ``(rows, known)``: the pool rows, and ``{row, text, reward: 1.0, origin: record}``
        per verified text of a proved node's row.

    Raises:
        LemmataError: ``trainer-source-malformed`` (the dataset disagrees with its
            manifest).
    """
    from network.trainer.dataset import verify_dataset

    folder = Path(dataset_dir)
    manifest = verify_dataset(folder)
    sealed = set(manifest.get("split", {}).get("sealed", []))

    def rows_of(name: str) -> list[dict[str, Any]]:
        text = (folder / name).read_text("utf-8")
        return [json.loads(x) for x in text.splitlines() if x]

    verified: dict[str, list[dict[str, Any]]] = {}
    for r in rows_of("sft.jsonl"):
        if r.get("split") == "train" and r.get("task") == "proof" and "artifact" in r:
            verified.setdefault(str(r["item"]), []).append(r)
    pool: list[dict[str, Any]] = []
    known: list[dict[str, Any]] = []
    for r in sorted(rows_of("statements.jsonl"), key=lambda x: (str(x["item"]), str(x["id"]))):
        item = str(r.get("item", ""))
        if r.get("split") == "train" and (item in sealed or item.startswith("minif2f:Test/")
                                          or r.get("source") == "minif2f-test"):
            raise LemmataError("trainer-split-contaminated",
                               f"{folder}: the sealed item {item} is labelled train")
        if r.get("split") != "train" or r.get("task", "proof") != "proof":
            continue
        if item.startswith("minif2f:Valid/") and r.get("source") == "minif2f-valid":
            if minif2f_valid:
                pool.append(dict(r))
            continue
        if not item.startswith("graph:"):
            continue
        pos = verified.get(str(r["item"]), [])
        proved = any(p["artifact"].get("kind") == "proof" for p in pos)
        row = {**r, "judge_as": "alternate"} if proved else dict(r)
        pool.append(row)
        if proved:
            known += [{"row": row, "text": str(p["completion"]), "reward": 1.0,
                       "origin": "record"} for p in pos]
    return pool, known


def derived_dataset(source: str | Path, out: str | Path, passes: Sequence[Mapping[str, Any]],
                    *, round_: int) -> Path:
    """A dataset folder for one round: the source's files with ``sft.jsonl`` extended by
    one ``train`` row per pass (``origin: expert-iteration``), and a manifest in the same
    schema naming the source manifest's digest, the round and every pass. A pass on a row
    that is not a train row, or on an item the source manifest seals, is refused: sealed
    and valid items never train.

    Raises:
        LemmataError: ``trainer-split-contaminated``; ``trainer-source-malformed`` (the
            source disagrees with its manifest); ``trainer-out-not-empty``.
    """
    from network.trainer.dataset import verify_dataset

    src = Path(source)
    manifest = verify_dataset(src)
    folder = Path(out)
    if folder.exists() and any(folder.iterdir()):
        raise LemmataError("trainer-out-not-empty", f"{folder} is not empty")
    folder.mkdir(parents=True, exist_ok=True)
    sealed = set(manifest.get("split", {}).get("sealed", []))
    extra = []
    for p in passes:
        if p["row"].get("split") != "train" or p["row"].get("item") in sealed:
            raise LemmataError("trainer-split-contaminated",
                               f"a pass on {p['row'].get('item')} ({p['row'].get('split')}) "
                               "would train on a held-out item")
        extra.append(_sft_row(p["row"], str(p["text"])))
    files = dict(manifest["files"])
    for name in files:
        shutil.copyfile(src / name, folder / name)
    rows = [json.loads(x) for x in (src / "sft.jsonl").read_text("utf-8").splitlines() if x]
    known = {r["id"] for r in rows}
    rows += [r for r in extra if r["id"] not in known]
    rows.sort(key=lambda r: (r["item"], r["id"]))
    data = "".join(canonical_json(r) + "\n" for r in rows).encode("utf-8")
    (folder / "sft.jsonl").write_bytes(data)
    files["sft.jsonl"] = {"sha256": hashlib.sha256(data).hexdigest(),
                          "rows": [r["id"] for r in rows]}
    derived = {**manifest, "schema": SCHEMA, "files": files,
               "derived": {"from_manifest_sha256": sha256_text(canonical_json(manifest)),
                           "round": round_, "passes": sorted(r["id"] for r in extra)}}
    (folder / "manifest.json").write_text(json.dumps(derived, sort_keys=True, indent=2,
                                                     ensure_ascii=False) + "\n", "utf-8")
    return folder


# --- the loop ---------------------------------------------------------------------------


@dataclass(frozen=True)
class IterationConfig:
    """The loop's budget per round: ``samples`` per row, ``max_new_tokens``,
    ``verification_calls`` (candidates past it are ``budget-exhausted``, never judged),
    ``temperature``, ``seed`` (round r samples with ``seed + r``), ``rounds``, and how
    many rollout and verification actors."""

    rounds: int = 2
    samples: int = 2
    max_new_tokens: int = 64
    verification_calls: int = 64
    temperature: float = 0.8
    seed: int = 0
    rollout_workers: int = 1
    verify_workers: int = 1

    def check(self) -> None:
        """Raises ``trainer-config-invalid`` for a budget below 1."""
        if min(self.rounds, self.samples, self.max_new_tokens, self.verification_calls,
               self.rollout_workers, self.verify_workers) < 1:
            raise LemmataError("trainer-config-invalid", f"{self}: every budget must be >= 1")

    def label(self) -> str:
        """The budget as a pass rate's label names it."""
        return (f"{self.samples} samples/item, {self.max_new_tokens} tokens/sample, "
                f"{self.verification_calls} verification calls/round")


@dataclass
class RoundRecord:
    """One round: what was sampled, judged and passed, and what was trained and served."""

    round: int
    served_version: int | None
    candidates: int = 0
    judged: int = 0
    not_judged: int = 0
    budget_exhausted: int = 0
    passes: int = 0
    new_passes: int = 0
    items: int = 0
    items_solved: int = 0
    failures: dict[str, int] = field(default_factory=dict)
    trained: dict[str, Any] | None = None


def _key(c: Mapping[str, Any]) -> str:
    return sha256_text(canonical_json([c["row"]["id"], c["text"]]))


def expert_iteration(executor: Executor, rows: Sequence[Mapping[str, Any]], *,
                     engine_factory: Callable[[], Engine],
                     verifier_factory: Callable[[], Callable[[Mapping[str, Any], str],
                                                             Reward]],
                     trainer: tuple[type, tuple[Any, ...]], config: IterationConfig,
                     history: Path | None = None,
                     known: Sequence[Mapping[str, Any]] = ()) -> list[RoundRecord]:
    """Sample → verify → SFT on new passes, ``config.rounds`` times.

    Args:
        executor: where actors run (:class:`LocalExecutor`, :class:`RayExecutor`).
        rows: the pool: ``statements.jsonl`` rows (``train`` split; a pass on another
            split is refused before training).
        engine_factory, verifier_factory: built inside each actor (picklable for Ray).
        trainer: ``(cls, args)`` of the trainer actor (:class:`TrainerWorker` and its
            arguments; tests may pass a double with the same ``train`` method).
        history: a history.json to record each round's rollout pass rate (k = samples,
            with the budget), the losses and the events into.
        known: candidates already trained on (their (row, text) are not new); those
            marked ``origin: record`` (:func:`record_pool`'s) are the dataset's own
            positives and are not handed to the trainer again.

    Returns:
        One :class:`RoundRecord` per round.

    Raises:
        LemmataError: ``trainer-config-invalid``; ``trainer-adapter-sync-failed`` (a
            worker does not serve the new version's tensors after the sync);
            ``trainer-split-contaminated``; the trainer's codes.
    """
    config.check()
    pool = [dict(r) for r in rows]
    held_out = [r.get("item") for r in pool if r.get("split") != "train"]
    if held_out:
        raise LemmataError("trainer-split-contaminated",
                           f"the rollout pool holds held-out items: {held_out[:3]}")
    workers = [executor.actor(RolloutWorker, engine_factory)
               for _ in range(config.rollout_workers)]
    verifiers = [executor.actor(VerifyWorker, verifier_factory)
                 for _ in range(config.verify_workers)]
    trainer_actor = executor.actor(trainer[0], *trainer[1])
    seen = {_key(c) for c in known}
    # the record's own positives are in the dataset already: known, never re-added
    passes_so_far: list[dict[str, Any]] = [dict(c) for c in known
                                           if c.get("origin") != "record"]
    records: list[RoundRecord] = []
    run_id = sha256_text(canonical_json({"pool": [r["id"] for r in pool],
                                         "config": asdict(config)}))
    doc = H.load(history) if history is not None else None
    series: dict[str, Any] | None = None
    if doc is not None:
        series = H.pass_rate_series(
            doc, run_id, kind="expert-iteration", hardware=_hardware(), condition="rollout",
            metric=f"pass@{config.samples}", k=config.samples, budget=config.label(),
            label=f"rollout pass rate pass@{config.samples} (k={config.samples}; "
                  f"{config.label()})")
    for r in range(1, config.rounds + 1):
        served = executor.get([executor.call(w, "serving") for w in workers])
        rec = RoundRecord(r, served[0]["version"], items=len(pool))
        chunks = [pool[i::len(workers)] for i in range(len(workers))]
        futs = [executor.call(w, "rollout", chunk, samples=config.samples,
                              max_new_tokens=config.max_new_tokens,
                              temperature=config.temperature, seed=config.seed + r)
                for w, chunk in zip(workers, chunks, strict=True) if chunk]
        cands = [c for got in executor.get(futs) for c in got]
        rec.candidates = len(cands)
        # one verification call per distinct (row, text); the rest share its verdict
        distinct: dict[str, dict[str, Any]] = {}
        for c in cands:
            distinct.setdefault(_key(c), c)
        order = list(distinct)
        judged_keys = order[:config.verification_calls]
        vchunks = [[distinct[k] for k in judged_keys[i::len(verifiers)]]
                   for i in range(len(verifiers))]
        verdicts: dict[str, dict[str, Any]] = {}
        for got in executor.get([executor.call(v, "verify", ch)
                                 for v, ch in zip(verifiers, vchunks, strict=True) if ch]):
            for c in got:
                verdicts[_key(c)] = c
        solved: dict[str, bool] = {str(row["id"]): False for row in pool}
        new: list[dict[str, Any]] = []
        for c in cands:
            k = _key(c)
            v = verdicts.get(k)
            if v is None:
                rec.budget_exhausted += 1
                continue
            if v["reward"] is None:
                rec.not_judged += 1
                continue
            rec.judged += 1
            if v["reward"] == 1.0:
                rec.passes += 1
                solved[str(c["row"]["id"])] = True
                if k not in seen:
                    seen.add(k)
                    new.append(v)
            else:
                code = f"step {v['step']}: {v['code']}"
                rec.failures[code] = rec.failures.get(code, 0) + 1
        rec.new_passes = len(new)
        rec.items_solved = sum(solved.values())
        if series is not None:
            vals = [1.0 if s else 0.0 for s in solved.values()]
            lo, hi = bootstrap_ci(vals, seed=config.seed + r) if vals else [0.0, 0.0]
            series["points"].append([r, (sum(vals) / len(vals)) if vals else 0.0, lo, hi])
        if new:
            passes_so_far.extend(new)
            [trained] = executor.get([executor.call(trainer_actor, "train", r,
                                                    passes_so_far)])
            synced = executor.get([executor.call(w, "sync", trained["adapter_dir"],
                                                 trained["version"]) for w in workers])
            for s in synced:
                if s["version"] != trained["version"] or \
                        s["adapter_sha256"] != trained["adapter_sha256"]:
                    raise LemmataError(
                        "trainer-adapter-sync-failed",
                        f"round {r}: a worker serves {s['adapter']} "
                        f"({str(s['adapter_sha256'])[:12]}), the trainer wrote "
                        f"v{trained['version']} ({str(trained['adapter_sha256'])[:12]})")
            rec.trained = {k: trained[k] for k in ("version", "adapter_sha256", "run_id",
                                                    "admission")}
            if doc is not None:
                H.add_loss(doc, trained["run_id"], hardware=_hardware(),
                           identity=trained.get("identity"),
                           points=[(int(s), float(v)) for s, v in trained["losses"]])
        if doc is not None:
            H.event(doc, run_id, "round", **{k: v for k, v in asdict(rec).items()
                                              if k not in ("trained",)},
                    trained_version=rec.trained["version"] if rec.trained else None)
        records.append(rec)
    if doc is not None and history is not None:
        H.save(history, doc)
    return records


def _hardware() -> dict[str, Any]:
    from network.trainer.sft import hardware

    return hardware()
