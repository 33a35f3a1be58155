"""One ``dot`` run lays out many targets (issue 15: the Erdős site's layout stage ran one
process per target): the batch gives each target exactly the layout it gets alone."""

from __future__ import annotations

from pathlib import Path

import pytest

from network.errors import LemmataError
from network.record import derive
from network.record.read.loader import load_graph
from network.site import layout
from tests.site_support import require_dot
from tests.sitegraph import build_rich_graph


def test_a_batch_lays_out_each_target_as_alone(tmp_path: Path) -> None:
    require_dot()
    build_rich_graph(tmp_path / "graph", commit=False)
    graph = load_graph(tmp_path / "graph")
    views = [derive.graph_view(graph, tid) for tid in graph.targets]
    empty = {**views[0], "nodes": [], "edges": [], "routes": []}  # no tree: no dot graph
    batch = [views[0], empty, *views[1:], views[0]]
    together = layout.layout_targets(batch)
    assert len(together) == len(batch)
    for view, lay in zip(batch, together):
        alone = layout.layout_target(view)
        assert (lay.boxes, lay.lines, lay.width, lay.height) == (
            alone.boxes, alone.lines, alone.width, alone.height)
    assert together[0].boxes and together[1].boxes == []
    assert together[0].boxes != together[2].boxes  # each target its own drawing


def test_a_short_answer_fails(tmp_path: Path) -> None:
    """dot answering fewer graphs than it was fed is a failed layout, never a shifted one."""
    require_dot()
    build_rich_graph(tmp_path / "graph", commit=False)
    graph = load_graph(tmp_path / "graph")
    views = [derive.graph_view(graph, tid) for tid in graph.targets]
    fake = tmp_path / "dot"
    fake.write_text("#!/bin/sh\ncat >/dev/null\necho 'graph 1 1 1'\necho stop\n")
    fake.chmod(0o755)
    with pytest.raises(LemmataError, match="site-layout-failed"):
        layout.layout_targets(views[:2], str(fake))
