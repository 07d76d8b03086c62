// The sign-in page's passkey button: no email, no password; the phone asks for the face, fingerprint or screen lock.
import { signInWithPasskey } from "/assets/passkeys.js";

const root = document.getElementById("passkey-sign-in");
const button = document.getElementById("passkey-sign-in-button");
const error = root.querySelector(".form-error");
button.addEventListener("click", async () => {
  error.hidden = true;
  button.disabled = true;
  try {
    await signInWithPasskey();
    window.location.assign(root.dataset.next || "/courses");
  } catch (problem) {
    error.textContent = problem.message;
    error.hidden = false;
  } finally {
    button.disabled = false;
  }
});
