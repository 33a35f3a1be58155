"""What every ``lemmata`` command module shares: the one boundary from errors to exit codes
(STYLE.md rule 1; :func:`guarded`) and the exit codes themselves: 0 pass, 1 a check that
failed (a refusal with a catalog code), 2 held, 3 a bug. ``--debug`` (the root group's
option, :func:`network.cli.main`) re-raises instead of mapping. :mod:`network.cli`
re-exports every name here.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import click

from network.errors import LemmataError, ValidationFailed

EXIT_OK, EXIT_FAILED, EXIT_HELD, EXIT_BUG = 0, 1, 2, 3


def _report(exc: LemmataError) -> None:
    if isinstance(exc, ValidationFailed):
        for p in exc.problems:
            click.echo(f"error: {p}", err=True)
        click.echo(f"{len(exc.problems)} problem(s) found", err=True)
    else:
        click.echo(f"error: {exc}", err=True)
        click.echo(f"  what to do: {exc.entry.action}", err=True)


def guarded(fn: Callable[..., int]) -> Callable[..., None]:
    """Wrap a command body: LemmataError → exit 1 with its code; anything else → exit 3."""

    def wrapper(*args: Any, **kwargs: Any) -> None:
        ctx = click.get_current_context()
        debug = bool(ctx.find_root().params.get("debug"))
        try:
            rc = fn(*args, **kwargs)
        except LemmataError as exc:
            if debug:
                raise
            _report(exc)
            sys.exit(EXIT_FAILED)
        except Exception as exc:
            if debug:
                raise
            click.echo(f"internal error (a bug): {type(exc).__name__}: {exc}", err=True)
            sys.exit(EXIT_BUG)
        sys.exit(rc)

    wrapper.__name__ = fn.__name__
    wrapper.__doc__ = fn.__doc__
    return wrapper
