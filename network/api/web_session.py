"""Web sessions: a person signed in with GitHub on the network's own site (D-35 v3.33).

The person routes (stewards, approvals, reviews of held proofs, the panel, literature
readings, shelvings, registrations) take a :class:`Person` through :data:`PersonDep`; only a
person may hold these roles, so none of them is an MCP tool (D-35's "no tool" rows).

This module's :func:`person` is the one dependency those routes declare. Until the
session cookie is accepted here it refuses every request with ``session-missing``: it
fails closed, never open.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Request

from network.api.service import Caller, Who
from network.errors import LemmataError, define_once

define_once("session-missing", None, 401,
            "This route is a person's act and needs a web session: sign in with GitHub on "
            "the network's site (D-35 v3.33).",
            "Sign in on the site (its Sign in link), then act from the page; an agent cannot "
            "hold a steward's or curator's role.")


@dataclass(frozen=True)
class Person:
    """A signed-in person.

    Attributes:
        caller: the caller, with ``who`` the ledger identity the session belongs to (the
            same identity as the login's bearer token, never a second one: D-35).
        login: the GitHub login the session was opened by, or None for a session an
            operator opened for an identity with no login.
    """

    caller: Caller
    login: str | None

    @property
    def who(self) -> Who:
        """The session's ledger identity (``caller.who``, never None for a Person)."""
        assert self.caller.who is not None
        return self.caller.who


def person(request: Request) -> Person:
    """The signed-in person behind a request to a person route.

    Raises:
        LemmataError: ``session-missing`` (401).
    """
    raise LemmataError("session-missing", f"{request.method} {request.url.path} needs a "
                       "web session")


PersonDep = Annotated[Person, Depends(person)]
