// Card notation and card pictures: rank 2…10,J,Q,K,A + suit S H D C (10H, QS), jokers BJ / SJ.
// Pictures are inline SVG drawn here from the notation; nothing is downloaded.

export const RANKS = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"];
export const SUITS = ["S", "H", "D", "C"];
export const JOKERS = ["BJ", "SJ"];
export const SUIT_SYMBOL = { S: "♠", H: "♥", D: "♦", C: "♣" };
export const SUIT_NAME = {
  zh: { S: "黑桃", H: "红桃", D: "方块", C: "梅花", NT: "无主" },
  en: { S: "spades", H: "hearts", D: "diamonds", C: "clubs", NT: "no trump" },
};

const SVG_NS = "http://www.w3.org/2000/svg";

/** {rank, suit} of a card in our notation (suit "J" for jokers), or null when it is not one. */
export function parseCard(text) {
  const c = String(text).trim().toUpperCase();
  if (JOKERS.includes(c)) return { rank: c, suit: "J", card: c };
  const rank = c.slice(0, -1);
  const suit = c.slice(-1);
  if (RANKS.includes(rank) && SUITS.includes(suit)) return { rank, suit, card: rank + suit };
  return null;
}

/**
 * Cards typed by a referee ("10H QS", "10h,qs"): {cards, error}. `error` is a one-line message
 * ({zh, en}) naming the first unreadable card, or saying that nothing was typed.
 */
export function parseCardList(text) {
  const parts = String(text)
    .split(/[\s,，、;；]+/)
    .filter((p) => p.length > 0);
  if (parts.length === 0) {
    return { cards: [], error: { zh: "请输入牌", en: "type at least one card" } };
  }
  const cards = [];
  for (const part of parts) {
    const parsed = parseCard(part);
    if (parsed === null) {
      return {
        cards: [],
        error: {
          zh: `无法识别「${part}」：点数 2–10、J、Q、K、A 加花色 S H D C（如 10H），王为 BJ / SJ`,
          en: `unknown card "${part}": rank 2-10, J, Q, K, A + suit S H D C (e.g. 10H), jokers BJ / SJ`,
        },
      };
    }
    cards.push(parsed.card);
  }
  const counts = new Map();
  for (const c of cards) counts.set(c, (counts.get(c) || 0) + 1);
  for (const [c, n] of counts) {
    if (n > 2) {
      return {
        cards: [],
        error: { zh: `${c} 出现 ${n} 次：两副牌每张最多两张`, en: `${c} appears ${n} times: two decks hold at most two` },
      };
    }
  }
  return { cards, error: null };
}

export function isRed(card) {
  const p = parseCard(card);
  return p !== null && (p.suit === "H" || p.suit === "D" || p.card === "BJ");
}

/** Spoken name of a card for screen readers: "红桃10" / "10 of hearts", "大王" / "big joker". */
export function cardName(card, lang = "zh") {
  const p = parseCard(card);
  if (p === null) return String(card);
  if (p.suit === "J") {
    if (lang === "en") return p.card === "BJ" ? "big joker" : "small joker";
    return p.card === "BJ" ? "大王" : "小王";
  }
  return lang === "en" ? `${p.rank} of ${SUIT_NAME.en[p.suit]}` : `${SUIT_NAME.zh[p.suit]}${p.rank}`;
}

/** A card inside a sentence: rank and suit symbol ("10♥"), "大王" / "小王" (en: "BJ" / "SJ"). */
export function cardShort(card, lang = "zh") {
  const p = parseCard(card);
  if (p === null) return String(card);
  if (p.suit === "J") return lang === "en" ? p.card : p.card === "BJ" ? "大王" : "小王";
  return `${p.rank}${SUIT_SYMBOL[p.suit]}`;
}

function el(name, attrs = {}, text = null) {
  const node = document.createElementNS(SVG_NS, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (text !== null) node.textContent = text;
  return node;
}

/**
 * One card as an <svg> element (viewBox 60×84). `size` is "sm", "md" or "lg" (a CSS class).
 * Unreadable notation draws a grey card with a question mark rather than failing.
 */
export function cardSVG(card, { size = "md", lang = "zh" } = {}) {
  const p = parseCard(card);
  const red = isRed(card);
  const colour = red ? "#c8102e" : "#111111";
  const svg = el("svg", {
    viewBox: "0 0 60 84",
    class: `card card-${size}${red ? " card-red" : " card-black"}`,
    role: "img",
    "aria-label": cardName(card, lang),
    "data-card": p ? p.card : String(card),
  });
  svg.appendChild(el("title", {}, p ? `${cardName(card, lang)} (${p.card})` : String(card)));
  svg.appendChild(
    el("rect", { x: 1, y: 1, width: 58, height: 82, rx: 6, ry: 6, fill: "#ffffff", stroke: "#555555", "stroke-width": 1.5 }),
  );
  if (p === null) {
    svg.appendChild(el("text", { x: 30, y: 52, "text-anchor": "middle", "font-size": 30, fill: "#777777" }, "?"));
    return svg;
  }
  if (p.suit === "J") {
    const big = p.card === "BJ";
    const ink = big ? "#c8102e" : "#111111";
    svg.appendChild(
      el("rect", { x: 5, y: 5, width: 50, height: 74, rx: 4, fill: "none", stroke: ink, "stroke-width": 1, "stroke-dasharray": big ? "none" : "3 2" }),
    );
    // "JOKER" down the left edge, the Chinese name large in the middle, a star mark.
    const letters = "JOKER";
    for (let i = 0; i < letters.length; i++) {
      svg.appendChild(el("text", { x: 10, y: 17 + i * 9, "text-anchor": "middle", "font-size": 8.5, "font-weight": 700, fill: ink, class: "card-font" }, letters[i]));
    }
    svg.appendChild(el("text", { x: 34, y: 36, "text-anchor": "middle", "font-size": 17, "font-weight": 700, fill: ink, class: "card-font" }, big ? "大" : "小"));
    svg.appendChild(el("text", { x: 34, y: 56, "text-anchor": "middle", "font-size": 17, "font-weight": 700, fill: ink, class: "card-font" }, "王"));
    svg.appendChild(el("text", { x: 34, y: 75, "text-anchor": "middle", "font-size": 13, fill: big ? "#e0a800" : "#111111" }, big ? "★" : "☆"));
    return svg;
  }
  const sym = SUIT_SYMBOL[p.suit];
  const rankSize = p.rank === "10" ? 17 : 20;
  svg.appendChild(el("text", { x: 5, y: 21, "font-size": rankSize, "font-weight": 700, fill: colour, "letter-spacing": p.rank === "10" ? -1.5 : 0, class: "card-font" }, p.rank));
  svg.appendChild(el("text", { x: 7, y: 37, "font-size": 15, fill: colour, class: "card-font" }, sym));
  svg.appendChild(el("text", { x: 36, y: 70, "text-anchor": "middle", "font-size": 34, fill: colour, class: "card-font" }, sym));
  return svg;
}

/** A row of cards (a <span class="cards">) holding one picture per card. */
export function cardRow(cards, { size = "md", lang = "zh" } = {}) {
  const row = document.createElement("span");
  row.className = `cards cards-${size}`;
  for (const c of cards || []) row.appendChild(cardSVG(c, { size, lang }));
  return row;
}

/** The trump as a coloured suit symbol, or 无主 / NT, in a <span>. */
export function trumpBadge(trump, lang = "zh") {
  const span = document.createElement("span");
  span.className = "trump";
  if (!trump) {
    span.textContent = "—";
    return span;
  }
  if (trump === "NT") {
    span.textContent = lang === "en" ? "NT" : "无主";
    span.classList.add("trump-nt");
    return span;
  }
  const sym = document.createElement("span");
  sym.className = `suit ${trump === "H" || trump === "D" ? "suit-red" : "suit-black"}`;
  sym.textContent = SUIT_SYMBOL[trump] || trump;
  sym.setAttribute("aria-hidden", "true");
  const name = document.createElement("span");
  name.className = "suit-name";
  name.textContent = (lang === "en" ? SUIT_NAME.en : SUIT_NAME.zh)[trump] || trump;
  span.append(sym, name);
  return span;
}
