"""Helpers for the site tests: build a site, find the HTML validator, serve a build."""

from __future__ import annotations

import functools
import http.server
import os
import shutil
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from network.site.build import BuildReport, build_site
from network.site.config import SiteConfig

REPO = Path(__file__).resolve().parents[1]
VNU_VERSION = "26.9.27"
"""The Nu Html Checker (npm package vnu-jar) that .ci/ensure-system-packages installs."""
VNU_DIRS = (Path("/opt/lemmata-site-tools"),)


def build(graph: Path, out: Path, **kw: object) -> BuildReport:
    """Build the site of ``graph`` into ``out`` with --strict."""
    return build_site(SiteConfig(graph=graph, out=out, strict=True, **kw))  # type: ignore[arg-type]


def vnu_jar() -> Path | None:
    """The vnu.jar to validate with: $LEMMATA_VNU_JAR, else the ensured install."""
    env = os.environ.get("LEMMATA_VNU_JAR")
    if env and Path(env).is_file():
        return Path(env)
    for d in VNU_DIRS:
        jar = d / "node_modules" / "vnu-jar" / "build" / "dist" / "vnu.jar"
        if jar.is_file():
            return jar
    return None


def require_tool(what: str, found: object) -> None:
    """Skip with a reason where a tool is missing, but fail under CI (CI=true), where
    .ci/ensure-system-packages must have installed it."""
    if found:
        return
    if os.environ.get("CI") == "true":
        pytest.fail(f"{what} is missing under CI; .ci/ensure-system-packages installs it")
    pytest.skip(f"{what} is not installed (run .ci/ensure-system-packages as root)")


def require_dot() -> None:
    """Graphviz is a hard requirement of the build."""
    require_tool("Graphviz dot", shutil.which("dot"))


@contextmanager
def serve(root: Path) -> Iterator[str]:
    """Serve ``root`` on 127.0.0.1 at a free port; yields the base URL."""

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

    handler = functools.partial(Quiet, directory=str(root))
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{srv.server_address[1]}/"
    finally:
        srv.shutdown()
        srv.server_close()


@contextmanager
def chromium(*, log: bool = False) -> Iterator[object]:
    """Debian's headless Chromium under selenium (skipped where it is not installed, failed
    under CI); with ``log`` the browser console is kept for ``get_log("browser")``."""
    require_tool("chromium", shutil.which("chromium") or Path("/usr/bin/chromium").exists())
    require_tool("chromedriver", shutil.which("chromedriver"))
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    opts = Options()
    opts.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1400,1000"):
        opts.add_argument(arg)
    if log:
        opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    drv = webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=opts)
    try:
        yield drv
    finally:
        drv.quit()
