// Score helpers shared by the scoreboard and the referee console.

import { t } from "./i18n.js";

const SIDE_OF = { N: "NS", S: "NS", E: "EW", W: "EW" };

export function isConfirmed(inf) {
  return inf.status === "confirmed" || inf.status === "confirm";
}

export function isOpen(inf) {
  return inf.status === "open" || !inf.status;
}

/**
 * Points the confirmed infractions move to the defenders (+) or away from them (−): a penalty
 * against the declarers counts for the defenders, one against the defenders counts against
 * them (the engine's `penalties.to_defenders`; taken from the state when it carries it).
 */
export function penaltiesToDefenders(st) {
  const hand = st.hand;
  if (!hand || !hand.declarer_side) return 0;
  if (hand.penalties && typeof hand.penalties.to_defenders === "number") return hand.penalties.to_defenders;
  let total = 0;
  for (const inf of st.infractions || []) {
    if (!isConfirmed(inf) || !inf.penalty) continue;
    total += SIDE_OF[inf.seat] === hand.declarer_side ? inf.penalty : -inf.penalty;
  }
  return total;
}

function signed(n) {
  return `${n > 0 ? "+" : ""}${n}`;
}

/**
 * One step of the hand's settlement (the engine's `result.steps`: a kind and its facts) as a
 * line in the page language; null for a kind this page does not know.
 */
export function stepText(s) {
  if (!s || !s.kind) return null;
  switch (s.kind) {
    case "defender_total":
      return t("step.defender_total", {
        total: s.total,
        table: s.table,
        kitty: s.kitty == null ? "" : t("step.defender_total.kitty", { kitty: s.kitty, multiplier: s.multiplier }),
        penalties: s.penalties ? t("step.defender_total.penalties", { penalties: signed(s.penalties) }) : "",
      });
    case "jump": {
      const why = s.by === "shutout" ? t("step.jump.shutout") : t("step.jump.defenders", { points: s.points });
      return t(s.wins ? "step.jump.wins" : "step.jump.toA", { why, from: s.from });
    }
    case "declarers_gain": {
      const why = t(`step.declarers_gain.${s.by}`, { points: s.points, turnover: s.turnover });
      return t("step.declarers_gain", { why, levels: s.levels });
    }
    case "side_levels":
      return t("step.side_levels", {
        side: t(`step.side.${s.side}`),
        from: s.from,
        to: s.past_a ? t("step.pastA") : s.to,
      });
    case "keep_deal":
    case "take_over_deal":
      return t(`step.${s.kind}`, { next: t(`seat.${s.next}`) });
    case "game_won":
      return t("step.game_won", { side: t(`side.${s.side}`) });
    case "opponents_drop":
    case "forfeit":
      return t(`step.${s.kind}`, { ...s, side: t(`side.${s.side}`) });
    case "declaration_jump":
      return t(`step.declaration_jump.${s.shown_by}`, { ...s, side: t(`side.${s.side}`) });
    default: {
      const key = `step.${s.kind}`;
      const text = t(key, s);
      return text === key ? null : text;
    }
  }
}
