// Score helpers shared by the scoreboard and the referee console.

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
