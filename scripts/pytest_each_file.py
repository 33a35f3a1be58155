"""Run every test file alone, each in its own pytest process (issue 41).

A test file that passes only because another file was imported first (a catalog code
defined by a sibling module, a fixture's side effect) passes in the whole suite and fails
here. The project's GitHub CI runs this once per push (``.github/workflows/ci.yml``, job
``files-alone``); ``make test`` does not, since each file pays pytest's start-up.

Usage::

    .venv/bin/python scripts/pytest_each_file.py [-j 2] [-m MARKERS] [FILE ...]

Each file runs as ``python -m pytest -q -p no:cacheprovider -m MARKERS FILE`` (the markers
``make test`` deselects are deselected here too). Exit code 0 when every file passes, or
collects nothing once its markers are deselected (pytest's 5); else 1, after naming each
failing file with the tail of its output.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MARKERS = "not browser and not lean and not schemathesis"


def run_one(path: Path, markers: str) -> tuple[Path, int, str, float]:
    """(file, pytest's exit code, its output, seconds) for ``path`` run alone."""
    t0 = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-m", markers,
         str(path)], cwd=ROOT, capture_output=True, text=True, check=False)
    return path, proc.returncode, proc.stdout + proc.stderr, time.monotonic() - t0


def main(argv: list[str] | None = None) -> int:
    """Run the files; 0 when every one passes alone, else 1."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("files", nargs="*", type=Path,
                    help="test files (default: every tests/test_*.py)")
    ap.add_argument("-j", "--jobs", type=int, default=2, help="files run at once")
    ap.add_argument("-m", "--markers", default=MARKERS, help="pytest -m expression")
    args = ap.parse_args(argv)
    files = args.files or sorted((ROOT / "tests").glob("test_*.py"))
    failed: list[tuple[Path, int, str]] = []
    t0 = time.monotonic()
    with ThreadPoolExecutor(max(1, args.jobs)) as pool:
        for path, code, out, secs in pool.map(lambda p: run_one(p, args.markers), files):
            name = path.relative_to(ROOT) if path.is_absolute() else path
            status = "ok" if code in (0, 5) else f"FAILED (exit {code})"
            print(f"{status:<18} {secs:6.1f} s  {name}", flush=True)
            if code not in (0, 5):
                failed.append((path, code, out))
    print(f"{len(files) - len(failed)} of {len(files)} test files pass alone "
          f"({time.monotonic() - t0:.0f} s)")
    for path, code, out in failed:
        print(f"\n=== {path} (exit {code}) ===\n" + "\n".join(out.splitlines()[-40:]))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
