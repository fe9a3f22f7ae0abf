// The status page of kupgrade watch: renders /status.json into the tables, then polls it every
// refreshMS (set by the page) and renders again, so the page follows the database without a
// reload. Everything is built with textContent: no value from the database becomes markup.
"use strict";

function age(s) {
  if (s < 60) return s + "s";
  const m = Math.floor(s / 60);
  if (m < 60) return m + "m" + (s % 60 ? " " + (s % 60) + "s" : "");
  const h = Math.floor(m / 60);
  if (h < 48) return h + "h" + (m % 60 ? " " + (m % 60) + "m" : "");
  return Math.floor(h / 24) + "d " + (h % 24) + "h";
}

function utc(t) {
  return t && !t.startsWith("0001-") ? t.replace(/\.\d+/, "") : "-";
}

function cell(tr, text, cls) {
  const td = document.createElement("td");
  td.textContent = text === undefined || text === "" ? "-" : text;
  if (cls) td.className = cls;
  tr.appendChild(td);
  return td;
}

function fill(id, rows, draw) {
  const body = document.querySelector("#" + id + " tbody");
  body.replaceChildren(...rows.map(r => { const tr = document.createElement("tr"); draw(tr, r); return tr; }));
}

const marks = {
  stuck: "IN FLIGHT, NOBODY'S LEASE",
  unretried: "FAILED, NOT RETRIED FOR OVER AN HOUR",
};

function clusterRow(tr, c) {
  tr.dataset.cluster = c.cluster;
  cell(tr, c.cluster);
  const st = cell(tr, c.state, c.class);
  if (c.mark) {
    const m = document.createElement("span");
    m.className = "mark";
    m.dataset.mark = c.mark;
    m.textContent = marks[c.mark] || c.mark;
    st.append(" ", m);
  }
  cell(tr, age(c.age_seconds) + " (since " + utc(c.state_entered_at) + ")");
  cell(tr, c.hop ? c.to_version + ' (' + c.hop + ')' : c.to_version);
  const h = cell(tr, c.host_statuses || c.host);
  if (c.failed_hosts) { // hosts left failed while the cluster goes on (a worker's kubelet): red
    if (!c.host_statuses && !c.host) h.textContent = "";
    h.append(el("span", "failed", "FAILED: " + c.failed_hosts));
  }
  cell(tr, c.lease || (c.class === "inflight" ? "nobody" : "-"));
  const f = cell(tr, c.error || c.last_failure, "failed");
  if (c.finding) {
    const p = document.createElement("div");
    p.className = "finding";
    p.textContent = "found: " + c.finding;
    f.appendChild(p);
  }
  const n = cell(tr, "");
  if (c.next) {
    const code = document.createElement("code");
    code.className = "next";
    code.textContent = c.next;
    n.replaceChildren(code);
  } else {
    n.textContent = c.lease_live ? "wait: the lease holder is working" : "-";
  }
}

function fleetRow(tr, f) {
  tr.dataset.fleet = f.fleet;
  const o = f.outcomes || {};
  cell(tr, f.fleet);
  cell(tr, String(f.total));
  cell(tr, String(o.done || 0));
  cell(tr, String(o.failed || 0), o.failed ? "failed" : "");
  cell(tr, String(o.pending || 0));
  cell(tr, String(f.claimed));
  cell(tr, Math.round(100 * f.progress) + "%");
  cell(tr, f.rate_per_minute.toFixed(1) + "/min");
  cell(tr, f.estimate_left_seconds > 0 ? "about " + age(Math.round(f.estimate_left_seconds)) : "-");
  cell(tr, (f.runners || []).length + " holding claims");
}

function renderFleets(fleets) {
  document.getElementById("fleets").hidden = fleets.length === 0;
  fill("fleet-table", fleets, fleetRow);
  const rows = [];
  for (const f of fleets) {
    for (const c of (f.failing || []).concat(f.stuck || [])) rows.push({ fleet: f.fleet, c: c });
  }
  fill("fleet-attention", rows, (tr, r) => {
    tr.dataset.cluster = r.c.cluster;
    cell(tr, r.fleet);
    cell(tr, r.c.cluster);
    cell(tr, r.c.state, "failed");
    cell(tr, r.c.why + (r.c.last_error ? ": " + r.c.last_error : ""));
  });
}

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

// timeline draws one cluster's steps as bars on a shared time axis: where each started, how
// long it took (or has run), and the reason of a failure beside its bar.
function timeline(c) {
  const t = c.timeline, bars = t.bars || [], box = el("div", "timeline");
  box.dataset.cluster = c.cluster;
  box.append(el("h3", "", c.cluster + ": " + c.state + (bars.length ? ", started " + utc(t.start) + ", " +
    age(t.seconds) : "") + (t.partial ? " (older steps not read)" : "")));
  const span = Math.max(t.seconds, 1);
  for (const b of bars) {
    const row = el("div", "tl-row " + b.outcome);
    Object.assign(row.dataset, { step: b.step, host: b.host || "", outcome: b.outcome });
    row.append(el("span", "tl-label", (b.hop ? "hop " + b.hop + " " : "") + b.step + (b.host ? " " + b.host : "")));
    const track = el("div", "tl-track"), bar = el("div", "tl-bar " + b.outcome);
    bar.style.left = (100 * b.offset_seconds / span) + "%";
    bar.style.width = Math.max(100 * b.seconds / span, 0.5) + "%";
    bar.title = utc(b.start) + ", " + age(b.seconds);
    track.append(bar);
    const what = b.outcome === "running" ? "running for " + age(b.seconds) : age(b.seconds) + (b.outcome === "failed" ? ", FAILED" : "");
    row.append(track, el("span", "tl-time", what + (b.reason ? ": " + b.reason : "")));
    box.append(row);
  }
  if (!bars.length) box.append(el("p", "tl-none", "No step recorded yet."));
  return box;
}

function renderTimelines(clusters) {
  const boxes = [];
  for (const c of clusters) {
    if (c.timeline) boxes.push(timeline(c));
    else if (c.timeline_error) boxes.push(el("p", "failed", c.cluster + ": " + c.timeline_error));
  }
  document.getElementById("timelines").replaceChildren(...boxes);
}

function render(s) {
  renderFleets(s.fleets || []);
  const last = s.last_pass;
  let sum = s.holding_audit_lock ? "Auditing: this watcher holds the audit lock. "
    : "Waiting: another watcher holds the audit lock. ";
  sum += last ? "Last pass at " + utc(last.at) + ", took " + last.took + ", " + last.in_flight +
    " in flight, " + last.actions + " actions." : "No pass yet.";
  if (s.last_pass_error) sum += " Last pass error: " + s.last_pass_error;
  document.getElementById("summary").textContent = sum;
  document.getElementById("clusters-title").textContent = "Clusters (" + s.total + ")";
  document.getElementById("more").textContent = s.more ? "and " + s.more + " more clusters." : "";
  fill("clusters", s.clusters || [], clusterRow);
  renderTimelines(s.clusters || []);
  fill("actions", s.audit_actions || [], (tr, a) => {
    [utc(a.time), a.cluster, a.host, a.from_state, a.to_state, a.outcome, a.msg].forEach(v => cell(tr, v));
  });
  fill("events", s.events || [], (tr, e) => {
    [utc(e.created_at), e.cluster, e.hostname, e.actor, e.from_state, e.to_state, e.reason].forEach(v => cell(tr, v));
  });
  document.getElementById("updated").textContent = "Read from the database at " + utc(s.now) + ".";
}

async function poll() {
  try {
    const r = await fetch("/status.json", { cache: "no-store" });
    if (!r.ok) throw new Error(r.status + " " + (await r.text()));
    render(await r.json());
  } catch (e) {
    document.getElementById("updated").textContent = "Cannot refresh: " + e.message;
  }
  setTimeout(poll, refreshMS);
}

try {
  render(JSON.parse(document.getElementById("status-data").textContent));
} finally {
  setTimeout(poll, refreshMS); // a page that failed to draw still tries again
}
