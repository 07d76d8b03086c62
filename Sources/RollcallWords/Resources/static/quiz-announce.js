// A running quiz, announced where a student looks: after checking in, on the course page and on the session's page.
// Asked again every 15 seconds and whenever the page comes back into view, so that a quiz started later shows up.
import { t } from "/assets/words.js";

const EVERY = 15000;

/** Keeps `box` showing a link to each quiz running in session `sessionId`, or hidden when none is. */
export function announceQuizzes(box, sessionId) {
  let timer;
  const ask = async () => {
    clearTimeout(timer);
    try {
      const response = await fetch(`/api/v1/sessions/${sessionId}/quiz-runs`, {
        credentials: "same-origin",
        headers: { Accept: "application/json" },
      });
      if (response.ok) show(box, (await response.json()).runs.filter((run) => run.running));
    } catch {
      // Offline for a moment: the next round asks again.
    }
    timer = setTimeout(ask, EVERY);
  };
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible") ask();
  });
  ask();
}

function show(box, runs) {
  box.replaceChildren();
  for (const run of runs) {
    const line = document.createElement("span");
    line.className = "quiz-running-line";
    line.append(t("A quiz is running:"), " ");
    const link = document.createElement("a");
    link.href = `/quiz-runs/${run.id}`;
    link.textContent = t("open “{0}”", run.title);
    line.append(link);
    box.append(line);
  }
  box.hidden = runs.length === 0;
}

for (const box of document.querySelectorAll("[data-quiz-announce]")) announceQuizzes(box, box.dataset.quizAnnounce);
