// The Devices page: adding a passkey on this device.
import { registerPasskey } from "/assets/passkeys.js";

const form = document.getElementById("add-passkey");
form.addEventListener("submit", async (event) => {
  event.preventDefault();
  const error = form.querySelector(".form-error");
  const button = form.querySelector("button");
  error.hidden = true;
  button.disabled = true;
  try {
    await registerPasskey(form.elements.name.value);
    window.location.reload();
  } catch (problem) {
    error.textContent = problem.message;
    error.hidden = false;
  } finally {
    button.disabled = false;
  }
});
