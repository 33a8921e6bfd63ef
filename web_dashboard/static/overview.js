// Venue overview on the hub: every table at a glance (levels, hand, points, infractions,
// camera health), polled from the page's data-api (the spectators' delayed view, or the
// organisers' live one). Each card links to the table's scoreboard on the hub (its URL uses
// the table's ASCII slug; the card shows the table's own name). While the hub's link to the
// broker is down, every table is "unknown since" then. The organisers' view also lists what
// the hub kept aside: conflicting events and refused (unsigned or forged) messages.

import { trumpBadge } from "./cards.js";
import { pollJson } from "./live.js";
import { initLang, lang, onLangChange, t } from "./i18n.js";

const POLL_MS = 1000;
const root = document.getElementById("overview");
const conn = document.getElementById("conn");
let last = null;

function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined) node.textContent = text;
  return node;
}

function setStatus(status) {
  conn.dataset.status = status;
  conn.className = `conn conn-${status}`;
  conn.textContent = t(`conn.${status}`);
}

/** HH:MM:SS of a Unix time, on this device's clock. */
function clock(epoch) {
  const d = new Date(epoch * 1000);
  return [d.getHours(), d.getMinutes(), d.getSeconds()].map((n) => String(n).padStart(2, "0")).join(":");
}

function fmt(x, digits = 1) {
  return typeof x === "number" ? x.toFixed(digits) : "–";
}

function cameraLine(cam) {
  const parts = [];
  if (cam.fps === null && cam.last_frame_age_s === null && cam.cpu_temp_c === null) {
    return [el("span", "muted", t("hub.noCamera"))];
  }
  if (cam.fps !== null) parts.push(el("span", "cam-fps", t("camera.fps", { fps: fmt(cam.fps) })));
  if (cam.last_frame_age_s !== null) {
    const stale = cam.last_frame_age_s > 5;
    parts.push(el("span", stale ? "cam-bad" : "cam-age", t("hub.frameAge", { s: fmt(cam.last_frame_age_s) })));
  }
  if (cam.cpu_temp_c !== null) {
    parts.push(el("span", cam.cpu_temp_c >= 75 ? "cam-bad" : "cam-temp", t("hub.temp", { c: fmt(cam.cpu_temp_c, 0) })));
  }
  if (cam.calibration_ok === false) {
    const drift = el("span", "cam-bad", t("camera.calib"));
    if (cam.drift) drift.title = cam.drift;
    parts.push(drift);
  } else if (cam.calibration_ok === true) {
    parts.push(el("span", "cam-ok", t("hub.calibOk")));
  }
  return parts;
}

function card(row) {
  const a = el("a", "tcard");
  const slug = row.slug || row.table;
  a.href = `${document.body.dataset.root || ""}/t/${encodeURIComponent(slug)}/`;
  a.id = `tc-${slug}`;
  a.dataset.table = row.table;
  const head = el("div", "tcard-head");
  head.appendChild(el("span", "tcard-name", row.table));
  const state = row.state || (row.online === true ? "online" : row.online === false ? "offline" : "unknown");
  const label = state === "unknown" && row.unknown_since
    ? t("hub.unknownSince", { time: clock(row.unknown_since) })
    : t(`hub.${state}`);
  const badge = el("span", `tcard-conn tcard-${state}`, label);
  badge.dataset.state = state;
  head.appendChild(badge);
  if (row.behind) head.appendChild(el("span", "tcard-behind", t("hub.behind", { n: row.behind })));
  const aside = row.set_aside;
  if (aside && aside.conflicts) head.appendChild(el("span", "tcard-conflicts cam-bad", t("hub.conflicts", { n: aside.conflicts })));
  if (aside && aside.rejected) head.appendChild(el("span", "tcard-rejected cam-bad", t("hub.rejected", { n: aside.rejected })));
  a.appendChild(head);

  const levels = el("div", "tcard-levels");
  for (const side of ["NS", "EW"]) {
    const box = el("span", `tcard-side${row.hand.declarer_side === side ? " declaring" : ""}`);
    box.appendChild(el("span", "tcard-side-name", t(`side.${side}`)));
    box.appendChild(el("span", "tcard-level", row.match.levels[side] ?? "–"));
    levels.appendChild(box);
  }
  a.appendChild(levels);

  const hand = el("div", "tcard-hand");
  const line = row.hand.finished
    ? t("hub.handDone", { hand: row.match.hand })
    : t("hub.handTrick", { hand: row.match.hand, trick: row.hand.trick });
  hand.appendChild(el("span", "tcard-progress", line));
  if (row.hand.trump) {
    const trump = el("span", "tcard-trump");
    trump.appendChild(trumpBadge(row.hand.trump, lang()));
    hand.appendChild(trump);
  }
  a.appendChild(hand);
  a.appendChild(el("div", "tcard-points", t("hub.points", { p: row.hand.defender_points ?? 0 })));

  const inf = el("div", "tcard-inf");
  if (row.infractions.open) inf.appendChild(el("span", "inf-open-badge", t("hub.open", { n: row.infractions.open })));
  if (row.infractions.confirmed) inf.appendChild(el("span", "inf-confirmed-badge", t("hub.confirmed", { n: row.infractions.confirmed })));
  if (!row.infractions.open && !row.infractions.confirmed) inf.appendChild(el("span", "muted", t("hub.noInfractions")));
  a.appendChild(inf);
  if (row.match.winner) a.appendChild(el("div", "tcard-winner", t("hub.matchWon", { side: t(`side.${row.match.winner}`) })));

  const cam = el("div", "tcard-cam");
  for (const part of cameraLine(row.camera)) cam.appendChild(part);
  a.appendChild(cam);
  return a;
}

function brief(event) {
  if (!event) return t("hub.nothingHeld");
  const data = JSON.stringify(event.data);
  return `${event.kind} · ${event.actor ?? "–"} · ${data.length > 120 ? `${data.slice(0, 117)}…` : data}`;
}

function setAsideItems(rows) {
  const items = [];
  for (const row of rows) {
    const aside = row.set_aside;
    if (!aside) continue;
    for (const c of [...aside.recent_conflicts, ...aside.recent_rejected].filter((x) => x.overflow)) {
      const li = el("li", "set-aside-item set-aside-overflow");
      li.dataset.table = row.table;
      li.appendChild(el("strong", "cam-bad", t("hub.moreAside", { table: row.table, n: c.times })));
      items.push([c.last_t, li]);
    }
    for (const c of aside.recent_conflicts.filter((x) => !x.overflow)) {
      const li = el("li", "set-aside-item set-aside-conflict");
      li.dataset.table = row.table;
      li.dataset.seq = c.seq;
      li.appendChild(el("strong", "cam-bad", t("hub.conflictItem", { table: row.table, seq: c.seq })));
      li.appendChild(el("div", "", `${t("hub.held")}: ${brief(c.held)}`));
      li.appendChild(el("div", "", `${t("hub.offered")}: ${brief(c.offered)}`));
      const seen = t("hub.seen", { n: c.times, time: clock(c.last_t) });
      li.appendChild(el("div", "muted", c.signed ? `${seen} · ${t("hub.signedCopy")}` : seen));
      items.push([c.last_t, li]);
    }
    for (const r of aside.recent_rejected.filter((x) => !x.overflow)) {
      const li = el("li", "set-aside-item set-aside-rejected");
      li.dataset.table = row.table;
      const reason = t(`hub.reason.${r.reason === "unsigned" ? "unsigned" : "forged"}`);
      li.appendChild(el("strong", "cam-bad", t("hub.rejectedItem", { table: row.table, topic: t(`hub.topic.${r.topic}`), reason })));
      li.appendChild(el("div", "muted", t("hub.seen", { n: r.times, time: clock(r.last_t) })));
      items.push([r.last_t, li]);
    }
  }
  return items.sort((x, y) => y[0] - x[0]).map(([, li]) => li);
}

function render(data) {
  last = data;
  const link = document.getElementById("link-note");
  const down = data.broker && !data.broker.connected;
  link.hidden = !down;
  link.textContent = down && data.broker.down_since ? t("hub.linkDown", { time: clock(data.broker.down_since) }) : "";
  const aside = document.getElementById("set-aside");
  if (aside) {
    const items = setAsideItems(data.tables);
    document.getElementById("set-aside-list").replaceChildren(...items);
    aside.hidden = !items.length;
  }
  const note = document.getElementById("delay-note");
  const live = root.dataset.live === "true";
  note.hidden = false;
  note.textContent = live ? t("hub.live") : data.delay_s > 0 ? t("hub.delay", { s: data.delay_s }) : "";
  note.hidden = !note.textContent;
  const grid = el("div", "tcards");
  if (!data.tables.length) grid.appendChild(el("p", "muted", t("hub.noTables")));
  for (const row of data.tables) grid.appendChild(card(row));
  root.replaceChildren(grid);
}

initLang();
onLangChange(() => last && render(last));
pollJson(root.dataset.api, POLL_MS, { onData: render, onStatus: setStatus });
