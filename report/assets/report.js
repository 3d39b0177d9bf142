// Sortable tables: a button in each header sorts by that column (numbers by
// data-sort, else by text). Without script the table reads as it was written.
(function () {
  document.querySelectorAll("table.sortable").forEach(function (t) {
    var heads = t.tHead.rows[0].cells;
    Array.prototype.forEach.call(heads, function (th, i) {
      var b = document.createElement("button");
      b.type = "button";
      b.textContent = th.textContent;
      th.textContent = "";
      th.appendChild(b);
      th.setAttribute("aria-sort", "none");
      b.addEventListener("click", function () {
        var asc = th.getAttribute("aria-sort") !== "ascending";
        Array.prototype.forEach.call(heads, function (h) { h.setAttribute("aria-sort", "none"); });
        th.setAttribute("aria-sort", asc ? "ascending" : "descending");
        var num = th.dataset.type === "num";
        var key = function (row) {
          var c = row.cells[i], v = c.dataset.sort !== undefined ? c.dataset.sort : c.textContent;
          if (!num) return v;
          var f = parseFloat(v);
          return isNaN(f) ? -Infinity : f;
        };
        var body = t.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (a, b) {
          var x = key(a), y = key(b), c = x < y ? -1 : x > y ? 1 : 0;
          return asc ? c : -c;
        });
        rows.forEach(function (r) { body.appendChild(r); });
      });
    });
  });
})();
// Episodes: a search box (id or source) and toggles that hide the other
// episodes' sections and table rows. Made by script, so a page without
// script shows no control that does nothing; each section folds with
// details/summary on its own.
(function () {
  var eps = Array.prototype.slice.call(document.querySelectorAll("section.episode"));
  if (eps.length === 0) return;
  var bar = document.createElement("div");
  bar.className = "filter";
  bar.id = "filter";
  var q = document.createElement("input");
  q.type = "search";
  q.id = "filter-q";
  q.placeholder = "Filter episodes by id or source";
  q.setAttribute("aria-label", "Filter episodes by id or source");
  bar.appendChild(q);
  var agent = eps.some(function (s) { return s.querySelector("table.detectors"); });
  var toggle = function (id, text) {
    var l = document.createElement("label"), c = document.createElement("input");
    c.type = "checkbox";
    c.id = id;
    l.appendChild(c);
    l.appendChild(document.createTextNode(" " + text));
    bar.appendChild(l);
    return c;
  };
  var onlyFalse = toggle("filter-false", agent ? "only false alarms" : "only false terminations");
  var onlyFired = toggle("filter-fired", agent ? "only fired" : "only terminated");
  var shown = document.createElement("span");
  shown.className = "shown";
  shown.setAttribute("aria-live", "polite");
  bar.appendChild(shown);
  var all = document.createElement("button");
  all.type = "button";
  all.textContent = eps[0].querySelector("details").open ? "fold all" : "unfold all";
  bar.appendChild(all);
  eps[0].parentNode.insertBefore(bar, eps[0]);
  // Table rows that link to a section follow it.
  var rows = {};
  document.querySelectorAll('table.sortable tbody tr a[href^="#ep-"]').forEach(function (a) {
    var id = a.getAttribute("href").slice(1);
    (rows[id] = rows[id] || []).push(a.closest("tr"));
  });
  var apply = function () {
    var words = q.value.toLowerCase().split(/\s+/).filter(Boolean), n = 0;
    eps.forEach(function (s) {
      var text = s.dataset.search || "";
      var ok = words.every(function (w) { return text.indexOf(w) >= 0; }) &&
        (!onlyFalse.checked || s.hasAttribute("data-false")) &&
        (!onlyFired.checked || s.hasAttribute("data-fired"));
      s.hidden = !ok;
      (rows[s.id] || []).forEach(function (r) { r.hidden = !ok; });
      if (ok) n++;
    });
    shown.textContent = n + " of " + eps.length + " shown";
  };
  q.addEventListener("input", apply);
  onlyFalse.addEventListener("change", apply);
  onlyFired.addEventListener("change", apply);
  all.addEventListener("click", function () {
    var open = all.textContent === "unfold all";
    eps.forEach(function (s) { if (!s.hidden) s.querySelector("details").open = open; });
    all.textContent = open ? "fold all" : "unfold all";
  });
  apply();
  // A link to a folded episode unfolds it.
  var unfold = function () {
    var s = location.hash && document.getElementById(location.hash.slice(1));
    if (s && s.matches("section.episode")) s.querySelector("details").open = true;
  };
  window.addEventListener("hashchange", unfold);
  unfold();
})();

// Tap for details: a chart's marks name themselves in a <title>, which
// only a mouse's hover shows; a tap (click) on a titled mark writes its
// title under the chart, a second tap clears it.
(function () {
  document.querySelectorAll("figure").forEach(function (f) {
    var svg = f.querySelector("svg.tl, svg.sw");
    if (!svg) return;
    var tip = document.createElement("p");
    tip.className = "tip";
    tip.setAttribute("aria-live", "polite");
    tip.hidden = true;
    f.appendChild(tip);
    svg.addEventListener("click", function (e) {
      var el = e.target;
      while (el && el !== svg && !(el.firstElementChild && el.firstElementChild.tagName === "title")) el = el.parentNode;
      if (!el || el === svg) { tip.hidden = true; return; }
      var text = el.firstElementChild.textContent;
      tip.hidden = !tip.hidden && tip.textContent === text;
      tip.textContent = text;
    });
  });
})();
