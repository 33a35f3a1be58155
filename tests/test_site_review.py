"""A formalization review's evidence page and the target page's review line (D-9 v3.39
"the evidence page", D-36 "Review (v3.39)"; issue 27).

The page is built from the record only (graph.json's ``review`` and the review's files):
every candidate with its author, how it was made, its stage-3 result and its Lean in
full; a discarded candidate linking the exhibit that discarded it; the pairs and clusters;
the questions with the case that raised each and the answer, an answer citing no source
flagged; the two signature slots, who signed and whether it counts; the grade with its
cap; what the automated stages lack; exhibits and judgements in separate sections. The
target page carries the grade and the state line and links the page. The person controls
(session.js) answer and sign through the service's review routes, only signed in: the
last test drives them in headless Chromium (marked ``browser``).
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from network.site.build import ASSETS, BuildReport
from tests.site_support import build, require_dot
from tests.sitereview import FULL, INTENT, THIN, WAITING, build_review_graph

SERVICE = "http://127.0.0.1:8123"
PLAIN = "plain"
"""A target of the fixture graph with no review."""


class _Ids(HTMLParser):
    """Each element with an ``id``: its tag, attributes and inner text (nested elements'
    text included), and every ``href``."""

    VOID = frozenset({"br", "img", "input", "meta", "link", "hr", "wbr", "source", "col"})
    BLOCK = frozenset({"p", "div", "li", "ul", "ol", "tr", "th", "td", "h2", "h3", "h4",
                       "table", "section", "article", "caption", "pre"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.attrs: dict[str, dict[str, str]] = {}
        self.text: dict[str, str] = {}
        self.html: dict[str, list[str]] = {}
        self.hrefs: dict[str, list[str]] = {}
        self._open: list[tuple[str, str | None]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag in self.BLOCK:  # a block's text is its own words
            self.handle_data(" ")
        for _, ident in self._open:
            if ident is not None and "href" in a:
                self.hrefs[ident].append(a["href"])
            if ident is not None:
                self.html[ident].append(self.get_starttag_text() or "")
        if tag in self.VOID:
            return
        ident = a.get("id")
        if ident is not None:
            self.attrs[ident] = {"tag": tag, **a}
            self.text[ident] = ""
            self.html[ident] = []
            self.hrefs[ident] = [a["href"]] if "href" in a else []
        self._open.append((tag, ident))

    def handle_endtag(self, tag: str) -> None:
        if tag in self.BLOCK:
            self.handle_data(" ")
        for k in range(len(self._open) - 1, -1, -1):
            if self._open[k][0] == tag:
                del self._open[k:]
                return

    def handle_data(self, data: str) -> None:
        for _, ident in self._open:
            if ident is not None:
                self.text[ident] += data
                self.html[ident].append(data)


def _ids(path: Path) -> _Ids:
    p = _Ids()
    p.feed(path.read_text(encoding="utf-8"))
    return p


def _words(text: str) -> str:
    return " ".join(text.split())


def _anchor(path: str) -> str:
    folder, name = path.split("/")[-2:]
    return f"{folder}-{name.rsplit('.', 1)[0]}"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any], BuildReport]:
    """The review fixture graph (plus a target with no review) built with the service."""
    require_dot()
    root = tmp_path_factory.mktemp("review-site")
    paths = build_review_graph(root / "graph")
    b = paths["builder"]
    b.target(PLAIN, title="A conjecture nobody reviewed")
    b.node(PLAIN, "root")
    report = build(root / "graph", root / "out", service_url=SERVICE)  # strict: links resolve
    assert report.warnings == []
    return root / "out", paths, report


def _page(site: tuple[Path, dict[str, Any], BuildReport], tid: str) -> _Ids:
    return _ids(site[0] / "targets" / tid / "review.html")


def test_each_candidate_is_shown_with_its_author_making_result_and_lean(
        site: tuple[Path, dict[str, Any], BuildReport]) -> None:
    out, paths, _ = site
    page = _page(site, FULL)
    p = paths[FULL]
    expect = {
        "alice": ("alice", "written by a person", "they had not read another candidate",
                  "survives stage 3", "theorem cand_alice"),
        "bot": ("bot", "written by the model prover-model-7", None, "survives stage 3",
                "theorem cand_bot"),
        "carol": ("carol", "written by a person", "they had read another candidate",
                  "discarded by a kernel-checked exhibit", "theorem cand_carol"),
        "fc": ("fc-import", "imported from the registry formal-conjectures", None,
               "returned to its author", "theorem conj_root"),
    }
    for key, (author, made, claim, result, lean) in expect.items():
        text = _words(page.text[_anchor(p[key])])
        assert f"Author: {author}" in text, key
        assert made in text and result in text and lean in text, (key, text)
        if claim:
            assert f"The author's claim: {claim}" in text, key
        # the Lean in full: every line of the file on the record
        src = (paths["builder"].root / p[key].replace(".yaml", ".lean")).read_text("utf-8")
        assert _words(src) in text, key
    table = out / "targets" / FULL / "review.html"
    assert table.read_text("utf-8").count('class="review-candidate outcome-') == 4
    # the root's own statement is marked; the words are typeset where the build can
    assert "Its Lean is the root statement's" in page.text[_anchor(p["fc"])]
    assert "Its Lean is the root statement's" not in page.text[_anchor(p["alice"])]
    words = table.read_text("utf-8").split('id="words-heading"')[1].split("</section>")[0]
    if site[2].math_server_side:  # typeset in the build's one KaTeX run
        assert 'class="katex' in words and "$n &gt; 2$" not in words
    else:
        assert "n &gt; 2" in words


def test_a_discarded_candidate_links_the_exhibit_that_discarded_it(
        site: tuple[Path, dict[str, Any], BuildReport]) -> None:
    _, paths, _ = site
    page = _page(site, FULL)
    p = paths[FULL]
    exhibit = _anchor(p["vacuity"])
    assert f"#{exhibit}" in page.hrefs[_anchor(p["carol"])]
    for key in ("alice", "bot", "fc"):  # nothing discarded them
        assert not any(h.startswith("#exhibits-") for h in page.hrefs[_anchor(p[key])]), key
    shown = _words(page.text[exhibit])
    assert "discards Candidate 3" in shown
    assert "proves False from the candidate's hypotheses" in shown
    assert "-- vacuity" in shown  # its Lean, from the record
    # an exhibit no gate has checked is listed apart and discards nothing
    unchecked = _anchor(p["unchecked"])
    assert page.attrs[unchecked]["tag"] == "li"
    assert "negation of Candidate 2 by erin" in _words(page.text[unchecked])
    assert "not counted in the state" in _words(page.text["other-exhibits"])
    assert "survives stage 3" in page.text[_anchor(p["bot"])]
    # the directions that made the cluster link their exhibits too
    assert page.attrs[exhibit]["tag"] == "article"
    for key in ("ab", "ba"):
        assert "proves Candidate" in page.text[_anchor(p[key])]


def test_pairs_clusters_and_screens(site: tuple[Path, dict[str, Any], BuildReport]) -> None:
    out, paths, _ = site
    p = paths[FULL]
    page = _page(site, FULL)
    assert page.attrs["cluster-1"]["data-cluster"] == f"{p['alice']} {p['bot']}"
    html = (out / "targets" / FULL / "review.html").read_text("utf-8")
    rows = re.findall(r'<tr class="direction-(\w+)"><th scope="row">([^<]+)</th>', html)
    assert rows == [("proved", "Candidate 1 → Candidate 2"),
                    ("proved", "Candidate 2 → Candidate 1")]
    carol = _words(page.text[_anchor(p["carol"])])
    assert ("prove False from its hypotheses: succeeded" in carol
            and "prove it: not attempted" in carol)
    alice = _words(page.text[_anchor(p["alice"])])
    assert "prove its negation: attempted without a result" in alice
    assert "Attempts: proves by dave with aesop (60 s" in alice
    waiting = _page(site, WAITING)
    assert "No candidate survives, so there is no cluster." in (
        out / "targets" / WAITING / "review.html").read_text("utf-8")
    assert not any(k.startswith("cluster-") for k in waiting.attrs)


def test_the_intent_test_matrix(site: tuple[Path, dict[str, Any], BuildReport]) -> None:
    """Tests by candidates, each cell the candidate's probe exhibit; the expected value's
    source named, a computation as the weakest; the answer a test came from linked both
    ways."""
    _, paths, _ = site
    page = _page(site, FULL)
    p = paths[FULL]
    answered, computed = _anchor(p["t_answer"]), _anchor(p["t_computed"])
    row = _words(page.text[answered])
    assert row.startswith("Test 1: good number at 4 holds, from the intent signer's answer")
    assert row.endswith("holds holds no probe no probe"), row
    assert page.hrefs[answered] == ["#" + _anchor(p["a_sourced"]),
                                    "#" + _anchor(p["probe_t_answer_alice"]),
                                    "#" + _anchor(p["probe_t_answer_bot"])]
    assert "from a computation every surviving candidate agrees on (the weakest source)" \
        in _words(page.text[computed])
    for who in ("alice", "bot"):  # each probe is an exhibit shown with its Lean
        probe = _words(page.text[_anchor(p[f"probe_t_computed_{who}"])])
        assert "answer to Test 2: holds" in probe and "-- probe-holds" in probe
    assert "It became the intent test Test 1." in _words(page.text[_anchor(p["q_sourced"])])
    assert f"#{answered}" in page.hrefs[_anchor(p["q_sourced"])]
    assert "No intent test is built from it yet." in _words(
        page.text[_anchor(p["q_flagged"])])
    thin = (site[0] / "targets" / THIN / "review.html").read_text("utf-8")
    assert "<p>No intent test is on the record yet.</p>" in thin
    assert 'class="review-tests"' not in thin


def test_questions_show_their_case_and_answer_and_flag_an_unsourced_one(
        site: tuple[Path, dict[str, Any], BuildReport]) -> None:
    _, paths, _ = site
    page = _page(site, FULL)
    p = paths[FULL]
    flagged = _words(page.text[_anchor(p["q_flagged"])])
    assert "Raised by the case: n = 1 (the non-example)" in flagged
    assert "No: 1 is never good." in flagged
    assert "No source cited" in flagged
    sourced = _words(page.text[_anchor(p["q_sourced"])])
    assert "Raised by the case: n = 4 (the small value)" in sourced
    assert "Source: Erdős 1950, p. 3" in sourced and "No source cited" not in sourced
    assert "Answer by the intent signer (steve)" in sourced
    assert _anchor(p["a_flagged"]) in page.attrs  # the answer record, anchored
    waiting = _page(site, WAITING)
    q = _anchor(paths[WAITING]["q"])
    assert "Waiting for the intent signer's answer." in waiting.text[q]
    assert "No source cited" not in waiting.text[q]


def test_the_two_signature_slots(site: tuple[Path, dict[str, Any], BuildReport]) -> None:
    page = _page(site, FULL)
    intent = _words(page.text["slot-intent"])
    assert f"Signed by {INTENT} (GitHub {INTENT}-gh) on 2026-02-07: accept" in intent
    assert "It counts." in intent and "does not count" not in intent
    independent = _words(page.text["slot-independent"])
    assert "Signed by ivan (GitHub ivan-gh)" in independent
    assert 'Note: “read both against the words”' in independent
    assert "accept by alice (GitHub alice-gh) on 2026-02-07: does not count: alice wrote a " \
        "candidate in the cluster." in independent
    thin = _page(site, THIN)
    assert "Empty: no signature in this role counts yet." in _words(thin.text["slot-intent"])
    assert "Signed by ivan" in _words(thin.text["slot-independent"])
    waiting = _page(site, WAITING)
    for role in ("intent", "independent"):
        assert "Empty" in waiting.text[f"slot-{role}"]


def test_the_state_grade_cap_and_what_is_missing(
        site: tuple[Path, dict[str, Any], BuildReport]) -> None:
    full, thin, waiting = (_page(site, t) for t in (FULL, THIN, WAITING))
    facts = _words(full.text["review-facts"])
    assert "Grade expert-attested" in facts
    assert "State 4 candidates, 1 cluster, 0 questions waiting" in facts
    assert "review-cap" not in full.attrs
    full_html = (site[0] / "targets" / FULL / "review.html").read_text("utf-8")
    assert '<p class="review-missing-none">Nothing: the automated stages are complete.</p>' \
        in full_html and '<ul class="review-missing">' not in full_html
    assert "thin-pool rule" in thin.text["review-cap"]
    assert "Grade screened-and-signed" in _words(thin.text["review-facts"])
    w = _words(waiting.text["review-facts"])
    assert "Grade mechanical-only" in w and "1 candidate, 0 clusters, 1 question waiting" in w
    html = (site[0] / "targets" / WAITING / "review.html").read_text("utf-8")
    missing = re.search(r'<ul class="review-missing">(.*?)</ul>', html, re.DOTALL)
    assert missing is not None
    assert re.findall(r"<li>([^<]+)</li>", missing.group(1)) == [
        "no candidate survives stage 3", "1 question(s) waiting for the intent signer"]
    assert "not yet built by a gate with Lean" in _words(
        waiting.text[_anchor(site[1][WAITING]["eve"])])


def test_exhibits_and_judgements_are_apart(site: tuple[Path, dict[str, Any], BuildReport]) -> None:
    out, paths, _ = site
    html = (out / "targets" / FULL / "review.html").read_text("utf-8")
    evidence = html.split('class="review-evidence"', 1)[1].split("</section>", 1)[0]
    judgements = html.split('class="review-judgements"', 1)[1].split("</section>", 1)[0]
    p = paths[FULL]
    for key in ("alice", "bot", "carol", "fc", "vacuity", "ab", "ba", "t_answer",
                "probe_t_answer_alice"):
        assert f'id="{_anchor(p[key])}"' in evidence, key
        assert f'id="{_anchor(p[key])}"' not in judgements, key
    for key in ("q_flagged", "q_sourced", "a_flagged", "sig_intent", "sig_independent",
                "sig_author"):
        assert f'id="{_anchor(p[key])}"' in judgements, key
        assert f'id="{_anchor(p[key])}"' not in evidence, key


def test_the_target_page_shows_the_review_line(
        site: tuple[Path, dict[str, Any], BuildReport]) -> None:
    out, _, _ = site
    lines = ((FULL, "expert-attested", "4 candidates, 1 cluster, 0 questions waiting"),
             (THIN, "screened-and-signed", "1 candidate, 1 cluster, 0 questions waiting"),
             (WAITING, "mechanical-only", "1 candidate, 0 clusters, 1 question waiting"))
    for tid, grade, state in lines:
        page = _ids(out / "targets" / tid / "index.html")
        line = _words(page.text["review-line"])
        assert f"grade {grade}" in line and state in line, line
        assert ("capped at screened-and-signed" in line) == (tid == THIN)
        assert page.hrefs["review-line"] == [f"../../targets/{tid}/review.html"]
    plain = _ids(out / "targets" / PLAIN / "index.html")
    assert _words(plain.text["review-line"]) == "Formalization review none opened"
    assert plain.hrefs["review-line"] == []
    assert not (out / "targets" / PLAIN / "review.html").exists()


def test_the_page_gives_the_person_controls_what_they_read(
        site: tuple[Path, dict[str, Any], BuildReport], tmp_path: Path) -> None:
    """The static page draws no form (the controls are session.js's, signed in); it names
    the page, target and intent signer, each question with whether it waits, and each
    cluster's candidates."""
    out, paths, _ = site
    html = (out / "targets" / FULL / "review.html").read_text("utf-8")
    assert "<form" not in html and "<button" not in html and "<script>" not in html
    assert 'src="../../assets/session.js"' in html
    main = re.search(r"<main ([^>]*)>", html)
    assert main is not None
    assert f'data-page="review" data-target="{FULL}" data-intent-signer="{INTENT}"' \
        in main.group(1)
    page = _page(site, FULL)
    for key in ("q_flagged", "q_sourced"):
        a = page.attrs[_anchor(paths[FULL][key])]
        assert (a["data-question"], a["data-answered"]) == (paths[FULL][key], "yes")
    q = _page(site, WAITING).attrs[_anchor(paths[WAITING]["q"])]
    assert (q["data-question"], q["data-answered"]) == (paths[WAITING]["q"], "no")
    js = (ASSETS / "session.js").read_text(encoding="utf-8")
    assert 'page.page === "review" && page.target) { reviewControls(s); }' in js
    assert '"/reviews/" + encodeURIComponent(tid) + "/answers"' in js
    assert '"/reviews/" + encodeURIComponent(tid) + "/signatures"' in js
    # built without a service, the page has no controls at all
    bare = build(site[0].parent / "graph", tmp_path / "bare")
    assert bare.warnings == []
    text = (tmp_path / "bare" / "targets" / FULL / "review.html").read_text("utf-8")
    assert "session.js" not in text and "data-service" not in text


def test_the_review_pages_are_valid_html(site: tuple[Path, dict[str, Any], BuildReport]) -> None:
    """The Nu Html Checker finds no error on the evidence pages and the target pages that
    link them (the build's --strict already checked every internal link and fragment)."""
    import shutil
    import subprocess

    from tests.site_support import require_tool, vnu_jar

    jar = vnu_jar()
    require_tool("the Nu Html Checker (vnu.jar)", jar)
    require_tool("java", shutil.which("java"))
    out = site[0] / "targets"
    pages = [str(out / t / name) for t in (FULL, THIN, WAITING, PLAIN)
             for name in ("review.html", "index.html") if (out / t / name).exists()]
    assert len(pages) == 7
    res = subprocess.run(["java", "-jar", str(jar), "--format", "text", *pages],
                         capture_output=True, text=True, timeout=300, check=False)
    errors = [ln for ln in (res.stdout + res.stderr).splitlines() if ln.startswith("Error")]
    assert errors == [] and res.returncode == 0, res.stdout + res.stderr


@pytest.mark.browser
def test_review_controls_in_chromium(tmp_path: Path) -> None:
    """Signed out, the evidence page draws no control; signed in as the intent signer of a
    review, each waiting question gets an answer form posting ``POST
    /reviews/{target}/answers``; on a review someone else signs for intent, no answer form
    and a signature form for the independent role posting ``POST
    /reviews/{target}/signatures`` with the cluster's candidates. The stand-in service of
    tests/test_site_session_browser.py signs in as ``alice``."""
    from selenium.webdriver.support.ui import Select, WebDriverWait

    from network.up import serve_in_thread
    from tests.site_support import chromium, serve
    from tests.sitereview import WAITING_INTENT
    from tests.test_site_session_browser import (
        StandIn,
        _console_faults,
        _post,
        _wait,
        free_port,
        standin_app,
    )

    require_dot()
    paths = build_review_graph(tmp_path / "graph")
    port = free_port()
    service = f"http://127.0.0.1:{port}"
    assert build(tmp_path / "graph", tmp_path / "site", service_url=service).warnings == []
    state = StandIn()
    assert WAITING_INTENT == "alice"  # the stand-in's pseudonym
    css = "css selector"
    with (chromium(log=True) as drv, serve(tmp_path / "site") as base,
          serve_in_thread(standin_app(state, base.rstrip("/")), port=port)):
        d: Any = drv
        waiting = base + f"targets/{WAITING}/review.html"
        full = base + f"targets/{FULL}/review.html"
        # signed out: the script redraws the bar (no link of the built page left), no control
        state.mode = "out"
        d.get(waiting)
        WebDriverWait(d, 10).until(lambda _: not d.find_elements(css, "#session a"))
        assert not d.find_elements(css, ".person-controls") and not d.find_elements(css, "form")

        # signed in as WAITING's intent signer: an answer form beside the waiting question
        d.get(service + "/_login")
        state.mode = "in"
        d.get(waiting)
        q = paths[WAITING]["q"]
        f = _wait(d, f'[data-question="{q}"] .review-answer-act form')
        assert not d.find_elements(css, ".review-sign")  # no cluster survives: nothing to sign
        f.find_element(css, "textarea[name=answer]").send_keys("No: 0 is not good.")
        f.find_element(css, "input[name=source]").send_keys("Erdős 1950, p. 2")
        post = _post(d, state, lambda: f.find_element(css, "button[type=submit]").click())
        assert post["path"] == f"/reviews/{WAITING}/answers"
        assert post["body"] == {"question": q, "answer": "No: 0 is not good.",
                                "source": "Erdős 1950, p. 2"}
        assert post["cookie"] == "good" and post["token"] == state.issued[-1]
        assert "pull request #" in d.find_element(css, "#act-answers .answer.ok").text

        # FULL's intent signer is steve: no answer form; alice signs as independent
        d.get(full)
        sign = _wait(d, ".review-sign form")
        assert not d.find_elements(css, ".review-answer-act")
        role = Select(sign.find_element(css, "select[name=role]"))
        assert [o.get_attribute("value") for o in role.options] == ["independent"]
        cluster = Select(sign.find_element(css, "select[name=cluster]"))
        assert [o.get_attribute("value") for o in cluster.options] == [
            f"{paths[FULL]['alice']} {paths[FULL]['bot']}"]
        Select(sign.find_element(css, "select[name=decision]")).select_by_value("send-back")
        sign.find_element(css, "textarea[name=note]").send_keys("Ask about n = 0.")
        post = _post(d, state, lambda: sign.find_element(css, "button[type=submit]").click())
        assert post["path"] == f"/reviews/{FULL}/signatures"
        assert post["body"] == {"role": "independent", "decision": "send-back",
                                "cluster": [paths[FULL]["alice"], paths[FULL]["bot"]],
                                "note": "Ask about n = 0."}

        # /me: a question waiting for alice as intent signer links its place on the page
        state.waiting["intent_questions"] = [{"target": WAITING, "path": q, "since": "2026-02-05",
                                              "what": "a question waits for your answer"}]
        d.get(base + "me.html")
        link = _wait(d, ".me-waiting ul.intent_questions a").get_attribute("href")
        assert link == f"{waiting}#{_anchor(q)}"
        assert _console_faults(d) == []
