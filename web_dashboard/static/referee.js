// Referee console: decides infractions, corrects plays, enters what the camera cannot see (the
// contract, the kitty, the draw phase, 查牌) and moves the match on. Every POST carries the X-CSRF-Token from <meta name="csrf-token">;
// 401 shows the sign-in link, errors are shown next to the form that caused them.

import { drawNode, eventNode, outcomeNodes } from "./before_play.js";
import { cardRow, cardShort, parseCardList, trumpBadge } from "./cards.js";
import { initLang, labelled, lang, onLangChange, t } from "./i18n.js";
import { apiPath, subscribe } from "./live.js";
import { penaltiesToDefenders } from "./score.js";

const $ = (id) => document.getElementById(id);
const SEATS = ["N", "E", "S", "W"];
const csrf = document.querySelector('meta[name="csrf-token"]')?.getAttribute("content") || "";

let pub = null; // last spectator state (live)
let ref = null; // last referee state
let queueKey = "";
// Each infraction's list item, kept while what it shows is unchanged: a referee's click on one
// must not be lost to another arriving (a rebuilt item under the pointer swallows the click).
const queueItems = new Map(); // id -> { key, node }

function clear(node) {
  while (node.firstChild) node.removeChild(node.firstChild);
}

function seatName(seat) {
  return seat ? t(`seat.${seat}`) : "–";
}

function say(id, message, ok) {
  const node = $(id);
  if (!node) return;
  node.textContent = message;
  node.className = `msg ${message ? (ok ? "msg-ok" : "msg-error") : ""}`;
}

let authLost = 0; // how many 401s so far: a reply to a request sent before one cannot clear it

function showAuthNotice(show) {
  const n = $("auth-notice");
  if (n) n.hidden = !show;
}

function sessionLost() {
  authLost += 1;
  showAuthNotice(true);
}

/** POST JSON to a referee endpoint: {ok, seq} or {ok: false, error} (never throws). */
async function post(path, body = {}) {
  let res;
  try {
    res = await fetch(apiPath(path), {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf },
      body: JSON.stringify(body),
    });
  } catch (err) {
    return { ok: false, error: String(err.message || err) };
  }
  if (res.status === 401) {
    sessionLost();
    return { ok: false, error: t("ref.expired"), status: 401 };
  }
  let data = null;
  try {
    data = await res.json();
  } catch {
    data = null;
  }
  if (res.status === 403) return { ok: false, error: (data && data.error) || t("ref.forbidden"), status: 403 };
  if (!res.ok || !data || data.ok === false) {
    return { ok: false, error: (data && data.error) || `HTTP ${res.status}`, status: res.status };
  }
  return data;
}

/** Posts, reports in the message line `msgId`, refreshes the referee state on success. */
async function act(path, body, msgId) {
  const out = await post(path, body);
  if (out.ok) say(msgId, t("ref.saved", { seq: out.seq ?? "" }), true);
  else say(msgId, t("ref.error", { e: out.error }), false);
  if (out.ok) loadReferee();
  return out;
}

async function loadReferee() {
  let res;
  const lostBefore = authLost;
  try {
    res = await fetch(apiPath("/api/referee/state"), { cache: "no-store", credentials: "same-origin" });
  } catch {
    return;
  }
  if (res.status === 401) {
    sessionLost();
    return;
  }
  if (!res.ok) return;
  // Sent before the session was found gone (and answered after): it says nothing of now.
  if (authLost === lostBefore) showAuthNotice(false);
  ref = await res.json();
  renderReferee();
}

// ---------------------------------------------------------------- infraction queue

function statusLabel(status) {
  if (status === "confirmed" || status === "confirm") return t("inf.confirmed");
  if (status === "dismissed" || status === "dismiss") return t("inf.dismissed");
  return t("inf.open");
}

// One click settles a misread: the play corrected to the camera's runner-up read.
function fixButton(trick, seat, card, maybe, cards, msgId) {
  const fix = document.createElement("button");
  fix.type = "button";
  fix.className = "btn-fix";
  fix.textContent = t("ref.fixAs", { seat: seatName(seat), n: trick, card, maybe });
  fix.addEventListener("click", async () => {
    fix.disabled = true;
    const out = await act("/api/referee/correction", { trick, seat, cards }, msgId);
    if (!out.ok) fix.disabled = false;
  });
  return fix;
}

// A button that fills a card input with what the camera read, for the referee to finish.
function fillButton(inputId, cards, label, before = () => {}) {
  const fill = document.createElement("button");
  fill.type = "button";
  fill.className = "btn-edit";
  fill.textContent = label;
  fill.addEventListener("click", () => {
    before();
    const input = $(inputId);
    input.value = (cards || []).join(" ");
    input.dispatchEvent(new Event("input"));
    input.scrollIntoView({ block: "center" });
    input.focus();
  });
  return fill;
}

// Any other reading: the correction form filled with the play as recorded, to edit.
function editButton(trick, seat, cards) {
  return fillButton("corr-cards", cards, t("ref.editPlay", { seat: seatName(seat), n: trick }), () => {
    $("corr-trick").value = String(trick);
    $("corr-seat").value = seat;
  });
}

// ---------------------------------------------------------------- proofs, from the engine's data

function cardsText(cards) {
  return (cards || []).map((c) => cardShort(c, lang())).join(" ");
}

function placeText(p) {
  if (p.where === "kitty") return t("proof.place.kitty");
  if (p.where === "hand") return t("proof.place.hand", { seat: seatName(p.seat) });
  return t("proof.place.trick", { trick: p.trick, seat: seatName(p.seat) });
}

function followText(d, common) {
  const suit = t(`suit.${d.suit}`);
  const what = t(`proof.follow.${d.obligation}`, { needed: d.needed, suit });
  const why =
    d.basis === "hand"
      ? t("proof.follow.hand", { held: d.held, unit: t(`proof.follow.unit.${d.obligation}`), suit })
      : t("proof.follow.later", { later: cardsText(d.later_cards), found: d.found_at, trick: d.trick });
  const verdict = t(`proof.follow.${d.verdict}`, { delay: d.delay, after: d.hidden_after });
  return t("proof.follow", {
    ...common,
    lead_seat: seatName(d.lead_seat),
    lead_cards: cardsText(d.lead_cards),
    what,
    why,
    verdict,
  });
}

function throwText(d, common) {
  const unit = t(`proof.throw.${d.unit}`, { n: d.unit_pairs });
  const forced =
    d.forced && d.forced.join() !== (d.cards || []).join()
      ? t("proof.throw.forced", { forced: cardsText(d.forced) })
      : "";
  const concealed = d.concealed_by
    ? t("proof.throw.concealed", { partner: seatName(d.concealed_by), cards: cardsText(d.concealed_cards) })
    : "";
  return (
    t("proof.throw", {
      ...common,
      by: seatName(d.by),
      beaten_by: cardsText(d.beaten_by),
      where: t(`proof.throw.${d.basis}`, { found: d.found_at }),
      unit,
      unit_cards: cardsText(d.unit_cards),
    }) +
    forced +
    concealed
  );
}

/**
 * The sentence of an infraction's proof in the page language, rendered from the engine's
 * `proof_data` (its kind and facts); null for a kind this page does not know.
 */
export function proofSentence(d) {
  if (!d || !d.kind) return null;
  const common = {
    trick: d.trick,
    seat: seatName(d.seat),
    cards: cardsText(d.cards),
    took: d.took_s,
    limit: d.limit_s,
    from: d.from_s,
    at: d.at_s,
    played: d.played,
    expected: d.expected,
    held: d.held,
    count: d.count,
    size: d.kitty_size,
    copies: d.copies,
    card: d.card ? cardShort(d.card, lang()) : "",
    // before play (engine/preplay): a seat the rule expected, trumps, and the case within a kind
    other: d.other ? seatName(d.other) : "",
    trump: d.trump ? t(`suit.${d.trump}`) : "",
    expected_trump: d.expected_trump ? t(`suit.${d.expected_trump}`) : "",
    reason: d.reason ? t(`proof.reason.${d.reason}`, { other: d.other ? seatName(d.other) : "", level: d.level }) : "",
  };
  switch (d.kind) {
    case "follow":
      return followText(d, common);
    case "throw":
      return throwText(d, common);
    case "card_check":
      return t("proof.card_check", {
        ...common,
        checked: seatName(d.checked),
        side: t(`side.${d.side}`),
        cost: d.penalty
          ? t("proof.card_check.penalty", { penalty: d.penalty })
          : t("proof.card_check.free", { free: d.free }),
      });
    case "out_of_turn":
      return t("proof.out_of_turn", {
        ...common,
        upstream: seatName(d.upstream),
        leader: seatName(d.leader),
        order: (d.order || []).map(seatName).join("→"),
      });
    case "no_play":
      return t("proof.no_play", { ...common, next: d.trick + 1 });
    case "play_count":
      return t("proof.play_count", {
        ...common,
        by: t(`proof.play_count.${d.by}`),
        lead_seat: seatName(d.lead_seat),
        lead_count: d.lead_count,
      });
    case "play_time":
      return t("proof.play_time", { ...common, after: t(`proof.play_time.${d.after}`) });
    case "third_copy":
    case "copies":
      return t(`proof.${d.kind}`, { ...common, places: (d.places || []).map(placeText).join(t("list.sep")) });
    default: {
      const key = `proof.${d.kind}`;
      const text = t(key, common);
      return text === key ? null : text;
    }
  }
}

// ---------------------------------------------------------------- infraction lists

/** "王" for the log's actor "referee:王"; a referee who gave no name is 未署名. */
function refereeName(actor) {
  if (!actor) return t("ref.unnamed");
  const name = String(actor).replace(/^referee:/, "");
  return name || t("ref.unnamed");
}

/** A Unix time as the local clock time, e.g. 14:03:22. */
function clockTime(ts) {
  if (typeof ts !== "number") return "–";
  return new Date(ts * 1000).toLocaleTimeString(lang() === "en" ? "en-GB" : "zh-CN", { hour12: false });
}

function infractionItem(inf, isOpen, notes) {
  const item = document.createElement("li");
  const decidedClass = inf.status && inf.status.startsWith("confirm") ? "confirmed" : "dismissed";
  item.className = `queue-item${isOpen ? "" : ` decided-${decidedClass}`}`;
  item.dataset.id = inf.id;
  const h = document.createElement("h3");
  const kind = t(`kind.${inf.kind}`);
  const where = inf.trick ? t("inf.trick", { n: inf.trick }) : t("inf.kitty");
  h.textContent = [
    `[${statusLabel(inf.status)}]`,
    seatName(inf.seat),
    where,
    kind.startsWith("kind.") ? inf.kind : kind,
    inf.penalty ? t("inf.penalty", { p: inf.penalty }) : "",
  ]
    .filter(Boolean)
    .join(" · ");
  item.appendChild(h);
  if (!isOpen) {
    const line = document.createElement("p");
    line.className = "decision-line";
    const parts = [
      ["decision", t("ref.decision", { d: t(`ref.decision.${decidedClass === "confirmed" ? "confirm" : "dismiss"}`) })],
      ["decided-by", t("ref.by", { name: refereeName(inf.decided_by) })],
      ["decided-at", t("ref.at", { time: clockTime(inf.decided_at) })],
    ];
    for (const [cls, text] of parts) {
      const span = document.createElement("span");
      span.className = cls;
      span.textContent = text;
      line.appendChild(span);
    }
    item.appendChild(line);
    if (inf.note) {
      const note = document.createElement("p");
      note.className = "decided-note";
      note.textContent = t("ref.noteIs", { note: inf.note });
      item.appendChild(note);
    }
  }
  if (inf.unsure_reads && inf.unsure_reads.length) {
    const reads = inf.unsure_reads
      .map((r) => {
        const where =
          r.trick > 0
            ? [seatName(r.seat), t("inf.trick", { n: r.trick })]
            : r.trick < 0 // the draw phase: corrected in the 牌前 editor
              ? [seatName(r.seat), t("inf.beforePlay")]
              : [t("inf.kitty")];
        if (r.maybe) where.push(t("ref.maybe", { card: r.maybe }));
        return `${r.card ?? t("ref.unread")} (${where.join(" · ")})`;
      })
      .join(", ");
    const check = document.createElement("p");
    check.className = "to-check";
    check.textContent = t(isOpen ? "ref.toCheck" : "ref.checked", { reads });
    item.appendChild(check);
    if (isOpen) {
      for (const r of inf.unsure_reads) {
        if (r.trick < 0) continue;
        if (!r.trick) {  // a kitty card: the kitty form, filled with the runner-up's reading
          item.appendChild(fillButton("kitty-cards", r.fix || r.play, t("ref.enterKitty")));
          continue;
        }
        if (r.fix) item.appendChild(fixButton(r.trick, r.seat, r.card, r.maybe, r.fix, "queue-msg"));
        item.appendChild(editButton(r.trick, r.seat, r.play));
      }
    }
  }
  if (inf.cards && inf.cards.length) item.appendChild(cardRow(inf.cards, { size: "sm", lang: lang() }));
  const sentence = proofSentence(inf.proof_data) ?? inf.proof;
  if (sentence) {
    const label = document.createElement("div");
    label.className = "help";
    label.textContent = t("ref.proof");
    const proof = document.createElement("p");
    proof.className = "proof";
    proof.textContent = sentence;
    item.append(label, proof);
  }
  if (inf.evidence && inf.evidence.length) {
    const ev = document.createElement("div");
    ev.className = "evidence";
    inf.evidence.forEach((url, i) => {
      const a = document.createElement("a");
      a.href = url;
      a.target = "_blank";
      a.rel = "noopener";
      const img = document.createElement("img");
      img.src = url;
      img.loading = "lazy";
      img.alt = `${t("ref.evidence")} ${i + 1}`;
      a.appendChild(img);
      ev.appendChild(a);
    });
    item.appendChild(ev);
  }
  if (isOpen) {
    const actions = document.createElement("div");
    actions.className = "actions";
    const noteLabel = document.createElement("label");
    noteLabel.className = "field";
    const noteText = document.createElement("span");
    noteText.textContent = t("ref.note");
    const note = document.createElement("input");
    note.type = "text";
    note.dataset.noteFor = inf.id;
    note.value = notes.get(inf.id) || "";
    noteLabel.append(noteText, note);
    const confirm = document.createElement("button");
    confirm.type = "button";
    confirm.className = "btn-confirm";
    confirm.dataset.action = "confirm";
    confirm.textContent = t("ref.confirm");
    const dismiss = document.createElement("button");
    dismiss.type = "button";
    dismiss.className = "btn-dismiss";
    dismiss.dataset.action = "dismiss";
    dismiss.textContent = t("ref.dismiss");
    for (const btn of [confirm, dismiss]) {
      btn.addEventListener("click", async () => {
        confirm.disabled = dismiss.disabled = true;
        const body = { decision: btn.dataset.action };
        if (note.value.trim()) body.note = note.value.trim();
        const out = await act(`/api/referee/infractions/${encodeURIComponent(inf.id)}`, body, "queue-msg");
        if (!out.ok) confirm.disabled = dismiss.disabled = false;
      });
    }
    actions.append(noteLabel, confirm, dismiss);
    item.appendChild(actions);
  }
  return item;
}

// Open infractions wait in the queue; decided ones move to their own list with the decision,
// the note, who decided and when.
function renderQueue() {
  const queue = $("queue");
  const decidedList = $("decided");
  const infractions = (ref && ref.infractions) || [];
  const key = JSON.stringify([lang(), infractions]);
  if (key === queueKey) return;
  queueKey = key;
  const notes = new Map();
  for (const input of queue.querySelectorAll("input[data-note-for]")) notes.set(input.dataset.noteFor, input.value);
  const open = infractions.filter((i) => !i.status || i.status === "open");
  const decided = infractions.filter((i) => i.status && i.status !== "open");
  $("queue-empty").hidden = open.length > 0;
  $("decided-empty").hidden = decided.length > 0;
  placeItems(queue, open, true, notes);
  placeItems(decidedList, decided, false, notes);
  const shown = new Set(infractions.map((i) => i.id));
  for (const id of [...queueItems.keys()]) if (!shown.has(id)) queueItems.delete(id);
}

/** Puts the items of `infs` in `list` in order, reusing each unchanged item's node. */
function placeItems(list, infs, isOpen, notes) {
  const wanted = infs.map((inf) => {
    const key = JSON.stringify([lang(), isOpen, inf]);
    const kept = queueItems.get(inf.id);
    if (kept && kept.key === key) return kept.node;
    const node = infractionItem(inf, isOpen, notes);
    queueItems.set(inf.id, { key, node });
    return node;
  });
  const keep = new Set(wanted);
  for (const child of [...list.children]) if (!keep.has(child)) child.remove();
  wanted.forEach((node, i) => {
    if (list.children[i] !== node) list.insertBefore(node, list.children[i] || null);
  });
}

function renderConflicts() {
  const list = $("conflicts");
  const conflicts = (ref && ref.conflicts) || [];
  $("conflicts-panel").hidden = conflicts.length === 0;
  clear(list);
  for (const c of conflicts) {
    const item = document.createElement("li");
    item.className = "queue-item";
    const h = document.createElement("h3");
    const kind = t(`conflict.${c.kind}`);
    h.textContent = [kind.startsWith("conflict.") ? c.kind : kind, c.seat ? seatName(c.seat) : "", c.trick ? t("trick", { n: c.trick }) : ""]
      .filter(Boolean)
      .join(" · ");
    item.appendChild(h);
    if (c.cards && c.cards.length) item.appendChild(cardRow(c.cards, { size: "sm", lang: lang() }));
    if (c.detail) {
      const p = document.createElement("p");
      p.className = "proof";
      p.textContent = c.detail;
      item.appendChild(p);
    }
    for (const f of c.fixes || []) item.appendChild(fixButton(c.trick, c.seat, f.card, f.maybe, f.cards, "conflicts-msg"));
    if (c.play) item.appendChild(editButton(c.trick, c.seat, c.play));
    if (c.kind === "kitty_incomplete") item.appendChild(fillButton("kitty-cards", c.cards, t("ref.enterKitty")));
    const pics = (c.evidence || []).filter((u) => typeof u === "string");
    if (pics.length) {
      const ev = document.createElement("div");
      ev.className = "evidence";
      pics.forEach((url, i) => {
        const img = document.createElement("img");
        img.src = url;
        img.alt = `${t("ref.evidence")} ${i + 1}`;
        img.loading = "lazy";
        ev.appendChild(img);
      });
      item.appendChild(ev);
    }
    list.appendChild(item);
  }
}

/** A note of the table's fold in the page language, from its `notes_data` entry. */
function noteText(d) {
  if (!d || !d.kind) return null;
  const key = `note.${d.kind}`;
  const text = t(key, d);
  return text === key ? null : text;
}

function renderNotes() {
  const box = $("notes");
  if (!box) return;
  const notes = (ref && ref.notes) || [];
  $("notes-panel").hidden = notes.length === 0;
  clear(box);
  const data = (ref && ref.notes_data) || [];
  notes.forEach((n, i) => {
    if (i < notes.length - 10) return;
    const li = document.createElement("li");
    li.textContent = noteText(data[i]) ?? String(n);
    box.appendChild(li);
  });
}

function renderCorrections() {
  const list = $("corrections");
  const corrections = (ref && ref.corrections) || [];
  clear(list);
  $("corrections-empty").hidden = corrections.length > 0;
  $("undo").disabled = corrections.length === 0;
  for (const c of corrections) {
    const li = document.createElement("li");
    const head = document.createElement("span");
    head.textContent = `${c.seq ? `#${c.seq} ` : ""}${c.trick ? t("trick", { n: c.trick }) : ""} ${seatName(c.seat)}：`;
    li.appendChild(head);
    if (c.was && c.was.length) {
      li.appendChild(cardRow(c.was, { size: "xs", lang: lang() }));
      li.append(" → ");
    }
    li.appendChild(cardRow(c.cards || [], { size: "xs", lang: lang() }));
    list.appendChild(li);
  }
}

function renderMiniState() {
  const box = $("mini-state");
  const st = pub || ref;
  if (!box || !st) return;
  clear(box);
  const hand = st.hand;
  const levels = (st.match && st.match.levels) || {};
  const line1 = document.createElement("div");
  line1.textContent = [
    st.match && st.match.hand ? t("hand", { n: st.match.hand }) : t("noHand"),
    hand && hand.trick ? t("trick", { n: hand.trick }) : "",
    `${t("side.NS")} ${levels.NS ?? "–"} / ${t("side.EW")} ${levels.EW ?? "–"}`,
  ]
    .filter(Boolean)
    .join(" · ");
  box.appendChild(line1);
  if (hand) {
    const line2 = document.createElement("div");
    line2.append(`${t("declarer")} ${seatName(hand.declarer)} · ${t("trump")} `);
    line2.appendChild(trumpBadge(hand.trump, lang()));
    const base = hand.defender_points ?? 0;
    const pen = penaltiesToDefenders(st);
    const [open, close] = lang() === "en" ? [" (", ")"] : ["（", "）"];
    const detail = pen ? `${open}${t("cardPoints")} ${base} · ${t("penalties")} ${pen > 0 ? "+" : ""}${pen}${close}` : "";
    line2.append(` · ${t("rules")} ${hand.rules ?? "–"} · ${t("points")} ${base + pen}${detail}`);
    box.appendChild(line2);
    const trick = document.createElement("div");
    trick.className = "mini-trick";
    for (const p of (hand.current_trick && hand.current_trick.plays) || []) {
      const one = document.createElement("span");
      one.append(`${seatName(p.seat)} `);
      one.appendChild(cardRow(p.cards, { size: "sm", lang: lang() }));
      trick.appendChild(one);
    }
    box.appendChild(trick);
    const trickInput = $("corr-trick");
    if (trickInput && !trickInput.value && hand.trick) trickInput.value = String(hand.trick);
    if (trickInput && hand.trick) trickInput.max = String(hand.trick);
  }
}

/** 牌前: every declaration, 炒, pass and kitty move in order (the referee sees face-down cards). */
function renderBeforePlay() {
  const panel = $("bp-panel");
  const list = $("bp-list");
  const outcome = $("bp-outcome");
  const st = ref || pub;
  if (!panel || !list || !outcome || !st) return;
  const events = st.hand && st.hand.before_play;
  clear(list);
  clear(outcome);
  const drawLine = $("bp-draw");
  if (drawLine) {
    clear(drawLine);
    const draw = drawNode(st.hand && st.hand.draw);
    if (draw) drawLine.appendChild(draw);
    else drawLine.append(labelled("bp.draw", t("bp.drawNotEntered")));
    drawLine.classList.toggle("muted", !draw);
  }
  if (!Array.isArray(events)) {
    const li = document.createElement("li");
    li.className = "muted";
    li.textContent = t("bp.notEntered");
    list.appendChild(li);
    return;
  }
  if (!events.length) {
    const li = document.createElement("li");
    li.className = "muted";
    li.textContent = t("bp.none");
    list.appendChild(li);
  }
  for (const e of events) {
    const li = document.createElement("li");
    if (e.t != null) {
      const when = document.createElement("span");
      when.className = "bp-time muted";
      when.textContent = `${clockTime(e.t)} `;
      li.appendChild(when);
    }
    li.appendChild(eventNode(e));
    list.appendChild(li);
  }
  outcomeNodes(events, st.hand.trump).forEach((node, i) => {
    if (i) outcome.append(" · ");
    outcome.appendChild(node);
  });
}

// ---------------------------------------------------------------- 牌前 editor and 查牌

// The steps being edited: the recorded ones until the referee changes something, then the
// draft until it is saved (the whole list replaces the hand's) or given up.
let draft = [];
let draftDirty = false;
const DECLARING = new Set(["declare", "chao"]);
const NO_CARDS = new Set(["pass", "take", "look"]);

function recordedSteps() {
  const events = ref && ref.hand && ref.hand.before_play;
  return Array.isArray(events) ? events.map((e) => ({ ...e })) : [];
}

function recordedDraw() {
  return (ref && ref.hand && ref.hand.draw) || null;
}

/** The draw to post: the recorded one with the first drawer and direction as the editor has
 * them (its other fields — shuffle, cut, the cards turned — kept), null when nothing is left;
 * undefined when the editor leaves both as recorded. */
function editedDraw() {
  const recorded = recordedDraw() || {};
  const first = $("bp-draw-first").value;
  const direction = $("bp-draw-direction").value;
  if (first === (recorded.first || "") && direction === (recorded.direction || "")) return undefined;
  const { first: _f, direction: _d, ...rest } = recorded;
  const draw = { ...(first ? { first } : {}), ...(direction ? { direction } : {}), ...rest };
  return Object.keys(draw).length ? draw : null;
}

function stepButton(label, cls, disabled, onClick) {
  const btn = document.createElement("button");
  btn.type = "button";
  btn.className = `btn-step ${cls}`;
  btn.textContent = { "bp-up": "↑", "bp-down": "↓", "bp-remove": "✕" }[cls];
  btn.title = label;
  btn.setAttribute("aria-label", label);
  btn.disabled = disabled;
  btn.addEventListener("click", onClick);
  return btn;
}

function editDraft(change) {
  if (!draftDirty) draft = recordedSteps();
  change(draft);
  draftDirty = true;
  renderSteps();
  say("bp-msg", t("bp.edit.unsaved"), true);
}

function renderSteps() {
  const list = $("bp-steps");
  if (!list) return;
  if (!draftDirty) {
    draft = recordedSteps();
    $("bp-rotation").value = (ref && ref.hand && ref.hand.dealer_by_rotation) || "";
    $("bp-draw-first").value = (recordedDraw() && recordedDraw().first) || "";
    $("bp-draw-direction").value = (recordedDraw() && recordedDraw().direction) || "";
  }
  clear(list);
  $("bp-steps-empty").hidden = draft.length > 0;
  $("bp-reset").disabled = !draftDirty;
  draft.forEach((e, i) => {
    const li = document.createElement("li");
    li.className = "bp-step";
    li.appendChild(eventNode(e));
    const tools = document.createElement("span");
    tools.className = "bp-step-tools";
    tools.append(
      stepButton(t("bp.edit.up"), "bp-up", i === 0, () =>
        editDraft((d) => d.splice(i - 1, 2, d[i], d[i - 1])),
      ),
      stepButton(t("bp.edit.down"), "bp-down", i === draft.length - 1, () =>
        editDraft((d) => d.splice(i, 2, d[i + 1], d[i])),
      ),
      stepButton(t("bp.edit.remove"), "bp-remove", false, () => editDraft((d) => d.splice(i, 1))),
    );
    li.appendChild(tools);
    list.appendChild(li);
  });
}

function sameSide(a, b) {
  return (a === "N" || a === "S") === (b === "N" || b === "S");
}

function renderCardChecks() {
  const list = $("cc-list");
  if (!list) return;
  clear(list);
  for (const c of (ref && ref.card_checks) || []) {
    const li = document.createElement("li");
    li.textContent = t("cc.item", { seat: seatName(c.seat), checked: seatName(c.checked), n: c.trick });
    list.appendChild(li);
  }
}

function wireBeforePlay() {
  const addCards = wireCardInput("bp-cards", "bp-preview", "bp-msg");
  const action = $("bp-action");
  const fitAction = () => {
    $("bp-facedown").disabled = !DECLARING.has(action.value);
    $("bp-cards").disabled = NO_CARDS.has(action.value);
  };
  action.addEventListener("change", fitAction);
  fitAction();
  $("bp-add-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const step = { seat: $("bp-seat").value, action: action.value };
    const typed = !NO_CARDS.has(step.action) && $("bp-cards").value.trim() !== "";
    const cards = typed ? addCards() : [];
    if (cards === null) return;
    if (DECLARING.has(step.action) && cards.length === 0) {
      say("bp-msg", t("bp.edit.needCards"), false);
      $("bp-cards").focus();
      return;
    }
    if (cards.length) step.cards = cards;
    if (DECLARING.has(step.action) && $("bp-facedown").checked) step.face_down = true;
    editDraft((d) => d.push(step));
    $("bp-cards").value = "";
    $("bp-facedown").checked = false;
    clear($("bp-preview"));
  });
  $("bp-save").addEventListener("click", async () => {
    // Only what the editor changed is sent: a draw corrected alone leaves the bidding's
    // record as it was. No step left: the hand's bidding is removed, not recorded as
    // "nobody declared".
    const body = {};
    if (JSON.stringify(draft) !== JSON.stringify(recordedSteps())) body.before_play = draft.length ? draft : null;
    const rotation = $("bp-rotation").value;
    if (rotation !== ((ref && ref.hand && ref.hand.dealer_by_rotation) || "")) body.dealer_by_rotation = rotation || null;
    const draw = editedDraw();
    if (draw !== undefined) body.draw = draw;
    if (!Object.keys(body).length) {
      say("bp-msg", t("bp.edit.nothing"), true);
      return;
    }
    const out = await act("/api/referee/contract", body, "bp-msg");
    if (out.ok) {
      draftDirty = false;
      renderSteps();
    }
  });
  for (const id of ["bp-rotation", "bp-draw-first", "bp-draw-direction"]) {
    $(id).addEventListener("change", () => editDraft(() => {}));
  }
  $("bp-reset").addEventListener("click", () => {
    draftDirty = false;
    renderSteps();
    say("bp-msg", "", true);
  });

  const asker = $("cc-seat");
  const checked = $("cc-checked");
  const opponent = (seat) => SEATS[(SEATS.indexOf(seat) + 1) % 4];
  const fitChecked = () => {
    if (sameSide(asker.value, checked.value)) checked.value = opponent(asker.value);
  };
  asker.addEventListener("change", fitChecked);
  fitChecked();
  $("cc-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const body = { seat: asker.value, checked: checked.value };
    const trick = $("cc-trick").value.trim();
    if (trick) body.trick = Number.parseInt(trick, 10);
    const out = await act("/api/referee/card-check", body, "cc-msg");
    if (out.ok) $("cc-trick").value = "";
  });
}

function renderReferee() {
  renderQueue();
  renderConflicts();
  renderNotes();
  renderCorrections();
  renderMiniState();
  renderBeforePlay();
  renderSteps();
  renderCardChecks();
}

// ---------------------------------------------------------------- forms

/** Live check of a card field: preview pictures, aria-invalid and the error line. */
function wireCardInput(inputId, previewId, msgId) {
  const input = $(inputId);
  const preview = $(previewId);
  const update = () => {
    clear(preview);
    if (!input.value.trim()) {
      input.removeAttribute("aria-invalid");
      say(msgId, "", true);
      return null;
    }
    const { cards, error } = parseCardList(input.value);
    if (error) {
      input.setAttribute("aria-invalid", "true");
      say(msgId, error[lang()] || error.zh, false);
      return null;
    }
    input.removeAttribute("aria-invalid");
    say(msgId, "", true);
    preview.appendChild(cardRow(cards, { size: "sm", lang: lang() }));
    return cards;
  };
  input.addEventListener("input", update);
  return () => {
    const { cards, error } = parseCardList(input.value);
    if (error) {
      input.setAttribute("aria-invalid", "true");
      say(msgId, error[lang()] || error.zh, false);
      input.focus();
      return null;
    }
    update();
    return cards;
  };
}

function wireForms() {
  const corrCards = wireCardInput("corr-cards", "corr-preview", "corr-msg");
  $("correction-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const trick = Number.parseInt($("corr-trick").value, 10);
    if (!Number.isInteger(trick) || trick < 1) {
      $("corr-trick").setAttribute("aria-invalid", "true");
      say("corr-msg", lang() === "en" ? "Give the trick number (1, 2, …)" : "请填写墩号（1、2……）", false);
      return;
    }
    $("corr-trick").removeAttribute("aria-invalid");
    const cards = corrCards();
    if (!cards) return;
    await act("/api/referee/correction", { trick, seat: $("corr-seat").value, cards }, "corr-msg");
  });

  $("undo").addEventListener("click", () => act("/api/referee/undo", {}, "undo-msg"));

  $("contract-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const body = {};
    if ($("c-declarer").value) body.declarer = $("c-declarer").value;
    if ($("c-trump").value) body.trump = $("c-trump").value;
    if ($("c-rules").value) body.rules = $("c-rules").value;
    const ns = $("c-level-NS").value;
    const ew = $("c-level-EW").value;
    if (ns || ew) {
      const now = ((ref || pub || {}).match || {}).levels || {};
      body.levels = { NS: ns || now.NS, EW: ew || now.EW };
    }
    if (Object.keys(body).length === 0) {
      say("contract-msg", t("ref.nothing"), false);
      return;
    }
    const out = await act("/api/referee/contract", body, "contract-msg");
    if (out.ok) for (const id of ["c-declarer", "c-trump", "c-rules", "c-level-NS", "c-level-EW"]) $(id).value = "";
  });

  const kittyCards = wireCardInput("kitty-cards", "kitty-preview", "kitty-msg");
  $("kitty-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const cards = kittyCards();
    if (cards) await act("/api/referee/kitty", { cards }, "kitty-msg");
  });

  const chaodiCards = wireCardInput("chaodi-cards", "chaodi-preview", "chaodi-msg");
  $("chaodi-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const cards = chaodiCards();
    if (cards) await act("/api/referee/chao-di", { seat: $("chaodi-seat").value, cards }, "chaodi-msg");
  });

  // Starting a hand or a match cannot be undone: the first click arms, the second (within 5 s) acts.
  for (const [id, path] of [
    ["next-hand", "/api/referee/next-hand"],
    ["next-match", "/api/referee/next-match"],
  ]) {
    const btn = $(id);
    let timer = null;
    const disarm = () => {
      btn.classList.remove("btn-armed");
      btn.textContent = t(btn.dataset.label);
      delete btn.dataset.armed;
      if (timer !== null) window.clearTimeout(timer);
      timer = null;
    };
    btn.addEventListener("click", async () => {
      if (!btn.dataset.armed) {
        btn.dataset.armed = "1";
        btn.classList.add("btn-armed");
        btn.textContent = `${t(btn.dataset.label)} — ${t("ref.armed")}`;
        timer = window.setTimeout(disarm, 5000);
        return;
      }
      disarm();
      const out = await act(path, {}, "flow-msg");
      if (out.ok) $("corr-trick").value = "";
    });
  }

  $("logout").addEventListener("click", async () => {
    await post("/referee/logout", {});
    window.location.href = apiPath("/referee");
  });
}

// ---------------------------------------------------------------- start

function showStatus(status) {
  const node = $("conn");
  if (!node) return;
  node.className = `conn conn-${status}`;
  node.textContent = t(`conn.${status}`);
  node.dataset.status = status;
}

initLang();
wireForms();
wireBeforePlay();
onLangChange(() => {
  queueKey = "";
  renderReferee();
  const conn = $("conn");
  if (conn && conn.dataset.status) showStatus(conn.dataset.status);
});
let pending = null;
subscribe({
  onState(s) {
    pub = s;
    renderMiniState();
    // Coalesce bursts of events into one referee-state fetch.
    if (pending === null) {
      pending = window.setTimeout(() => {
        pending = null;
        loadReferee();
      }, 100);
    }
  },
  onStatus: showStatus,
});
loadReferee();
