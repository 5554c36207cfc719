// The HTML profile's page (html_profile.h): markup, styles and the script that draws the data
// html_profile.cc puts in place of __DFC_PROFILE_DATA__. Plain DOM and a canvas, no library:
// the file must open offline.
namespace dfc::profiler {

extern const char kHtmlProfilePage[];

const char kHtmlProfilePage[] = R"page(<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>dfc profile</title>
<style>
  :root { --fg: #1d232b; --muted: #5d6875; --line: #d8dde3; --bg: #f6f7f9; --accent: #2f6fd0; }
  * { box-sizing: border-box; }
  body { margin: 0; font: 13px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif;
         color: var(--fg); background: var(--bg); }
  header, section { margin: 0 16px 14px; }
  header { padding-top: 12px; }
  h1 { font-size: 18px; margin: 0 0 8px; }
  h2 { font-size: 14px; margin: 0 0 6px; }
  .cards { display: flex; flex-wrap: wrap; gap: 8px; }
  .card { background: #fff; border: 1px solid var(--line); border-radius: 6px; padding: 6px 10px;
          min-width: 120px; }
  .card b { display: block; font-size: 16px; }
  .card span { color: var(--muted); font-size: 11px; text-transform: uppercase; }
  .notes { color: #8a5a00; margin-top: 6px; }
  .panel { background: #fff; border: 1px solid var(--line); border-radius: 6px; padding: 8px; }
  .toolbar { display: flex; flex-wrap: wrap; align-items: center; gap: 6px; margin-bottom: 6px; }
  .toolbar .spacer { flex: 1; }
  button { font: inherit; border: 1px solid var(--line); background: #fff; border-radius: 4px;
           padding: 2px 8px; cursor: pointer; }
  button:hover { border-color: var(--accent); }
  button.current { background: var(--accent); color: #fff; border-color: var(--accent); }
  #levels { font-weight: 600; }
  #levels a { color: var(--accent); cursor: pointer; text-decoration: none; }
  #steps { display: flex; flex-wrap: wrap; gap: 3px; align-items: center; }
  #window { color: var(--muted); font-variant-numeric: tabular-nums; }
  #timeline-wrap { position: relative; }
  #timeline { display: block; width: 100%; cursor: grab; }
  #timeline.dragging { cursor: grabbing; }
  #tooltip { position: absolute; pointer-events: none; background: rgba(29, 35, 43, .92);
             color: #fff; padding: 4px 7px; border-radius: 4px; font-size: 12px; display: none;
             white-space: nowrap; z-index: 2; }
  .legend { display: flex; gap: 14px; color: var(--muted); font-size: 12px; margin-top: 4px; }
  .swatch { display: inline-block; width: 12px; height: 10px; border-radius: 2px;
            vertical-align: -1px; margin-right: 4px; }
  .hint { color: var(--muted); font-size: 12px; }
  table { border-collapse: collapse; width: 100%; background: #fff; font-variant-numeric: tabular-nums; }
  th, td { text-align: right; padding: 3px 8px; border-bottom: 1px solid var(--line); }
  th:first-child, td:first-child, td.text { text-align: left; }
  th { position: sticky; top: 0; background: #eef1f4; cursor: pointer; user-select: none;
       white-space: nowrap; }
  th.asc::after { content: " \25B2"; font-size: 9px; }
  th.desc::after { content: " \25BC"; font-size: 9px; }
  tbody tr:hover { background: #f0f5ff; }
  tr.selected { background: #e2ecff; }
  .scroll { max-height: 360px; overflow: auto; border: 1px solid var(--line); border-radius: 6px; }
  .bar { display: inline-block; height: 9px; background: var(--accent); border-radius: 2px;
         vertical-align: middle; margin-right: 6px; }
  .nodes td:first-child { font-family: ui-monospace, Menlo, Consolas, monospace; }
  code { font-family: ui-monospace, Menlo, Consolas, monospace; }
</style>
</head>
<body>
<header>
  <h1 id="title">dfc profile</h1>
  <div id="summary" class="cards"></div>
  <div id="notes" class="notes"></div>
</header>
<section class="panel">
  <div class="toolbar">
    <span id="levels"></span>
    <span class="spacer"></span>
    <span id="window"></span>
    <button id="zoom-in" title="Zoom in (or the mouse wheel)">+</button>
    <button id="zoom-out" title="Zoom out">&minus;</button>
    <button id="whole-run">Whole run</button>
  </div>
  <div class="toolbar"><span class="hint">Steps:</span><span id="steps"></span></div>
  <div id="timeline-wrap"><canvas id="timeline"></canvas><div id="tooltip"></div></div>
  <div class="legend">
    <span><i class="swatch" style="background:#8fa9c9"></i>host span</span>
    <span><i class="swatch" style="background:hsl(200,62%,52%)"></i>kernel (a colour per cluster)</span>
    <span><i class="swatch" style="background:#b8a06a"></i>transfer</span>
    <span><i class="swatch" style="background:#f2d4d4"></i>device idle</span>
    <span class="hint">Wheel: zoom. Drag: pan. Click a span: zoom to it. Click a kernel: its graph nodes.</span>
  </div>
</section>
<section class="panel" id="details">
  <h2>Selection</h2>
  <div id="selection" class="hint">Click a kernel on the timeline or in the table to see the graph nodes fused into it.</div>
</section>
<section>
  <h2>Kernels</h2>
  <div class="scroll"><table id="kernel-table"></table></div>
</section>
<section>
  <h2>Graph nodes <span class="hint">(each kernel's time shared among its nodes by their estimated work)</span></h2>
  <div class="scroll"><table id="node-table"></table></div>
</section>
<section>
  <h2>Transfers and host spans</h2>
  <div class="scroll"><table id="other-table"></table></div>
</section>
<script type="application/json" id="dfc-data">__DFC_PROFILE_DATA__</script>
<script>
"use strict";
(function () {
  const data = JSON.parse(document.getElementById("dfc-data").textContent);
  const $ = (id) => document.getElementById(id);
  const el = (tag, attrs, ...children) => {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "class") e.className = v; else if (k === "text") e.textContent = v;
      else e.setAttribute(k, v);
    }
    for (const c of children) e.append(c);
    return e;
  };
  // Durations in microseconds, printed in the unit that suits them.
  const fmtUs = (us) => us >= 1e6 ? (us / 1e6).toFixed(3) + " s" : us >= 1e3 ?
      (us / 1e3).toFixed(3) + " ms" : us.toFixed(us >= 10 ? 1 : 2) + " \u00b5s";
  const fmtMs = (ms) => fmtUs(ms * 1e3);
  const fmtBytes = (b) => b >= 1 << 20 ? (b / (1 << 20)).toFixed(2) + " MiB" : b >= 1024 ?
      (b / 1024).toFixed(1) + " KiB" : b + " B";

  // ---- header -----------------------------------------------------------------------------
  document.title = data.title;
  $("title").textContent = data.title + (data.queues.length ? " \u2014 " + data.queues[0] : "");
  const s = data.report.summary;
  for (const [label, ms] of [["wall", s.wall_ms], ["host", s.host_ms], ["kernels", s.kernel_ms],
                             ["transfers", s.transfer_ms], ["device busy", s.device_busy_ms],
                             ["device idle", s.device_idle_ms]]) {
    $("summary").append(el("div", {class: "card"}, el("b", {text: fmtMs(ms)}),
                           el("span", {text: label})));
  }
  if (s.runs > 0) {
    $("summary").append(el("div", {class: "card"},
                           el("b", {text: fmtMs(s.run_overhead_ms / s.runs)}),
                           el("span", {text: "host overhead a run"})));
  }
  const notes = [...data.report.notes];
  if (data.capped) {
    notes.push(`The timeline shows the longest ${data.host.length + data.device.length} of ` +
               `${data.total_events} events; the tables count them all.`);
  }
  if (data.dropped) notes.push(`${data.dropped} events were not recorded (the profiler's cap).`);
  $("notes").textContent = notes.join(" ");

  // ---- timeline model ---------------------------------------------------------------------
  // Rows: each host thread's span depths, then each device queue's lanes.
  const rows = [];
  const items = [];
  data.threads.forEach((name, t) => {
    const spans = data.host.filter((e) => e.thread === t);
    const depth = spans.reduce((m, e) => Math.max(m, e.depth), -1);
    const first = rows.length;
    for (let d = 0; d <= depth; ++d) {
      rows.push({label: d === 0 ? "host: " + (name || "thread " + t) : "", host: true});
    }
    for (const e of spans) {
      items.push({kind: "span", row: first + e.depth, start: e.start, end: e.end, name: e.name,
                  event: e});
    }
  });
  data.queues.forEach((name, q) => {
    const events = data.device.filter((e) => e.queue === q).sort((a, b) => a.start - b.start);
    const laneEnds = [];
    const first = rows.length;
    const laneOf = events.map((e) => {
      let l = laneEnds.findIndex((end) => end <= e.start);
      if (l < 0) { l = laneEnds.length; laneEnds.push(0); }
      laneEnds[l] = e.end;
      return l;
    });
    for (let l = 0; l < Math.max(1, laneEnds.length); ++l) {
      rows.push({label: l === 0 ? "device queue " + q : "(overlap " + l + ")", host: false});
    }
    // The idle gaps: where no command of the queue runs, between its first and last.
    let busyUntil = events.length ? events[0].start : 0;
    events.forEach((e, k) => {
      if (e.start > busyUntil) {
        items.push({kind: "idle", row: first, start: busyUntil, end: e.start, name: "idle"});
      }
      busyUntil = Math.max(busyUntil, e.end);
      items.push({kind: e.kind, row: first + laneOf[k], start: e.start, end: e.end, name: e.name,
                  event: e});
    });
  });
  const full = items.length ? [Math.min(...items.map((i) => i.start)),
                               Math.max(...items.map((i) => i.end))] : [0, 1];
  if (full[1] <= full[0]) full[1] = full[0] + 1;

  const ROW = 20, AXIS = 22, LABEL = 150;
  const canvas = $("timeline"), ctx = canvas.getContext("2d");
  const view = {t0: full[0], t1: full[1]};
  let selected = null, hovered = null;
  let focus = null;  // the span the view was zoomed to, or null for the whole run

  const width = () => canvas.clientWidth;
  const xOf = (t) => LABEL + (t - view.t0) / (view.t1 - view.t0) * (width() - LABEL);
  const tOf = (x) => view.t0 + (x - LABEL) / (width() - LABEL) * (view.t1 - view.t0);
  const clusterHue = (c) => ((c < 0 ? 0 : c) * 47 + 200) % 360;
  const colour = (i) => i.kind === "kernel" ? `hsl(${clusterHue(i.event.cluster)},62%,52%)` :
      i.kind === "transfer" ? "#b8a06a" : i.kind === "idle" ? "#f2d4d4" :
      ["#8fa9c9", "#a4bad6", "#b8cae0", "#cad7ea", "#dae3f1"][Math.min(i.event.depth, 4)];

  function draw() {
    const dpr = window.devicePixelRatio || 1;
    const h = AXIS + rows.length * ROW + 4;
    canvas.style.height = h + "px";
    canvas.width = Math.round(width() * dpr);
    canvas.height = Math.round(h * dpr);
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, width(), h);
    ctx.font = "11px system-ui, sans-serif";
    ctx.textBaseline = "middle";
    // The time axis.
    const span = view.t1 - view.t0;
    const step = Math.pow(10, Math.floor(Math.log10(span / 6)));
    const tick = [1, 2, 5, 10].map((m) => m * step).find((t) => span / t <= 10);
    ctx.fillStyle = "#5d6875";
    ctx.strokeStyle = "#e6e9ed";
    for (let t = Math.ceil(view.t0 / tick) * tick; t <= view.t1; t += tick) {
      const x = xOf(t);
      ctx.beginPath(); ctx.moveTo(x, AXIS - 4); ctx.lineTo(x, h); ctx.stroke();
      ctx.fillText(fmtUs(t - full[0]), x + 2, AXIS / 2);
    }
    rows.forEach((r, k) => {
      const y = AXIS + k * ROW;
      ctx.fillStyle = r.host ? "#fafbfc" : "#f4f6f8";
      ctx.fillRect(0, y, LABEL - 4, ROW - 1);
      ctx.fillStyle = "#1d232b";
      ctx.fillText(r.label, 4, y + ROW / 2);
    });
    ctx.save();
    ctx.beginPath(); ctx.rect(LABEL, 0, width() - LABEL, h); ctx.clip();
    for (const i of items) {
      if (i.end < view.t0 || i.start > view.t1) continue;
      const x0 = xOf(i.start), x1 = xOf(i.end);
      const w = Math.max(1, x1 - x0), y = AXIS + i.row * ROW + 1;
      ctx.fillStyle = colour(i);
      ctx.fillRect(x0, y, w, ROW - 3);
      if (i === selected || i === hovered) {
        ctx.strokeStyle = i === selected ? "#1d232b" : "#2f6fd0";
        ctx.lineWidth = 2;
        ctx.strokeRect(x0 + 1, y + 1, Math.max(1, w - 2), ROW - 5);
        ctx.lineWidth = 1;
      }
      if (w > 40 && i.kind !== "idle") {
        ctx.fillStyle = "#10151b";
        const label = i.name.length * 6 > w - 6 ? i.name.slice(0, Math.max(1, (w - 6) / 6 - 1)) +
            "\u2026" : i.name;
        ctx.fillText(label, Math.max(x0, LABEL) + 3, y + (ROW - 3) / 2);
      }
    }
    ctx.restore();
    $("window").textContent = `${fmtUs(view.t0 - full[0])} \u2013 ${fmtUs(view.t1 - full[0])} ` +
        `(${fmtUs(view.t1 - view.t0)} shown)`;
    drawLevels();
  }

  // The item under (x, y) in canvas coordinates: the shortest, so a kernel wins over a gap.
  function hit(x, y) {
    if (x < LABEL) return null;
    const row = Math.floor((y - AXIS) / ROW), t = tOf(x);
    const slack = 2 * (view.t1 - view.t0) / (width() - LABEL);
    let best = null;
    for (const i of items) {
      if (i.row !== row || t < i.start - slack || t > i.end + slack) continue;
      if (!best || i.end - i.start < best.end - best.start) best = i;
    }
    return best;
  }

  function setView(t0, t1) {
    const min = 1e-3;
    if (t1 - t0 < min) { const c = (t0 + t1) / 2; t0 = c - min / 2; t1 = c + min / 2; }
    view.t0 = t0; view.t1 = t1;
    draw();
  }
  function zoom(factor, at) {
    const c = at === undefined ? (view.t0 + view.t1) / 2 : at;
    setView(c - (c - view.t0) * factor, c + (view.t1 - c) * factor);
  }
  // Zooms to a span with a margin of a twentieth each side: a level of the timeline.
  function zoomTo(i) {
    focus = i && i.kind === "span" ? i : null;
    if (!i) { setView(full[0], full[1]); return; }
    const pad = (i.end - i.start) / 20 || 1;
    setView(i.start - pad, i.end + pad);
  }

  // The levels: the whole run, then the spans that enclose the focus (a step, a run, a cluster).
  function ancestors(i) {
    if (!i) return [];
    return items.filter((a) => a.kind === "span" && a.event.thread === i.event.thread &&
        a.event.depth <= i.event.depth && a.start <= i.start && a.end >= i.end)
        .sort((a, b) => a.event.depth - b.event.depth);
  }
  function spanLabel(i) {
    if (i.name === "step") return "step " + (steps.indexOf(i) + 1);
    return i.name;
  }
  function drawLevels() {
    const levels = $("levels");
    levels.textContent = "";
    const whole = el("a", {text: "Whole run", "data-level": "run"});
    whole.onclick = () => zoomTo(null);
    levels.append(whole);
    for (const a of ancestors(focus)) {
      const link = el("a", {text: spanLabel(a), "data-level": a.name.split(" ")[0]});
      link.onclick = () => zoomTo(a);
      levels.append(" \u203a ", link);
    }
    document.querySelectorAll("#steps button").forEach((b, k) => {
      b.classList.toggle("current", ancestors(focus).includes(steps[k]));
    });
  }

  // ---- selection --------------------------------------------------------------------------
  function select(i) {
    selected = i;
    draw();
    const box = $("selection");
    box.textContent = "";
    box.className = "";
    if (!i) return;
    const d = i.end - i.start;
    if (i.kind === "kernel") {
      const e = i.event;
      box.append(el("p", {}, el("b", {text: e.name}), ` \u2014 cluster ${e.cluster}, ` +
          `${fmtUs(d)}, global size ${e.global.filter((g) => g > 0).join(" \u00d7 ")}, ` +
          `${fmtBytes(e.bytes)} moved, ${(e.flops / 1e6).toFixed(3)} MFLOP (estimated)`));
      const work = e.nodes.map((_, k) => (e.work && e.work.length === e.nodes.length ?
          e.work[k] : 1));
      const sum = work.reduce((a, b) => a + b, 0) || 1;
      const order = e.nodes.map((_, k) => k).sort((a, b) => work[b] - work[a]);
      const table = el("table", {class: "nodes", id: "selection-nodes"},
          el("thead", {}, el("tr", {}, el("th", {text: "Fused graph node"}),
              el("th", {text: "Share of the kernel (estimated)"}), el("th", {text: "Time"}))));
      const body = el("tbody");
      for (const k of order) {
        const share = work[k] / sum;
        body.append(el("tr", {}, el("td", {text: e.nodes[k]}),
            el("td", {}, el("span", {class: "bar", style: `width:${Math.round(share * 120)}px`}),
               (share * 100).toFixed(1) + " %"),
            el("td", {text: fmtUs(d * share)})));
      }
      table.append(body);
      box.append(el("p", {class: "hint", text: `${e.nodes.length} fused graph nodes:`}), table);
      document.querySelectorAll("#kernel-table tbody tr").forEach((r) => {
        r.classList.toggle("selected", r.dataset.name === e.name);
      });
    } else if (i.kind === "transfer") {
      box.append(el("p", {}, el("b", {text: i.name}), ` \u2014 ${i.event.direction}, ` +
          `${fmtBytes(i.event.bytes)} in ${fmtUs(d)}`));
    } else if (i.kind === "idle") {
      box.append(el("p", {text: `The device was idle for ${fmtUs(d)}.`}));
    } else {
      box.append(el("p", {}, el("b", {text: spanLabel(i)}), ` \u2014 host span, ${fmtUs(d)}`));
    }
  }

  // ---- interaction ------------------------------------------------------------------------
  const tooltip = $("tooltip");
  let drag = null;
  const local = (ev) => {
    const r = canvas.getBoundingClientRect();
    return [ev.clientX - r.left, ev.clientY - r.top];
  };
  canvas.addEventListener("wheel", (ev) => {
    ev.preventDefault();
    const [x] = local(ev);
    zoom(ev.deltaY > 0 ? 1.25 : 0.8, x >= LABEL ? tOf(x) : undefined);
  }, {passive: false});
  canvas.addEventListener("mousedown", (ev) => {
    drag = {x: local(ev)[0], t0: view.t0, t1: view.t1, moved: false};
    canvas.classList.add("dragging");
  });
  window.addEventListener("mousemove", (ev) => {
    const [x, y] = local(ev);
    if (drag) {
      const dt = (x - drag.x) / (width() - LABEL) * (drag.t1 - drag.t0);
      if (Math.abs(x - drag.x) > 3) drag.moved = true;
      if (drag.moved) setView(drag.t0 - dt, drag.t1 - dt);
      return;
    }
    const inside = ev.target === canvas;
    const i = inside ? hit(x, y) : null;
    if (i !== hovered) { hovered = i; draw(); }
    if (i) {
      tooltip.style.display = "block";
      tooltip.textContent = `${i.kind === "span" ? spanLabel(i) : i.name}: ${fmtUs(i.end - i.start)}` +
          (i.kind === "kernel" ? ` (${i.event.nodes.length} nodes)` : "");
      tooltip.style.left = Math.max(0, Math.min(x + 12, width() - tooltip.offsetWidth - 4)) + "px";
      // Below the pointer, or above it on the last rows, so that it never leaves the timeline.
      tooltip.style.top = (y + 40 > canvas.clientHeight ? y - 30 : y + 14) + "px";
    } else {
      tooltip.style.display = "none";
    }
  });
  window.addEventListener("mouseup", (ev) => {
    if (!drag) return;
    const moved = drag.moved;
    drag = null;
    canvas.classList.remove("dragging");
    if (moved || ev.target !== canvas) return;
    const [x, y] = local(ev);
    const i = hit(x, y);
    if (i && i.kind === "span") zoomTo(i);
    select(i);
  });
  $("zoom-in").onclick = () => zoom(0.5);
  $("zoom-out").onclick = () => zoom(2);
  $("whole-run").onclick = () => { zoomTo(null); select(null); };
  window.addEventListener("resize", draw);

  // The steps: the outermost spans named "step" (dfc profile's and the Python module's runs).
  const steps = items.filter((i) => i.kind === "span" && i.name === "step")
      .sort((a, b) => a.start - b.start);
  steps.forEach((st, k) => {
    const b = el("button", {text: String(k + 1), title: `step ${k + 1}: ${fmtUs(st.end - st.start)}`});
    b.onclick = () => { zoomTo(st); select(st); };
    $("steps").append(b);
  });
  if (!steps.length) $("steps").append(el("span", {class: "hint", text: "none recorded"}));

  // ---- tables -----------------------------------------------------------------------------
  // A table of `rows` with `columns` [title, value(row), format, css class]; a click on a header
  // sorts by it (numbers descending first, text ascending), a click on a row calls onRow.
  function table(id, columns, data, onRow) {
    const t = $(id);
    t.textContent = "";
    const head = el("tr");
    const body = el("tbody");
    let sortBy = -1, descending = true;
    const fill = () => {
      body.textContent = "";
      const sorted = [...data];
      if (sortBy >= 0) {
        const v = columns[sortBy][1];
        sorted.sort((a, b) => {
          const x = v(a), y = v(b);
          const c = typeof x === "number" ? x - y : String(x).localeCompare(String(y));
          return descending ? -c : c;
        });
      }
      for (const r of sorted) {
        const tr = el("tr", {"data-name": r.name});
        for (const [, v, f, cls] of columns) {
          tr.append(el("td", {text: f ? f(v(r)) : String(v(r)), class: cls || ""}));
        }
        if (onRow) { tr.style.cursor = "pointer"; tr.onclick = () => onRow(r); }
        body.append(tr);
      }
    };
    columns.forEach(([title, v], k) => {
      const th = el("th", {text: title, "data-column": String(k)});
      th.onclick = () => {
        descending = sortBy === k ? !descending : typeof v(data[0] || {}) === "number";
        sortBy = k;
        head.querySelectorAll("th").forEach((h) => h.className = "");
        th.className = descending ? "desc" : "asc";
        fill();
      };
      head.append(th);
    });
    t.append(el("thead", {}, head), body);
    fill();
  }
  const rowsOf = (category) => data.report.rows.filter((r) => r.category === category);
  const ms = (v) => fmtMs(v), pct = (v) => (v * 100).toFixed(1) + " %";
  const num = (v) => v ? v.toFixed(2) : "\u2013";
  table("kernel-table", [["Kernel", (r) => r.name], ["Calls", (r) => r.calls],
      ["Total", (r) => r.total_ms, ms], ["Ave", (r) => r.ave_ms, ms], ["Min", (r) => r.min_ms, ms],
      ["Max", (r) => r.max_ms, ms], ["Share", (r) => r.ratio, pct], ["GB/s", (r) => r.gbps, num],
      ["GFLOP/s", (r) => r.gflops, num], ["Nodes", (r) => r.nodes.length],
      ["Fused graph nodes", (r) => r.nodes.join(", "), null, "text"]],
      rowsOf("kernel"), (r) => {
        // The kernel's first launch inside the view, else its first anywhere.
        const launches = items.filter((i) => i.kind === "kernel" && i.name === r.name);
        const inView = launches.find((i) => i.end >= view.t0 && i.start <= view.t1);
        const i = inView || launches[0];
        if (!i) return;
        if (!inView) setView(i.start - (i.end - i.start) * 10, i.end + (i.end - i.start) * 10);
        select(i);
      });
  const kernelsOf = new Map();  // graph node -> the kernels it is fused into
  for (const e of data.device) {
    for (const n of e.nodes || []) {
      if (!kernelsOf.has(n)) kernelsOf.set(n, new Set());
      kernelsOf.get(n).add(e.name);
    }
  }
  table("node-table", [["Graph node", (r) => r.name], ["Calls", (r) => r.calls],
      ["Total", (r) => r.total_ms, ms], ["Ave", (r) => r.ave_ms, ms],
      ["Share", (r) => r.ratio, pct],
      ["In kernels", (r) => [...(kernelsOf.get(r.name) || [])].join(", "), null, "text"]],
      rowsOf("node"));
  table("other-table", [["Name", (r) => r.name], ["Kind", (r) => r.category, null, "text"],
      ["Calls", (r) => r.calls], ["Total", (r) => r.total_ms, ms], ["Ave", (r) => r.ave_ms, ms],
      ["Share", (r) => r.ratio, pct], ["GB/s", (r) => r.gbps, num]],
      data.report.rows.filter((r) => r.category === "transfer" || r.category === "span"));

  // For tests and scripts: the view, and where an item of a kind is drawn now (the centre of the
  // first one in view, in page coordinates), so that a browser test clicks what a person would.
  window.dfcProfile = {
    view, steps: steps.length, items: items.length,
    locate(kind, prefix) {
      const r = canvas.getBoundingClientRect();
      // Inside the span zoomed to before anything else the margin shows (a neighbouring step's
      // span), then the longest wholly in view, else the longest partly in view.
      const inFocus = (j) => !focus || (j.start >= focus.start && j.end <= focus.end) ? 1 : 0;
      const inside = (j) => j.start >= view.t0 && j.end <= view.t1 ? 1 : 0;
      const i = items.filter((j) => j.kind === kind && j.end >= view.t0 && j.start <= view.t1 &&
                                    (!prefix || j.name.startsWith(prefix)))
          .sort((a, b) => inFocus(b) - inFocus(a) || inside(b) - inside(a) ||
                          (b.end - b.start) - (a.end - a.start))[0];
      if (!i) return null;
      const x = (Math.max(xOf(i.start), LABEL) + Math.min(xOf(i.end), width())) / 2;
      return {x: r.left + x, y: r.top + AXIS + i.row * ROW + ROW / 2, name: i.name};
    },
  };
  draw();
})();
</script>
</body>
</html>
)page";

}  // namespace dfc::profiler
