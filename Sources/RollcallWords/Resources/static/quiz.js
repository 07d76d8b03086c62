// The student's quiz page. Every change is kept in localStorage first, with the attempt's next sequence number,
// then sent; it leaves localStorage only once the server acknowledged that very sequence number. So a lost
// network, a reload, a closed tab or a phone gone to sleep loses nothing: the page restores what it kept and sends
// what the server has not got. Integrity flags are queued the same way, each with the time it happened.
import { api, deviceId } from "/assets/app.js";
import { ErrorCode } from "/assets/codes.js";
import { questionBox } from "/assets/quiz-questions.js";
import { t } from "/assets/words.js";

const root = document.getElementById("quiz");
const runId = root.dataset.run;
const narrow = Number(root.dataset.narrow) || 300;
// Keyed by the student too: on a shared phone, one student's unsent answers are never sent as another's.
const storageKey = `rollcall-quiz-${runId}-${root.dataset.student}`;
/** At most one save a question every TYPING_INTERVAL while typing; a choice is sent at once. */
const TYPING_INTERVAL = 2000;
const RETRY_INTERVAL = 3000;

const status = document.getElementById("save-state");
const timer = document.getElementById("timer");
const form = document.getElementById("questions");

/** What survives a reload: the attempt, the last view the server gave, unsent answers and flags. */
let state = load();
let view = null; // the server's attempt view
let offset = 0; // server clock minus this phone's
let sending = false;
let offline = !navigator.onLine;
let closed = false;
let pumpTimer = null;
/** After a failed request nothing is sent again before this moment (0: no wait), so a phone offline does not spin. */
let retryAt = 0;
let awaySince = null;
let narrowNow = false;
/** While the page's own dialog is up, and a moment after, losing the focus is not leaving the page. */
let ownDialog = false;

function load() {
  try {
    const saved = JSON.parse(localStorage.getItem(storageKey) ?? "null");
    if (saved && typeof saved === "object") return { sequence: 0, pending: {}, flags: [], ...saved };
  } catch {}
  return { attemptId: null, sequence: 0, pending: {}, flags: [], view: null };
}

function persist() {
  localStorage.setItem(storageKey, JSON.stringify(state));
}

function showError(box, message) {
  box.textContent = message;
  box.hidden = !message;
}

// ---- Status -------------------------------------------------------------------------------------------------

function updateStatus() {
  const unsent = Object.keys(state.pending).length + state.flags.length;
  let text;
  let kind;
  if (closed) {
    const ending = view?.attempt?.ending;
    text = unsent
      ? t("closing — sending what is kept…")
      : ending === "submitted"
        ? t("handed in")
        : t("closed — saved answers are in");
    kind = unsent ? "saving" : "saved";
  } else if (offline) {
    text = t("offline — answers kept on this phone");
    kind = "offline";
  } else if (Object.keys(state.pending).length) {
    text = t("saving…");
    kind = "saving";
  } else {
    text = view ? t("saved") : "";
    kind = "saved";
  }
  status.textContent = text;
  status.dataset.state = kind;
}

// ---- Answers --------------------------------------------------------------------------------------------------

/** Records a change: a new sequence number, kept at once; sent now or, while typing, within TYPING_INTERVAL. */
function change(questionId, answer, typing) {
  if (closed) return;
  state.sequence += 1;
  const previous = state.pending[questionId];
  const lastSent = previous?.lastSent ?? state.lastSent?.[questionId] ?? 0;
  const notBefore = typing ? Math.max(Date.now(), lastSent + TYPING_INTERVAL) : Date.now();
  state.pending[questionId] = { answer, sequence: state.sequence, notBefore, lastSent };
  persist();
  updateStatus();
  schedule();
}

function schedule(delay) {
  clearTimeout(pumpTimer);
  const pending = Object.values(state.pending);
  if (!pending.length && !state.flags.length) return;
  const due = Math.min(...pending.map((p) => p.notBefore), state.flags.length ? Date.now() : Infinity);
  const soonest = Math.max(0, delay ?? due - Date.now(), retryAt - Date.now());
  pumpTimer = setTimeout(pump, soonest);
}

/** Sends what is due, one request at a time, oldest first. */
async function pump() {
  if (sending || !state.attemptId) return;
  sending = true;
  try {
    while (true) {
      if (state.flags.length) {
        await sendFlags();
        continue;
      }
      const due = Object.entries(state.pending)
        .filter(([, p]) => p.notBefore <= Date.now())
        .sort((a, b) => a[1].sequence - b[1].sequence)[0];
      if (!due) break;
      await sendAnswer(...due);
    }
    retryAt = 0;
    setOffline(false);
  } catch (error) {
    retryAt = Date.now() + RETRY_INTERVAL;
    if (error.network) setOffline(true);
  } finally {
    sending = false;
    updateStatus();
    schedule();
  }
}

async function call(method, path, body) {
  try {
    return await api(method, path, body);
  } catch (error) {
    if (error.status === undefined) error.network = true;
    throw error;
  }
}

async function sendAnswer(questionId, pending) {
  const sent = pending.sequence;
  state.lastSent = { ...(state.lastSent ?? {}), [questionId]: Date.now() };
  try {
    const saved = await call("PUT", `/api/v1/quiz-attempts/${state.attemptId}/answers/${encodeURIComponent(questionId)}`, {
      sequence: sent,
      answer: pending.answer,
    });
    if (view) view.answers[questionId] = { questionId, answer: pending.answer, sequence: sent, savedAt: saved.savedAt };
  } catch (error) {
    if (error.code === ErrorCode.staleSequence) {
      // A newer save of this question is on the server (another tab): this one is rightly dropped.
    } else if (error.code === ErrorCode.attemptClosed || error.code === ErrorCode.timeLimitPassed) {
      drop(questionId, sent);
      await finish();
      return;
    } else if (error.network || error.status >= 500 || error.status === 429) {
      throw error;
    }
    // Refused for good (a wrong answer cannot become right by resending): dropped, the error shown.
  }
  drop(questionId, sent);
}

/** Forgets a pending answer once the server has answered for it, unless a newer change came meanwhile. */
function drop(questionId, sequence) {
  if (state.pending[questionId]?.sequence === sequence) delete state.pending[questionId];
  persist();
}

// ---- Flags ----------------------------------------------------------------------------------------------------

function flag(kind, details = {}) {
  if (!state.attemptId || closed) return;
  state.flags.push({ kind, occurredAt: new Date(Date.now()).toISOString(), clientId: crypto.randomUUID(), ...details });
  persist();
  updateStatus();
  if (!offline) schedule(0);
}

async function sendFlags() {
  const batch = state.flags.slice(0, 50);
  await call("POST", `/api/v1/quiz-attempts/${state.attemptId}/flags`, { flags: batch }).catch((error) => {
    if (error.network || error.status >= 500) throw error;
  });
  const sent = new Set(batch.map((f) => f.clientId));
  state.flags = state.flags.filter((f) => !sent.has(f.clientId));
  persist();
}

/** Reports the end of a time offline, with how long it lasted. */
function backOnline() {
  if (state.offlineSince == null) {
    flag("online");
    return;
  }
  const secondsAway = Math.min(86400, Math.round((Date.now() - state.offlineSince) / 100) / 10);
  state.offlineSince = null;
  flag("online", { secondsAway });
}

function setOffline(value) {
  offline = value;
  updateStatus();
}

/**
 * Asks with the browser's confirm dialog. The dialog takes the window's focus, and browsers deliver that blur and
 * the focus back only once it closed, in an order of their own (headless Chromium sends a focus alone): so for a
 * moment after it, neither counts. A student who did leave meanwhile is caught at the end of that moment, by the
 * window not having the focus, and counted from then.
 */
function confirmHere(message) {
  ownDialog = true;
  try {
    return window.confirm(message);
  } finally {
    setTimeout(() => {
      ownDialog = false;
      if (!document.hasFocus()) leave();
    }, 500);
  }
}

function leave() {
  if (ownDialog || awaySince !== null) return;
  awaySince = Date.now();
  flag("left_page");
}

function back() {
  if (ownDialog || awaySince === null) return;
  const secondsAway = Math.round((Date.now() - awaySince) / 100) / 10;
  awaySince = null;
  flag("returned", { secondsAway });
}

function watchIntegrity() {
  document.addEventListener("visibilitychange", () => (document.hidden ? leave() : back()));
  window.addEventListener("blur", leave);
  window.addEventListener("focus", back);
  // When the phone went offline is kept with the attempt, so that "back online" says for how long, even when the
  // tab was closed while offline and the quiz opened again later.
  window.addEventListener("offline", () => {
    setOffline(true);
    if (state.offlineSince == null) {
      state.offlineSince = Date.now();
      flag("offline");
    }
  });
  window.addEventListener("online", () => {
    retryAt = 0;
    backOnline();
    setOffline(false);
    schedule(0);
  });
  if (state.offlineSince != null && navigator.onLine) backOnline();
  window.addEventListener("resize", () => {
    const isNarrow = window.innerWidth < narrow;
    if (isNarrow && !narrowNow) flag("resized", { width: window.innerWidth, height: window.innerHeight });
    narrowNow = isNarrow;
  });
  // A second tab of this quiz in this browser: each tab announces itself; a tab that hears another reports it.
  if ("BroadcastChannel" in window) {
    const channel = new BroadcastChannel(`rollcall-quiz-${runId}`);
    const me = crypto.randomUUID();
    let reported = false;
    channel.onmessage = (event) => {
      if (event.data?.tab === me) return;
      if (event.data?.type === "hello") channel.postMessage({ type: "here", tab: me });
      if (!reported) {
        reported = true;
        flag("second_device");
      }
    };
    channel.postMessage({ type: "hello", tab: me });
  }
}

// ---- Drawing --------------------------------------------------------------------------------------------------

function currentAnswer(questionId) {
  return state.pending[questionId]?.answer ?? view?.answers?.[questionId]?.answer;
}

function render() {
  form.replaceChildren(
    ...view.questions.map((question, index) => questionBox(question, index, currentAnswer(question.id), { change, flag })),
  );
  form.hidden = false;
  document.getElementById("quiz-intro").hidden = true;
  document.getElementById("quiz-footer").hidden = closed;
  if (closed) form.querySelectorAll("input, textarea").forEach((field) => (field.disabled = true));
}

function tick() {
  if (!view) return;
  const left = Math.max(0, Date.parse(view.attempt.deadline) - (Date.now() + offset));
  const minutes = Math.floor(left / 60000);
  const seconds = Math.floor((left % 60000) / 1000);
  timer.textContent = closed ? "" : t("{0}:{1} left", minutes, String(seconds).padStart(2, "0"));
  timer.classList.toggle("urgent", left < 60000);
  if (left === 0 && !closed) finish();
}

// ---- Lifecycle ------------------------------------------------------------------------------------------------

function adopt(answer) {
  if (state.attemptId && state.attemptId !== answer.attempt.id) {
    // Kept for another attempt than the server's: nothing of it belongs here.
    state = { attemptId: null, sequence: 0, pending: {}, flags: [], view: null };
  }
  view = answer;
  offset = Date.parse(answer.serverTime) - Date.now();
  state.attemptId = answer.attempt.id;
  state.sequence = Math.max(state.sequence, answer.lastSequence ?? 0);
  // What the server already holds at that sequence (or later) need not be sent again.
  for (const [questionId, pending] of Object.entries(state.pending)) {
    const stored = answer.answers[questionId];
    if (stored && stored.sequence >= pending.sequence) delete state.pending[questionId];
  }
  state.view = answer;
  closed = Boolean(answer.attempt.closedAt);
  persist();
}

async function finish() {
  if (closed && !Object.keys(state.pending).length) return showDone();
  closed = true;
  // Saves already kept are still sent: within a few seconds of the deadline the server takes them.
  await pump();
  try {
    adopt(await call("GET", `/api/v1/quiz-attempts/${state.attemptId}`));
  } catch {}
  showDone();
}

function showDone() {
  render();
  document.getElementById("quiz-footer").hidden = true;
  const done = document.getElementById("quiz-done");
  done.hidden = false;
  const ending = view?.attempt?.ending;
  document.getElementById("done-title").textContent =
    ending === "submitted"
      ? t("Handed in")
      : ending === "time_limit"
        ? t("Time is up")
        : ending
          ? t("Quiz ended")
          : t("Time is up");
  document.getElementById("done-text").textContent =
    ending === "submitted" ? t("Your answers are in.") : t("Your saved answers are in; nothing more can change.");
  if (view?.points !== undefined) {
    const points = document.getElementById("done-points");
    points.textContent = t("Your mark: {0} of {1}.", view.points, view.maxPoints);
    points.hidden = false;
  }
  updateStatus();
  done.scrollIntoView({ block: "nearest" });
  // The button handed in, or the field typed in, is gone: the focus goes to what replaced them, unless the
  // student is elsewhere on the page.
  const focused = document.activeElement;
  if (!focused || focused === document.body || !focused.isConnected || focused.closest("[hidden]")) {
    document.getElementById("done-title").focus();
  }
}

async function start(resuming) {
  const errorBox = document.querySelector("#quiz-intro .form-error");
  showError(errorBox, "");
  try {
    adopt(await call("POST", `/api/v1/quiz-runs/${runId}/attempts`, { deviceId: deviceId() }));
  } catch (error) {
    if (error.network && state.view) {
      // Offline after a reload or a closed tab: carry on from what this phone kept; it is sent later.
      view = state.view;
      setOffline(true);
    } else {
      showError(errorBox, error.network ? t("You're offline: connect to the network and try again.") : error.message);
      return;
    }
  }
  if (resuming) flag("reloaded");
  render();
  // The start button is gone with the intro: the focus goes to the first question rather than the page's top.
  if (!resuming) form.querySelector("fieldset")?.focus();
  if (closed) showDone();
  tick();
  updateStatus();
  schedule(0);
}

document.getElementById("start-quiz").addEventListener("click", () => start(false));
document.getElementById("submit-quiz").addEventListener("click", async () => {
  const errorBox = document.querySelector("#quiz-footer .form-error");
  showError(errorBox, "");
  await pump();
  if (Object.keys(state.pending).length) {
    showError(errorBox, t("You're offline: your answers are kept on this phone. Hand in once you're back online."));
    return;
  }
  if (!confirmHere(t("Hand in your answers? You cannot change them afterwards."))) return;
  try {
    adopt(await call("POST", `/api/v1/quiz-attempts/${state.attemptId}/submit`));
    showDone();
  } catch (error) {
    showError(errorBox, error.network ? t("You're offline: try again once you're back online.") : error.message);
  }
});

watchIntegrity();
setInterval(tick, 1000);
updateStatus();
if (state.attemptId) {
  start(true);
} else {
  // Started on another device or before this browser's storage was cleared: resume at once.
  call("GET", `/api/v1/quiz-runs/${runId}`)
    .then((answer) => {
      if (answer.attemptId) start(true);
      else if (answer.mayStart === false) {
        showError(
          document.querySelector("#quiz-intro .form-error"),
          t("Check in to this class first: the quiz is open to the students in the room."),
        );
      }
    })
    .catch(() => {});
}
