// The student's check-in page: location (when the session asks for it), the passkey (when the course asks for it),
// then the check-in, then a plain answer.
import { api, deviceId, locate } from "/assets/app.js";
import { assertPasskey, registerPasskey } from "/assets/passkeys.js";

const root = document.getElementById("check-in");
const show = (id) => {
  for (const state of root.querySelectorAll(".checkin-state")) state.hidden = state.id !== id;
};
const step = (text) => (document.getElementById("check-in-step").textContent = text);

/** The passkey part: nothing, a recent verification reused, a first passkey to add, or an assertion. */
async function identity(device) {
  if (root.dataset.needsPasskey !== "true") return undefined;
  step("Confirm it's you with your face, fingerprint or screen lock…");
  const options = await api("POST", "/api/v1/check-ins/passkey-options", { ticket: root.dataset.ticket, deviceId: device });
  if (!options.required || options.reuse) return undefined;
  if (!options.hasPasskeys) return null;
  return assertPasskey(options.publicKey);
}

async function checkIn() {
  delete root.dataset.result;
  show("check-in-working");
  try {
    const body = { ticket: root.dataset.ticket, deviceId: deviceId() };
    if (root.dataset.needsLocation === "true") body.location = await locate();
    const passkey = await identity(body.deviceId);
    if (passkey === null) {
      const deadline = new Date(root.dataset.expiresAt);
      document.getElementById("check-in-deadline").textContent = deadline.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit" });
      root.dataset.result = "no_passkey";
      show("check-in-register");
      return;
    }
    if (passkey) body.passkey = passkey;
    step("Checking you in…");
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
document.getElementById("check-in-add-passkey")?.addEventListener("click", async (event) => {
  const button = event.currentTarget;
  const error = document.getElementById("check-in-register-error");
  button.disabled = true;
  error.hidden = true;
  delete root.dataset.result;
  try {
    await registerPasskey("My phone");
    await checkIn();
  } catch (problem) {
    error.textContent = problem.message;
    error.hidden = false;
    root.dataset.result = problem.code ?? "passkey_failed";
  } finally {
    button.disabled = false;
  }
});
checkIn();
