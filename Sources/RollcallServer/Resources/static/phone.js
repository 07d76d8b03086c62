// A phone number and a texted code, in two steps: on the sign-in page to sign in, on the profile to confirm the number.
import { api } from "/assets/app.js";

for (const flow of document.querySelectorAll("[data-phone-flow]")) {
  const ask = flow.querySelector(".phone-ask");
  const check = flow.querySelector(".phone-check");
  const sentNote = flow.querySelector(".phone-sent");
  const again = flow.querySelector(".phone-again");
  let phone = "";

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
    sentNote.textContent = `${answer.message} You can ask for another in ${answer.nextCodeIn} seconds.`;
    ask.hidden = true;
    check.hidden = false;
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
      await api(method, path, { phone, code: check.querySelector('[name="code"]').value });
      const then = flow.dataset.then ?? "reload";
      if (then.startsWith("go:")) window.location.assign(then.slice(3));
      else window.location.reload();
    } catch (problem) {
      fail(check, problem);
    }
  });
}
