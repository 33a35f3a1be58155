"""The site build's settings: one typed class, a docstring per option (STYLE.md rule 7)."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from network.site.csp import SERVICE_URL_PATTERN

DEFAULT_TOOLCHAIN_NOTE = "This site was built from the record; it checks nothing."


class SiteConfig(BaseModel):
    """What one ``lemmata site build`` reads and writes (D-36)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    graph: Path
    """The graph repository (or a folder inside one) to render."""

    out: Path
    """The folder the static files are written to; created when absent. Files the build
    did not write are left alone."""

    commit: str | None = None
    """Render this git revision of the graph instead of its work tree; every page names
    it. None renders the work tree and pages say so."""

    strict: bool = False
    """Fail the build (exit 1) on any warning: a broken internal link, a claim KaTeX
    cannot typeset, a featured target that does not exist."""

    featured_target: str | None = None
    """The problem drawn on the home page as its own page draws it (D-36 v3.48). None
    picks the first open-problem target in id order, else the first target with a root."""

    toolchain_note: str = DEFAULT_TOOLCHAIN_NOTE
    """The footer sentence saying whether proofs can be checked where the site was built
    (the ``toolchain_note`` template slot)."""

    repository_url: str | None = Field(None, pattern=r"^https://")
    """Where the graph repository is browsable, e.g. ``https://github.com/org/graph``. When
    set, a proof links to ``<url>/blob/<merge commit>/<path>``; otherwise to its rendering
    on the node page, with the merge commit named beside it."""

    recent_rows: int = Field(40, ge=1)
    """How many rows of recent events the home page lists (D-36 v3.48)."""

    workers: int = Field(0, ge=0)
    """Processes that render pages in parallel; 0 means one per CPU (at most 4)."""

    vouched: dict[str, dict[str, str]] = Field(default_factory=dict)
    """Pseudonym → ``{by, at}`` for each identity a network's operator vouched for with
    ``lemmata token issue`` (ruling 14): who vouched and when (ISO 8601). It is not in the
    graph, so it comes from the service's database
    (:func:`network.api.identity.identity.read_vouches`, ``lemmata site build --database-url``);
    the contributor pages say it. Empty: nothing is said."""

    service_url: str | None = Field(None, pattern=SERVICE_URL_PATTERN)
    """The service's origin, e.g. ``https://api.example.org`` (D-35, D-36 v3.33). When set,
    every page names it (``data-service`` on the ``#session`` box), its Content-Security-Policy
    lets the page connect to it, and the page loads ``session.js``, which draws the person
    controls (sign in, stewards, approvals, reviews, motions, literature, shelving) only
    after ``GET <service>/session`` answers. None: the site has no controls at all."""

    sign_in: Literal["github", "operator"] = "operator"
    """How a person signs in on the network the site names (issue 35, item 8): ``github``
    when the service has a GitHub OAuth app (GET /info.json ``github_sign_in`` true): the
    "Sign in with GitHub" link is in every page's HTML; ``operator`` otherwise: pages offer
    no GitHub button and say that the network's operator gives a steward or curator a
    sign-in link (``lemmata session link``). Used only with ``service_url``."""

    trainer_history: Path | None = None
    """A trainer ``history.json`` (trainer-history/v1, :mod:`network.trainer.history`;
    issue 14). When set, ``trainer.html`` shows it: each run's hardware, loss labelled as
    loss, pass rates with their k and budget beside the base control, and the events. None:
    no trainer page."""
