"""Math notation in claims, typeset with KaTeX (D-36, D-3 v3.44).

KaTeX 0.19.1 is vendored under ``assets/katex/`` (from the npm registry; see its VERSION
file). When Node.js is on PATH, every claim of the build is typeset server-side in one
``node`` run, so pages show notation without JavaScript; otherwise each claim is emitted as
its TeX source inside ``\\( … \\)`` and KaTeX's auto-render typesets it in the browser, the
raw TeX remaining as the fallback text.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from network import proc

KATEX_DIR = Path(__file__).resolve().parent / "assets" / "katex"
NODE_TIMEOUT_S = 300.0
_SCRIPT = r"""
const katex = require(process.argv[1]);
let buf = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', d => { buf += d; });
process.stdin.on('end', () => {
  const out = JSON.parse(buf).map(([tex, display]) => {
    try {
      return {html: katex.renderToString(tex, {displayMode: display, throwOnError: true,
                                              output: 'htmlAndMathml', strict: 'ignore'})};
    } catch (e) { return {error: String(e.message || e)}; }
  });
  process.stdout.write(JSON.stringify(out));
});
"""


@dataclass
class Typeset:
    """The result of typesetting a build's claims.

    Attributes:
        html: TeX source → KaTeX HTML, for each claim typeset server-side.
        errors: TeX source → KaTeX's parse error, for each claim KaTeX refused.
        inline: TeX source → KaTeX HTML in text style, for each inline formula of the
            informal texts (:mod:`network.site.informal`, issue 15).
        inline_errors: TeX source → KaTeX's parse error, for each inline formula refused.
        server_side: whether Node.js typeset them (False: the browser will).
    """

    html: dict[str, str] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)
    inline: dict[str, str] = field(default_factory=dict)
    inline_errors: dict[str, str] = field(default_factory=dict)
    server_side: bool = False


def typeset(texs: list[str], node: str | None = None,
            inline: list[str] | None = None) -> Typeset:
    """Typeset each distinct TeX string with KaTeX in one ``node`` run.

    Args:
        texs: TeX sources (display math, without ``$$``).
        node: the Node.js program; looked up on PATH when None.
        inline: TeX sources typeset in text style (inline formulas, without ``$``).

    Returns:
        A :class:`Typeset`; ``server_side`` is False when Node.js is absent or fails, and
        then ``html`` is empty (pages fall back to client-side rendering).
    """
    distinct = [(t, True) for t in sorted(set(texs))]
    distinct += [(t, False) for t in sorted(set(inline or []))]
    result = Typeset()
    program = node or shutil.which("node")
    if program is None or not distinct:
        result.server_side = program is not None
        return result
    res = proc.run([program, "-e", _SCRIPT, str(KATEX_DIR / "katex.min.js")],
                   input_bytes=json.dumps(distinct).encode("utf-8"), timeout_s=NODE_TIMEOUT_S)
    if res.rc != 0:
        return result
    for (tex, display), item in zip(distinct, json.loads(res.out)):
        html, errors = ((result.html, result.errors) if display
                        else (result.inline, result.inline_errors))
        if "html" in item:
            html[tex] = item["html"]
        else:
            errors[tex] = item["error"]
    result.server_side = True
    return result
