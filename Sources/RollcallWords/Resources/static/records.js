import { t, tn } from "/assets/words.js";

// Attendance figures: the meter fills and its number counts up once, unless the reader prefers less motion.
const still = window.matchMedia("(prefers-reduced-motion: reduce)").matches;

for (const circle of document.querySelectorAll("[data-meter]")) {
  const value = Number(circle.dataset.meter);
  if (still || !Number.isFinite(value)) continue;
  circle.style.strokeDasharray = "0 100";
  requestAnimationFrame(() => requestAnimationFrame(() => {
    circle.classList.add("filling");
    circle.style.strokeDasharray = `${value} 100`;
  }));
}

for (const number of document.querySelectorAll("[data-count-to]")) {
  const target = Number(number.dataset.countTo);
  if (still || !Number.isFinite(target) || number.textContent.trim() === "—") continue;
  const started = performance.now();
  const duration = 1200;
  const step = (now) => {
    const progress = Math.min(1, (now - started) / duration);
    const eased = 1 - (1 - progress) ** 3;
    number.textContent = `${Math.round(target * eased)}%`;
    if (progress < 1) requestAnimationFrame(step);
  };
  requestAnimationFrame(step);
}

// Roster import: the file goes to the API as it is; a refusal lists every line to mend.
const importForm = document.querySelector("form[data-import]");
const IMPORT_SUMMARY = "rollcall.import-summary";
const summary = sessionStorage.getItem(IMPORT_SUMMARY);
if (importForm && summary) {
  sessionStorage.removeItem(IMPORT_SUMMARY);
  const answerBox = importForm.querySelector(".import-answer");
  answerBox.textContent = summary;
  answerBox.hidden = false;
  answerBox.scrollIntoView({ block: "center" });
}
importForm?.addEventListener("submit", async (event) => {
  event.preventDefault();
  const errorBox = importForm.querySelector(".form-error");
  const answerBox = importForm.querySelector(".import-answer");
  const rowList = importForm.querySelector(".import-errors");
  const button = importForm.querySelector("button");
  for (const box of [errorBox, answerBox, rowList]) box.hidden = true;
  rowList.replaceChildren();
  const file = importForm.querySelector('input[type="file"]').files[0];
  if (!file) {
    errorBox.textContent = t("Choose a roster file first.");
    errorBox.hidden = false;
    return;
  }
  button.disabled = true;
  try {
    const response = await fetch(importForm.dataset.import, {
      method: "POST",
      credentials: "same-origin",
      headers: {
        "Content-Type": "text/csv",
        Accept: "application/json",
        "X-CSRF-Token": document.querySelector('meta[name="csrf-token"]')?.content ?? "",
      },
      body: file,
    });
    const data = await response.json().catch(() => null);
    if (!response.ok) {
      errorBox.textContent = data?.error?.message ?? t("The server answered {0}.", response.status);
      errorBox.hidden = false;
      for (const row of data?.error?.rows ?? []) {
        const item = document.createElement("li");
        item.textContent = t("Line {0}: {1}", row.line, row.message);
        rowList.append(item);
      }
      rowList.hidden = rowList.childElementCount === 0;
      return;
    }
    const parts = [
      tn(data.enrolled, "{0} added", "{0} added"),
      tn(data.alreadyEnrolled, "{0} already on the roster", "{0} already on the roster"),
      tn(data.invited.length, "{0} invited by email", "{0} invited by email"),
    ];
    if (data.alreadyInvited > 0) {
      parts.push(tn(data.alreadyInvited, "{0} invited before (not mailed again)", "{0} invited before (not mailed again)"));
    }
    let text = parts.join(", ") + ".";
    // How the file was read, so that a file saved the other way is noticed.
    const separators = { comma: t("commas"), semicolon: t("semicolons"), tab: t("tabs") };
    const encodings = { "utf-8": "UTF-8", "utf-16": "UTF-16", "windows-1252": "Windows-1252" };
    text += ` ${t("Read as {0} text with fields separated by {1}.", encodings[data.encoding] ?? data.encoding, separators[data.separator] ?? data.separator)}`;
    if (data.waiting > 0) {
      text += ` ${tn(data.waiting,
        "{0} invitation waits to be mailed: at most {1} go out for you in a day.",
        "{0} invitations wait to be mailed: at most {1} go out for you in a day.",
        data.invitationsPerDay)}`;
    }
    // The roster below is drawn by the server: reload it, and show the summary again on the new page.
    sessionStorage.setItem(IMPORT_SUMMARY, text);
    window.location.reload();
  } catch {
    errorBox.textContent = t("Rollcall could not be reached. Check the connection and try again.");
    errorBox.hidden = false;
  } finally {
    button.disabled = false;
  }
});
