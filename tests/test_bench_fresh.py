"""benchmarks/products.py's fresh full-rebuild figures (issue 17) run as the benchmark runs
them: each in a new process, beside the floors taken just before it."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.mark.slow
def test_fresh_full_rebuild_figures(tmp_path: Path) -> None:
    from benchmarks.products import FRESH_RUNS, fresh_full, generate
    from network.record.products.products import write_products
    from network.record.read.loader import load_graph

    root = tmp_path / "g"
    root.mkdir()
    generate(root, 300)
    write_products(load_graph(root), root)  # the with-products floor then reads them too
    got = fresh_full(root)
    assert len(got["fresh_full_ratios"]) == len(got["fresh_parse_floor_s"]) == FRESH_RUNS
    assert got["fresh_full_s"] >= got["fresh_load_s"] > 0 and got["fresh_products_s"] > 0
    assert got["fresh_full_over_parse_floor"] > 0 and got["fresh_cpu_s"] > 0
    assert got["fresh_full_over_parse_floor_with_products"] > 0  # timings: never compared
