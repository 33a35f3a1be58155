"""One reader (DESIGN.md, issue 9): graph files are parsed by network/record only.

Code elsewhere holds a graph file's bytes and hands them to
``network.record.read.loader.parse_record`` / ``parse_document``; it never calls a YAML parser
itself, nor parses what a graph source read. The one exception is named with its reason.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
_YAML_PARSE = re.compile(r"\byaml\.(safe_load|load|full_load|unsafe_load|load_all|parse)\(")
_JSON_OF_SOURCE = re.compile(r"json\.loads\([^)]*(source\.read|graph\.)")
#: files outside network/record that may parse YAML, and why
ALLOWED = {
    "network/importers/erdosproblems.py": "reads the erdosproblems registry's own YAML "
                                           "(an input to import, not a graph file)",
}


def test_no_graph_file_is_parsed_outside_network_record() -> None:
    offenders = []
    for path in sorted((ROOT / "network").rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if rel.startswith("network/record/") or rel in ALLOWED:
            continue
        for i, line in enumerate(path.read_text("utf-8").splitlines(), start=1):
            if _YAML_PARSE.search(line) or _JSON_OF_SOURCE.search(line):
                offenders.append(f"{rel}:{i}: {line.strip()}")
    assert offenders == []


def test_the_scan_sees_a_parser_call() -> None:
    assert _YAML_PARSE.search("obj = yaml.safe_load(text)")
    assert _JSON_OF_SOURCE.search("json.loads(graph.source.read(path))")
