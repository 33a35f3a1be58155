/* Lemmata site: optional behaviour. Every page works without it. */
(function () {
  "use strict";
  function sets(el) { return (el.getAttribute("data-select") || el.getAttribute("data-sets") || "").split(" ").filter(Boolean); }

  // Sufficient sets: a selector branch lights its sets in the drawing and filters the table.
  function select(link) {
    var chosen = {};
    sets(link).forEach(function (s) { chosen[s] = true; });
    document.querySelectorAll("a.select.active").forEach(function (a) { a.classList.remove("active"); });
    link.classList.add("active");
    document.querySelectorAll("svg.dag .node").forEach(function (n) {
      var hit = sets(n).some(function (s) { return chosen[s]; });
      n.classList.toggle("lit", hit);
      n.classList.toggle("dim", !hit);
    });
    document.querySelectorAll("#sets-table tbody tr").forEach(function (tr) {
      tr.classList.toggle("hidden", !chosen[tr.getAttribute("data-set")]);
    });
  }
  document.querySelectorAll("a.select").forEach(function (a) {
    a.addEventListener("click", function (ev) {
      // a leaf whose sets are listed on another page (issue 15) is followed, not filtered
      if (!sets(a).length && (a.getAttribute("href") || "#").charAt(0) !== "#") { return; }
      ev.preventDefault(); select(a);
    });
  });

  // Band lines are drawn only while one of their ends is lit (hover or focus).
  function light(id, on) {
    document.querySelectorAll("svg.dag path.lit-only").forEach(function (p) {
      if (p.getAttribute("data-from") === id || p.getAttribute("data-to") === id) { p.classList.toggle("on", on); }
    });
  }
  document.querySelectorAll("svg.dag .node").forEach(function (n) {
    var id = n.getAttribute("data-node");
    ["mouseenter", "focus"].forEach(function (e) { n.addEventListener(e, function () { light(id, true); }); });
    ["mouseleave", "blur"].forEach(function (e) { n.addEventListener(e, function () { light(id, false); }); });
  });

  // Frontier: filter links narrow the table in place (each link is also a pre-rendered page).
  var table = document.getElementById("frontier-table");
  if (table && table.getAttribute("data-all") === "yes") {
    var links = document.querySelectorAll(".filters a[data-filter]");
    var count = document.getElementById("frontier-count");
    var all = table.querySelectorAll("tbody tr");
    links.forEach(function (a) {
      a.addEventListener("click", function (ev) {
        ev.preventDefault();
        var f = a.getAttribute("data-filter"), shown = 0;
        all.forEach(function (tr) {
          var ok = !f || tr.classList.contains(f);
          tr.classList.toggle("hidden", !ok);
          if (ok) { shown += 1; }
        });
        links.forEach(function (b) { b.removeAttribute("aria-current"); });
        a.setAttribute("aria-current", "page");
        if (count) { count.textContent = "Showing " + shown + " of " + all.length + " entries (" + a.textContent.trim() + ")."; }
        if (window.history && history.replaceState) { history.replaceState(null, "", a.getAttribute("href")); }
      });
    });
  }

  // Who is working on what (issue 15): the live claims of the service beside the site
  // (lemmata up's /live/claims.json: {as_of, nodes: {"<target>/<node>": {holders, since,
  // claims: [{pseudonym, claimed_at, expires_at}]}}}), overlaid on the frontier's Holders
  // column and on a node page's "Held by" line. Service data is written with textContent
  // only, never as markup. Where no service answers, the page says the live state is
  // unavailable and keeps what the build wrote.
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) { e.className = cls; }
    if (text !== undefined) { e.textContent = String(text); }
    return e;
  }
  function holderList(held) {
    var ul = el("ul", "holder-list");
    (held.claims || []).forEach(function (c) {
      var li = el("li");
      li.appendChild(el("span", "pseudonym", c.pseudonym));
      li.appendChild(document.createTextNode(", since " + c.claimed_at + (c.expires_at ? ", until " + c.expires_at : "")));
      ul.appendChild(li);
    });
    return ul;
  }
  var holders = document.querySelectorAll("td.holders[data-node]");
  var heldBy = document.getElementById("live-claims");
  var liveStates = document.querySelectorAll(".live-state");
  if ((holders.length || heldBy) && window.fetch) {
    var base = (document.querySelector("link[rel=stylesheet]") || {}).href || "";
    var url = base ? new URL("../live/claims.json", base).href : "/live/claims.json";
    var unavailable = function () {
      liveStates.forEach(function (s) { s.textContent = "live state unavailable: no service answered " + url; });
    };
    fetch(url, { cache: "no-store" }).then(function (r) { return r.ok ? r.json() : null; }).then(function (live) {
      if (!live || typeof live.nodes !== "object" || live.nodes === null) { unavailable(); return; }
      var get = function (key) { return Object.prototype.hasOwnProperty.call(live.nodes, key) ? live.nodes[key] : null; };
      holders.forEach(function (td) {
        var held = get(td.getAttribute("data-node"));
        td.textContent = "";
        if (!held) { td.textContent = "0"; return; }
        td.appendChild(el("span", "holder-count", held.holders + " since " + held.since));
        td.appendChild(holderList(held));
      });
      if (heldBy) {
        var held = get(heldBy.getAttribute("data-node"));
        var out = heldBy.querySelector(".live-state") || heldBy;
        out.textContent = "";
        out.classList.add("live-read");
        if (!held) {
          out.textContent = "nobody, as of " + live.as_of;
        } else {
          out.textContent = held.holders + (held.holders === 1 ? " holder" : " holders") + ", as of " + live.as_of + ":";
          heldBy.appendChild(holderList(held));
        }
      }
      var asOf = document.getElementById("claims-as-of");
      if (asOf) { asOf.textContent = "as of " + live.as_of; }
    }).catch(unavailable);
  }

  // Zoom and pan of the drawing (svg-pan-zoom, vendored under assets/svg-pan-zoom): fitted
  // to its box, and when the fit makes labels too small to read, at full size centred on
  // the root. Without the script the page shows the whole drawing fitted to the width.
  var dag = document.querySelector("svg.dag");
  if (dag && window.svgPanZoom) {
    var wrap = dag.parentNode, figure = wrap.closest("figure");
    var vb = (dag.getAttribute("viewBox") || "0 0 1 1").split(" ").map(Number);
    var natural = wrap.clientWidth * vb[3] / Math.max(vb[2], 1);
    wrap.classList.add("zoomable");
    wrap.style.height = Math.round(Math.max(220, Math.min(natural + 8, window.innerHeight * 0.7))) + "px";
    if (figure) { figure.classList.add("zoom-on"); }
    dag.setAttribute("width", "100%");
    dag.setAttribute("height", "100%");
    var pz = window.svgPanZoom(dag, { fit: true, center: true, controlIconsEnabled: false,
      mouseWheelZoomEnabled: false, dblClickZoomEnabled: true, zoomScaleSensitivity: 0.3,
      minZoom: 0.05, maxZoom: 50 });
    var centreRoot = function (onlyIfSmall) {
      var box = dag.querySelector('.node[data-node="root"] rect') || dag.querySelector(".node rect");
      var s = pz.getSizes();
      if (!box || (onlyIfSmall === true && s.realZoom >= 0.6)) { return; }
      if (s.realZoom < 0.6) { pz.zoom(pz.getZoom() / s.realZoom); s = pz.getSizes(); }
      var b = box.getBBox();
      pz.pan({ x: s.width / 2 - (b.x + b.width / 2) * s.realZoom,
               y: Math.min(s.height / 2, 40 + b.height / 2 * s.realZoom) - (b.y + b.height / 2) * s.realZoom });
    };
    // svg-pan-zoom caches the box's size when it starts; on a phone that can be before the
    // layout settles (364 px cached for a 300 px box at 390 px), so measure again and refit.
    pz.resize(); pz.fit(); pz.center();
    centreRoot(true);
    var bar = document.createElement("div");
    bar.className = "zoom-bar";
    [["+", "Zoom in", function () { pz.zoomIn(); }],
     ["−", "Zoom out", function () { pz.zoomOut(); }],
     ["Fit", "Fit the whole drawing", function () { pz.resize(); pz.fit(); pz.center(); }],
     ["Root", "Centre on the root", function () { centreRoot(false); }]].forEach(function (b) {
      var btn = document.createElement("button");
      btn.type = "button";
      btn.textContent = b[0];
      btn.setAttribute("aria-label", b[1]);
      btn.title = b[1];
      btn.addEventListener("click", b[2]);
      bar.appendChild(btn);
    });
    var hint = document.createElement("span");
    hint.className = "hint";
    hint.textContent = "Drag to pan; double-click to zoom.";
    bar.appendChild(hint);
    var row = wrap.closest(".drawing-row") || wrap;
    row.parentNode.insertBefore(bar, row);
    window.lemmataDrawing = pz;
  }

  // Click-to-show (issue 15): clicking a statement in the drawing, or Enter or Space on it,
  // opens a panel with its claim (a copy of the typeset claim the drawing in words already
  // carries), its status in words and a link to its page; Escape or Close shuts it and
  // gives focus back to the statement. A drag that pans the drawing is not a click, and a
  // modified click (new tab, new window) keeps the link's own behaviour. Without the script
  // each statement is a plain link to its page.
  document.querySelectorAll("svg.dag").forEach(function (svg) {
    var figure = svg.closest("figure") || svg.parentNode;
    var words = {};
    figure.querySelectorAll(".text-nodes li[data-node]").forEach(function (li) { words[li.getAttribute("data-node")] = li; });
    var panel = null, opener = null, down = null;
    function close() {
      if (!panel || panel.hidden) { return; }
      panel.hidden = true;
      if (opener) { opener.focus(); }
    }
    function build() {
      panel = el("section", "node-panel");
      panel.id = "node-panel";
      panel.setAttribute("role", "region");
      panel.setAttribute("aria-labelledby", "node-panel-title");
      panel.tabIndex = -1;
      panel.hidden = true;
      var h = el("h3");
      h.id = "node-panel-title";
      panel.appendChild(h);
      ["node-panel-id", "node-panel-claim", "node-panel-status", "node-panel-link"].forEach(function (c) {
        panel.appendChild(el(c === "node-panel-claim" ? "div" : "p", c));
      });
      var shut = el("button", "node-panel-close", "Close");
      shut.type = "button";
      shut.addEventListener("click", close);
      panel.appendChild(shut);
      panel.addEventListener("keydown", function (ev) { if (ev.key === "Escape") { ev.preventDefault(); close(); } });
      var row = svg.closest(".drawing-row") || svg.parentNode;
      row.parentNode.insertBefore(panel, row.nextSibling);
    }
    function open(node) {
      if (!panel) { build(); }
      var key = node.getAttribute("data-node") || "", li = words[key] || null;
      var link = li ? li.querySelector("a") : null;
      panel.querySelector("#node-panel-title").textContent = link ? link.textContent : key;
      var id = panel.querySelector(".node-panel-id");
      id.textContent = "";
      id.appendChild(el("code", "", key));
      var claim = panel.querySelector(".node-panel-claim"), typeset = li ? li.querySelector(".words-claim") : null;
      claim.textContent = "";
      if (typeset) {
        Array.prototype.forEach.call(typeset.childNodes, function (c) { claim.appendChild(c.cloneNode(true)); });
      } else {
        claim.appendChild(el("p", "", "No claim is written for this statement."));
      }
      var words_ = li ? li.getAttribute("data-status-words") : null;
      panel.querySelector(".node-panel-status").textContent = "Status: " + (words_ || (li && li.getAttribute("data-status")) || "unknown");
      var to = panel.querySelector(".node-panel-link");
      to.textContent = "";
      var a = el("a", "", "Open the page of this statement");
      a.href = node.getAttribute("href") || (link ? link.getAttribute("href") : "#");
      to.appendChild(a);
      opener = node;
      panel.hidden = false;
      panel.focus();
    }
    svg.addEventListener("pointerdown", function (ev) { down = { x: ev.clientX, y: ev.clientY }; }, true);
    svg.addEventListener("click", function (ev) {
      var node = ev.target.closest ? ev.target.closest("a.node") : null;
      if (!node) { return; }
      if (ev.button !== 0 || ev.ctrlKey || ev.metaKey || ev.shiftKey || ev.altKey) { return; }
      ev.preventDefault();
      var moved = down && ev.detail > 0 ? Math.abs(ev.clientX - down.x) + Math.abs(ev.clientY - down.y) : 0;
      down = null;
      if (moved > 5) { return; }  // the end of a pan, not a click
      open(node);
    });
    // svg-pan-zoom cancels touchstart (it pans on touch), so a tap raises no click: a touch
    // or pen press released where it began opens the panel itself.
    svg.addEventListener("pointerup", function (ev) {
      if (ev.pointerType === "mouse" || !down) { return; }
      var node = ev.target.closest ? ev.target.closest("a.node") : null;
      if (node && Math.abs(ev.clientX - down.x) + Math.abs(ev.clientY - down.y) <= 5) { open(node); }
    });
    svg.addEventListener("keydown", function (ev) {
      var node = ev.target.closest ? ev.target.closest("a.node") : null;
      if (node && (ev.key === "Enter" || ev.key === " " || ev.key === "Spacebar")) { ev.preventDefault(); open(node); }
    });
    document.addEventListener("keydown", function (ev) { if (ev.key === "Escape" && panel && !panel.hidden) { close(); } });
  });

  // Client-side KaTeX, only where the build could not typeset (no Node.js at build time).
  window.addEventListener("load", function () {
    if (window.renderMathInElement) {
      document.querySelectorAll(".claim.tex").forEach(function (el) {
        window.renderMathInElement(el, { delimiters: [{ left: "\\[", right: "\\]", display: true }], throwOnError: false });
      });
      document.querySelectorAll(".math.tex").forEach(function (el) {
        window.renderMathInElement(el, { delimiters: [{ left: "\\[", right: "\\]", display: true }, { left: "\\(", right: "\\)", display: false }], throwOnError: false });
      });
    }
  });
}());
