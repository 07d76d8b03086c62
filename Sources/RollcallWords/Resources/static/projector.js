// The projector: shows the code the server pushes (the browser's clock never picks it) and survives network blips.
// The server sends a frame at every new code; when none has come for a code's period (and a little), the code on
// screen would be refused when scanned, so it comes down and the screen says it is reconnecting until frames come
// again, whether the connection dropped or went silent.
import { explainWrongAddress } from "/assets/address.js";
import { t, tn } from "/assets/words.js";

const root = document.getElementById("projector");
const session = root.dataset.session;
const qr = document.getElementById("projector-qr");
const message = document.getElementById("projector-message");
const status = document.getElementById("projector-status");
const typedOnly = root.classList.contains("typed-mode");
let retry = 500;
let lastStep = null;
let animatedStep = null;
let progressTimer;
let staleTimer;
/** Slack past the next expected frame before the code on screen counts as stale. */
const STALE_AFTER_MS = 1500;

const spaced = (code) => code.replace(/(\d{3})(\d{3})/, "$1 $2");

function render(frame) {
  clearTimeout(staleTimer);
  root.classList.remove("reconnecting");
  document.getElementById("projector-count").textContent = frame.checkedIn;
  announceCount(tn(frame.checkedIn, "{0} checked in", "{0} checked in"));
  document.getElementById("projector-enrolled").textContent = t("of {0} checked in", frame.enrolled);
  const typedWrap = document.getElementById("projector-typed-wrap");
  typedWrap.hidden = !frame.typedCode || typedOnly;
  if (frame.typedCode) document.getElementById("projector-typed").textContent = spaced(frame.typedCode);
  if (frame.phase !== "open") {
    showMessage(frame.phase === "closed" ? t("This session is closed.") : t("This session has not opened yet."));
    return;
  }
  message.hidden = true;
  qr.hidden = false;
  if (frame.svg && frame.step !== lastStep) {
    qr.innerHTML = frame.svg;
    qr.dataset.url = frame.url;
    qr.dataset.step = frame.step;
    lastStep = frame.step;
  } else if (!frame.svg && frame.typedCode) {
    const typedOnlyBox = document.createElement("div");
    typedOnlyBox.className = "typed-only";
    const hint = document.createElement("span");
    hint.className = "typed-hint";
    hint.textContent = t("Type this code on your course page");
    const big = document.createElement("strong");
    big.id = "projector-typed-big";
    big.textContent = spaced(frame.typedCode);
    typedOnlyBox.append(hint, big);
    qr.replaceChildren(typedOnlyBox);
  }
  const remaining = frame.svg ? frame.nextChangeIn : frame.typedNextChangeIn ?? frame.nextChangeIn;
  staleTimer = setTimeout(stale, Math.min(frame.nextChangeIn ?? 10000, remaining ?? 10000) + STALE_AFTER_MS);
  // A check-in also sends a frame; only a new code restarts the countdown bar.
  const shownStep = frame.svg ? frame.step : frame.typedCode;
  if (shownStep !== animatedStep) {
    animatedStep = shownStep;
    animateProgress(remaining);
  }
}

/** No frame when one was due: take the code down until the server is heard again. */
function stale() {
  lastStep = null;
  animatedStep = null;
  root.classList.add("reconnecting");
  document.getElementById("projector-typed-wrap").hidden = true;
  status.textContent = t("reconnecting…");
  showMessage(t("Reconnecting…"));
}

// The count for a screen reader, at most every fifteen seconds: each frame carries it, and a hall fills in a minute.
const announcer = document.getElementById("projector-announce");
let announcedAt = 0;
let lastCount = "";
function announceCount(text) {
  if (!announcer || text === lastCount || Date.now() - announcedAt < 15000) return;
  lastCount = text;
  announcedAt = Date.now();
  announcer.textContent = text;
}

function showMessage(text) {
  qr.hidden = true;
  message.hidden = false;
  message.textContent = text;
}

function animateProgress(remaining) {
  const bar = document.getElementById("projector-progress");
  clearTimeout(progressTimer);
  bar.style.transition = "none";
  bar.style.width = "100%";
  progressTimer = setTimeout(() => {
    bar.style.transition = `width ${remaining}ms linear`;
    bar.style.width = "0%";
  }, 20);
}

function connect() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const socket = new WebSocket(`${scheme}://${location.host}/api/v1/sessions/${session}/projector/live`);
  socket.onopen = () => {
    retry = 500;
    status.textContent = t("live");
    root.classList.remove("offline");
  };
  socket.onmessage = (event) => render(JSON.parse(event.data));
  socket.onclose = () => {
    // A short blip keeps the code on screen; the stale timer takes it down once it has outlived its period.
    status.textContent = t("reconnecting…");
    root.classList.add("offline");
    setTimeout(connect, retry);
    retry = Math.min(retry * 2, 5000);
  };
}

const fullscreen = document.getElementById("projector-fullscreen");
fullscreen.addEventListener("click", () => document.documentElement.requestFullscreen?.());
document.addEventListener("fullscreenchange", () => (fullscreen.hidden = Boolean(document.fullscreenElement)));

// At the wrong address the server refuses the socket: say so where the code would be, rather than reconnect forever.
if (explainWrongAddress(message, status)) {
  qr.hidden = true;
  message.hidden = false;
} else {
  connect();
}
