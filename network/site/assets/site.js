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

  // Frontier: how many hold each node and since when, from the service beside the site
  // (lemmata up's /live/claims.json); a site served elsewhere keeps its dashes.
  var holders = document.querySelectorAll("td.holders[data-node]");
  if (holders.length && window.fetch) {
    var base = (document.querySelector("link[rel=stylesheet]") || {}).href || "";
    var url = base ? new URL("../live/claims.json", base).href : "/live/claims.json";
    fetch(url, { cache: "no-store" }).then(function (r) { return r.ok ? r.json() : null; }).then(function (live) {
      if (!live || !live.nodes) { return; }
      holders.forEach(function (td) {
        var held = live.nodes[td.getAttribute("data-node")];
        td.textContent = held ? held.holders + " since " + held.since : "0";
      });
      var asOf = document.getElementById("claims-as-of");
      if (asOf) { asOf.textContent = "as of " + live.as_of; }
    }).catch(function () { return null; });
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
