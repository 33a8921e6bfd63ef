// Live table state: server-sent events from /api/stream (EventSource reconnects by itself),
// with /api/state polling whenever the stream is down. Delivers each newer state once, and
// keeps the offset between the server's clock and ours for the play clocks.

const POLL_MS = 700;
const SSE_RETRY_MS = 10000;
const SAFETY_POLL_MS = 30000; // a stream a proxy holds back would otherwise go stale unseen

/** Path under the app's root (the server may be mounted below "/"). */
export function apiPath(path) {
  const root = document.body.dataset.root || "";
  return root.replace(/\/$/, "") + path;
}

let offsetS = 0;

/** The server's "now" in Unix seconds, from our clock and the last state's server_time. */
export function serverNow() {
  return Date.now() / 1000 + offsetS;
}

/**
 * Calls onState(state) for every newer state (by seq) and onStatus("connecting" | "live" |
 * "polling" | "lost") when the connection changes. Returns {stop, refresh}.
 */
export function subscribe({ onState, onStatus = () => {} }) {
  let lastSeq = null;
  let lastTable = null;
  let source = null;
  let pollTimer = null;
  let retryTimer = null;
  let stopped = false;
  let status = null;

  function setStatus(s) {
    if (s !== status) {
      status = s;
      onStatus(s);
    }
  }

  function deliver(state, force = false) {
    if (!state || typeof state !== "object") return;
    if (typeof state.server_time === "number") offsetS = state.server_time - Date.now() / 1000;
    const seq = typeof state.seq === "number" ? state.seq : null;
    const fresh = lastSeq === null || seq === null || seq > lastSeq || state.table !== lastTable;
    if (!fresh && !force) return;
    lastSeq = seq;
    lastTable = state.table;
    onState(state);
  }

  async function poll() {
    try {
      const res = await fetch(apiPath("/api/state"), { cache: "no-store", credentials: "same-origin" });
      if (res.ok) {
        deliver(await res.json());
        if (status !== "live") setStatus("polling");
      } else if (status !== "live") {
        setStatus("lost");
      }
    } catch {
      if (status !== "live") setStatus("lost");
    }
  }

  function startPolling() {
    if (pollTimer === null && !stopped) pollTimer = window.setInterval(poll, POLL_MS);
  }

  function stopPolling() {
    if (pollTimer !== null) window.clearInterval(pollTimer);
    pollTimer = null;
  }

  function openStream() {
    if (stopped || typeof window.EventSource !== "function") {
      startPolling();
      return;
    }
    source = new EventSource(apiPath("/api/stream"));
    source.addEventListener("open", () => {
      stopPolling();
      setStatus("live");
    });
    source.addEventListener("state", (ev) => {
      try {
        deliver(JSON.parse(ev.data));
      } catch {
        /* a broken message: the next one or a poll brings the state */
      }
      setStatus("live");
    });
    source.addEventListener("error", () => {
      // CONNECTING: the browser is reconnecting by itself; CLOSED: it gave up (no stream here).
      setStatus("lost");
      startPolling();
      if (source.readyState === EventSource.CLOSED) {
        source = null;
        if (retryTimer === null) {
          retryTimer = window.setTimeout(() => {
            retryTimer = null;
            openStream();
          }, SSE_RETRY_MS);
        }
      }
    });
  }

  setStatus("connecting");
  poll();
  openStream();
  const safety = window.setInterval(() => {
    if (status === "live") poll();
  }, SAFETY_POLL_MS);

  return {
    stop() {
      stopped = true;
      stopPolling();
      window.clearInterval(safety);
      if (source) source.close();
      if (retryTimer !== null) window.clearTimeout(retryTimer);
    },
    refresh: poll,
  };
}

/**
 * Polls url (JSON) every intervalMs: onData(json) on each answer, onStatus("connecting" once,
 * then "polling" | "lost"). For pages without a stream (the hub's overview and bracket).
 */
export function pollJson(url, intervalMs, { onData, onStatus = () => {} }) {
  async function poll() {
    try {
      const res = await fetch(url, { cache: "no-store", credentials: "same-origin" });
      if (!res.ok) throw new Error(String(res.status));
      onData(await res.json());
      onStatus("polling");
    } catch {
      onStatus("lost");
    }
  }
  onStatus("connecting");
  poll();
  return window.setInterval(poll, intervalMs);
}
