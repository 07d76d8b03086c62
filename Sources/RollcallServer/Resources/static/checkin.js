// The student's check-in page: location (when the session asks for it), then the check-in, then a plain answer.
import { api, deviceId, locate } from "/assets/app.js";

const root = document.getElementById("check-in");
const show = (id) => {
  for (const state of root.querySelectorAll(".checkin-state")) state.hidden = state.id !== id;
};

async function checkIn() {
  show("check-in-working");
  try {
    const body = { ticket: root.dataset.ticket, deviceId: deviceId() };
    if (root.dataset.needsLocation === "true") body.location = await locate();
    document.getElementById("check-in-step").textContent = "Checking you in…";
    const answer = await api("POST", "/api/v1/check-ins", body);
    document.getElementById("check-in-result").textContent = answer.status === "late" ? "You're in — marked late" : "You're in";
    document.getElementById("check-in-time").textContent =
      `${answer.courseName} · ${new Date(answer.checkedInAt).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" })}`;
    root.dataset.result = answer.status;
    show("check-in-done");
  } catch (error) {
    document.getElementById("check-in-error").textContent = error.message;
    root.dataset.result = error.code ?? "error";
    show("check-in-failed");
  }
}

document.getElementById("check-in-retry").addEventListener("click", checkIn);
checkIn();
