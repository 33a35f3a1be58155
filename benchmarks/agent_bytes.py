"""Benchmark: the bytes an agent receives over MCP, beside the goals of issue 11.

Builds the worked-node fixture of ``tests/agent_bytes_support.py`` (the site's rich graph
with its products committed, a node with routes, attempts, postmortems, a literature
reading and a partial with holes, one live and one released claim on it), serves it in
process and prints, as JSON, the bytes of each JSON-RPC response body over streamable
HTTP, envelope included:

* ``get_node`` of the worked node (goal: at most 8 KB) and of the root (two routes);
* ``tools/list`` (goal: at most 21 KB: issue 11's 16 KB for its 45 tools, and the
  formalization review's eight, D-28 v3.39, 4.2 KB);
* ``list_error_codes`` whole, and page by page for each code prefix (goal: it pages by
  prefix; the largest page and the number of pages are printed).

Usage::

    .venv/bin/python benchmarks/agent_bytes.py

Figures are printed, never asserted here; ``tests/test_api_agent_bytes.py`` holds the two
byte goals as a contract (bytes are not timings).
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def main() -> int:
    """Measure and print the figures beside the goals; 0 always (figures, not a gate)."""
    from tests.agent_bytes_support import GOALS, WORKED, build_fixture, measure

    with tempfile.TemporaryDirectory() as tmp:
        figures = measure(build_fixture(Path(tmp)))
    pages = figures["list_error_codes_pages"]
    largest = max(pages, key=lambda p: pages[p])
    report = {
        "worked_node": WORKED,
        "get_node_bytes": figures["get_node"], "get_node_goal": GOALS["get_node"],
        "get_node_root_bytes": figures["get_node_root"],
        "list_tools_bytes": figures["list_tools"], "list_tools_goal": GOALS["list_tools"],
        "tools": figures["tools"],
        "list_error_codes_all_bytes": figures["list_error_codes_all"],
        "list_error_codes_pages": len(pages),
        "list_error_codes_largest_page": {"prefix": largest, "bytes": pages[largest]},
        "list_error_codes_goal": "one page per prefix",
        "meets": {"get_node": figures["get_node"] <= GOALS["get_node"],
                  "list_tools": figures["list_tools"] <= GOALS["list_tools"],
                  "list_error_codes": len(pages) > 1
                  and pages[largest] < figures["list_error_codes_all"]},
    }
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
