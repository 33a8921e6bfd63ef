// The hand's draw and bidding before the first trick (state `hand.draw`, `hand.before_play`):
// who drew first and in which direction; declarations, 炒, passes and the kitty's moves in
// order, as the scoreboard's one line and the referee console's list. A card still face down
// arrives as a `count` with `hidden: true`.

import { cardRow, trumpBadge } from "./cards.js";
import { labelled, lang, t } from "./i18n.js";

const SHOWN = new Set(["declare", "chao"]);

/** The seat holding the kitty: the last to take or bury it; null when nobody has. */
export function kittyHolder(events) {
  let holder = null;
  for (const e of events || []) if (e.action === "take" || e.action === "bury") holder = e.seat;
  return holder;
}

/** One event as a <span>: who did what, with its cards pictured (暗 when placed face down). */
export function eventNode(e) {
  const span = document.createElement("span");
  span.className = `bp-event bp-${e.action}`;
  span.dataset.action = e.action;
  span.dataset.seat = e.seat;
  const seat = t(`seat.${e.seat}`);
  const counted = e.count != null && !(e.cards && e.cards.length);
  const key = counted && (e.action === "take" || e.action === "bury") ? `bp.${e.action}N` : `bp.${e.action}`;
  const what = document.createElement("span");
  what.className = "bp-what";
  what.textContent = t(key, { seat, n: e.count });
  span.appendChild(what);
  if (!SHOWN.has(e.action)) return span;
  if (e.hidden) {
    const hidden = document.createElement("span");
    hidden.className = "bp-hidden";
    hidden.textContent = ` ${t("bp.hidden", { n: e.count ?? 1 })}`;
    span.appendChild(hidden);
    return span;
  }
  span.appendChild(document.createTextNode(" "));
  span.appendChild(cardRow(e.cards || [], { size: "sm", lang: lang() }));
  if (e.face_down) {
    const down = document.createElement("span");
    down.className = "bp-facedown";
    down.textContent = e.revealed_t != null ? `${t("bp.faceDown")}·${t("bp.revealed")}` : t("bp.faceDown");
    span.appendChild(down);
  }
  if (e.trump) {
    span.appendChild(document.createTextNode(" "));
    span.appendChild(trumpBadge(e.trump, lang()));
  }
  return span;
}

/** What the bidding ended in: the kitty's holder and the hand's trump, as <span>s. */
export function outcomeNodes(events, trump) {
  const out = [];
  const holder = kittyHolder(events);
  if (holder) {
    const h = document.createElement("span");
    h.className = "bp-holder";
    h.textContent = t("bp.holder", { seat: t(`seat.${holder}`) });
    out.push(h);
  }
  if (trump) {
    const tr = document.createElement("span");
    tr.className = "bp-trump";
    tr.append(`${t("bp.trump")} `, trumpBadge(trump, lang()));
    out.push(tr);
  }
  return out;
}

/** The draw as a <span> — 摸牌：西先摸 · 顺时针 — with what the record gives of its first
 * drawer and direction; null when it gives neither. */
export function drawNode(draw) {
  if (!draw || (!draw.first && !draw.direction)) return null;
  const span = document.createElement("span");
  span.className = "bp-draw-text";
  if (draw.first) span.dataset.first = draw.first;
  if (draw.direction) span.dataset.direction = draw.direction;
  const parts = [];
  if (draw.first) parts.push(t("bp.drawFirst", { seat: t(`seat.${draw.first}`) }));
  if (draw.direction) parts.push(t(`bp.dir.${draw.direction}`));
  span.textContent = labelled("bp.draw", parts.join(" · "));
  return span;
}

/** The events that show a bid (declarations and 炒), in order. */
export function bids(events) {
  return (events || []).filter((e) => SHOWN.has(e.action));
}
