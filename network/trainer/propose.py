"""The policy as a contributor: ``lemmata trainer propose`` (issue 14, "The policy as a
contributor"; D-23 v3.37, D-25, D-28).

A policy is never a source of authority. :func:`propose` uses the service's plain HTTP
routes, the same ones any contributor (or an MCP agent, D-28: every tool mirrors a route)
uses, and nothing else:

1. a token: an operator-issued one passed in, or one earned like anyone earns it
   (:func:`earn_token`: the policy's own tutorial proof, prechecked by ``POST /precheck``,
   is the proof ``POST /tokens`` takes, D-27);
2. the frontier from ``GET /frontier.json`` (open, claimable nodes; tutorial nodes are
   never worked on);
3. for each node: an advisory claim with a TTL (``POST /claims``), the prompt rendered
   from ``GET /targets/<t>/nodes/<n>`` under the prompt contract
   (:func:`network.trainer.prompts.render`), samples from an :class:`Engine`, a precheck
   of each distinct sample (``POST /precheck``, polled at ``GET /precheck/<id>``) within a
   budget of prechecks, and ``POST /submissions`` for the first that passes, with the
   disclosure block ``{method, models, framework}`` naming the base model, its revision
   and the adapter version served (D-23 v3.37);
4. a claim it did not submit on is released (``DELETE /claims/<id>``), whatever happened.

It never writes to the graph any other way: the gate judges the pull request exactly as
it judges anyone's.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

import httpx

import network.trainer.sft  # noqa: F401  (defines trainer-config-invalid)
from network.errors import LemmataError, define
from network.trainer.engines import Engine
from network.trainer.prompts import PROMPT_CONTRACT, render

define("trainer-service-refused", None, 502,
       "The service refused a step the proposer cannot go on without (a token it does not "
       "accept, a route that answered an error or no JSON), so the run stopped.",
       "Read the service's error in the detail; pass a token the service issued (lemmata "
       "token issue) or let the proposer earn one through the tutorial precheck.")
define("trainer-token-unearned", None, 422,
       "None of the policy's samples for the tutorial node passed its precheck, so it has "
       "no precheck proof to take a token with (D-27).",
       "Pass an operator-issued token (--token), or sample more (--samples).")

#: precheck states after which a job changes no more
_DONE = ("pass", "fail", "toolchain-missing", "error", "expired", "cancelled")


@dataclass(frozen=True)
class ProposeConfig:
    """What one proposing run may spend, and how it names itself.

    Attributes:
        model: the base model's name in the disclosure (its revision is the engine's).
        samples: samples per node; max_new_tokens, temperature, seed: the sampling.
        prechecks_per_node: at most this many distinct samples are prechecked per node.
        max_nodes: at most this many frontier nodes are worked on.
        ttl_s: the claims' TTL (None: the service's minimum).
        poll_s, precheck_timeout_s: how often and how long a precheck is polled.
        targets: only these targets (empty: all).
    """

    model: str
    samples: int = 4
    max_new_tokens: int = 512
    temperature: float = 0.8
    seed: int = 0
    prechecks_per_node: int = 4
    max_nodes: int = 8
    ttl_s: int | None = None
    poll_s: float = 0.2
    precheck_timeout_s: float = 600.0
    targets: tuple[str, ...] = ()


@dataclass
class NodeOutcome:
    """What happened on one node: the claim, each precheck (job id, state, first failing
    step and code), the submission (id and pull request) and whether the claim was
    released."""

    target: str
    node: str
    claim_id: str | None = None
    claim_refused: str | None = None
    samples: int = 0
    prechecks: list[dict[str, Any]] = field(default_factory=list)
    submission: dict[str, Any] | None = None
    released: bool = False


class ServiceClient:
    """The service's HTTP routes a contributor uses, over httpx.

    Args:
        base_url: the service's base URL; token: the bearer token (set later by
            :func:`earn_token` when None); transport: an httpx transport (tests may pass
            one; default: the network).
    """

    def __init__(self, base_url: str, token: str | None = None, *,
                 transport: httpx.BaseTransport | None = None, timeout_s: float = 60.0):
        self.token = token
        self._http = httpx.Client(base_url=base_url, timeout=timeout_s, transport=transport)

    def close(self) -> None:
        """Close the connection pool."""
        self._http.close()

    def call(self, method: str, path: str, *, body: Mapping[str, Any] | None = None,
             auth: bool = False, params: Mapping[str, Any] | None = None) -> httpx.Response:
        """One request; ``auth`` sends the bearer token."""
        headers = {"Authorization": f"Bearer {self.token}"} if auth and self.token else {}
        return self._http.request(method, path, json=body, headers=headers, params=params)

    def must(self, method: str, path: str, **kw: Any) -> Any:
        """:meth:`call`, and its JSON when it succeeded.

        Raises:
            LemmataError: ``trainer-service-refused`` (an error status or no JSON).
        """
        r = self.call(method, path, **kw)
        if r.status_code >= 400:
            raise LemmataError("trainer-service-refused",
                               f"{method} {path}: {r.status_code} {r.text[:500]}")
        try:
            return r.json()
        except ValueError as exc:
            raise LemmataError("trainer-service-refused", f"{method} {path}: no JSON") from exc

    def precheck(self, target: str, node: str, text: str, *, timeout_s: float,
                 poll_s: float) -> dict[str, Any]:
        """``POST /precheck`` of a proof, polled until it ends (or the timeout: the last
        answer is returned, state ``queued``/``running``)."""
        job = self.must("POST", "/precheck", auth=True, body={
            "target": target, "node": node, "artifact_type": "proof", "text": text})
        deadline = time.monotonic() + timeout_s
        while job.get("state") not in _DONE and time.monotonic() < deadline:
            time.sleep(poll_s)
            job = self.must("GET", f"/precheck/{job['job_id']}")
        return dict(job)


def disclosure(engine: Engine, model: str) -> dict[str, Any]:
    """The D-23 v3.37 block for what ``engine`` serves: method ``agent``; models: the base
    model with its revision, and the adapter's versioned name with its tensor digest (or
    ``no adapter``); framework: the proposer and the prompt contract."""
    s = engine.serving()
    models = [f"{model} @ {s.base_revision[:71]}"[:200]]
    if s.adapter is not None:
        models.append(f"{model}+lora {s.adapter} (version {s.version}, tensors sha256:"
                      f"{(s.adapter_sha256 or '')[:16]})"[:200])
    else:
        models.append(f"{model}: no adapter (the base model)")
    return {"method": "agent", "models": models,
            "framework": f"lemmata trainer propose, {PROMPT_CONTRACT}"}


def _texts(engine: Engine, prompt: str, cfg: ProposeConfig) -> tuple[int, list[str]]:
    [gens] = engine.generate([prompt], samples=cfg.samples, max_new_tokens=cfg.max_new_tokens,
                             temperature=cfg.temperature, seed=cfg.seed)
    distinct: list[str] = []
    for g in gens:
        if g.text.strip() and g.text not in distinct:
            distinct.append(g.text)
    return len(gens), distinct[:cfg.prechecks_per_node]


def _proof_text(text: str) -> str:
    return text if text.endswith("\n") else text + "\n"


def earn_token(client: ServiceClient, engine: Engine, cfg: ProposeConfig, *,
               pseudonym: str, tutorial: tuple[str, str] = ("tutorial", "tutorial")) -> str:
    """Take a token like anyone (D-27): the policy's samples for the tutorial node are
    prechecked until one passes, and that job is the proof ``POST /tokens`` takes, with
    the DCO version ``GET /dco.json`` names. Sets and returns ``client.token``.

    Raises:
        LemmataError: ``trainer-token-unearned``; ``trainer-service-refused``.
    """
    t, n = tutorial
    bundle = client.must("GET", f"/targets/{t}/nodes/{n}")
    _, texts = _texts(engine, render(bundle, "proof"), cfg)
    for text in texts:
        job = client.precheck(t, n, _proof_text(text), timeout_s=cfg.precheck_timeout_s,
                              poll_s=cfg.poll_s)
        if job.get("state") == "pass":
            dco = client.must("GET", "/dco.json")["version"]
            got = client.must("POST", "/tokens", body={
                "pseudonym": pseudonym, "dco": dco,
                "proof": {"kind": "precheck", "job_id": job["job_id"]}})
            client.token = str(got["token"])
            return client.token
    raise LemmataError("trainer-token-unearned",
                       f"{len(texts)} distinct tutorial sample(s), none passed")


def frontier_nodes(client: ServiceClient, cfg: ProposeConfig) -> list[tuple[str, str]]:
    """(target, node) of the open, claimable frontier entries, in the frontier's order
    (unranked, D-35), within ``cfg.targets`` and ``cfg.max_nodes``; tutorial targets are
    left out (their proofs are token proofs, not contributions)."""
    body = client.must("GET", "/frontier.json")
    out: list[tuple[str, str]] = []
    for e in body.get("nodes", []) if isinstance(body, dict) else []:
        if not isinstance(e, dict) or e.get("status") != "open" or e.get("claimable") is False:
            continue
        t, n = str(e.get("target")), str(e.get("node"))
        if t == "tutorial" or (cfg.targets and t not in cfg.targets):
            continue
        out.append((t, n))
    return out[:cfg.max_nodes]


def work_node(client: ServiceClient, engine: Engine, cfg: ProposeConfig, target: str,
              node: str) -> NodeOutcome:
    """Claim, render, sample, precheck, submit the first pass; release the claim unless a
    submission was opened (D-25: the submission keeps the node claimed).

    Raises:
        LemmataError: ``trainer-service-refused`` when the token is refused (401/403):
            nothing else could succeed either. Other refusals are recorded in the outcome.
    """
    out = NodeOutcome(target, node)
    body: dict[str, Any] = {"target": target, "node": node}
    if cfg.ttl_s is not None:
        body["ttl_s"] = cfg.ttl_s
    r = client.call("POST", "/claims", body=body, auth=True)
    if r.status_code in (401, 403):
        raise LemmataError("trainer-service-refused",
                           f"POST /claims: {r.status_code} {r.text[:300]}")
    if r.status_code >= 400:
        out.claim_refused = _code(r)
        return out
    out.claim_id = str(r.json()["claim_id"])
    try:
        bundle = client.must("GET", f"/targets/{target}/nodes/{node}")
        if (bundle.get("meta") or {}).get("tutorial"):
            return out
        out.samples, texts = _texts(engine, render(bundle, "proof"), cfg)
        for text in texts:
            job = client.precheck(target, node, _proof_text(text),
                                  timeout_s=cfg.precheck_timeout_s, poll_s=cfg.poll_s)
            first = _first_failing(job)
            out.prechecks.append({"job_id": job.get("job_id"), "state": job.get("state"),
                                  **first})
            if job.get("state") != "pass":
                continue
            sub = client.call("POST", "/submissions", auth=True, body={
                "precheck_id": job["job_id"], "disclosure": disclosure(engine, cfg.model)})
            if sub.status_code >= 400:
                out.prechecks[-1]["submit_refused"] = _code(sub)
                continue
            s = sub.json()
            out.submission = {"id": s.get("id"), "pull_request": s.get("pull_request"),
                              "state": s.get("state")}
            break
    finally:
        if out.submission is None and out.claim_id is not None:
            rel = client.call("DELETE", f"/claims/{out.claim_id}", auth=True)
            out.released = rel.status_code < 400
    return out


def _code(r: httpx.Response) -> str:
    try:
        body = r.json()
    except ValueError:
        return f"http-{r.status_code}"
    err = body.get("error", body) if isinstance(body, dict) else {}
    return str(err.get("code") or f"http-{r.status_code}") if isinstance(err, dict) else \
        f"http-{r.status_code}"


def _first_failing(job: Mapping[str, Any]) -> dict[str, Any]:
    """The first failing step and code of a finished precheck (no gate message)."""
    diag = job.get("diagnostics") or {}
    for art in diag.get("artifacts", []) if isinstance(diag, dict) else []:
        if isinstance(art, dict) and art.get("first_failing_step") is not None:
            return {"step": art.get("first_failing_step"), "code": art.get("code")}
    return {"step": None, "code": job.get("code")}


def propose(client: ServiceClient, engine: Engine, cfg: ProposeConfig, *,
            pseudonym: str | None = None,
            on_node: Callable[[NodeOutcome], None] | None = None) -> dict[str, Any]:
    """One proposing run over the frontier (see the module docstring).

    Args:
        client: the service; its token is used, or earned as ``pseudonym`` when None.
        engine: what samples (its :meth:`Engine.serving` is what the disclosure names).
        cfg: the budget and the model's name.
        on_node: called with each node's outcome as it ends.

    Returns:
        ``{"pseudonym_token_earned": bool, "serving": {...}, "disclosure": {...},
        "nodes": [NodeOutcome as dict], "submitted": n}``.

    Raises:
        LemmataError: ``trainer-token-unearned``, ``trainer-service-refused``,
            ``trainer-config-invalid`` (no token and no pseudonym; a budget below 1).
    """
    if cfg.samples < 1 or cfg.prechecks_per_node < 1 or cfg.max_nodes < 0:
        raise LemmataError("trainer-config-invalid", "samples and prechecks_per_node >= 1")
    earned = False
    if client.token is None:
        if not pseudonym:
            raise LemmataError("trainer-config-invalid", "no token and no pseudonym to earn one")
        earn_token(client, engine, cfg, pseudonym=pseudonym)
        earned = True
    outcomes: list[NodeOutcome] = []
    for target, node in frontier_nodes(client, cfg):
        o = work_node(client, engine, cfg, target, node)
        outcomes.append(o)
        if on_node is not None:
            on_node(o)
    return {"token_earned": earned, "serving": asdict(engine.serving()),
            "disclosure": disclosure(engine, cfg.model),
            "nodes": [asdict(o) for o in outcomes],
            "submitted": sum(1 for o in outcomes if o.submission is not None)}
