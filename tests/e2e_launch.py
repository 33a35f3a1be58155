"""Start the network exactly as ``make run`` does (``lemmata up`` → :func:`network.up.run`,
same arguments), with the recorded stand-in toolchain injected through ``run(...,
toolchain=...)`` from a test fixture directory (tests only: AGENTS.md, "Rules that tests
enforce"). This launcher is the only thing that selects the stand-in; product code has no
switch for it.

Usage (the e2e test runs it in a subprocess)::

    python tests/e2e_launch.py --data DIR --graph GRAPH --port P --site-port S \\
        [--queue-interval SECONDS] [--fixtures DIR] [--record]

``--record`` (tests/fixtures/e2e/make_recordings.py only) answers every toolchain call as a
clean toolchain would (tests/gate_scenarios.py's defaults) while the real gate code runs,
and on a clean stop merges the calls it saw into ``--fixtures``, keyed by the exact input
bytes as the stand-in looks them up (a conflicting answer is an error).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from gate_scenarios import merge_recordings


def main(argv: list[str] | None = None) -> int:
    """Parse the arguments, run the network until SIGINT/SIGTERM; its exit code."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data", type=Path, required=True)
    p.add_argument("--graph", type=Path, required=True)
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--site-port", type=int, required=True)
    p.add_argument("--queue-interval", type=float, default=2.0)
    p.add_argument("--fixtures", type=Path, required=True)
    p.add_argument("--record", action="store_true")
    args = p.parse_args(argv)

    from standin import RecordedToolchain

    from network.up import run

    store: dict[str, dict[str, Any]] = {}
    if args.record:
        from gate_scenarios import RecordingToolchain, Scenario

        scenario = Scenario("e2e", {})

        def toolchain(spec: Any) -> Any:
            return RecordingToolchain(spec, scenario, store)
    else:
        fixtures = args.fixtures

        def toolchain(spec: Any) -> Any:
            return RecordedToolchain(spec, fixtures)

    from network.errors import LemmataError

    try:
        rc = run(args.data, args.graph, host=args.host, port=args.port,
                 site_port=args.site_port, queue_interval_s=args.queue_interval,
                 toolchain=toolchain)
    except LemmataError as exc:  # as `lemmata up` reports a refusal: its code, exit 1
        print(f"error: {exc.code}: {exc.detail}", file=sys.stderr, flush=True)
        return 1
    if args.record:
        print(f"{merge_recordings(store, args.fixtures)} recordings written or merged",
              flush=True)
    return rc


if __name__ == "__main__":
    sys.exit(main())
