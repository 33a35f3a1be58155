"""The forge: the only code that talks to one (DESIGN.md "Forge adapters", D-35).

- :mod:`network.forge.types`: :class:`~network.forge.types.PullRequest`, the
  :class:`~network.forge.types.Forge` protocol and the pull-request body's fenced block;
- :mod:`network.forge.local`: :class:`~network.forge.local.LocalForge`, the embedded forge
  (a bare repository plus the rows of :mod:`network.forge.rows`);
- :mod:`network.forge.github`: :class:`~network.forge.github.GitHubForge`, the GitHub REST
  forge.

The service (network.api: routes, git's smart HTTP) and the gate's merge queue
(network.gate.queue.queue) both import it; it imports neither (tests/test_layering.py).
"""
