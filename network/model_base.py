"""The pydantic base every record model shares, below both the record and signing.

:class:`Record` (frozen, unknown fields refused, ``SCHEMA_KIND`` fixed per kind) and the
:data:`Date` type. network.signing's key and signature models and every model in
network.record.models build on it, so signing needs nothing from the record (issue 17;
``tests/test_layering.py``).
"""

from __future__ import annotations

from typing import Annotated, ClassVar

from pydantic import BaseModel, ConfigDict, StringConstraints

Date = Annotated[str, StringConstraints(pattern=r"^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}:\d{2}Z)?$")]


class Record(BaseModel):
    """Base of every record: frozen, unknown fields refused, ``schema`` fixed per kind."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)
    SCHEMA_KIND: ClassVar[str] = ""
