// The lineage report's page logic: the task list, each task's history charts and run table
// (sortable, filterable), the compare verdicts against the run before, and the drill-down to
// a run's record. Reads its data from <script type="application/json"> elements; every text
// from the records is set with textContent (never parsed as HTML).
(function () {
  "use strict";
  var me = document.currentScript;
  var root = (me && me.closest(".ubunye-report")) || document.querySelector(".ubunye-report");
  var data = JSON.parse(root.querySelector("script.report-data").textContent);
  var SVGNS = "http://www.w3.org/2000/svg";
  var state = { task: null, sortKey: "started_at", sortDir: -1, filter: "", status: "" };

  function el(tag, attrs, text) {
    var node = document.createElement(tag);
    if (attrs) { Object.keys(attrs).forEach(function (k) { node.setAttribute(k, attrs[k]); }); }
    if (text !== undefined && text !== null) { node.textContent = String(text); }
    return node;
  }
  function svg(tag, attrs) {
    var node = document.createElementNS(SVGNS, tag);
    Object.keys(attrs || {}).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    return node;
  }
  function statusClass(s) {
    return ["success", "error", "running", "interrupted", "abandoned"].indexOf(s) >= 0 ? "s-" + s : "s-other";
  }
  function num(v) { return v === null || v === undefined ? "" : Number(v).toLocaleString("en"); }
  function secs(v) { return v === null || v === undefined ? "" : Number(v).toFixed(2) + " s"; }
  function shortId(id) { return String(id).slice(0, 12); }
  function exp(e) { return e.passed + " ok" + (e.failed ? ", " + e.failed + " failed" : "") + (e.warned ? ", " + e.warned + " warned" : ""); }
  function verdictText(v) {
    if (!v) { return "first run"; }
    var parts = [];
    ["changed", "unknown", "same"].forEach(function (w) { if (v.counts[w]) { parts.push(v.counts[w] + " " + w); } });
    if (v.outcome === "not_proven" && !v.counts.changed && !v.counts.unknown) { parts.push("not proven"); }
    return parts.join(", ") || "no steps";
  }
  function verdictClass(v) {
    if (!v) { return ""; }
    if (v.counts.changed) { return "v-changed"; }
    if (v.counts.unknown || v.outcome !== "proven_same") { return "v-unknown"; }
    return "v-same";
  }

  // ---- task list ---------------------------------------------------------------------------
  var list = root.querySelector(".tasklist ul");
  var search = root.querySelector(".tasklist input");
  data.tasks.forEach(function (t) {
    var li = el("li", { "data-task": t.id });
    var dot = el("span", { "class": "dot " + statusClass(t.status), title: t.status });
    li.appendChild(dot);
    li.appendChild(document.createTextNode(t.path + " (" + (t.runs.length + (t.older ? t.older.count : 0)) + ")"));
    li.addEventListener("click", function () { selectTask(t.id); });
    list.appendChild(li);
  });
  search.addEventListener("input", function () {
    var q = search.value.toLowerCase();
    Array.prototype.forEach.call(list.children, function (li) {
      li.style.display = li.textContent.toLowerCase().indexOf(q) >= 0 ? "" : "none";
    });
  });
  Array.prototype.forEach.call(root.querySelectorAll("svg.graph g.task"), function (g) {
    g.addEventListener("click", function () { selectTask(g.getAttribute("data-task")); });
  });

  // ---- one task ----------------------------------------------------------------------------
  function taskById(id) { for (var i = 0; i < data.tasks.length; i++) { if (data.tasks[i].id === id) { return data.tasks[i]; } } return null; }

  function selectTask(id) {
    var t = taskById(id);
    if (!t) { return; }
    state.task = t;
    Array.prototype.forEach.call(list.children, function (li) { li.classList.toggle("selected", li.getAttribute("data-task") === id); });
    Array.prototype.forEach.call(root.querySelectorAll("svg.graph g.task"), function (g) { g.classList.toggle("selected", g.getAttribute("data-task") === id); });
    root.querySelector(".task-title").textContent = t.path;
    drawCharts(t);
    drawTable();
    root.querySelector(".drill").hidden = true;
  }

  function drawCharts(t) {
    var box = root.querySelector(".charts");
    box.textContent = "";
    box.appendChild(chart("rows in / out", t.runs, [["rows_in", "#0969da"], ["rows_out", "#8250df"]]));
    box.appendChild(chart("duration (s)", t.runs, [["duration_sec", "#1a7f37"]]));
  }

  function chart(title, runs, series) {
    var W = 360, H = 120, P = 28;
    var wrap = el("div", { "class": "chart" });
    wrap.appendChild(el("div", { "class": "title" }, title + " over " + runs.length + " runs (failed runs in red)"));
    var s = svg("svg", { width: W, height: H, viewBox: "0 0 " + W + " " + H, "class": "history" });
    var max = 0;
    runs.forEach(function (r) { series.forEach(function (ser) { var v = r[ser[0]]; if (typeof v === "number" && v > max) { max = v; } }); });
    if (max === 0) { max = 1; }
    function x(i) { return P + (runs.length > 1 ? i * (W - 2 * P) / (runs.length - 1) : (W - 2 * P) / 2); }
    function y(v) { return H - P / 2 - (v / max) * (H - P); }
    s.appendChild(svg("line", { x1: P, y1: H - P / 2, x2: W - P, y2: H - P / 2, stroke: "#d1d9e0" }));
    var label = svg("text", { x: 2, y: 12, "font-size": 10, fill: "#59636e" });
    label.textContent = num(max);
    s.appendChild(label);
    series.forEach(function (ser) {
      var pts = [];
      runs.forEach(function (r, i) { var v = r[ser[0]]; if (typeof v === "number") { pts.push(x(i).toFixed(1) + "," + y(v).toFixed(1)); } });
      if (pts.length) { s.appendChild(svg("polyline", { points: pts.join(" "), stroke: ser[1], "class": "line" })); }
      runs.forEach(function (r, i) {
        var v = r[ser[0]];
        var failed = r.status !== "success";
        if (typeof v !== "number" && !failed) { return; }
        var c = svg("circle", { cx: x(i), cy: y(typeof v === "number" ? v : 0), r: failed ? 3.5 : 2,
                                fill: failed ? "#cf222e" : ser[1], "class": failed ? "failed-run" : "ok-run" });
        var tip = svg("title", {});
        tip.textContent = shortId(r.run_id) + " " + r.status + " " + ser[0] + "=" + (typeof v === "number" ? v : "none");
        c.appendChild(tip);
        s.appendChild(c);
      });
    });
    wrap.appendChild(s);
    return wrap;
  }

  // ---- the run table -------------------------------------------------------------------------
  var COLUMNS = [
    ["status", "status"], ["run_id", "run"], ["started_at", "started"], ["duration_sec", "duration"],
    ["backend", "backend"], ["engine", "engine"], ["rows_in", "rows in"], ["rows_out", "rows out"],
    ["expectations", "expectations"], ["vs_before", "vs run before"]
  ];
  var table = root.querySelector("table.runs");
  var head = el("tr");
  COLUMNS.forEach(function (c) {
    var th = el("th", { "data-key": c[0] }, c[1]);
    th.addEventListener("click", function () {
      state.sortDir = state.sortKey === c[0] ? -state.sortDir : 1;
      state.sortKey = c[0];
      drawTable();
    });
    head.appendChild(th);
  });
  table.querySelector("thead").appendChild(head);
  var filterBox = root.querySelector("input.run-filter");
  var statusBox = root.querySelector("select.status-filter");
  filterBox.addEventListener("input", function () { state.filter = filterBox.value.toLowerCase(); drawTable(); });
  statusBox.addEventListener("change", function () { state.status = statusBox.value; drawTable(); });

  function sortValue(r, key) {
    var v = r[key];
    if (key === "expectations") { return v.failed * 1e6 + v.warned * 1e3 + v.passed; }
    if (key === "vs_before") { return v ? v.counts.changed * 1e6 + v.counts.unknown * 1e3 : -1; }
    return v === null || v === undefined ? "" : v;
  }

  function rowText(r) {
    return [r.status, r.run_id, r.started_at, r.backend, r.engine, r.error || "", verdictText(r.vs_before)].join(" ").toLowerCase();
  }

  function drawTable() {
    var t = state.task;
    var body = table.querySelector("tbody");
    body.textContent = "";
    Array.prototype.forEach.call(head.children, function (th) {
      th.classList.toggle("sorted-asc", th.getAttribute("data-key") === state.sortKey && state.sortDir > 0);
      th.classList.toggle("sorted-desc", th.getAttribute("data-key") === state.sortKey && state.sortDir < 0);
    });
    if (!t) { return; }
    var rows = t.runs.filter(function (r) {
      return (!state.status || r.status === state.status) && (!state.filter || rowText(r).indexOf(state.filter) >= 0);
    });
    rows.sort(function (a, b) {
      var va = sortValue(a, state.sortKey), vb = sortValue(b, state.sortKey);
      return (va < vb ? -1 : va > vb ? 1 : 0) * state.sortDir;
    });
    rows.forEach(function (r) {
      var tr = el("tr", { "class": "run", "data-key": r.key, "data-status": r.status });
      var st = el("td", { "class": statusClass(r.status) });
      st.appendChild(el("span", { "class": "dot" }));
      st.appendChild(document.createTextNode(r.status));
      if (r.error) { st.title = r.error; }
      tr.appendChild(st);
      tr.appendChild(el("td", { "class": "hash", title: r.run_id }, shortId(r.run_id)));
      tr.appendChild(el("td", { title: r.started_at || "" }, (r.started_at || "").replace("T", " ").slice(0, 19)));
      tr.appendChild(el("td", { "class": "num" }, secs(r.duration_sec)));
      tr.appendChild(el("td", {}, r.backend || ""));
      tr.appendChild(el("td", {}, r.engine));
      tr.appendChild(el("td", { "class": "num" }, num(r.rows_in)));
      tr.appendChild(el("td", { "class": "num" }, num(r.rows_out)));
      tr.appendChild(el("td", {}, exp(r.expectations)));
      tr.appendChild(el("td", { "class": verdictClass(r.vs_before) }, verdictText(r.vs_before)));
      tr.addEventListener("click", function () { drill(r); });
      body.appendChild(tr);
    });
    root.querySelector(".run-count").textContent = rows.length + " of " + t.runs.length + " runs" +
      (t.older ? " (" + t.older.count + " older runs counted only)" : "");
  }

  // ---- drill-down ------------------------------------------------------------------------------
  function drill(r) {
    var box = root.querySelector(".drill");
    box.hidden = false;
    box.querySelector(".drill-title").textContent = "Run " + r.run_id + " (" + r.status + ")";
    var steps = box.querySelector(".drill-steps");
    steps.textContent = "";
    if (r.vs_before) {
      steps.appendChild(el("div", {}, "Against run " + r.vs_before.before + ":"));
      var ul = el("ul");
      r.vs_before.steps.forEach(function (s) {
        var text = s.direction + " " + s.name + ": " + s.verdict;
        if (s.reason) { text += ": " + s.reason; }
        ul.appendChild(el("li", { "class": "v-" + s.verdict }, text));
      });
      steps.appendChild(ul);
      if (r.vs_before.outcome === "not_proven") {
        steps.appendChild(el("div", { "class": "v-unknown" }, "Not proven the same: " + r.vs_before.problems.join("; ")));
      }
    } else {
      steps.appendChild(el("div", {}, "The task's first run in this report."));
    }
    var src = root.querySelector('script[data-record="' + r.key + '"]');
    var text = src ? JSON.stringify(JSON.parse(src.textContent), null, 2) : "(record not included)";
    box.querySelector("pre").textContent = text;
  }

  if (data.tasks.length) { selectTask(data.tasks[0].id); }
  root.setAttribute("data-ready", "1");
})();
