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
