// Spectator scoreboard and stream overlay: renders /api/state (live from /api/stream) into the
// page. Both pages share the element ids; whatever a page lacks is skipped.

import { bids, drawNode, eventNode, outcomeNodes } from "./before_play.js";
import { cardRow, trumpBadge } from "./cards.js";
import { initLang, labelled, lang, onLangChange, t } from "./i18n.js";
import { serverNow, subscribe } from "./live.js";
import { isConfirmed, isOpen, penaltiesToDefenders, stepText } from "./score.js";

const SEATS = ["N", "E", "S", "W"];
const $ = (id) => document.getElementById(id);

let state = null;

function text(id, value) {
  const node = $(id);
  if (node) node.textContent = value;
  return node;
}

function seatName(seat) {
  return seat ? t(`seat.${seat}`) : "–";
}

function clear(node) {
  while (node.firstChild) node.removeChild(node.firstChild);
}

function renderLevels(st) {
  const levels = (st.match && st.match.levels) || {};
  const hand = st.hand;
  for (const side of ["NS", "EW"]) {
    text(`level-${side}`, levels[side] ?? "–");
    const declaring = hand && hand.declarer_side === side;
    const box = $(`side-${side}`);
    if (box) box.classList.toggle("declaring", Boolean(declaring));
    text(`tag-${side}`, declaring ? `${t("declarerSide")} · ${t("level")} ${hand.level ?? ""}` : "");
  }
}

function renderContract(st) {
  const hand = st.hand;
  text("declarer", hand && hand.declarer ? seatName(hand.declarer) : "–");
  const trump = $("trump");
  if (trump) {
    clear(trump);
    if (hand && hand.trump) {
      trump.appendChild(trumpBadge(hand.trump, lang()));
      if (hand.level) {
        const lvl = document.createElement("span");
        lvl.className = "trump-level";
        lvl.textContent = ` ${hand.level}`;
        trump.appendChild(lvl);
      }
    } else {
      trump.textContent = "–";
    }
  }
  text("rules", hand && hand.rules ? hand.rules : "–");
  const handNo = st.match && st.match.hand;
  text("hand-no", handNo ? t("hand", { n: handNo }) : t("noHand"));
  const trickNo = hand && hand.trick ? t("trick", { n: hand.trick }) : "";
  text("trick-no", trickNo);
  text("trick-h", trickNo || t("currentTrick"));
}

/** The 叫主 / 炒底 line: the draw, each declaration and 炒 in order, the kitty's holder, the
 * trump. */
function renderBeforePlay(st) {
  const line = $("before-play");
  const body = $("before-play-body");
  if (!line || !body) return;
  const events = st.hand && st.hand.before_play;
  const draw = drawNode(st.hand && st.hand.draw);
  line.hidden = !Array.isArray(events) && !draw;
  clear(body);
  if (draw) body.appendChild(draw);
  if (!Array.isArray(events)) return;
  if (draw) body.appendChild(document.createTextNode(" · "));
  const shown = bids(events);
  if (!shown.length) {
    const none = document.createElement("span");
    none.className = "bp-event muted";
    none.textContent = t("bp.none");
    body.appendChild(none);
  }
  shown.forEach((e, i) => {
    if (i) body.appendChild(document.createTextNode(" → "));
    body.appendChild(eventNode(e));
  });
  for (const node of outcomeNodes(events, st.hand.trump)) {
    body.appendChild(document.createTextNode(" · "));
    body.appendChild(node);
  }
}

function renderPoints(st) {
  const hand = st.hand || {};
  const base = hand.defender_points ?? 0;
  const pen = penaltiesToDefenders(st);
  text("defender-points", String(base + pen));
  const extra = $("points-extra");
  if (extra) {
    extra.hidden = pen === 0;
    extra.textContent =
      pen === 0 ? "" : `${t("cardPoints")} ${base} · ${t("penalties")} ${pen > 0 ? "+" : ""}${pen}`;
  }
  const pc = $("point-cards");
  if (pc) {
    clear(pc);
    const cards = hand.point_cards || [];
    if (cards.length) pc.appendChild(cardRow(cards, { size: "sm", lang: lang() }));
    else {
      const none = document.createElement("span");
      none.className = "muted";
      none.textContent = t("noPointCards");
      pc.appendChild(none);
    }
  }
  const kitty = $("kitty-line");
  if (kitty) {
    const k = hand.kitty;
    kitty.hidden = !k;
    clear(kitty);
    if (k) {
      const label = document.createElement("span");
      label.textContent = labelled("kitty");
      kitty.appendChild(label);
      if (k.cards && k.cards.length) kitty.appendChild(cardRow(k.cards, { size: "sm", lang: lang() }));
      else kitty.append(t("kitty.unknown"));
      if (k.multiplier) kitty.append(` · ${t("kitty.multiplier", { m: k.multiplier })}`);
    }
  }
}

function renderTrick(st) {
  const hand = st.hand || {};
  // after the last trick the table still shows it
  const last = (hand.tricks || [])[(hand.tricks || []).length - 1];
  const trick = hand.current_trick || (hand.finished && last ? { ...last, to_play: null } : null);
  const plays = new Map();
  for (const p of (trick && trick.plays) || []) plays.set(p.seat, p);
  for (const seat of SEATS) {
    const box = $(`seat-${seat}`);
    if (!box) continue;
    const cards = box.querySelector(".seat-cards");
    const tags = box.querySelector(".seat-tags");
    clear(cards);
    const play = plays.get(seat);
    if (play) cards.appendChild(cardRow(play.cards, { size: "md", lang: lang() }));
    const tagList = [];
    if (trick && trick.leader === seat) tagList.push(t("lead"));
    if (trick && trick.to_play === seat && !hand.finished) tagList.push(t("toPlay"));
    if (hand.declarer === seat) tagList.push(t("declarer"));
    tags.textContent = tagList.join(" · ");
    box.classList.toggle("to-play", Boolean(trick && trick.to_play === seat && !hand.finished));
    box.classList.toggle("has-play", Boolean(play));
  }
  const centre = $("felt-centre");
  if (centre) {
    if (!st.hand) centre.textContent = t("noHand");
    else if (hand.finished) centre.textContent = t("finished");
    else if (trick && trick.to_play) centre.textContent = `${t("toPlay")} ${seatName(trick.to_play)}`;
    else centre.textContent = hand.trick ? t("trick", { n: hand.trick }) : "";
  }
  const res = $("result-line");
  if (res) {
    const r = hand.result;
    res.hidden = !r;
    if (r) {
      const steps = Array.isArray(r.steps) ? r.steps.map(stepText) : [];
      const lines = Array.isArray(r.explanation) ? r.explanation : [];
      const text =
        steps.length && steps.every((x) => x !== null)
          ? steps.join(t("step.sep"))
          : lines.map((l) => pickLang(String(l))).join(t("step.sep"));
      res.textContent = labelled("result", text || JSON.stringify(r));
    }
  }
  renderClocks();
}

/** The engine's explanation lines read "中文 (English)"; the part in the page language (for a
 * result without `steps`). */
export function pickLang(line, language = lang()) {
  const text = line.trim();
  if (!text.endsWith(")")) return text;
  let depth = 0;
  for (let i = text.length - 1; i >= 0; i--) {
    if (text[i] === ")") depth++;
    else if (text[i] === "(" && --depth === 0) {
      if (i === 0) return text;
      return language === "en" ? text.slice(i + 1, -1) : text.slice(0, i).trim();
    }
  }
  return text;
}

/**
 * Each seat's play clock from hand.clock, against the server's clock: the time since the last
 * play up to `until` (where the clock stops: the hand idle, or the camera's frames stopped);
 * red and 超时 when over the limit, marked when stopped. No clock before the hand's first play.
 */
function renderClocks() {
  const clock = state && state.hand ? state.hand.clock : null;
  for (const seat of SEATS) {
    const box = $(`seat-${seat}`);
    if (!box) continue;
    const node = box.querySelector(".clock");
    if (!clock || clock.seat !== seat || state.hand.finished) {
      node.textContent = "";
      node.className = "clock";
      box.classList.remove("over-time");
      continue;
    }
    const now = serverNow();
    const until = typeof clock.until === "number" ? clock.until : Infinity;
    const stopped = clock.stopped === true || now >= until;
    const elapsed = Math.max(0, (stopped ? until : now) - clock.since);
    const mark = stopped ? ` · ${t("clock.stopped")}` : "";
    if (typeof clock.limit_s !== "number") {
      // a profile without a play clock: show the time taken, never "over"
      node.textContent = t("clock.used", { s: Math.floor(elapsed) }) + mark;
      node.className = stopped ? "clock clock-stopped" : "clock clock-running";
      box.classList.remove("over-time");
      continue;
    }
    const left = clock.limit_s - elapsed;
    const over = left < 0;
    let text = t("clock.left", { s: Math.ceil(left) });
    if (over) text = t("clock.over", { s: Math.floor(-left) });
    else if (stopped) text = t("clock.used", { s: Math.floor(elapsed) });
    node.textContent = text + mark;
    const pace = over ? "clock-over" : stopped ? "" : left <= 5 ? "clock-low" : "clock-running";
    node.className = ["clock", pace, stopped ? "clock-stopped" : ""].filter(Boolean).join(" ");
    box.classList.toggle("over-time", over);
  }
}

function infractionLine(inf) {
  const where = inf.trick ? t("inf.trick", { n: inf.trick }) : t("inf.kitty");
  const kind = t(`kind.${inf.kind}`);
  const parts = [seatName(inf.seat), where, kind === `kind.${inf.kind}` ? inf.kind : kind];
  if (inf.penalty) parts.push(t("inf.penalty", { p: inf.penalty }));
  return parts.join(" · ");
}

function renderInfractions(st) {
  const box = $("infractions");
  if (!box) return;
  clear(box);
  const shown = (st.infractions || []).filter((i) => isOpen(i) || isConfirmed(i));
  box.hidden = shown.length === 0;
  for (const inf of shown) {
    const row = document.createElement("p");
    const confirmed = isConfirmed(inf);
    row.className = `infraction ${confirmed ? "inf-confirmed" : "inf-open"}`;
    row.dataset.id = inf.id;
    const badge = document.createElement("strong");
    badge.className = "inf-badge";
    badge.textContent = `${confirmed ? "✖" : "⚠"} ${t(confirmed ? "inf.confirmed" : "inf.open")}`;
    const body = document.createElement("span");
    body.textContent = ` ${infractionLine(inf)}`;
    row.append(badge, body);
    box.appendChild(row);
  }
}

function renderHistory(st) {
  const list = $("history");
  if (!list) return;
  clear(list);
  const tricks = (st.hand && st.hand.tricks) || [];
  if (!tricks.length) {
    const li = document.createElement("li");
    li.className = "muted none";
    li.textContent = t("history.none");
    list.appendChild(li);
    return;
  }
  for (const tr of [...tricks].reverse()) {
    const li = document.createElement("li");
    li.className = "trick-row";
    li.value = tr.number;
    const head = document.createElement("div");
    head.className = "trick-head";
    const num = document.createElement("b");
    num.textContent = t("trick", { n: tr.number });
    head.appendChild(num);
    const won = document.createElement("span");
    won.textContent = tr.winner ? ` ${t("history.won", { seat: seatName(tr.winner) })}` : "";
    head.appendChild(won);
    if (tr.points) {
      const pts = document.createElement("span");
      pts.className = "trick-points";
      pts.textContent = ` +${tr.points} ${t("history.points")}`;
      head.appendChild(pts);
    }
    li.appendChild(head);
    const plays = document.createElement("div");
    plays.className = "trick-plays";
    for (const p of tr.plays || []) {
      const one = document.createElement("span");
      one.className = `trick-play${p.seat === tr.winner ? " winner" : ""}`;
      const who = document.createElement("span");
      who.className = "who";
      who.textContent = seatName(p.seat);
      one.append(who, cardRow(p.cards, { size: "xs", lang: lang() }));
      plays.appendChild(one);
    }
    li.appendChild(plays);
    list.appendChild(li);
  }
}

const SVG_NS = "http://www.w3.org/2000/svg";
function svg(name, attrs = {}, content = null) {
  const n = document.createElementNS(SVG_NS, name);
  for (const [k, v] of Object.entries(attrs)) n.setAttribute(k, String(v));
  if (content !== null) n.textContent = content;
  return n;
}

/** Bars: the defenders' points of each trick; line: their running total; dashed: 80. */
function renderChart(st) {
  const box = $("chart");
  if (!box) return;
  clear(box);
  const pts = (st.hand && st.hand.points_by_trick) || [];
  const W = 320;
  const H = 150;
  const L = 28;
  const B = 18;
  const T = 8;
  const R = 8;
  let run = 0;
  const cum = pts.map((p) => (run += p));
  const max = Math.max(100, ...cum, ...pts);
  const n = Math.max(pts.length, 8);
  const bw = (W - L - R) / n;
  const y = (v) => T + (H - T - B) * (1 - v / max);
  const chart = svg("svg", {
    viewBox: `0 0 ${W} ${H}`,
    class: "chart-svg",
    role: "img",
    "aria-label": `${t("chart.label")}: ${pts.join(", ") || t("chart.none")}`,
  });
  chart.appendChild(svg("title", {}, t("chart.label")));
  for (const v of [0, 40, 80, max]) {
    if (v > max) continue;
    chart.appendChild(svg("line", { x1: L, x2: W - R, y1: y(v), y2: y(v), class: v === 80 ? "grid grid-80" : "grid" }));
    chart.appendChild(svg("text", { x: L - 4, y: y(v) + 4, "text-anchor": "end", class: "axis" }, String(v)));
  }
  pts.forEach((p, i) => {
    const x = L + i * bw;
    if (p > 0) {
      chart.appendChild(svg("rect", { x: x + bw * 0.15, y: y(p), width: bw * 0.7, height: y(0) - y(p), class: "bar" }));
      chart.appendChild(svg("text", { x: x + bw / 2, y: y(p) - 3, "text-anchor": "middle", class: "bar-label" }, String(p)));
    }
    if (n <= 26 || (i + 1) % 5 === 0) {
      chart.appendChild(svg("text", { x: x + bw / 2, y: H - 5, "text-anchor": "middle", class: "axis" }, String(i + 1)));
    }
  });
  if (cum.length) {
    const d = cum.map((v, i) => `${i ? "L" : "M"}${(L + i * bw + bw / 2).toFixed(1)},${y(v).toFixed(1)}`).join(" ");
    chart.appendChild(svg("path", { d, class: "cum-line", fill: "none" }));
    const last = cum.length - 1;
    chart.appendChild(svg("circle", { cx: L + last * bw + bw / 2, cy: y(cum[last]), r: 3, class: "cum-dot" }));
  }
  box.appendChild(chart);
}

function renderCamera(st) {
  const node = $("camera");
  if (!node) return;
  const cam = st.camera;
  if (!cam || (cam.fps == null && cam.last_frame_age_s == null && cam.calibration_ok == null)) {
    node.textContent = "";
    return;
  }
  const parts = [t("camera")];
  if (typeof cam.fps === "number") parts.push(t("camera.fps", { fps: cam.fps.toFixed(1) }));
  if (typeof cam.last_frame_age_s === "number" && cam.last_frame_age_s > 2) {
    parts.push(t("camera.stale", { s: Math.round(cam.last_frame_age_s) }));
  }
  if (cam.calibration_ok === false) parts.push(t("camera.calib"));
  node.textContent = parts.join(" · ");
}

function render() {
  if (!state) return;
  renderLevels(state);
  renderContract(state);
  renderBeforePlay(state);
  renderPoints(state);
  renderTrick(state);
  renderInfractions(state);
  renderHistory(state);
  renderChart(state);
  renderCamera(state);
  document.body.dataset.seq = String(state.seq ?? "");
}

function showStatus(status) {
  const node = $("conn");
  if (!node) return;
  node.className = `conn conn-${status}`;
  node.textContent = t(`conn.${status}`);
  node.dataset.status = status;
}

initLang();
onLangChange(() => {
  render();
  const conn = $("conn");
  if (conn && conn.dataset.status) showStatus(conn.dataset.status);
});
subscribe({
  onState(s) {
    state = s;
    render();
  },
  onStatus: showStatus,
});
window.setInterval(renderClocks, 250);
