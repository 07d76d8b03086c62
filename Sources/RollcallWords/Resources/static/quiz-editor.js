// The quiz editor: the quiz as JSON from the API, drawn as a form; Save sends it back whole (PUT), and the server's
// rules decide (the refusal names the question at fault). The course's quiz list uses it for "New quiz".
import { api } from "/assets/app.js";
import { t } from "/assets/words.js";

/** What "New quiz" starts from; the editor shows these as placeholders until they are replaced. */
const STARTER = { title: t("New quiz"), prompt: t("First question"), options: [t("Yes"), t("No")], minutes: 10 };

const newButton = document.getElementById("new-quiz");
if (newButton) {
  newButton.addEventListener("click", async () => {
    const starter = {
      title: STARTER.title,
      timeLimitSeconds: STARTER.minutes * 60,
      questions: [
        { id: "q1", kind: "single_choice", prompt: STARTER.prompt, points: 1, options: STARTER.options, correct: [0] },
      ],
    };
    try {
      const created = await api("POST", `/api/v1/courses/${newButton.dataset.course}/quizzes`, starter);
      window.location.assign(`/quizzes/${created.quiz.id}/edit`);
    } catch (error) {
      const box = newButton.parentElement.querySelector(".form-error");
      box.textContent = error.message;
      box.hidden = false;
    }
  });
}

const form = document.getElementById("quiz-editor");
if (form) editor(form);

function editor(form) {
  const quizId = form.dataset.quiz;
  const list = document.getElementById("questions");
  const errorBox = form.querySelector(".form-error");
  const saveState = document.getElementById("save-state");
  let questions = [];
  /** Whether the quiz is still as "New quiz" made it: its defaults are then shown as placeholders. */
  let starter = false;

  const KINDS = {
    single_choice: t("One choice"),
    multiple_choice: t("Several choices"),
    short_text: t("Short text (marked by hand)"),
    number: t("Number"),
  };

  function field(labelText, input) {
    const label = document.createElement("label");
    label.append(labelText, input);
    return label;
  }

  function input(type, value, onInput, attributes = {}) {
    const element = document.createElement(type === "textarea" ? "textarea" : "input");
    if (type !== "textarea") element.type = type;
    element.value = value ?? "";
    Object.assign(element, attributes);
    element.addEventListener("input", () => onInput(element));
    return element;
  }

  /**
   * A field of the starter quiz: its default is a placeholder, not text that typing would add to (a first "8"
   * typed after "10" minutes made 108), and it is what is saved while the field is left empty.
   */
  function starterInput(type, value, fallback, onInput, attributes = {}) {
    if (!starter || String(value) !== String(fallback)) return input(type, value, onInput, attributes);
    const element = input(type, "", (e) => onInput({ value: e.value === "" ? String(fallback) : e.value }), attributes);
    element.placeholder = String(fallback);
    return element;
  }

  function nextId() {
    let n = questions.length + 1;
    while (questions.some((q) => q.id === `q${n}`)) n += 1;
    return `q${n}`;
  }

  function draw() {
    list.replaceChildren(
      ...questions.map((question, index) => {
        const item = document.createElement("li");
        item.className = "card question-editor";
        item.dataset.question = question.id;
        const head = document.createElement("div");
        head.className = "row";
        const title = document.createElement("strong");
        title.textContent = `${index + 1}. ${KINDS[question.kind]}`;
        const remove = document.createElement("button");
        remove.type = "button";
        remove.className = "link danger";
        remove.textContent = t("Remove");
        remove.addEventListener("click", () => {
          questions.splice(index, 1);
          draw();
        });
        head.append(title, remove);
        item.append(head);
        item.append(field(t("Question"), starterInput("textarea", question.prompt, STARTER.prompt, (e) => (question.prompt = e.value), { rows: 2 })));
        item.append(field(t("Points"), starterInput("number", question.points, 1, (e) => (question.points = Number(e.value)), { min: 0, max: 100 })));
        if (question.kind === "single_choice" || question.kind === "multiple_choice") {
          question.options ??= ["", ""];
          question.correct ??= [];
          const options = document.createElement("div");
          options.className = "option-editors";
          question.options.forEach((option, optionIndex) => {
            const row = document.createElement("div");
            row.className = "row";
            const correct = document.createElement("input");
            correct.type = question.kind === "single_choice" ? "radio" : "checkbox";
            correct.name = `correct-${question.id}`;
            correct.checked = question.correct.includes(optionIndex);
            correct.setAttribute("aria-label", t("Option {0} is correct", optionIndex + 1));
            correct.addEventListener("change", () => {
              if (question.kind === "single_choice") question.correct = [optionIndex];
              else question.correct = correct.checked
                ? [...new Set([...question.correct, optionIndex])].sort((a, b) => a - b)
                : question.correct.filter((i) => i !== optionIndex);
            });
            const text = starterInput("text", option, STARTER.options[optionIndex] ?? "", (e) => (question.options[optionIndex] = e.value), {
              placeholder: t("Option {0}", optionIndex + 1),
              className: "grow",
            });
            // A placeholder is no label: it is gone once the field has text.
            text.setAttribute("aria-label", t("Option {0} of question {1}", optionIndex + 1, index + 1));
            const drop = document.createElement("button");
            drop.type = "button";
            drop.className = "link";
            drop.textContent = "✕";
            drop.setAttribute("aria-label", t("Remove option {0}", optionIndex + 1));
            drop.addEventListener("click", () => {
              question.options.splice(optionIndex, 1);
              question.correct = question.correct.filter((i) => i !== optionIndex).map((i) => (i > optionIndex ? i - 1 : i));
              draw();
            });
            row.append(correct, text, drop);
            options.append(row);
          });
          const add = document.createElement("button");
          add.type = "button";
          add.className = "link";
          add.textContent = t("Add option");
          add.addEventListener("click", () => {
            question.options.push("");
            draw();
          });
          item.append(options, add);
          const hint = document.createElement("p");
          hint.className = "muted";
          hint.textContent = question.kind === "multiple_choice" ? t("Tick the correct options.") : t("Tick the correct option.");
          item.append(hint);
        } else if (question.kind === "number") {
          item.append(field(t("Expected number"), input("text", question.answer, (e) => (question.answer = Number(e.value.replace(",", "."))), { inputMode: "decimal" })));
          item.append(field(t("Tolerance (±)"), input("text", question.tolerance ?? 0, (e) => (question.tolerance = Number(e.value.replace(",", "."))), { inputMode: "decimal" })));
        } else {
          const hint = document.createElement("p");
          hint.className = "muted";
          hint.textContent = t("You mark short answers by hand after the quiz, with a comment.");
          item.append(hint);
        }
        return item;
      }),
    );
  }

  async function load() {
    const { quiz } = await api("GET", `/api/v1/quizzes/${quizId}`);
    const [first] = quiz.questions;
    starter = quiz.title === STARTER.title && quiz.questions.length === 1 && first.prompt === STARTER.prompt;
    form.elements.title.placeholder = STARTER.title;
    form.elements.title.value = quiz.title === STARTER.title ? "" : quiz.title;
    form.elements.instructions.value = quiz.instructions;
    form.elements.minutes.placeholder = String(STARTER.minutes);
    form.elements.minutes.value = starter && quiz.timeLimitSeconds === STARTER.minutes * 60 ? "" : quiz.timeLimitSeconds / 60;
    form.elements.shuffleQuestions.checked = quiz.shuffleQuestions;
    form.elements.shuffleOptions.checked = quiz.shuffleOptions;
    form.elements.showResults.checked = quiz.showResults;
    questions = quiz.questions;
    draw();
  }

  document.getElementById("add-question").addEventListener("click", () => {
    const kind = document.getElementById("new-kind").value;
    const question = { id: nextId(), kind, prompt: "", points: 1 };
    if (kind === "single_choice" || kind === "multiple_choice") Object.assign(question, { options: ["", ""], correct: [] });
    if (kind === "number") Object.assign(question, { answer: 0, tolerance: 0 });
    questions.push(question);
    draw();
    list.lastElementChild?.querySelector("textarea")?.focus();
  });

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    errorBox.hidden = true;
    saveState.textContent = t("saving…");
    try {
      const { quiz } = await api("PUT", `/api/v1/quizzes/${quizId}`, {
        // A field left empty keeps the default its placeholder shows.
        title: form.elements.title.value || STARTER.title,
        instructions: form.elements.instructions.value,
        timeLimitSeconds: Math.round(Number(form.elements.minutes.value || STARTER.minutes) * 60),
        shuffleQuestions: form.elements.shuffleQuestions.checked,
        shuffleOptions: form.elements.shuffleOptions.checked,
        showResults: form.elements.showResults.checked,
        questions,
      });
      document.getElementById("quiz-heading").textContent = quiz.title;
      saveState.textContent = t("saved");
    } catch (error) {
      saveState.textContent = "";
      errorBox.textContent = error.message;
      errorBox.hidden = false;
    }
  });

  document.getElementById("duplicate-quiz").addEventListener("click", async () => {
    const { quiz } = await api("POST", `/api/v1/quizzes/${quizId}/duplicate`);
    window.location.assign(`/quizzes/${quiz.id}/edit`);
  });

  document.getElementById("delete-quiz").addEventListener("click", async () => {
    if (!window.confirm(t("Delete this quiz? A quiz students answered is archived instead, with its results."))) return;
    await api("DELETE", `/api/v1/quizzes/${quizId}`);
    window.location.assign(`/courses/${form.dataset.course}/quizzes`);
  });

  load().catch((error) => {
    errorBox.textContent = error.message;
    errorBox.hidden = false;
  });
}
