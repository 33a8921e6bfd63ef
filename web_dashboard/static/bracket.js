// Bracket and standings on the hub: the knockout draw round by round (format, tables, games
// won, winners, byes) and every entrant's place, polled from /api/bracket.

import { pollJson } from "./live.js";
import { initLang, onLangChange, t } from "./i18n.js";

const POLL_MS = 3000;
const page = document.querySelector(".bracket-page");
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

function stageName(round) {
  return t(`hub.stage.${round.stage}`, { n: round.round });
}

function formatLine(f) {
  const parts = [f.best_of === 1 ? t("hub.bestOf1") : t("hub.bestOf", { n: f.best_of, k: Math.floor(f.best_of / 2) + 1 })];
  if (f.hand_limit) parts.push(t("hub.handLimit", { n: f.hand_limit }));
  if (f.time_limit_min) parts.push(t("hub.timeLimit", { n: f.time_limit_min }));
  return parts.join(" · ");
}

function entrantLine(name, side, m) {
  const row = el("div", "bm-entrant");
  if (m.winner && m.winner === name) row.classList.add("bm-winner");
  row.appendChild(el("span", "bm-name", name ?? (m.bye ? t("hub.bye") : t("hub.tbd"))));
  if (name === null && m.status === "bye") row.lastChild.textContent = t("hub.bye");
  const games = m.games_won ? String(m.games_won[side]) : "";
  row.appendChild(el("span", "bm-games", games));
  return row;
}

function matchBox(m) {
  const box = el("div", `bmatch bm-${m.status}`);
  box.id = `m-${m.key}`;
  box.appendChild(entrantLine(m.top, "NS", m));
  box.appendChild(entrantLine(m.bottom, "EW", m));
  const foot = el("div", "bm-foot");
  if (m.table) {
    const link = el("a", "bm-table", t("hub.table", { t: m.table }));
    link.href = `${document.body.dataset.root || ""}/t/${encodeURIComponent(m.table)}/`;
    foot.appendChild(link);
  } else if (m.status !== "bye") {
    foot.appendChild(el("span", "muted", t("hub.noTable")));
  }
  foot.appendChild(el("span", "bm-status", t(`hub.st.${m.status}`)));
  if (m.games.some((g) => g.by_limit)) foot.appendChild(el("span", "bm-limit", t("hub.byLimit")));
  box.appendChild(foot);
  return box;
}

function render(data) {
  last = data;
  const bracket = document.getElementById("bracket");
  const heading = document.getElementById("bracket-h");
  const champion = document.getElementById("champion");
  const body = document.querySelector("#standings tbody");
  const cols = el("div", "bracket-rounds");
  if (!data.configured) cols.appendChild(el("p", "muted", t("hub.notConfigured")));
  for (const round of data.rounds) {
    const col = el("section", "bround");
    col.appendChild(el("h3", "bround-name", stageName(round)));
    col.appendChild(el("p", "bround-format", formatLine(round.format)));
    for (const m of round.matches) col.appendChild(matchBox(m));
    cols.appendChild(col);
  }
  bracket.replaceChildren(heading, cols);
  champion.hidden = !data.champion;
  champion.textContent = data.champion ? t("hub.champion", { name: data.champion }) : "";
  body.replaceChildren();
  for (const s of data.standings) {
    const tr = el("tr");
    tr.appendChild(el("td", "st-place", s.place === null ? "–" : String(s.place)));
    tr.appendChild(el("td", "st-name", s.entrant));
    tr.appendChild(el("td", "st-seed", String(s.seed)));
    tr.appendChild(el("td", "st-matches", `${s.matches_won}–${s.matches_lost}`));
    tr.appendChild(el("td", "st-games", `${s.games_won}–${s.games_lost}`));
    tr.appendChild(el("td", "st-status", s.place === null ? t("hub.inPlay") : s.place === 1 ? t("hub.champion", { name: "" }).replace(/[:：]\s*$/, "") : t("hub.out", { n: s.reached })));
    body.appendChild(tr);
  }
}

initLang();
onLangChange(() => last && render(last));
pollJson(page.dataset.api, POLL_MS, { onData: render, onStatus: setStatus });
