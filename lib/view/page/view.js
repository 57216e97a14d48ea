// The drawing code of Telar's pages (lib/view): a plan (telarc
// --explain-html) and a run's trace (telar-run --trace FILE.html). Plain
// DOM and SVG, no libraries: the page works offline. The plan's pipeline
// schedule and the trace share drawTimeline. When everything is drawn the
// document's title starts with "telar-ok"; an error puts "telar-error: ..."
// there and on the page (what the tests check in headless Chromium).
"use strict";
(function () {
  const SVG = "http://www.w3.org/2000/svg";
  const status = document.getElementById("telar-status");
  const root = document.getElementById("telar-root");

  function fail(message) {
    document.title = "telar-error: " + message;
    status.className = "error";
    status.textContent = "error: " + message;
  }
  window.addEventListener("error", (e) => fail(e.message));

  function el(tag, parent, text, attrs) {
    const e = document.createElement(tag);
    if (text !== undefined && text !== null) e.textContent = String(text);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
    if (parent) parent.appendChild(e);
    return e;
  }
  function sv(tag, parent, attrs, text) {
    const e = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
    if (text !== undefined) e.textContent = String(text);
    if (parent) parent.appendChild(e);
    return e;
  }
  function tip(e, text) { sv("title", e, {}, text); return e; }
  function section(title, note) {
    const s = el("section", root);
    el("h2", s, title);
    if (note) el("div", s, note, { class: "note" });
    return s;
  }
  function rankColor(r, n) {
    const hue = (r * 360 / Math.max(n, 1) + 15) % 360;
    return "hsl(" + hue.toFixed(0) + ",62%,64%)";
  }
  function fmtSeconds(s) {
    if (!isFinite(s)) return "-";
    const a = Math.abs(s);
    if (a >= 1) return s.toFixed(2) + " s";
    if (a >= 1e-3) return (s * 1e3).toFixed(2) + " ms";
    return (s * 1e6).toFixed(1) + " \u00b5s";
  }
  function fmtBytes(b) {
    const units = ["B", "KiB", "MiB", "GiB", "TiB"];
    let i = 0;
    while (Math.abs(b) >= 1024 && i + 1 < units.length) { b /= 1024; ++i; }
    return (i ? b.toFixed(1) : b.toFixed(0)) + " " + units[i];
  }
  function table(parent, head, rows) {
    const t = el("table", parent);
    const h = el("tr", t);
    head.forEach((c, i) => el("th", h, c, i ? {} : { class: "l" }));
    for (const row of rows) {
      const tr = el("tr", t);
      row.forEach((c, i) => el("td", tr, c, i ? {} : { class: "l" }));
    }
    return t;
  }

  // Horizontal bars: rows [{label, value, color, text, highlight}].
  function drawBars(parent, rows, format, maxValue) {
    const labelWidth = 260, barWidth = 420, rowHeight = 20;
    const max = maxValue || Math.max(1e-30, ...rows.map((r) => r.value || 0));
    const g = sv("svg", parent, { width: labelWidth + barWidth + 140,
                                  height: rows.length * rowHeight + 4,
                                  class: "bars" });
    rows.forEach((r, i) => {
      const y = i * rowHeight + 2;
      sv("text", g, { x: labelWidth - 6, y: y + 13, "text-anchor": "end",
                      "font-weight": r.highlight ? "bold" : "normal" },
         r.label);
      const w = Math.max(1, barWidth * (r.value || 0) / max);
      tip(sv("rect", g, { x: labelWidth, y: y + 2, width: w,
                          height: rowHeight - 6, fill: r.color || "#7ab",
                          stroke: r.highlight ? "#222" : "none" }),
          r.label + ": " + (r.text || format(r.value)));
      sv("text", g, { x: labelWidth + w + 6, y: y + 13 },
         r.text || format(r.value));
    });
    return g;
  }

  // A timeline: lanes [{label, events: [{name, cat, start, end, tip}]}]
  // (seconds). Events of a lane nest (a stack of depths); each category
  // has its colour; waits and idle time are drawn apart.
  const CATEGORY_COLORS = {
    run: "#d9d9d9", program: "#8fb3c9", kernel: "#f2b561",
    collective: "#c58fd6", pipeline: "#9ccc8f", forward: "#7fbf6f",
    backward: "#5f9fcf", send: "#6fa8dc", recv: "#6fa8dc",
    wait: "#e06666", idle: "#f3f3f3", bubble: "#f4cccc",
  };
  function drawTimeline(parent, lanes, opts) {
    opts = opts || {};
    const labelWidth = 150, width = 1100, depthHeight = 16, gap = 8;
    let end = 0, start = Infinity;
    for (const lane of lanes)
      for (const e of lane.events) {
        end = Math.max(end, e.end);
        start = Math.min(start, e.start);
      }
    if (!isFinite(start)) start = 0;
    const span = Math.max(end - start, 1e-12);
    const x = (t) => labelWidth + (t - start) / span * width;
    const layouts = lanes.map((lane) => {
      const events = lane.events.slice().sort(
          (a, b) => a.start - b.start || (b.end - b.start) - (a.end - a.start));
      const stack = [];
      let depth = 0;
      for (const e of events) {
        while (stack.length && e.start >= stack[stack.length - 1].end - 1e-12)
          stack.pop();
        e.depth = stack.length;
        depth = Math.max(depth, e.depth + 1);
        stack.push(e);
      }
      return { lane, events, height: Math.max(1, depth) * depthHeight };
    });
    const total = layouts.reduce((h, l) => h + l.height + gap, 24);
    const g = sv("svg", parent, { width: labelWidth + width + 20,
                                  height: total, class: opts.cls || "timeline" });
    // Time axis.
    const axis = sv("g", g, { class: "axis" });
    for (let i = 0; i <= 10; ++i) {
      const t = start + span * i / 10;
      sv("line", axis, { x1: x(t), x2: x(t), y1: 14, y2: total, stroke: "#eee" });
      sv("text", axis, { x: x(t), y: 11, "text-anchor": "middle" },
         fmtSeconds(t - start));
    }
    let y = 20;
    for (const { lane, events, height } of layouts) {
      sv("text", g, { x: 4, y: y + 12 }, lane.label);
      sv("rect", g, { x: labelWidth, y: y, width: width, height: height,
                      fill: "none", stroke: "#eee" });
      for (const e of events) {
        const w = Math.max(0.5, x(e.end) - x(e.start));
        const r = sv("rect", g, {
          x: x(e.start), y: y + e.depth * depthHeight + 1, width: w,
          height: depthHeight - 2, fill: CATEGORY_COLORS[e.cat] || "#bbb",
          stroke: e.cat === "idle" || e.cat === "bubble" ? "#ccc" : "none",
          class: "ev " + e.cat });
        tip(r, e.tip || e.name);
        if (w > 40)
          sv("text", g, { x: x(e.start) + 3,
                          y: y + e.depth * depthHeight + 12,
                          "pointer-events": "none" },
             e.name.length * 6 > w ? e.name.slice(0, Math.floor(w / 6)) : e.name);
      }
      y += height + gap;
    }
    const legend = el("div", parent, null, { class: "legend" });
    const used = new Set();
    for (const lane of lanes) for (const e of lane.events) used.add(e.cat);
    for (const cat of used) {
      const s = el("span", legend);
      el("i", s, null, { style: "background:" + (CATEGORY_COLORS[cat] || "#bbb") });
      s.appendChild(document.createTextNode(cat));
    }
    return g;
  }

  // --- The plan page ------------------------------------------------------

  function coordinates(rank, sizes) {
    const c = new Array(sizes.length).fill(0);
    for (let i = sizes.length - 1; i >= 0; --i) {
      c[i] = rank % sizes[i];
      rank = Math.floor(rank / sizes[i]);
    }
    return c;
  }

  function drawMesh(d) {
    const mesh = d.mesh || [];
    const n = d.devices;
    const s = section("Mesh",
        mesh.length ? mesh.map((a) => a.name + "=" + a.size).join(", ") +
            " (" + n + " devices; ranks row-major, the last axis minor)"
                    : n + " device(s), no mesh axes");
    const sizes = mesh.map((a) => a.size);
    const cols = sizes.length ? sizes[sizes.length - 1] : n;
    const rows = Math.ceil(n / Math.max(cols, 1));
    const cell = 64;
    const g = sv("svg", s, { width: cols * (cell + 6) + 10,
                             height: rows * (cell + 6) + 10, class: "mesh" });
    for (let r = 0; r < n; ++r) {
      const cx = (r % cols) * (cell + 6) + 4, cy = Math.floor(r / cols) * (cell + 6) + 4;
      const c = sizes.length ? coordinates(r, sizes) : [];
      tip(sv("rect", g, { x: cx, y: cy, width: cell, height: cell, rx: 6,
                          fill: rankColor(r, n), class: "rank" }),
          "rank " + r + (c.length ? " at " + mesh.map((a, i) => a.name + "=" + c[i]).join(", ") : ""));
      sv("text", g, { x: cx + cell / 2, y: cy + cell / 2 + 4,
                      "text-anchor": "middle" }, "rank " + r);
    }
    // Which ranks form each axis's groups.
    const rowsOut = [];
    mesh.forEach((axis, i) => {
      const groups = new Map();
      for (let r = 0; r < n; ++r) {
        const c = coordinates(r, sizes);
        c[i] = 0;
        const key = c.join(",");
        if (!groups.has(key)) groups.set(key, []);
        groups.get(key).push(r);
      }
      rowsOut.push([axis.name, axis.size,
                    Array.from(groups.values()).map((g) => "{" + g.join(",") + "}").join(" ")]);
    });
    if (rowsOut.length) table(s, ["axis", "size", "groups of ranks"], rowsOut);
  }

  function drawCost(d) {
    const c = d.cost;
    if (!c) return;
    const s = section("Predicted cost",
        "profile '" + d.profile + "': compute and communication add up " +
        "(no overlap); memory per device against the limit the plan was " +
        "chosen under");
    const perAxes = new Map();
    for (const op of c.ops || [])
      for (const step of op.comm || []) {
        const key = (step.axes || []).join(",") || "(local)";
        perAxes.set(key, (perAxes.get(key) || 0) + (step.seconds || 0));
      }
    const rows = [{ label: "compute", value: c.compute_s, color: "#8fb3c9" }];
    if (perAxes.size)
      for (const [axes, sec] of perAxes)
        rows.push({ label: "communication on {" + axes + "}", value: sec,
                    color: "#c58fd6" });
    else
      rows.push({ label: "communication", value: c.comm_s || 0, color: "#c58fd6" });
    if (c.transfer_s !== undefined)
      rows.push({ label: "pipeline transfers", value: c.transfer_s, color: "#6fa8dc" });
    rows.push({ label: "latency", value: c.latency_s, color: "#2a7", highlight: true });
    el("h3", s, "time per step");
    drawBars(s, rows, fmtSeconds);
    el("h3", s, "memory per device");
    const memRows = [];
    if (c.stages)
      for (const st of c.stages)
        memRows.push({ label: "stage " + st.stage + " (weights " +
                       fmtBytes(st.weight_bytes) + ")",
                       value: st.memory_bytes, color: "#f2b561" });
    else
      memRows.push({ label: "weights " + fmtBytes(c.weight_bytes || 0) +
                     " + activations", value: c.memory_bytes, color: "#f2b561" });
    memRows.push({ label: "limit", value: c.memory_limit, color: "#ccc" });
    drawBars(s, memRows, fmtBytes);
  }

  function drawAlternatives(d) {
    const rows = [];
    for (const m of d.searched || [])
      rows.push({ label: "mesh " + m.mesh + (m.chosen ? " (chosen)" : ""),
                  value: m.latency_s || 0, highlight: m.chosen,
                  color: m.chosen ? "#2a7" : "#9bc",
                  text: m.latency_s !== undefined ? fmtSeconds(m.latency_s) : m.status });
    for (const a of (d.cost && d.cost.alternatives) || [])
      rows.push({ label: a.name + (a.mesh ? " (" + a.mesh + ")" : ""),
                  value: a.latency || 0, color: "#bbb",
                  text: a.unavailable ? "unavailable: " + a.unavailable
                                      : fmtSeconds(a.latency) });
    if (!rows.length) return;
    const s = section("The chosen plan and the runner-ups",
        "predicted latency of the best plan on each mesh the search tried, " +
        "and of the plans a user would try first");
    drawBars(s, rows, fmtSeconds);
  }

  // A value's blocks: two of its dimensions (the split ones first) cut into
  // the blocks the ranks hold, each coloured by its ranks.
  function drawValue(parent, v, d) {
    const n = d.devices;
    const card = el("div", parent, null, { class: "card value" });
    const split = [];
    v.dims.forEach((axes, i) => { if (axes.length) split.push(i); });
    const rank = v.shape.length;
    const rowDim = split.length ? split[0] : (rank >= 2 ? rank - 2 : -1);
    let colDim = split.length > 1 ? split[1] : rank - 1;
    if (colDim === rowDim) colDim = rank >= 2 ? (rowDim === rank - 1 ? rank - 2 : rank - 1) : -1;
    const blocksOf = (dim) => dim < 0 ? 1 : v.shape[dim] / Math.max(1, v.local_shape[dim]);
    const nr = blocksOf(rowDim), nc = blocksOf(colDim);
    const owners = new Map();
    v.blocks.forEach((offsets, r) => {
      const i = rowDim < 0 ? 0 : Math.round(offsets[rowDim] / Math.max(1, v.local_shape[rowDim]));
      const j = colDim < 0 ? 0 : Math.round(offsets[colDim] / Math.max(1, v.local_shape[colDim]));
      const key = i + "," + j;
      if (!owners.has(key)) owners.set(key, []);
      owners.get(key).push(r);
    });
    const W = 220;
    const H = Math.max(24, Math.min(160, W * (rowDim < 0 ? 1 : v.shape[rowDim]) /
                                     Math.max(1, colDim < 0 ? 1 : v.shape[colDim])));
    const g = sv("svg", card, { width: W + 8, height: H + 8, class: "blocks" });
    const bw = W / nc, bh = H / nr;
    for (let i = 0; i < nr; ++i)
      for (let j = 0; j < nc; ++j) {
        const list = owners.get(i + "," + j) || [];
        const band = bh / Math.max(1, list.length);
        list.forEach((r, k) => sv("rect", g, { x: 4 + j * bw, y: 4 + i * bh + k * band,
                                               width: bw, height: band,
                                               fill: rankColor(r, n) }));
        tip(sv("rect", g, { x: 4 + j * bw, y: 4 + i * bh, width: bw, height: bh,
                            fill: list.length ? "none" : "#eee", stroke: "#fff",
                            "stroke-width": 1.5, class: "block" }),
            "block (" + i + ", " + j + "): ranks " + list.join(", "));
        if (bw > 40 && bh > 14)
          sv("text", g, { x: 4 + j * bw + bw / 2, y: 4 + i * bh + bh / 2 + 4,
                          "text-anchor": "middle" },
             list.length > 3 ? list.length + " ranks" : "r" + list.join(",r"));
      }
    el("div", card, v.name, { style: "font-weight:bold;max-width:230px;overflow-wrap:anywhere" });
    const how = v.dims.map((axes, i) => axes.length ? "dim " + i + " over " + axes.join("+") : null)
        .filter((x) => x);
    el("div", card, "[" + v.shape.join(", ") + "] " + v.dtype + ", " + fmtBytes(v.bytes), { class: "note" });
    el("div", card, (how.length ? how.join("; ") : "replicated") +
       (v.partial.length ? "; partial over " + v.partial.join("+") : "") +
       "; " + fmtBytes(v.bytes * v.local_shape.reduce((a, b) => a * b, 1) /
                       Math.max(1, v.shape.reduce((a, b) => a * b, 1))) + " per device",
       { class: "note" });
  }

  function drawValues(d) {
    if (!d.values || !d.values.length) return;
    const s = section("Shardings",
        "each tensor cut into the blocks the ranks hold, coloured by rank " +
        "(bands: ranks holding the same block); the largest weights, then " +
        "the largest activations");
    for (const weight of [true, false]) {
      const list = d.values.filter((v) => v.weight === weight);
      if (!list.length) continue;
      el("h3", s, weight ? "weights" : "activations");
      const row = el("div", s, null, { class: "row" });
      for (const v of list) drawValue(row, v, d);
    }
  }

  function drawPipeline(d) {
    const c = d.cost || {};
    if (!c.stages) return;
    const s = section("Pipeline",
        c.stages.length + " stages, " + c.microbatches + " microbatches, " +
        c.schedule + " schedule; predicted bubble " +
        (100 * (c.bubble || 0)).toFixed(1) + "%");
    table(s, ["stage", "layers", "first rank", "devices", "mesh", "latency / microbatch",
              "transfer", "memory"],
          c.stages.map((st) => ["stage " + st.stage, st.layers || "", st.first_rank,
                                st.devices, st.mesh || "-", fmtSeconds(st.latency_s),
                                fmtBytes(st.transfer_bytes), fmtBytes(st.memory_bytes)]));
    const gantt = d.gantt || {};
    if (gantt.error) { el("div", s, "schedule: " + gantt.error, { class: "error" }); return; }
    el("h3", s, "schedule (predicted)");
    const lanes = (gantt.positions || []).map((p) => {
      const events = [];
      let last = 0;
      for (const step of p.steps) {
        if (step.start_s > last + 1e-12)
          events.push({ name: "bubble", cat: "bubble", start: last, end: step.start_s });
        const compute = step.kind === "forward" || step.kind === "backward";
        const name = compute ? (step.kind === "forward" ? "F" : "B") + step.microbatch +
                                 " s" + step.stage
                             : step.kind + " mb " + step.microbatch;
        let cat = step.kind;
        if (!compute) cat = step.end_s > step.start_s ? "wait" : step.kind;
        events.push({ name: name, cat: cat, start: step.start_s,
                      end: Math.max(step.end_s, step.start_s),
                      tip: step.kind + " stage " + step.stage + " microbatch " +
                           step.microbatch + (step.peer >= 0 ? " peer stage " + step.peer : "") +
                           ": " + fmtSeconds(step.start_s) + " to " + fmtSeconds(step.end_s) });
        last = Math.max(last, step.end_s);
      }
      if (gantt.makespan_s > last + 1e-12)
        events.push({ name: "bubble", cat: "bubble", start: last, end: gantt.makespan_s });
      return { label: "ranks " + p.ranks.join(","), events: events };
    });
    drawTimeline(s, lanes, { cls: "timeline gantt" });
  }

  function drawPlan(d) {
    const c = d.cost || {};
    el("div", root, d.model + ": " + d.devices + " device(s), predicted " +
       fmtSeconds(c.latency_s) + " per step on profile '" + d.profile + "'",
       { class: "summary" });
    drawMesh(d);
    drawCost(d);
    drawAlternatives(d);
    drawValues(d);
    drawPipeline(d);
  }

  // --- The trace page -----------------------------------------------------

  function drawTrace(d) {
    const events = d.trace.traceEvents || [];
    const names = new Map(), threads = new Map();
    for (const e of events) {
      if (e.ph !== "M") continue;
      if (e.name === "process_name") names.set(e.pid, e.args.name);
      if (e.name === "thread_name") threads.set(e.pid + "/" + e.tid, e.args.name);
    }
    const lanes = new Map();
    const totals = new Map();
    for (const e of events) {
      if (e.ph !== "X") continue;
      const key = e.pid + "/" + e.tid;
      if (!lanes.has(key))
        lanes.set(key, { pid: e.pid, tid: e.tid,
                         label: (names.get(e.pid) || "rank " + e.pid) +
                                (e.tid ? " " + (threads.get(key) || "thread " + e.tid) : ""),
                         events: [] });
      const args = e.args || {};
      const detail = Object.entries(args).map(([k, v]) => k + ": " + v).join(", ");
      lanes.get(key).events.push({
        name: e.name, cat: e.cat, start: e.ts / 1e6, end: (e.ts + e.dur) / 1e6,
        tip: e.name + " (" + e.cat + "): " + fmtSeconds(e.dur / 1e6) +
             (detail ? "; " + detail : "") });
      if (!totals.has(e.pid)) totals.set(e.pid, { run: 0, wait: 0, idle: 0, collective: 0, kernel: 0 });
      const t = totals.get(e.pid);
      if (e.cat in t) t[e.cat] += e.dur / 1e6;
    }
    const other = d.trace.otherData || {};
    el("div", root, (other.artifact || "") + ": " + (other.ranks || names.size) +
       " rank(s); " + events.filter((e) => e.ph === "X").length + " spans",
       { class: "summary" });
    const s = section("Timeline",
        "per rank (and thread): runs, program calls, runtime kernels, " +
        "collectives, pipeline steps and messages; red: waiting for peers; " +
        "grey: idle inside a run. Hover for details.");
    const sorted = Array.from(lanes.values()).sort((a, b) => a.pid - b.pid || a.tid - b.tid);
    drawTimeline(s, sorted, { cls: "timeline trace" });
    const t = section("Per rank");
    table(t, ["rank", "in runs", "waiting for peers", "idle in runs", "in collectives",
              "in kernels"],
          Array.from(totals.entries()).sort((a, b) => a[0] - b[0]).map(([pid, v]) =>
              [names.get(pid) || "rank " + pid, fmtSeconds(v.run), fmtSeconds(v.wait),
               fmtSeconds(v.idle), fmtSeconds(v.collective), fmtSeconds(v.kernel)]));
  }

  try {
    const d = JSON.parse(document.getElementById("telar-data").textContent);
    if (d.kind === "plan") drawPlan(d);
    else if (d.kind === "trace") drawTrace(d);
    else throw new Error("unknown page kind '" + d.kind + "'");
    if (!document.title.startsWith("telar-error")) {
      document.title = "telar-ok: " + document.title;
      status.textContent = "";
    }
  } catch (e) {
    fail(e && e.message ? e.message : String(e));
  }
})();
