"""The types every record model shares (split from :mod:`network.record.models`,
issue 17): constrained ids, paths and texts, :func:`fresh_default` defaults, ``Reference``,
``ArtifactHash`` and ``Disclosure``. :mod:`network.record.models` re-exports every name;
import them from there.
"""

from __future__ import annotations

import functools
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

Sha256 = Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{64}$")]
GitSha = Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{40}$")]
TargetId = Annotated[str, StringConstraints(pattern=r"^[a-z0-9]+(-[a-z0-9]+)*$", max_length=64)]
NodeId = Annotated[
    str,
    StringConstraints(
        pattern=r"^[a-z][a-z0-9]*(?:-[a-z0-9]+)*(?:@v[1-9][0-9]*)?(?:--h[1-9][0-9]*(?:@v[1-9][0-9]*)?)*$",
        max_length=200,
    ),
]
Pseudonym = Annotated[
    str, StringConstraints(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,38}$")
]
GraphPath = Annotated[
    str,
    StringConstraints(
        pattern=r"^[A-Za-z0-9_@][A-Za-z0-9_.@-]*(/[A-Za-z0-9_@][A-Za-z0-9_.@-]*)*$", max_length=400
    ),
]
ShortText = Annotated[str, StringConstraints(max_length=2000)]
LongText = Annotated[str, StringConstraints(max_length=100_000)]
Label = Annotated[str, StringConstraints(max_length=60)]


def fresh_default(value: Any) -> Any:
    """A field default that a factory builds afresh for each instance (issue 17).

    pydantic deep-copies an unhashable default (a list, a dict, a model holding one) each
    time a record omits the field: ~64,000 ``copy.deepcopy`` calls in a 10,000-node load.
    A factory gives the same value without the copy; ``json_schema_extra`` names it as
    the field's ``default``, so the JSON Schemas (D-34: frozen) read exactly as before.

    Args:
        value: ``[]``, ``{}``, a list of strings, or a model instance that equals its
            class's defaults (built again by calling the class).

    Raises:
        ValueError: any other value (its fresh copy would need a deep copy again).
    """
    factory: Any
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        factory = functools.partial(list, value)
        shown: Any = list(value)
    elif isinstance(value, dict) and not value:
        factory, shown = dict, {}
    elif isinstance(value, BaseModel) and value == type(value)():
        factory, shown = type(value), value.model_dump(mode="json")
    else:
        raise ValueError(f"no fresh factory for the default {value!r}")
    return Field(default_factory=factory, json_schema_extra={"default": shown})


class Reference(BaseModel):
    """A checkable reference: title, where to find it, and what it says for us."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    title: ShortText
    url: Annotated[str, StringConstraints(pattern=r"^https?://", max_length=500)] | None = None
    doi: Annotated[str, StringConstraints(max_length=200)] | None = None
    arxiv: Annotated[str, StringConstraints(max_length=50)] | None = None
    note: ShortText | None = None


class ArtifactHash(BaseModel):
    """One file an attestation covers: its graph path and SHA-256."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    path: GraphPath
    sha256: Sha256


class Disclosure(BaseModel):
    """Model and tooling as declared by the operator (D-23 v3.37)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    method: Literal["human", "agent", "mixed", "undisclosed"] = "undisclosed"
    models: list[Annotated[str, StringConstraints(max_length=200)]] = fresh_default([])
    framework: Annotated[str, StringConstraints(max_length=200)] | None = None
