// The student's quiz questions as a form: one fieldset a question, its answer filled in, each change handed to the
// quiz page (quiz.js), which keeps and sends it.
import { t, tn } from "/assets/words.js";

/**
 * The fieldset for one question. `on.change(questionId, answer, typing)` records an answer; `on.flag(kind, detail)`
 * records an integrity flag (a paste).
 */
export function questionBox(question, index, answer, on) {
  const box = document.createElement("fieldset");
  box.className = "card question";
  box.dataset.question = question.id;
  // Focusable by the page, so that starting the quiz can put the focus on the first question.
  box.tabIndex = -1;
  const legend = document.createElement("legend");
  const prompt = teachers(question.prompt);
  prompt.id = `prompt-${question.id}`;
  legend.append(`${index + 1}. `, prompt);
  const points = document.createElement("small");
  points.textContent = " " + tn(question.points, "({0} point)", "({0} points)");
  legend.append(points);
  box.append(legend);
  if (question.kind === "single_choice" || question.kind === "multiple_choice") {
    box.append(...choices(question, answer, box, on));
  } else if (question.kind === "short_text") {
    box.append(shortText(question, answer, on));
  } else {
    box.append(...number(question, answer, on));
  }
  if (question.mark) box.append(markLine(question));
  return box;
}

/** The teacher's words, marked with the course's language where the page is in another (`data-content-lang`), so
 * that a screen reader reads a French question with a French voice. */
function teachers(text) {
  const words = document.createElement("span");
  words.textContent = text;
  const lang = document.getElementById("quiz")?.dataset.contentLang;
  if (lang) words.lang = lang;
  return words;
}

function choices(question, answer, box, on) {
  const multiple = question.kind === "multiple_choice";
  const chosen = new Set(multiple ? answer?.choices ?? [] : answer?.choice !== undefined ? [answer.choice] : []);
  return (question.order ?? question.options.map((_, i) => i)).map((option) => {
    const label = document.createElement("label");
    label.className = "check option";
    const input = document.createElement("input");
    input.type = multiple ? "checkbox" : "radio";
    input.name = `q-${question.id}`;
    input.value = String(option);
    input.checked = chosen.has(option);
    input.addEventListener("change", () => {
      if (multiple) {
        const picked = [...box.querySelectorAll("input:checked")].map((i) => Number(i.value)).sort((a, b) => a - b);
        on.change(question.id, { choices: picked }, false);
      } else {
        on.change(question.id, { choice: option }, false);
      }
    });
    label.append(input, " ", teachers(question.options[option]));
    return label;
  });
}

function shortText(question, answer, on) {
  const text = document.createElement("textarea");
  text.rows = 4;
  text.maxLength = 5000;
  text.name = `q-${question.id}`;
  text.value = answer?.text ?? "";
  text.setAttribute("aria-labelledby", `prompt-${question.id}`);
  text.addEventListener("input", () => on.change(question.id, { text: text.value }, true));
  text.addEventListener("paste", (event) => {
    const pasted = event.clipboardData?.getData("text") ?? "";
    on.flag("pasted", { characters: pasted.length, questionId: question.id });
  });
  return text;
}

function number(question, answer, on) {
  const input = document.createElement("input");
  input.type = "text";
  input.inputMode = "decimal";
  input.name = `q-${question.id}`;
  input.value = answer?.number !== undefined ? String(answer.number) : "";
  input.setAttribute("aria-labelledby", `prompt-${question.id}`);
  const note = document.createElement("small");
  // Said to a screen reader too, once the typing stops being a number.
  note.setAttribute("role", "status");
  input.addEventListener("input", () => {
    const value = Number(input.value.replace(",", ".").trim());
    if (input.value.trim() === "" || !Number.isFinite(value)) {
      note.textContent = input.value.trim() === "" ? "" : " " + t("Type a number, such as 3.14.");
      return;
    }
    note.textContent = "";
    on.change(question.id, { number: value }, true);
  });
  return [input, note];
}

function markLine(question) {
  const mark = document.createElement("p");
  mark.className = "mark";
  mark.textContent = question.mark.pending
    ? t("Waiting for your teacher's mark.")
    : question.mark.comment
      ? t("{0} of {1} — {2}", question.mark.points, question.points, question.mark.comment)
      : t("{0} of {1}", question.mark.points, question.points);
  return mark;
}
