// A phone number and a texted code, in two steps: on the sign-in page to sign in, on the profile to confirm the number.
// On the sign-in page, a browser remembered after such a sign-in continues as its person without a code.
import { api } from "/assets/app.js";
import { tn } from "/assets/words.js";

const remembered = document.getElementById("remembered-device");
if (remembered) {
  const error = remembered.querySelector(".form-error");
  document.getElementById("continue-remembered").addEventListener("click", async () => {
    error.hidden = true;
    try {
      await api("POST", "/api/v1/auth/device-session");
      window.location.assign(remembered.dataset.next || "/courses");
    } catch (problem) {
      error.textContent = problem.message;
      error.hidden = false;
    }
  });
  document.getElementById("forget-remembered").addEventListener("click", async () => {
    await api("DELETE", "/api/v1/auth/device");
    window.location.reload();
  });
}

// A code lives 5 minutes on the server; while one may still work, the page keeps its field across a reload (as when
// the phone switches to its messages app and back).
const PENDING_FOR = 5 * 60 * 1000;

for (const flow of document.querySelectorAll("[data-phone-flow]")) {
  const ask = flow.querySelector(".phone-ask");
  const check = flow.querySelector(".phone-check");
  const sentNote = flow.querySelector(".phone-sent");
  const again = flow.querySelector(".phone-again");
  const pendingKey = `rollcall.phone-code.${flow.id || location.pathname}`;
  let phone = "";

  const showCheck = (note) => {
    sentNote.textContent = note;
    ask.hidden = true;
    check.hidden = false;
  };
  const pending = JSON.parse(sessionStorage.getItem(pendingKey) ?? "null");
  if (pending && pending.until > Date.now()) {
    phone = pending.phone;
    showCheck(pending.note);
  } else {
    sessionStorage.removeItem(pendingKey);
  }

  const fail = (form, problem) => {
    const box = form.querySelector(".form-error");
    box.textContent = problem.message;
    box.hidden = false;
  };

  const send = async (form) => {
    form.querySelector(".form-error").hidden = true;
    const [method, path] = flow.dataset.send.split(" ");
    const answer = await api(method, path, { phone: form.querySelector('[name="phone"]')?.value ?? phone });
    phone = answer.phone;
    showCheck(`${answer.message} ${tn(answer.nextCodeIn,
      "You can ask for another in {0} second.", "You can ask for another in {0} seconds.")}`);
    sessionStorage.setItem(pendingKey, JSON.stringify({ phone, note: answer.message, until: Date.now() + PENDING_FOR }));
    check.querySelector('[name="code"]').focus();
  };

  ask.addEventListener("submit", async (event) => {
    event.preventDefault();
    try { await send(ask); } catch (problem) { fail(ask, problem); }
  });

  again.addEventListener("click", async () => {
    try { await send(check); } catch (problem) { fail(check, problem); }
  });

  check.addEventListener("submit", async (event) => {
    event.preventDefault();
    check.querySelector(".form-error").hidden = true;
    const [method, path] = flow.dataset.check.split(" ");
    try {
      const body = { phone, code: check.querySelector('[name="code"]').value };
      const remember = check.querySelector('[name="rememberDevice"]');
      if (remember) body.rememberDevice = remember.checked;
      await api(method, path, body);
      sessionStorage.removeItem(pendingKey);
      const then = flow.dataset.then ?? "reload";
      if (then.startsWith("go:")) window.location.assign(then.slice(3));
      else window.location.reload();
    } catch (problem) {
      fail(check, problem);
    }
  });
}
