// The teacher's live quiz dashboard: a snapshot over the run's WebSocket, then each event as it commits; after a
// drop it reconnects with ?after=<last event id>. Events describe states (an attempt's count, a flag by its id),
// so one that the snapshot already showed changes nothing when applied again.
import { api } from "/assets/app.js";
import { clockText } from "/assets/time.js";
import { explainWrongAddress } from "/assets/address.js";
import { t, tc, tn } from "/assets/words.js";

const board = document.getElementById("dashboard");
const runId = board.dataset.run;
const questionCount = Number(board.dataset.questions);
const rows = document.getElementById("attempt-rows");
const feed = document.getElementById("flag-feed");
const liveStatus = document.getElementById("live-status");
const errorBox = board.querySelector(".form-error");

const students = new Map(); // id → {id, name}: those who may take the quiz
const others = new Map(); // id → {id, name}: the course's other students, whom the teacher may let in
const attempts = new Map(); // studentId → attempt event data
const flags = new Map(); // flag id → flag
let offset = 0;
let lastEventId = null;
let retry = 500;

const ENDINGS = {
  submitted: t("handed in"),
  time_limit: t("time up"),
  ended_by_teacher: t("ended by you"),
  quiz_stopped: t("quiz stopped"),
};
/** The column names, repeated beside each value where a phone stacks the table's cells. */
const LABELS = ["", t("answered"), "", t("flags")];
const timeText = (iso) => clockText(new Date(iso));

function statusOf(attempt, outside) {
  if (!attempt && outside) return { text: t("not checked in"), kind: "none" };
  if (!attempt) return { text: t("not started"), kind: "none" };
  if (attempt.ending) return { text: ENDINGS[attempt.ending] ?? attempt.ending, kind: "done" };
  const left = Math.max(0, Date.parse(attempt.deadline) - (Date.now() + offset));
  const minutes = Math.floor(left / 60000);
  const seconds = Math.floor((left % 60000) / 1000);
  return { text: t("answering · {0}:{1} left", minutes, String(seconds).padStart(2, "0")), kind: "active" };
}

function draw() {
  const ids = new Set([...students.keys(), ...attempts.keys()]);
  const everyone = new Set([...ids, ...others.keys()]);
  const people = [...everyone].map((id) => ({
    id, name: students.get(id)?.name ?? others.get(id)?.name ?? attempts.get(id)?.name ?? `#${id}`,
  }));
  people.sort((a, b) => a.name.localeCompare(b.name));
  const flagCounts = new Map();
  for (const flag of flags.values()) flagCounts.set(flag.studentId, (flagCounts.get(flag.studentId) ?? 0) + 1);
  rows.replaceChildren(
    ...people.map((person) => {
      const attempt = attempts.get(person.id);
      const row = document.createElement("tr");
      row.dataset.student = person.id;
      const outside = !attempt && others.has(person.id) && !students.has(person.id);
      const state = statusOf(attempt, outside);
      row.dataset.state = state.kind;
      const cells = [
        person.name,
        attempt ? t("{0} of {1}", attempt.answered, questionCount) : "—",
        state.text,
        String(flagCounts.get(person.id) ?? 0),
      ];
      cells.forEach((text, index) => {
        const cell = document.createElement("td");
        cell.textContent = text;
        cell.dataset.label = LABELS[index];
        row.append(cell);
      });
      row.children[3].className = flagCounts.get(person.id) ? "flag-count" : "";
      const actions = document.createElement("td");
      actions.className = "row-actions";
      if (attempt && !attempt.ending) {
        actions.append(action(t("+2 min"), () => api("POST", `/api/v1/quiz-attempts/${attempt.attemptId}/added-time`, { seconds: 120 })));
        actions.append(action(t("End"), () => {
          if (window.confirm(t("End {0}'s attempt? Their saved answers are kept.", person.name))) {
            return api("POST", `/api/v1/quiz-attempts/${attempt.attemptId}/end`);
          }
        }));
      } else if (outside && running) {
        // Only someone who may not start yet: a student in the room starts by themselves.
        actions.append(action(t("Let in"), () => api("POST", `/api/v1/quiz-runs/${runId}/admissions`, { studentId: person.id })));
      }
      row.append(actions);
      return row;
    }),
  );
  const count = (key, value) => (board.querySelector(`[data-count="${key}"]`).textContent = value);
  count("started", attempts.size);
  count("eligible", ids.size);
  count("submitted", [...attempts.values()].filter((a) => a.ending).length);
  count("flags", flags.size);
}

function action(label, run) {
  const button = document.createElement("button");
  button.type = "button";
  button.className = "link";
  button.textContent = label;
  button.addEventListener("click", async () => {
    errorBox.hidden = true;
    try {
      await run();
    } catch (error) {
      errorBox.textContent = error.message;
      errorBox.hidden = false;
    }
  });
  return button;
}

const FLAG_LABELS = {
  left_page: t("left the page"),
  returned: t("came back"),
  offline: t("went offline"),
  online: t("back online"),
  reloaded: t("reloaded the page"),
  second_device: t("opened on a second device or tab"),
  pasted: t("pasted text"),
  resized: t("made the window small"),
};

/** Seconds as a person reads them: "45 s", "3 min 5 s". */
function duration(seconds) {
  const whole = Math.round(seconds);
  if (whole < 60) return t("{0} s", whole);
  return whole % 60 === 0 ? t("{0} min", Math.floor(whole / 60)) : t("{0} min {1} s", Math.floor(whole / 60), whole % 60);
}

/** What the flag says, in the page's language, from its kind and numbers (the answer's `label` and `detail` are
 * English, and a live flag was written in the student's request). */
function flagText(flag) {
  const details = [];
  if (flag.kind === "returned" && flag.secondsAway != null) details.push(t("after {0}", duration(flag.secondsAway)));
  if (flag.kind === "online" && flag.secondsAway != null) details.push(t("after {0} offline", duration(flag.secondsAway)));
  if (flag.kind === "pasted" && flag.characters != null) {
    details.push(flag.questionId
      ? tn(flag.characters, "{0} character into {1}", "{0} characters into {1}", flag.questionId)
      : tn(flag.characters, "{0} character", "{0} characters"));
  }
  if (flag.kind === "resized" && flag.width != null) {
    details.push(flag.height != null ? `${flag.width}×${flag.height}` : t("{0} wide", flag.width));
  }
  if (flag.repeats) details.push(tn(flag.repeats + 1, "{0} time", "{0} times"));
  const label = FLAG_LABELS[flag.kind] ?? flag.label;
  return details.length ? t("{0} ({1})", label, details.join(", ")) : label;
}

function addFlag(flag) {
  const shown = flags.get(flag.id);
  flags.set(flag.id, flag);
  if (shown) {
    // A repeat folded into a flag already shown: its count changed, its place did not.
    shown.item.childNodes[1].textContent = ` ${flagText(flag)} `;
    flag.item = shown.item;
    return;
  }
  const item = document.createElement("li");
  flag.item = item;
  item.dataset.kind = flag.kind;
  item.dataset.student = flag.studentId;
  const who = document.createElement("strong");
  who.textContent = flag.name;
  const when = document.createElement("time");
  when.dateTime = flag.occurredAt;
  when.textContent = timeText(flag.occurredAt);
  item.append(who, ` ${flagText(flag)} `, when);
  // Newest first, by when it happened: a flag queued offline lands where it belongs.
  const later = [...feed.children].find((other) => other.querySelector("time").dateTime < flag.occurredAt);
  feed.insertBefore(item, later ?? null);
}

function apply(message) {
  if (message.type === "snapshot") {
    students.clear();
    others.clear();
    attempts.clear();
    flags.clear();
    feed.replaceChildren();
    offset = Date.parse(message.serverTime) - Date.now();
    for (const student of message.students) students.set(student.id, student);
    for (const student of message.others ?? []) others.set(student.id, student);
    for (const attempt of message.attempts) attempts.set(attempt.studentId, attempt);
    for (const flag of message.flags) addFlag(flag);
    setRunning(message.run.running);
    lastEventId = message.lastEventId;
  } else if (message.type === "event") {
    const data = message.data;
    switch (message.kind) {
      case "attempt_started":
      case "answered":
      case "attempt_closed":
      case "time_added":
        attempts.set(data.studentId, { ...(attempts.get(data.studentId) ?? {}), ...data });
        break;
      case "flagged":
        addFlag(data);
        break;
      case "admitted":
        if (!students.has(data.studentId)) {
          students.set(data.studentId, others.get(data.studentId) ?? { id: data.studentId, name: `#${data.studentId}` });
        }
        others.delete(data.studentId);
        break;
      case "run_stopped":
        setRunning(false);
        break;
    }
    lastEventId = message.id;
  }
  draw();
}

/** Whether the run takes attempts: "Let in" is offered only then. */
let running = true;

function setRunning(now) {
  running = now;
  const badge = document.getElementById("run-state");
  badge.textContent = running ? t("running") : t("stopped");
  badge.className = `badge ${running ? "open" : "closed"}`;
  document.getElementById("stop-quiz")?.toggleAttribute("hidden", !running);
  draw();
}

function connect() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const after = lastEventId === null ? "" : `?after=${lastEventId}`;
  const socket = new WebSocket(`${scheme}://${location.host}/api/v1/quiz-runs/${runId}/live${after}`);
  socket.onopen = () => {
    retry = 500;
    liveStatus.textContent = t("live");
    board.classList.remove("offline");
  };
  socket.onmessage = (event) => apply(JSON.parse(event.data));
  socket.onclose = () => {
    liveStatus.textContent = t("reconnecting…");
    board.classList.add("offline");
    setTimeout(connect, retry);
    retry = Math.min(retry * 2, 10000);
  };
}

document.getElementById("stop-quiz")?.addEventListener("click", async () => {
  if (!window.confirm(t("Stop the quiz for everyone? Every open attempt closes with its saved answers."))) return;
  try {
    await api("POST", `/api/v1/quiz-runs/${runId}/stop`);
  } catch (error) {
    errorBox.textContent = error.message;
    errorBox.hidden = false;
  }
});

document.getElementById("load-results").addEventListener("click", loadResults);

/** The results table, then the short answers to mark, question by question, identical answers together. */
async function loadResults() {
  const results = await api("GET", `/api/v1/quiz-runs/${runId}/results`);
  const body = document.getElementById("results-body");
  body.replaceChildren();
  const table = document.createElement("table");
  table.className = "table";
  // Built element by element, so that a translated heading is never read as HTML.
  const head = document.createElement("thead");
  const headRow = document.createElement("tr");
  for (const text of [t("Student"), t("Points"), t("To mark")]) {
    const heading = document.createElement("th");
    heading.textContent = text;
    headRow.append(heading);
  }
  head.append(headRow);
  table.append(head);
  const tbody = document.createElement("tbody");
  for (const result of results.results) {
    const row = document.createElement("tr");
    for (const text of [result.attempt.name, t("{0} of {1}", result.points, results.maxPoints), String(result.pending)]) {
      const cell = document.createElement("td");
      cell.textContent = text;
      row.append(cell);
    }
    tbody.append(row);
  }
  table.append(tbody);
  body.append(table);
  for (const question of results.questions.filter((q) => q.kind === "short_text")) {
    body.append(markingSection(question, results.results));
  }
  document.getElementById("results").hidden = false;
  drawStatistics(results.questions, await api("GET", `/api/v1/quiz-runs/${runId}/statistics`));
}

/** The same words, whatever their case and spacing: such answers are marked together. */
const sameAnswer = (text) => text.trim().replace(/\s+/g, " ").toLocaleLowerCase();

/** One question's short answers, one form per distinct answer, marking every student who gave it. */
function markingSection(question, results) {
  const section = document.createElement("section");
  section.className = "marking";
  section.dataset.question = question.id;
  const heading = document.createElement("h3");
  heading.textContent = tn(question.points, "{1} ({0} point)", "{1} ({0} points)", question.prompt);
  section.append(heading);
  const groups = new Map();
  for (const result of results) {
    const given = result.answers[question.id];
    if (!given?.answer?.text) continue;
    const key = sameAnswer(given.answer.text);
    if (!groups.has(key)) groups.set(key, { text: given.answer.text.trim(), entries: [] });
    groups.get(key).entries.push({ result, mark: given.mark });
  }
  const list = document.createElement("ul");
  list.className = "list marking-groups";
  for (const group of [...groups.values()].sort((a, b) => b.entries.length - a.entries.length)) {
    list.append(markingForm(question, group));
  }
  if (groups.size === 0) {
    const none = document.createElement("p");
    none.className = "muted";
    none.textContent = t("Nobody has answered this question.");
    section.append(none);
  }
  section.append(list);
  return section;
}

function markingForm(question, group) {
  const item = document.createElement("li");
  const form = document.createElement("form");
  form.className = "mark-form";
  form.dataset.answer = sameAnswer(group.text);
  const quote = document.createElement("blockquote");
  quote.textContent = group.text;
  const who = document.createElement("p");
  who.className = "muted";
  const names = group.entries.map((entry) => entry.result.attempt.name);
  // A lecture hall gives the same answer forty times: the first names, then how many more.
  who.textContent =
    names.length > 8
      ? tn(names.length, "{0} student: {1} and {2} more", "{0} students: {1} and {2} more", names.slice(0, 6).join(", "), names.length - 6)
      : tn(names.length, "{0} student: {1}", "{0} students: {1}", names.join(", "));
  const marked = group.entries.filter((entry) => !entry.mark.pending);
  const state = document.createElement("p");
  state.className = "mark-state";
  state.setAttribute("role", "status");
  const given = [...new Set(marked.map((entry) => entry.mark.points))];
  state.textContent =
    marked.length === 0 ? t("Not marked yet.")
      : given.length === 1 && marked.length === names.length ? t("Marked: {0} of {1}.", given[0], question.points)
      : tn(marked.length, "{0} of {1} marked.", "{0} of {1} marked.", names.length);
  const points = document.createElement("input");
  points.type = "number";
  points.min = "0";
  points.max = String(question.points);
  points.step = "0.5";
  points.required = true;
  points.value = given.length === 1 ? String(given[0]) : "";
  const pointsLabel = document.createElement("label");
  pointsLabel.append(t("Points, out of {0}", question.points), points);
  const comment = document.createElement("input");
  comment.value = group.entries.find((entry) => entry.mark.comment)?.mark.comment ?? "";
  const commentLabel = document.createElement("label");
  commentLabel.className = "grow";
  commentLabel.append(t("Comment for the student (optional)"), comment);
  const save = document.createElement("button");
  save.type = "submit";
  save.className = "secondary";
  save.textContent = names.length === 1 ? tc("quiz", "Mark") : tn(names.length, "Mark all {0}", "Mark all {0}");
  const row = document.createElement("div");
  row.className = "row";
  row.append(pointsLabel, commentLabel, save);
  form.append(quote, who, state, row);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    save.disabled = true;
    try {
      for (const entry of group.entries) {
        await api("PUT", `/api/v1/quiz-attempts/${entry.result.attempt.id}/marks/${question.id}`, {
          points: Number(points.value),
          comment: comment.value,
        });
      }
      await loadResults();
      focusAfterMark(question.id, form.dataset.answer);
    } catch (error) {
      state.textContent = error.message;
      save.disabled = false;
    }
  });
  item.append(form);
  return item;
}

/**
 * The results were drawn anew, so the marked form is a new element: the focus goes to the next answer's points, the
 * one a teacher marks next, or back to the same answer's button when it was the last.
 */
function focusAfterMark(questionId, answer) {
  const forms = [...document.querySelectorAll(`#results-body section.marking[data-question="${CSS.escape(questionId)}"] form.mark-form`)];
  const index = forms.findIndex((candidate) => candidate.dataset.answer === answer);
  if (index < 0) return;
  const next = forms[index + 1];
  (next ? next.querySelector('input[type="number"]') : forms[index].querySelector("button[type=submit]")).focus();
}

/** One item per question: how many got it right, and what the class answered, as bars. */
function drawStatistics(questions, statistics) {
  const list = document.getElementById("statistics-body");
  list.replaceChildren();
  const byId = new Map(questions.map((question) => [question.id, question]));
  for (const stats of statistics.questions) {
    const question = byId.get(stats.questionId);
    const item = document.createElement("li");
    item.className = "question-stat";
    item.dataset.question = stats.questionId;
    const title = document.createElement("h3");
    title.textContent = tn(question.points, "{1} ({0} point)", "{1} ({0} points)", question.prompt);
    const summary = document.createElement("p");
    summary.className = "stat-summary";
    const parts = [
      stats.percentCorrect === undefined
        ? t("{0} of {1} correct", stats.correct, stats.attempts)
        : t("{0} of {1} correct ({2}%)", stats.correct, stats.attempts, Math.round(stats.percentCorrect)),
      t("{0} answered", stats.answered),
    ];
    if (stats.averagePoints !== undefined) parts.push(t("average {0} of {1}", stats.averagePoints, question.points));
    if (stats.pending) parts.push(t("{0} to mark", stats.pending));
    summary.textContent = parts.join(" · ");
    item.append(title, summary);
    const bars = document.createElement("ul");
    bars.className = "stat-bars";
    const rows = stats.optionCounts
      ? stats.optionCounts.map((count, index) => ({
          label: question.options[index],
          count,
          correct: (question.correct ?? []).includes(index),
        }))
      : (stats.topAnswers ?? []).map((entry) => ({ label: entry.answer || t("(blank)"), count: entry.count, correct: false }));
    for (const row of rows) {
      const bar = document.createElement("li");
      bar.className = row.correct ? "correct" : "";
      const label = document.createElement("span");
      label.className = "stat-label";
      label.textContent = row.correct ? `${row.label} ✓` : row.label;
      const meter = document.createElement("span");
      meter.className = "stat-meter";
      const fill = document.createElement("span");
      fill.style.width = `${stats.attempts ? (row.count * 100) / stats.attempts : 0}%`;
      meter.append(fill);
      const count = document.createElement("span");
      count.className = "stat-count";
      count.textContent = String(row.count);
      bar.append(label, meter, count);
      bars.append(bar);
    }
    if (rows.length) item.append(bars);
    list.append(item);
  }
  document.getElementById("statistics").hidden = false;
}

/** The time left moves every second; only those cells are rewritten, so buttons stay under the pointer. */
function tickStatus() {
  for (const row of rows.children) {
    const attempt = attempts.get(Number(row.dataset.student));
    if (attempt && !attempt.ending) row.children[2].textContent = statusOf(attempt).text;
  }
}

setInterval(tickStatus, 1000);
// At the wrong address the server refuses the socket: say so above the board, rather than reconnect forever.
if (!explainWrongAddress(board, liveStatus)) connect();
