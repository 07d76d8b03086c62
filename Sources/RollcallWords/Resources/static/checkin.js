// The student's check-in page: location (when the session asks for it), the passkey (when the course asks for it),
// then the check-in, then a plain answer.
import { api, deviceId, locate } from "/assets/app.js";
import { ClientErrorCode, ErrorCode } from "/assets/codes.js";
import { assertPasskey, registerPasskey } from "/assets/passkeys.js";
import { announceQuizzes } from "/assets/quiz-announce.js";
import { clockText, timeText } from "/assets/time.js";
import { t } from "/assets/words.js";

const root = document.getElementById("check-in");
const show = (id) => {
  for (const state of root.querySelectorAll(".checkin-state")) state.hidden = state.id !== id;
};
const step = (text) => (document.getElementById("check-in-step").textContent = text);
const expiresAt = new Date(root.dataset.expiresAt);
const retry = document.getElementById("check-in-retry");
const join = document.getElementById("check-in-join");
/** Refusals the student can mend on this phone and then try again with the same scan. */
const MENDABLE = new Set([
  ErrorCode.locationRequired, ErrorCode.locationInaccurate, ErrorCode.outOfRange, ErrorCode.networkNotAllowed,
  ErrorCode.verificationRequired, ErrorCode.verificationFailed, ClientErrorCode.verificationCancelled,
  ClientErrorCode.passkeyFailed, ErrorCode.tooManyAttempts,
]);
const SCAN_AGAIN = t("Your scan has run out. Scan the code on the screen again.");
const expired = () => Date.now() >= expiresAt.getTime();
document.getElementById("check-in-validity").textContent = t("Your scan is good until {0}.", clockText(expiresAt));

/** The passkey part: nothing, a recent verification reused, a first passkey to add, or an assertion. */
async function identity(device) {
  if (root.dataset.needsPasskey !== "true") return undefined;
  step(t("Confirm it's you with your face, fingerprint or screen lock…"));
  const options = await api("POST", "/api/v1/check-ins/passkey-options", { ticket: root.dataset.ticket, deviceId: device });
  if (!options.required || options.reuse) return undefined;
  if (!options.hasPasskeys) return null;
  return assertPasskey(options.publicKey);
}

/** What a failed attempt leaves the student to do: try again, join the course, or scan again. */
function failed(error) {
  const scanAgain = expired() && error.code !== ErrorCode.notEnrolled;
  document.getElementById("check-in-error").textContent = scanAgain ? SCAN_AGAIN : error.message;
  root.dataset.result = error.code ?? "error";
  join.hidden = !(error.code === ErrorCode.notEnrolled && error.details?.joinable === true) || expired();
  // No code: the request never reached Rollcall (no network), so the same scan may still work.
  retry.hidden = scanAgain || !(error.code === undefined || MENDABLE.has(error.code));
  show("check-in-failed");
}

/** Past the ticket's end, a refusal on screen can only be mended by a new scan. */
setInterval(() => {
  if (!expired() || root.dataset.result === undefined || !document.getElementById("check-in-done").hidden) return;
  if (document.getElementById("check-in-failed").hidden) return;
  document.getElementById("check-in-error").textContent = SCAN_AGAIN;
  retry.hidden = true;
  join.hidden = true;
  document.getElementById("check-in-validity").textContent = t("Your scan ran out at {0}.", clockText(expiresAt));
}, 1000);

async function checkIn(options = {}) {
  delete root.dataset.result;
  show("check-in-working");
  try {
    const body = { ticket: root.dataset.ticket, deviceId: deviceId() };
    if (options.join) body.join = true;
    if (root.dataset.needsLocation === "true") body.location = await locate();
    const passkey = await identity(body.deviceId);
    if (passkey === null) {
      const deadline = new Date(root.dataset.expiresAt);
      document.getElementById("check-in-deadline").textContent = clockText(deadline);
      root.dataset.result = "no_passkey";
      show("check-in-register");
      return;
    }
    if (passkey) body.passkey = passkey;
    step(t("Checking you in…"));
    const answer = await api("POST", "/api/v1/check-ins", body);
    document.getElementById("check-in-result").textContent = answer.status === "late" ? t("You're in — marked late") : t("You're in");
    document.getElementById("check-in-time").textContent =
      `${answer.courseName} · ${timeText(new Date(answer.checkedInAt))}`;
    root.dataset.result = answer.status;
    document.getElementById("check-in-validity").hidden = true;
    show("check-in-done");
    announceQuizzes(document.getElementById("check-in-quiz"), answer.sessionId);
  } catch (error) {
    failed(error);
  }
}

retry.addEventListener("click", () => checkIn());
join.addEventListener("click", () => checkIn({ join: true }));
document.getElementById("check-in-add-passkey")?.addEventListener("click", async (event) => {
  const button = event.currentTarget;
  const error = document.getElementById("check-in-register-error");
  button.disabled = true;
  error.hidden = true;
  delete root.dataset.result;
  try {
    await registerPasskey(t("My phone"));
    await checkIn();
  } catch (problem) {
    error.textContent = problem.message;
    error.hidden = false;
    root.dataset.result = problem.code ?? ClientErrorCode.passkeyFailed;
  } finally {
    button.disabled = false;
  }
});
checkIn();
