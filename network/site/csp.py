"""The built site's Content-Security-Policy (D-36 v3.33, issue 13 "Site controls").

One policy, two deliveries: every page carries it as ``<meta http-equiv>`` (a site served
by any static host keeps it), and ``lemmata up``'s site server also sends it as a header
(:func:`header_policy`), which is the only way ``frame-ancestors`` counts: browsers ignore
that directive in a meta element (CSP 3, section 6.4.2), so the meta form leaves it out
rather than earn a console warning on every page.

The policy allows no inline script and no inline handler (``script-src 'self'``), lets
the page talk only to its own origin and to the service's (``connect-src``), submits no
form anywhere (``form-action 'none'``: the person controls post with ``fetch``), and
loads styles, fonts and images from the site only. KaTeX's typeset notation positions its
glyphs with ``style`` attributes, so ``style-src-attr 'unsafe-inline'`` allows those and
nothing else: no ``<style>`` element and no inline script can ride on it.
"""

from __future__ import annotations

import re

SERVICE_URL_PATTERN = r"^https?://([A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(:[0-9]{1,5})?/?$"
"""A service base URL the site accepts (:attr:`SiteConfig.service_url`): an http(s) origin
(a host name, an IPv4 address or a bracketed IPv6 one) with an optional port and trailing
slash; nothing that could end a CSP source expression
(space, ``;``, ``,``, a quote) or carry a path, credentials, a query or a fragment."""


def service_origin(url: str) -> str:
    """The origin (``scheme://host[:port]``) of a service URL that matches
    :data:`SERVICE_URL_PATTERN`.

    Raises:
        ValueError: ``url`` does not match it.
    """
    if not re.fullmatch(SERVICE_URL_PATTERN, url):
        raise ValueError(f"{url!r} is not an http(s) origin")
    return url.rstrip("/")


def meta_policy(service_url: str | None) -> str:
    """The policy every built page carries in ``<meta http-equiv>``: ``connect-src`` names
    the service's origin only when the site is built with one (``service_url``).

    Raises:
        ValueError: ``service_url`` is not an origin (:func:`service_origin`).
    """
    connect = "'self'" + (f" {service_origin(service_url)}" if service_url else "")
    return "; ".join((
        "default-src 'none'",
        "script-src 'self'",
        "style-src 'self'",
        "style-src-attr 'unsafe-inline'",
        "img-src 'self'",
        "font-src 'self'",
        f"connect-src {connect}",
        "form-action 'none'",
        "base-uri 'none'",
        "object-src 'none'",
    ))


def header_policy(service_url: str | None) -> str:
    """:func:`meta_policy` plus ``frame-ancestors 'none'``, for a server that sends it as
    the ``Content-Security-Policy`` header (``network.up.static_server``).

    Raises:
        ValueError: ``service_url`` is not an origin (:func:`service_origin`).
    """
    return meta_policy(service_url) + "; frame-ancestors 'none'"
