/* Lemmata site: the person controls (D-35, D-36 v3.33; issue 13 "Site controls").
 *
 * The static page is the read-only view of the graph and stays so. This script draws the
 * controls of a person signed in with GitHub only after GET <service>/session answers;
 * where the script does not run, the service is not named, or the fetch fails, nothing is
 * drawn and nothing is thrown into the page: it is the read-only page.
 *
 * Every act asks GET /session for a fresh single-use csrf_token, then POSTs JSON with the
 * X-CSRF-Token header and the session cookie (credentials: "include"). The answer — a
 * receipt naming the pull request the act opened, or a catalog refusal {code, detail,
 * action} — is shown in the page's aria-live region; nothing else on the page changes,
 * since the act is a pull request the gate judges and the rebuilt page shows it after the
 * merge. Everything drawn is built with DOM calls and textContent, never from HTML text.
 *
 * Pages: the target page (steward acts, motions), the node page (approvals, literature,
 * shelving, held proofs), a review's evidence page (the intent signer's answers and the two
 * signatures, D-9 v3.39) and /me (what waits).
 */
(function () {
  "use strict";
  var bar = document.getElementById("session");
  var main = document.getElementById("main");
  var answers = document.getElementById("act-answers");
  if (!bar || !main || !answers || !window.fetch || !window.URL) { return; }
  var service;
  try { service = new URL(bar.getAttribute("data-service")).origin; } catch (e) { return; }
  var page = main.dataset || {};
  var drawn = [];  // the controls this script added, removed again on sign-out

  // --- small DOM helpers ------------------------------------------------------------------

  function el(tag, attrs) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) {
      if (k === "text") { node.textContent = attrs[k]; } else { node.setAttribute(k, attrs[k]); }
    });
    for (var i = 2; i < arguments.length; i += 1) {
      var kid = arguments[i];
      if (kid === null || kid === undefined) { continue; }
      node.appendChild(typeof kid === "string" ? document.createTextNode(kid) : kid);
    }
    return node;
  }

  var uid = 0;
  function field(label, input) {
    uid += 1;
    input.id = "pc-" + uid;
    return el("p", { "class": "field" }, el("label", { "for": input.id, text: label }), input);
  }

  function safeHref(url) {  // only http(s) links from the service's answers
    try {
      var u = new URL(String(url), window.location.href);
      return (u.protocol === "https:" || u.protocol === "http:") ? u.href : null;
    } catch (e) { return null; }
  }

  function section(title, cls) {
    uid += 1;
    var h = el("h2", { id: "pc-h-" + uid, text: title });
    var box = el("section", { "class": "person-controls " + (cls || ""), "aria-labelledby": h.id }, h);
    drawn.push(box);
    return box;
  }

  // Put a drawn box after ``ref`` (a part of the built page), else at the foot of main.
  function place(box, ref) {
    if (ref && ref.parentNode) { ref.parentNode.insertBefore(box, ref.nextSibling); }
    else { main.insertBefore(box, answers); }
    return box;
  }

  // --- the service ------------------------------------------------------------------------

  function getJSON(path) {
    return fetch(service + path, { credentials: "include", cache: "no-store",
                                   headers: { "Accept": "application/json" } })
      .then(function (r) {
        if (!r.ok) { throw new Error("GET " + path + " answered " + r.status); }
        return r.json();
      });
  }

  function say(what, status, body) {
    var p = el("p", { "class": "answer" });
    if (status >= 200 && status < 300 && body) {
      p.classList.add("ok");
      p.appendChild(el("strong", { text: what + ": " }));
      var href = body.url ? safeHref(body.url) : null;
      var pr = body.pull_request ? "pull request #" + body.pull_request : "a pull request";
      p.appendChild(document.createTextNode("opened "));
      p.appendChild(href ? el("a", { href: href, text: pr }) : document.createTextNode(pr));
      p.appendChild(document.createTextNode(". " + (body.next || "")));
    } else if (body && body.code) {
      p.classList.add("refused");
      p.appendChild(el("strong", { text: what + " refused: " }));
      p.appendChild(el("code", { text: String(body.code) }));
      p.appendChild(document.createTextNode(" — " + (body.detail || "") + " " + (body.action || "")));
    } else {
      p.classList.add("refused");
      p.appendChild(el("strong", { text: what + ": " }));
      p.appendChild(document.createTextNode(
        "the service did not answer (" + (status || "no connection") + "); nothing was done."));
    }
    answers.textContent = "";
    answers.appendChild(p);
  }

  // One act: a fresh token, then the POST. Resolves with {status, body}.
  function act(path, body, what) {
    return getJSON("/session").then(function (s) {
      if (!s || !s.signed_in) {
        answers.textContent = "";
        answers.appendChild(el("p", { "class": "answer refused" }, el("strong", { text: what + ": " }),
                               "you are signed out, so nothing was sent. " +
                               (bar.dataset.signIn === "github" ? "Sign in with GitHub" :
                                "Open the sign-in link this network's operator gave you") + " and try again."));
        clearControls();
        drawBar({ signed_in: false });
        return { status: 401, body: null };
      }
      return fetch(service + path, {
        method: "POST", credentials: "include", cache: "no-store",
        headers: { "Content-Type": "application/json", "Accept": "application/json",
                   "X-CSRF-Token": String(s.csrf_token || "") },
        body: JSON.stringify(body)
      }).then(function (r) {
        return r.json().catch(function () { return null; }).then(function (b) {
          say(what, r.status, b);
          return { status: r.status, body: b };
        });
      });
    }).catch(function () { say(what, 0, null); return { status: 0, body: null }; });
  }

  function form(label, build, send) {
    var f = el("form", { "class": "act", novalidate: "" });
    var parts = build(f);
    (parts || []).forEach(function (x) { if (x) { f.appendChild(x); } });
    var button = el("button", { type: "submit", text: label });
    f.appendChild(el("p", {}, button));
    f.addEventListener("submit", function (ev) {
      ev.preventDefault();
      button.disabled = true;
      Promise.resolve(send(f)).then(function () { button.disabled = false; },
                                    function () { button.disabled = false; });
    });
    return f;
  }

  function input(name, attrs) { return el("input", Object.assign({ name: name, type: "text" }, attrs || {})); }
  function area(name, attrs) { return el("textarea", Object.assign({ name: name, rows: "3" }, attrs || {})); }
  function select(name, options) {
    var s = el("select", { name: name });
    options.forEach(function (o) { s.appendChild(el("option", { value: o[0], text: o[1] })); });
    return s;
  }
  function val(f, name) { var x = f.elements[name]; return x ? String(x.value).trim() : ""; }
  function withOptional(body, f, names) {
    names.forEach(function (n) { var v = val(f, n); if (v) { body[n] = v; } });
    return body;
  }

  // --- roles ------------------------------------------------------------------------------

  function roles(s) { return s.roles || {}; }
  function isSteward(s, tid) { return (roles(s).steward || []).indexOf(tid) >= 0; }
  function isCurator(s, tid) {
    var c = roles(s).curator || [];
    return c.indexOf("*") >= 0 || c.indexOf(tid) >= 0;
  }
  function mayJudge(s, tid) { return isSteward(s, tid) || isCurator(s, tid); }

  var mePromise = null;
  function me() { if (!mePromise) { mePromise = getJSON("/me"); } return mePromise; }

  // --- the session bar --------------------------------------------------------------------

  function signIn() {
    // issue 35: no GitHub button where the network has no OAuth app; the operator's link
    if (bar.dataset.signIn !== "github") {
      return el("span", { "class": "sign-in-operator",
                          text: "Stewards and curators sign in with a link from this network's operator (lemmata session link)." });
    }
    var back = service + "/auth/github/start?return_to=" + encodeURIComponent(window.location.href);
    return el("a", { "class": "sign-in", href: back, text: "Sign in with GitHub" });
  }

  function clearControls() {
    drawn.forEach(function (x) { if (x.parentNode) { x.parentNode.removeChild(x); } });
    drawn = [];
  }

  function drawBar(s) {
    bar.textContent = "";
    if (!s.signed_in) { bar.appendChild(signIn()); return; }
    if (s.needs_pseudonym) {
      var f = form("Choose this pseudonym", function () {
        return [field("Pseudonym", input("pseudonym", { required: "", autocomplete: "username" })),
                el("p", { "class": "field" },
                   el("label", {}, el("input", { type: "checkbox", name: "dco", value: "yes" }),
                      " I accept the Developer Certificate of Origin")),
                bar.dataset.licence ? el("p", {}, el("a", { href: bar.dataset.licence,
                                                          text: "Read the Developer Certificate of Origin" })) : null];
      }, function (f2) {
        // ``dco`` names the version of the text accepted (GET /session's dco_version);
        // left unticked it names none and the service refuses with dco-not-accepted.
        return act("/session/pseudonym", { pseudonym: val(f2, "pseudonym"),
                                           dco: f2.elements.dco.checked ? String(s.dco_version || "") : "" },
                   "Pseudonym")
          .then(function (r) { if (r.status >= 200 && r.status < 300) { start(); } });
      });
      bar.appendChild(el("span", { text: "Signed in with GitHub as " + (s.login || "") +
                                        "; choose the pseudonym your work is credited to." }));
      bar.appendChild(f);
      return;
    }
    var out = el("button", { type: "button", "class": "sign-out", text: "Sign out" });
    out.addEventListener("click", function () {
      act("/session/end", {}, "Sign out").then(function (r) {
        if (r.status >= 200 && r.status < 300) { clearControls(); drawBar({ signed_in: false }); }
      });
    });
    bar.appendChild(el("span", { "class": "who" }, "Signed in as ",
                       el("strong", { text: String(s.pseudonym || "") })));
    if (bar.dataset.me) { bar.appendChild(el("a", { href: bar.dataset.me, text: "What waits for you" })); }
    bar.appendChild(out);
  }

  // --- the target page --------------------------------------------------------------------

  var MOTION_KINDS = [["invite", "invite a steward or expert"], ["verify-writeup", "verify the write-up"],
                      ["threshold", "set a threshold"], ["significance", "judge significance"]];

  function targetControls(s) {
    var tid = page.target;
    var box = place(section("Your acts on this problem", "target-acts"),
                    main.querySelector("table.facts"));
    if (!isSteward(s, tid)) {
      box.appendChild(el("p", { text: "A steward puts their name to this problem (see Docs, Stewards)." }));
      box.appendChild(form("Become steward", function () {
        return [field("Real name", input("real_name", { required: "", autocomplete: "name" })),
                field("Affiliation (optional)", input("affiliation", { autocomplete: "organization" })),
                field("Your commitment, in your own words", area("commitment", { required: "" }))];
      }, function (f) {
        return act("/stewards", withOptional({ target_id: tid, action: "join" }, f,
                                             ["real_name", "affiliation", "commitment"]),
                   "Become steward");
      }));
    } else {
      box.appendChild(form("Step down", function () {
        return [el("p", { text: "You are a steward of this problem. A step-down is a signed record; it ends your commitment." })];
      }, function () {
        return act("/stewards", { target_id: tid, action: "step-down" }, "Step down");
      }));
    }
    if (!mayJudge(s, tid)) { return; }
    var motions = el("div", { "class": "motions" }, el("h3", { text: "Motions waiting for your vote" }));
    box.appendChild(motions);
    me().then(function (m) {
      if ((m.unavailable || []).indexOf("motions") >= 0) {
        motions.appendChild(el("p", { text: "The service cannot list motions yet." }));
        return;
      }
      var items = ((m.waiting || {}).motions || []).filter(function (x) { return x.target === tid; });
      if (!items.length) { motions.appendChild(el("p", { text: "None waits for your vote." })); return; }
      var ul = el("ul");
      items.forEach(function (x) {
        var li = el("li", {}, String(x.what || x.path || "a motion"),
                    x.since ? " (since " + x.since + ") " : " ");
        [["yes", "Vote yes"], ["no", "Vote no"]].forEach(function (v) {
          var b = el("button", { type: "button", "class": "vote", "data-vote": v[0], text: v[1] });
          b.addEventListener("click", function () {
            act("/votes", { motion: x.path, vote: v[0] }, v[1]);
          });
          li.appendChild(b);
        });
        ul.appendChild(li);
      });
      motions.appendChild(ul);
    }).catch(function () {
      motions.appendChild(el("p", { text: "The service did not list the motions." }));
    });
    box.appendChild(el("h3", { text: "Open a motion" }));
    box.appendChild(form("Open a motion", function () {
      return [field("Kind", select("kind", MOTION_KINDS)),
              field("Subject (optional: the path it is about)", input("subject")),
              field("Invitee (optional: a pseudonym, for an invitation)", input("invitee")),
              field("The motion, in words", area("text", { required: "" }))];
    }, function (f) {
      return act("/motions", withOptional({ target_id: tid, kind: val(f, "kind") }, f,
                                          ["subject", "invitee", "text"]), "Open a motion");
    }));
  }

  // --- the node page ----------------------------------------------------------------------

  function approveForm(words) {
    var n = parseInt(words.getAttribute("data-sections") || "0", 10);
    var path = words.getAttribute("data-words");
    var f = form("Approve sections", function () {
      var boxes = [el("p", { text: "Sign the sections you have read against the Lean:" })];
      for (var i = 0; i < n; i += 1) {
        boxes.push(el("label", { "class": "section-pick" },
                      el("input", { type: "checkbox", name: "section", value: String(i) }),
                      " section " + (i + 1)));
      }
      return boxes;
    }, function (f2) {
      var picked = Array.prototype.filter.call(f2.querySelectorAll('input[name="section"]'),
                                               function (c) { return c.checked; })
        .map(function (c) { return parseInt(c.value, 10); });
      return act("/approvals", { words: path, sections: picked }, "Approve sections");
    });
    var box = el("div", { "class": "person-controls approve" }, f);
    drawn.push(box);
    words.parentNode.insertBefore(box, words.nextSibling);
  }

  function literatureControls(box) {
    var path = page.literature;
    var statuses = (page.literatureStatuses || "").split(" ").filter(Boolean);
    box.appendChild(el("h3", { text: "The literature proposal “" + (page.literatureStatus || "") + "”" }));
    box.appendChild(form("Send your reading", function () {
      return [field("Your reading", select("action", [["confirm", "confirm it"], ["correct", "correct it"],
                                                       ["dispute", "dispute it"]])),
              field("Status (to correct or dispute)", select("status", [["", "—"]].concat(
                statuses.map(function (x) { return [x, x]; })))),
              field("Summary (to correct or dispute)", area("summary"))];
    }, function (f) {
      return act("/literature/confirm", withOptional({ literature: path, action: val(f, "action") }, f,
                                                     ["status", "summary"]), "Literature reading");
    }));
  }

  function shelvingControls(box) {
    var tid = page.target, nid = page.node, lifts = page.shelving;
    if (page.root === "yes") { return; }
    box.appendChild(el("h3", { text: lifts ? "Unshelve this statement" : "Shelve this statement" }));
    box.appendChild(form(lifts ? "Unshelve this statement" : "Shelve this statement", function () {
      return [field("Cause", area("cause", { required: "" }))];
    }, function (f) {
      var body = { target_id: tid, node_id: nid, action: lifts ? "unshelved" : "shelved",
                   scope: "statement", cause: val(f, "cause") };
      if (lifts) { body.lifts = lifts; }
      return act("/shelvings", body, lifts ? "Unshelve" : "Shelve");
    }));
  }

  function heldProofs(outer) {
    var tid = page.target, nid = page.node;
    var box = el("div", { "class": "held-proofs" });
    outer.appendChild(box);  // first in the box, filled once GET /me answers
    me().then(function (m) {
      var items = ((m.waiting || {}).held_proofs || []).filter(function (x) {
        return x.target === tid && x.node === nid;
      });
      items.forEach(function (x) {
        var ref = x.submission_id !== undefined && x.submission_id !== null
          ? { submission_id: x.submission_id } : { pull_request: x.pull_request };
        box.appendChild(el("h3", { text: "Held proof: pull request #" + (x.pull_request || "?") }));
        box.appendChild(el("p", { text: String(x.what || "") + (x.since ? " (held since " + x.since + ")" : "") }));
        box.appendChild(form("Approve this proof", function () {
          return [field("Note (optional)", area("note")),
                  el("p", { "class": "field" }, el("label", {},
                     el("input", { type: "checkbox", name: "native_decide", value: "yes" }),
                     " I sign off its use of native_decide"))];
        }, function (f) {
          var body = Object.assign({ decision: "approve" }, ref);
          withOptional(body, f, ["note"]);
          if (f.elements.native_decide.checked) { body.signs_off = ["native_decide"]; }
          return act("/proof-reviews", body, "Review of the held proof");
        }));
      });
    }).catch(function () { return null; });
  }

  function nodeControls(s) {
    var tid = page.target;
    if (!mayJudge(s, tid)) { return; }
    document.querySelectorAll("[data-words]").forEach(approveForm);
    var box = place(section("Your acts on this statement", "node-acts"),
                    main.querySelector("header.node-head"));
    heldProofs(box);
    if (page.literature) { literatureControls(box); }
    shelvingControls(box);
  }

  // --- the review's evidence page (D-9 v3.39) --------------------------------------------

  // The intent signer answers each waiting question beside it; anyone signed in may sign,
  // as the intent signer in that role and as an independent signer otherwise. The service
  // (POST /reviews/{target}/answers, /signatures) judges who may, and the gate the record.
  var DECISIONS = [["accept", "accept the cluster"], ["split", "split it into variants"],
                   ["send-back", "send it back with a new question"]];

  function answerForm(q, tid) {
    var path = q.getAttribute("data-question");
    var f = form("Send your answer", function () {
      return [field("Your answer, in mathematics", area("answer", { required: "" })),
              field("Source (where the answer comes from; an answer without one is flagged)",
                    input("source"))];
    }, function (f2) {
      return act("/reviews/" + encodeURIComponent(tid) + "/answers",
                 withOptional({ question: path, answer: val(f2, "answer") }, f2, ["source"]),
                 "Answer");
    });
    var box = el("div", { "class": "person-controls review-answer-act" }, f);
    drawn.push(box);
    q.appendChild(box);
  }

  function reviewControls(s) {
    var tid = page.target;
    var intent = String(s.pseudonym || "").toLowerCase() === String(page.intentSigner || "").toLowerCase();
    if (intent) {
      main.querySelectorAll('[data-question][data-answered="no"]').forEach(function (q) {
        answerForm(q, tid);
      });
    }
    var clusters = Array.prototype.map.call(main.querySelectorAll("[data-cluster]"), function (c) {
      return [c.getAttribute("data-cluster"), c.getAttribute("data-cluster-label") || ""];
    });
    if (!clusters.length) { return; }  // nothing survives: nothing to sign yet
    var box = place(section("Sign this review", "review-sign"),
                    document.getElementById("signature-slots"));
    box.appendChild(el("p", { text: intent
      ? "You are the intent signer: you sign that the cluster says what the conjecture says."
      : "You sign as the independent signer: the evidence supports the cluster. The intent signer, " +
        "and anyone who wrote a candidate in it, cannot." }));
    box.appendChild(form("Sign", function () {
      return [field("Role", select("role", [intent ? ["intent", "intent signer"]
                                                    : ["independent", "independent signer"]])),
              field("Decision", select("decision", DECISIONS)),
              field("Cluster", select("cluster", clusters.map(function (c, i) {
                return [c[0], "cluster " + (i + 1) + ": " + c[1]];
              }))),
              field("Note (optional)", area("note"))];
    }, function (f) {
      var body = { role: val(f, "role"), decision: val(f, "decision"),
                   cluster: val(f, "cluster").split(" ").filter(Boolean) };
      return act("/reviews/" + encodeURIComponent(tid) + "/signatures",
                 withOptional(body, f, ["note"]), "Signature");
    }));
  }

  // --- the /me page -----------------------------------------------------------------------

  var WAITING = [["held_proofs", "Held proofs to review"], ["literature", "Literature proposals to read"],
                 ["review_questions", "Review questions"],
                 ["intent_questions", "Formalization-review questions waiting for your answer"],
                 ["motions", "Motions"]];

  // A review record's fragment on its evidence page: ``<folder>-<stem>`` (review_page.py).
  function reviewAnchor(path) {
    var parts = String(path || "").split("/");
    return parts.length < 2 ? "" : parts[parts.length - 2] + "-" + parts[parts.length - 1].replace(/\.[a-z]+$/, "");
  }

  function href(x, kind) {
    var t = encodeURIComponent(String(x.target || "")), n = encodeURIComponent(String(x.node || ""));
    if (kind === "intent_questions" && page.reviewHref) {
      var frag = reviewAnchor(x.path);
      return page.reviewHref.replace("{target}", t) + (frag ? "#" + encodeURIComponent(frag) : "");
    }
    return x.node ? page.nodeHref.replace("{target}", t).replace("{node}", n)
      : page.targetHref.replace("{target}", t);
  }

  function meControls() {
    var box = place(section("What waits for you", "me-waiting"), main.querySelector("h1"));
    me().then(function (m) {
      var waiting = m.waiting || {};
      WAITING.forEach(function (w) {
        var items = waiting[w[0]] || [];
        box.appendChild(el("h3", { text: w[1] + " (" + items.length + ")" }));
        if (!items.length) { box.appendChild(el("p", { text: "Nothing waits." })); return; }
        var ul = el("ul", { "class": "waiting " + w[0] });
        items.forEach(function (x) {
          var li = el("li", {}, el("a", { href: href(x, w[0]), text: String(x.target || "") + (x.node ? "/" + x.node : "") }),
                      ": " + String(x.what || ""));
          if (x.pull_request) { li.appendChild(document.createTextNode(" (pull request #" + x.pull_request + ")")); }
          if (x.since) { li.appendChild(document.createTextNode(", since " + x.since)); }
          ul.appendChild(li);
        });
        box.appendChild(ul);
      });
    }).catch(function () {
      box.appendChild(el("p", { text: "The service did not list what waits for you." }));
    });
  }

  // --- start ------------------------------------------------------------------------------

  function start() {
    mePromise = null;
    return getJSON("/session").then(function (s) {
      if (!s || typeof s.signed_in !== "boolean") { return; }
      clearControls();
      drawBar(s);
      if (!s.signed_in || s.needs_pseudonym) { return; }
      if (page.page === "target" && page.target) { targetControls(s); }
      else if (page.page === "node" && page.target && page.node) { nodeControls(s); }
      else if (page.page === "review" && page.target) { reviewControls(s); }
      else if (page.page === "me") { meControls(); }
    }).catch(function () { return null; });  // no answer: the read-only page, unchanged
  }

  start();
}());
