// The quiz card of a session page: for the teacher, the course's quizzes to start and the runs with their dashboards;
// for a student, the quiz running now.
import { api } from "/assets/app.js";
import { t } from "/assets/words.js";

const card = document.getElementById("session-quizzes");
const { session, course } = card.dataset;
const manage = card.dataset.manage === "true";
const list = document.getElementById("quiz-runs");
const errorBox = card.querySelector(".form-error");

function link(text, href, className = "button") {
  const a = document.createElement("a");
  a.className = className;
  a.href = href;
  a.textContent = text;
  return a;
}

async function draw() {
  const { runs } = await api("GET", `/api/v1/sessions/${session}/quiz-runs`);
  list.replaceChildren(
    ...runs
      .filter((run) => manage || run.running)
      .map((run) => {
        const item = document.createElement("li");
        item.dataset.run = run.id;
        const title = document.createElement("strong");
        title.textContent = run.title;
        item.append(title, ` ${run.running ? t("running") : t("stopped")} `);
        item.append(
          manage
            ? link(t("Dashboard"), `/quiz-runs/${run.id}/dashboard`, "button secondary")
            : link(t("Take the quiz"), `/quiz-runs/${run.id}`),
        );
        return item;
      }),
  );
  if (!manage) {
    card.hidden = !list.children.length;
    return;
  }
  const { quizzes } = await api("GET", `/api/v1/courses/${course}/quizzes`);
  const select = document.getElementById("quiz-to-start");
  select.replaceChildren(
    ...quizzes.map((quiz) => {
      const option = document.createElement("option");
      option.value = quiz.id;
      option.textContent = quiz.title;
      return option;
    }),
  );
  document.getElementById("start-form").hidden = !quizzes.length || card.dataset.open !== "true";
}

document.getElementById("start-form")?.addEventListener("submit", async (event) => {
  event.preventDefault();
  errorBox.hidden = true;
  try {
    const { run } = await api("POST", `/api/v1/sessions/${session}/quiz-runs`, {
      quizId: Number(document.getElementById("quiz-to-start").value),
    });
    window.location.assign(`/quiz-runs/${run.id}/dashboard`);
  } catch (error) {
    errorBox.textContent = error.message;
    errorBox.hidden = false;
  }
});

draw().catch((error) => {
  errorBox.textContent = error.message;
  errorBox.hidden = false;
});
