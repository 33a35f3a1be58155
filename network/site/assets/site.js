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
    a.addEventListener("click", function (ev) { ev.preventDefault(); select(a); });
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
