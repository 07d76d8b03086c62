// The projector: shows the code the server pushes (the browser's clock never picks it) and survives network blips.
const root = document.getElementById("projector");
const session = root.dataset.session;
const qr = document.getElementById("projector-qr");
const message = document.getElementById("projector-message");
const status = document.getElementById("projector-status");
let socket;
let retry = 500;
let lastStep = null;
let animatedStep = null;
let progressTimer;

function render(frame) {
  document.getElementById("projector-count").textContent = frame.checkedIn;
  document.getElementById("projector-enrolled").textContent = `of ${frame.enrolled} checked in`;
  const typedWrap = document.getElementById("projector-typed-wrap");
  typedWrap.hidden = !frame.typedCode;
  if (frame.typedCode) document.getElementById("projector-typed").textContent = frame.typedCode.replace(/(\d{3})(\d{3})/, "$1 $2");
  if (frame.phase !== "open") {
    qr.hidden = true;
    message.hidden = false;
    message.textContent = frame.phase === "closed" ? "This session is closed." : "This session has not opened yet.";
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
    qr.innerHTML = `<div class="typed-only">${frame.typedCode.replace(/(\d{3})(\d{3})/, "$1 $2")}</div>`;
  }
  // A check-in also sends a frame; only a new code restarts the countdown bar.
  if (frame.step !== animatedStep) {
    animatedStep = frame.step;
    animateProgress(frame.nextChangeIn);
  }
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
  socket = new WebSocket(`${scheme}://${location.host}/api/v1/sessions/${session}/projector/live`);
  socket.onopen = () => {
    retry = 500;
    status.textContent = "live";
    root.classList.remove("offline");
  };
  socket.onmessage = (event) => render(JSON.parse(event.data));
  socket.onclose = () => {
    // Keep the last code on screen and reconnect; a short blip costs at most one code period.
    status.textContent = "reconnecting…";
    root.classList.add("offline");
    setTimeout(connect, retry);
    retry = Math.min(retry * 2, 5000);
  };
}

connect();
