// Page language: 简体中文 first, English second. `?lang=en|zh` wins and is remembered in
// localStorage; the toggle button switches and remembers. Static text carries data-i18n keys.

const KEY = "chaodipi.lang";

export const STRINGS = {
  zh: {
    "hub.overview": "全部赛桌",
    "hub.organiser": "组织者总览",
    "hub.organiserLogin": "组织者登录",
    "hub.back": "返回全部赛桌",
    "hub.bracket": "对阵与排名",
    "hub.loading": "加载中…",
    "hub.delay": "观众画面延迟 {s} 秒",
    "hub.live": "实时（无延迟）",
    "hub.noTables": "没有赛桌",
    "hub.online": "在线",
    "hub.offline": "离线",
    "hub.unknown": "未连接",
    "hub.behind": "待传 {n} 条",
    "hub.handTrick": "第 {hand} 副 · 第 {trick} 墩",
    "hub.handDone": "第 {hand} 副 · 已结束",
    "hub.points": "台下 {p} 分",
    "hub.open": "待裁定 {n}",
    "hub.confirmed": "违例 {n}",
    "hub.noInfractions": "无违例",
    "hub.temp": "{c}°C",
    "hub.frameAge": "画面 {s} 秒前",
    "hub.calibOk": "标定正常",
    "hub.noCamera": "无摄像头数据",
    "hub.matchWon": "本场胜方：{side}",
    "hub.draw": "对阵",
    "hub.standings": "排名",
    "hub.place": "名次",
    "hub.entrant": "参赛队",
    "hub.seed": "种子",
    "hub.matchesWL": "场 胜–负",
    "hub.gamesWL": "局 胜–负",
    "hub.status": "状态",
    "hub.champion": "冠军：{name}",
    "hub.notConfigured": "hub.toml 中未设置对阵（[bracket]）",
    "hub.stage.final": "决赛",
    "hub.stage.semi": "半决赛",
    "hub.stage.quarter": "1/4 决赛",
    "hub.stage.round": "第 {n} 轮",
    "hub.bestOf1": "一局决胜",
    "hub.bestOf": "{n} 局 {k} 胜",
    "hub.handLimit": "每局限 {n} 副",
    "hub.timeLimit": "每局限 {n} 分钟",
    "hub.bye": "轮空",
    "hub.tbd": "待定",
    "hub.table": "{t} 桌",
    "hub.noTable": "未排桌",
    "hub.st.bye": "轮空晋级",
    "hub.st.waiting": "等待",
    "hub.st.playing": "进行中",
    "hub.st.done": "已结束",
    "hub.byLimit": "限时/限副判胜",
    "hub.inPlay": "仍在比赛",
    "hub.out": "第 {n} 轮出局",
    "app.title": "炒地皮记分牌",
    "app.overlay": "炒地皮",
    "app.referee": "裁判台",
    "lang.toggle": "English",
    "lang.toggleLabel": "Switch to English",
    "conn.live": "实时",
    "conn.connecting": "连接中…",
    "conn.polling": "轮询",
    "conn.lost": "连接中断，重试中…",
    "side.NS": "南北",
    "side.EW": "东西",
    "seat.N": "北",
    "seat.E": "东",
    "seat.S": "南",
    "seat.W": "西",
    "levels": "级别",
    "level": "打",
    "declarer": "庄家",
    "declarerSide": "坐庄",
    "trump": "主",
    "rules": "规则档",
    "hand": "第 {n} 副",
    "trick": "第 {n} 墩",
    "trickShort": "墩",
    "noHand": "等待开局",
    "points": "台下得分",
    "pointCards": "台下分牌",
    "penalties": "罚分",
    "cardPoints": "牌分",
    "total": "合计",
    "noPointCards": "暂无分牌",
    "currentTrick": "本墩",
    "lead": "首出",
    "toPlay": "轮到",
    "waiting": "等待出牌",
    "clock.left": "剩 {s} 秒",
    "clock.over": "超时 +{s} 秒",
    "clock.kitty": "扣底",
    "clock.used": "用时 {s} 秒",
    "infractions": "违例",
    "inf.open": "待裁定",
    "inf.confirmed": "违例",
    "inf.dismissed": "已驳回",
    "inf.penalty": "罚 {p} 分",
    "inf.trick": "第 {n} 墩",
    "inf.kitty": "底牌",
    "kind.revoke": "该跟不跟",
    "kind.hidden_cards": "藏牌",
    "kind.failed_throw": "甩牌失败",
    "kind.out_of_turn": "未按顺序出牌",
    "kind.overtime": "出牌超时",
    "kind.kitty_count": "底牌张数不对",
    "kind.card_count": "出牌张数不对",
    "kind.duplicate_card": "重复牌",
    "history": "出牌记录",
    "history.none": "还没有完成的墩",
    "history.won": "{seat}大",
    "history.points": "分",
    "chart": "每墩得分",
    "chart.label": "台下每墩得分与累计",
    "chart.none": "暂无",
    "kitty": "底牌",
    "kitty.unknown": "未亮底",
    "kitty.multiplier": "抠底 ×{m}",
    "result": "本副结果",
    "finished": "本副结束",
    "winner": "胜方：{side}",
    "camera": "摄像头",
    "camera.fps": "{fps} 帧/秒",
    "camera.stale": "画面停顿 {s} 秒",
    "camera.calib": "需重新标定",
    "ref.login": "裁判登录",
    "ref.pin": "PIN 码",
    "ref.signin": "登录",
    "ref.back": "返回记分牌",
    "ref.logout": "退出登录",
    "ref.expired": "登录已失效，请重新登录。",
    "ref.loginLink": "前往登录",
    "ref.queue": "违例待裁定",
    "ref.queueEmpty": "没有待裁定的违例",
    "ref.decided": "已裁定",
    "ref.confirm": "确认违例",
    "ref.dismiss": "驳回",
    "ref.note": "备注",
    "ref.proof": "依据",
    "ref.evidence": "证据画面",
    "ref.conflicts": "识牌冲突",
    "ref.correct": "更正出牌",
    "ref.correctHelp": "点数 2–10 J Q K A 加花色 S H D C，如 10H QS；王为 BJ（大王）、SJ（小王）",
    "ref.trickNo": "墩",
    "ref.seat": "座位",
    "ref.cards": "牌",
    "ref.submitCorrection": "更正",
    "ref.corrections": "更正记录",
    "ref.correctionsEmpty": "暂无更正",
    "ref.undo": "撤销上一次更正",
    "ref.contract": "定约（摄像头看不到的信息）",
    "ref.levelNS": "南北级别",
    "ref.levelEW": "东西级别",
    "ref.unchanged": "不变",
    "ref.setContract": "保存定约",
    "ref.kitty": "录入底牌",
    "ref.setKitty": "保存底牌",
    "ref.chaodi": "录入炒底",
    "ref.setChaodi": "保存炒底",
    "ref.flow": "牌局",
    "ref.nextHand": "开始下一副",
    "ref.nextMatch": "开始新比赛",
    "ref.armed": "再点一次确认",
    "ref.saved": "已保存（#{seq}）",
    "ref.error": "错误：{e}",
    "ref.forbidden": "请求被拒绝（CSRF 令牌无效），请刷新页面。",
    "ref.nothing": "请至少填写一项",
    "ref.state": "当前局面",
    "ref.notes": "系统提示",
    "ref.name": "裁判姓名（可选）",
  },
  en: {
    "hub.overview": "All tables",
    "hub.organiser": "Organisers' overview",
    "hub.organiserLogin": "Organiser sign-in",
    "hub.back": "Back to all tables",
    "hub.bracket": "Bracket and standings",
    "hub.loading": "Loading…",
    "hub.delay": "Spectators see play {s} s late",
    "hub.live": "Live (no delay)",
    "hub.noTables": "No tables",
    "hub.online": "online",
    "hub.offline": "offline",
    "hub.unknown": "not connected",
    "hub.behind": "{n} to send",
    "hub.handTrick": "Hand {hand} · trick {trick}",
    "hub.handDone": "Hand {hand} · finished",
    "hub.points": "Defenders {p}",
    "hub.open": "{n} under review",
    "hub.confirmed": "{n} infractions",
    "hub.noInfractions": "no infractions",
    "hub.temp": "{c} °C",
    "hub.frameAge": "frame {s} s ago",
    "hub.calibOk": "calibrated",
    "hub.noCamera": "no camera data",
    "hub.matchWon": "Match won by {side}",
    "hub.draw": "Draw",
    "hub.standings": "Standings",
    "hub.place": "Place",
    "hub.entrant": "Entrant",
    "hub.seed": "Seed",
    "hub.matchesWL": "Matches W–L",
    "hub.gamesWL": "Games W–L",
    "hub.status": "Status",
    "hub.champion": "Champion: {name}",
    "hub.notConfigured": "No bracket in hub.toml ([bracket])",
    "hub.stage.final": "Final",
    "hub.stage.semi": "Semi-finals",
    "hub.stage.quarter": "Quarter-finals",
    "hub.stage.round": "Round {n}",
    "hub.bestOf1": "one game",
    "hub.bestOf": "best of {n}",
    "hub.handLimit": "{n} hands a game",
    "hub.timeLimit": "{n} min a game",
    "hub.bye": "bye",
    "hub.tbd": "to be decided",
    "hub.table": "table {t}",
    "hub.noTable": "no table yet",
    "hub.st.bye": "bye",
    "hub.st.waiting": "waiting",
    "hub.st.playing": "playing",
    "hub.st.done": "finished",
    "hub.byLimit": "decided at the limit",
    "hub.inPlay": "still in",
    "hub.out": "out in round {n}",
    "app.title": "Chaodipi scoreboard",
    "app.overlay": "Chaodipi",
    "app.referee": "Referee console",
    "lang.toggle": "中文",
    "lang.toggleLabel": "切换到中文",
    "conn.live": "Live",
    "conn.connecting": "Connecting…",
    "conn.polling": "Polling",
    "conn.lost": "Connection lost, retrying…",
    "side.NS": "NS",
    "side.EW": "EW",
    "seat.N": "N",
    "seat.E": "E",
    "seat.S": "S",
    "seat.W": "W",
    "levels": "Levels",
    "level": "on",
    "declarer": "Declarer",
    "declarerSide": "declaring",
    "trump": "Trump",
    "rules": "Rules",
    "hand": "Hand {n}",
    "trick": "Trick {n}",
    "trickShort": "Trick",
    "noHand": "Waiting for the first hand",
    "points": "Defenders' points",
    "pointCards": "Point cards taken",
    "penalties": "penalties",
    "cardPoints": "card points",
    "total": "Total",
    "noPointCards": "No point cards yet",
    "currentTrick": "Current trick",
    "lead": "lead",
    "toPlay": "to play",
    "waiting": "waiting",
    "clock.left": "{s} s left",
    "clock.over": "Over time +{s} s",
    "clock.kitty": "burying",
    "clock.used": "{s} s taken",
    "infractions": "Infractions",
    "inf.open": "Under review",
    "inf.confirmed": "Infraction",
    "inf.dismissed": "Dismissed",
    "inf.penalty": "penalty {p}",
    "inf.trick": "trick {n}",
    "inf.kitty": "kitty",
    "kind.revoke": "revoke",
    "kind.hidden_cards": "hidden cards",
    "kind.failed_throw": "failed throw",
    "kind.out_of_turn": "out of turn",
    "kind.overtime": "over time",
    "kind.kitty_count": "wrong kitty count",
    "kind.card_count": "wrong card count",
    "kind.duplicate_card": "duplicate card",
    "history": "Tricks",
    "history.none": "No finished tricks yet",
    "history.won": "{seat} won",
    "history.points": "pts",
    "chart": "Points by trick",
    "chart.label": "Defenders' points per trick and running total",
    "chart.none": "none yet",
    "kitty": "Kitty",
    "kitty.unknown": "not shown",
    "kitty.multiplier": "kitty ×{m}",
    "result": "Hand result",
    "finished": "Hand over",
    "winner": "Winner: {side}",
    "camera": "Camera",
    "camera.fps": "{fps} fps",
    "camera.stale": "no frame for {s} s",
    "camera.calib": "needs calibration",
    "ref.login": "Referee sign-in",
    "ref.pin": "PIN",
    "ref.signin": "Sign in",
    "ref.back": "Back to the scoreboard",
    "ref.logout": "Sign out",
    "ref.expired": "Your session has ended; please sign in again.",
    "ref.loginLink": "Sign in",
    "ref.queue": "Infractions to decide",
    "ref.queueEmpty": "Nothing to decide",
    "ref.decided": "Decided",
    "ref.confirm": "Confirm",
    "ref.dismiss": "Dismiss",
    "ref.note": "Note",
    "ref.proof": "Proof",
    "ref.evidence": "Evidence",
    "ref.conflicts": "Recognition conflicts",
    "ref.correct": "Correct a play",
    "ref.correctHelp": "Rank 2-10 J Q K A + suit S H D C, e.g. 10H QS; jokers BJ (big), SJ (small)",
    "ref.trickNo": "Trick",
    "ref.seat": "Seat",
    "ref.cards": "Cards",
    "ref.submitCorrection": "Correct",
    "ref.corrections": "Corrections",
    "ref.correctionsEmpty": "No corrections",
    "ref.undo": "Undo the last correction",
    "ref.contract": "Contract (what the camera cannot see)",
    "ref.levelNS": "NS level",
    "ref.levelEW": "EW level",
    "ref.unchanged": "unchanged",
    "ref.setContract": "Save contract",
    "ref.kitty": "Enter the kitty",
    "ref.setKitty": "Save kitty",
    "ref.chaodi": "Enter a chao-di (炒底)",
    "ref.setChaodi": "Save chao-di",
    "ref.flow": "Match",
    "ref.nextHand": "Start the next hand",
    "ref.nextMatch": "Start a new match",
    "ref.armed": "Click again to confirm",
    "ref.saved": "Saved (#{seq})",
    "ref.error": "Error: {e}",
    "ref.forbidden": "Request refused (bad CSRF token); reload the page.",
    "ref.nothing": "Fill in at least one field",
    "ref.state": "Table now",
    "ref.notes": "System notes",
    "ref.name": "Referee name (optional)",
  },
};

function fromQuery() {
  const q = new URLSearchParams(window.location.search).get("lang");
  return q === "en" || q === "zh" ? q : null;
}

function stored() {
  try {
    const v = window.localStorage.getItem(KEY);
    return v === "en" || v === "zh" ? v : null;
  } catch {
    return null;
  }
}

let current = fromQuery() || stored() || "zh";
if (fromQuery()) remember(current);
const listeners = [];

function remember(lang) {
  try {
    window.localStorage.setItem(KEY, lang);
  } catch {
    /* private mode: the choice lasts for this page only */
  }
}

export function lang() {
  return current;
}

/** The string for `key` in the page language with {name} placeholders filled from `vars`. */
export function t(key, vars = {}) {
  const table = STRINGS[current] || STRINGS.zh;
  const text = key in table ? table[key] : STRINGS.zh[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (_, name) => (name in vars ? String(vars[name]) : `{${name}}`));
}

/** Fill every [data-i18n] element's text and [data-i18n-attr="attr:key;…"] attributes. */
export function applyStatic(root = document) {
  document.documentElement.lang = current === "en" ? "en" : "zh-CN";
  for (const node of root.querySelectorAll("[data-i18n]")) node.textContent = t(node.dataset.i18n);
  for (const node of root.querySelectorAll("[data-i18n-attr]")) {
    for (const pair of node.dataset.i18nAttr.split(";")) {
      const [attr, key] = pair.split(":");
      if (attr && key) node.setAttribute(attr.trim(), t(key.trim()));
    }
  }
  const title = document.querySelector("[data-i18n-title]");
  if (title) document.title = `${t(title.dataset.i18nTitle)} · ${title.dataset.table || ""}`.replace(/ · $/, "");
}

export function setLang(next) {
  current = next === "en" ? "en" : "zh";
  remember(current);
  const url = new URL(window.location.href);
  if (url.searchParams.has("lang")) {
    url.searchParams.set("lang", current);
    window.history.replaceState(null, "", url);
  }
  applyStatic();
  for (const fn of listeners) fn(current);
}

export function onLangChange(fn) {
  listeners.push(fn);
}

/** Wire every [data-lang-toggle] button and translate the static text once. */
export function initLang() {
  for (const btn of document.querySelectorAll("[data-lang-toggle]")) {
    btn.addEventListener("click", () => setLang(current === "zh" ? "en" : "zh"));
  }
  applyStatic();
}
