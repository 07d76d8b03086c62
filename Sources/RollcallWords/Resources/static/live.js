// The room, live: a snapshot over the session's WebSocket, then each event as it commits. After a drop the page
// reconnects with ?after=<last event id> and the server replays exactly what it missed.
import { timeText as localTime } from "/assets/time.js";
import { explainWrongAddress } from "/assets/address.js";
import { renderCounts as showCounts, showAwayCaption } from "/assets/room-counts.js";
import { t, tn } from "/assets/words.js";
const room = document.getElementById("room");
const session = room.dataset.session;
const list = document.getElementById("room-list");
const status = document.getElementById("live-status");
let phase = room.dataset.phase;
let lastEventId = null;
let retry = 500;
let socket;

const LABELS = { present: t("present"), late: t("late"), excused: t("excused"), absent: t("absent") };
const label = (state) => LABELS[state] ?? (phase === "closed" ? t("absent") : t("not yet"));
/** The session's phase, as the badge beside its title says it. */
const PHASES = { scheduled: t("scheduled"), open: t("open"), closed: t("closed") };
// The same clock as the server's page, in the course's zone ("9:05 AM").
const timeText = (iso) => (iso ? localTime(new Date(iso)) : "");

const rowTemplate = document.getElementById("room-row-template");

/** A student's row, drawn from the same template as the rows the server wrote. */
function row(student) {
  const item = rowTemplate.content.firstElementChild.cloneNode(true);
  item.dataset.student = student.id;
  item.dataset.via = student.via ?? "";
  const name = item.querySelector(".name");
  name.textContent = student.name;
  name.href = `/courses/${room.dataset.course}/students/${student.id}`;
  const number = item.querySelector(".number");
  number.textContent = student.studentNumber ?? "";
  number.hidden = !student.studentNumber;
  item.querySelector(".mark").setAttribute("aria-label", t("Mark {0}", student.name));
  item.querySelector(".pick").setAttribute("aria-label", t("Select {0}", student.name));
  item.querySelector(".pick").checked = picked.has(String(student.id));
  setStatus(item, student.status ?? null, student.at ?? null, false);
  setNote(item, student.note);
  setHeard(item, student.heardBy);
  return item;
}

// "heard by 12 phones": in a session that counts classmates' phones, the server says so on every row.
const heardText = (count) => tn(count, "heard by {0} phone", "heard by {0} phones");

function setHeard(item, count) {
  const field = item.querySelector(".heard");
  if (!field || count == null) return;
  field.dataset.heard = String(count);
  field.textContent = heardText(count);
}

// Search, filter and sort: a view over the rows, applied again whenever a row or the choice changes.
const search = document.getElementById("room-search");
const filter = document.getElementById("room-filter");
const sort = document.getElementById("room-sort");
const shown = document.getElementById("room-shown");
const flagged = new Set();
/** Ids of the students selected for a bulk change; kept across redraws. */
const picked = new Set();
const STATUS_ORDER = { none: 0, absent: 1, late: 2, excused: 3, present: 4 };
const folded = (text) => text.normalize("NFD").replace(/[\u0300-\u036f]/g, "").toLowerCase();
// The page's language sorts names, as the server sorts them (Björn Ångström before Björn Schröder in English).
const collator = new Intl.Collator(document.documentElement.lang || undefined, { sensitivity: "base", numeric: true });

function applyView() {
  const words = folded(search.value.trim()).split(/\s+/).filter(Boolean);
  const wanted = filter.value;
  const rows = [...list.children];
  let count = 0;
  for (const item of rows) {
    // Folded once per row: a burst of check-ins applies the view again after every event.
    item.dataset.search ??= folded(`${item.querySelector(".name").textContent} ${item.querySelector(".number").textContent}`);
    const text = item.dataset.search;
    const matches =
      words.every((word) => text.includes(word)) &&
      (wanted === "all" || (wanted === "flagged" ? flagged.has(item.dataset.student) : item.dataset.status === wanted));
    item.hidden = !matches;
    if (matches) count += 1;
  }
  const name = (item) => item.querySelector(".name").textContent;
  const byName = (a, b) => collator.compare(name(a), name(b));
  const compare = {
    name: byName,
    time: (a, b) => (a.querySelector(".at").dateTime || "~").localeCompare(b.querySelector(".at").dateTime || "~") || byName(a, b),
    status: (a, b) => STATUS_ORDER[a.dataset.status] - STATUS_ORDER[b.dataset.status] || byName(a, b),
  }[sort.value];
  const sorted = [...rows].sort(compare);
  if (sorted.some((item, index) => item !== rows[index])) list.append(...sorted);
  shown.textContent = count === rows.length
    ? tn(rows.length, "{0} student", "{0} students")
    : tn(count, "{0} of {1} shown", "{0} of {1} shown", rows.length);
}

// The teacher's private notes, on demand only; the choice is remembered in this browser.
const showNotes = document.getElementById("show-notes");
const NOTES_SHOWN = "rollcall.room-notes";
showNotes.checked = localStorage.getItem(NOTES_SHOWN) === "yes";
room.classList.toggle("showing-notes", showNotes.checked);
showNotes.addEventListener("change", () => {
  room.classList.toggle("showing-notes", showNotes.checked);
  localStorage.setItem(NOTES_SHOWN, showNotes.checked ? "yes" : "no");
});

for (const control of [search, filter, sort]) {
  control.addEventListener("input", applyView);
  control.addEventListener("change", applyView);
}

// Marking by hand from the room: one dialog for a row and for a selection; the live event then redraws the rows.
const dialog = document.getElementById("mark-dialog");
const markForm = document.getElementById("mark-form");
const markWarning = document.getElementById("mark-warning");
/** The row being marked, or `null` when the dialog marks the selection. */
let marking = null;

function openMarkDialog(name) {
  document.getElementById("mark-name").textContent = name;
  markForm.reset();
  markForm.querySelector(".form-error").hidden = true;
  markWarning.hidden = true;
  dialog.showModal();
}

list.addEventListener("click", (event) => {
  const button = event.target.closest(".mark");
  if (!button) return;
  marking = button.closest(".room-row");
  openMarkDialog(marking.querySelector(".name").textContent);
  const current = markForm.querySelector(`input[name="status"][value="${marking.dataset.status}"]`);
  if (current) current.checked = true;
});

const CHECK_INS = { qr: t("by QR"), typed: t("by typed code"), spot: t("at the check-in spot"), api: t("from the app") };

/** Warns, before a selection is marked, that it holds students who checked in themselves. */
function checkInWarning(rows) {
  const own = rows.filter((item) => item.dataset.via in CHECK_INS);
  if (own.length === 0) return null;
  const ways = [...new Set(own.map((item) => CHECK_INS[item.dataset.via]))].reduce((some, more) => t("{0} or {1}", some, more));
  const times = own.map((item) => item.querySelector(".at").dateTime).filter(Boolean).sort();
  const first = timeText(times[0]);
  const last = timeText(times[times.length - 1]);
  const n = own.length;
  if (first === last) {
    if (n === rows.length && n === 1) return t("This student checked in {0} at {1}. Saving overwrites that check-in.", ways, first);
    if (n === rows.length) {
      return tn(n, "All {0} checked in {1} at {2}. Saving overwrites that check-in.",
        "All {0} checked in {1} at {2}. Saving overwrites those check-ins.", ways, first);
    }
    return tn(n, "{0} of them checked in {1} at {2}. Saving overwrites that check-in.",
      "{0} of them checked in {1} at {2}. Saving overwrites those check-ins.", ways, first);
  }
  if (n === rows.length && n === 1) {
    return t("This student checked in {0} between {1} and {2}. Saving overwrites that check-in.", ways, first, last);
  }
  if (n === rows.length) {
    return tn(n, "All {0} checked in {1} between {2} and {3}. Saving overwrites that check-in.",
      "All {0} checked in {1} between {2} and {3}. Saving overwrites those check-ins.", ways, first, last);
  }
  return tn(n, "{0} of them checked in {1} between {2} and {3}. Saving overwrites that check-in.",
    "{0} of them checked in {1} between {2} and {3}. Saving overwrites those check-ins.", ways, first, last);
}

document.getElementById("mark-picked").addEventListener("click", () => {
  marking = null;
  const rows = [...picked].map((id) => list.querySelector(`[data-student="${id}"]`)).filter(Boolean);
  openMarkDialog(rows.length === 1
    ? rows[0].querySelector(".name").textContent
    : tn(rows.length, "{0} selected student", "{0} selected students"));
  const warning = checkInWarning(rows);
  markWarning.textContent = warning ?? "";
  markWarning.hidden = warning === null;
});

document.getElementById("mark-cancel").addEventListener("click", () => dialog.close());

markForm.addEventListener("submit", async (event) => {
  event.preventDefault();
  const { api } = await import("/assets/app.js");
  const status = markForm.querySelector('input[name="status"]:checked')?.value;
  const reason = markForm.elements.reason.value.trim();
  const error = markForm.querySelector(".form-error");
  try {
    const note = markForm.elements.note.value.trim();
    const body = { status };
    if (reason) body.reason = reason;
    if (note) body.note = note;
    if (marking === null) {
      await markMany({ ...body, studentIds: [...picked].map(Number) }, false);
    } else {
      await api("PUT", `/api/v1/sessions/${session}/attendance/${marking.dataset.student}`, body);
    }
    dialog.close();
  } catch (failure) {
    error.textContent = failure.message;
    error.hidden = false;
  }
});

function setStatus(item, state, at, changed = true) {
  item.dataset.status = state ?? "none";
  item.querySelector(".label").textContent = label(state);
  const time = item.querySelector(".at");
  time.dateTime = at ?? "";
  time.textContent = state ? timeText(at) : "";
  if (changed) {
    // Restart the highlight so that a second change on the same row shows too.
    item.classList.remove("changed");
    void item.offsetWidth;
    item.classList.add("changed");
  }
}

function setNote(item, note) {
  const field = item.querySelector(".note");
  field.textContent = note ? t("Note: {0}", note) : "";
  field.hidden = !note;
}

/** Counts from the rows on the page, so the counters move with the row at once; the server's counts follow. */
function recount() {
  const counts = { present: 0, late: 0, excused: 0, absent: 0, notYet: 0, enrolled: 0 };
  for (const item of list.children) {
    counts.enrolled += 1;
    const state = item.dataset.status;
    if (state in counts) counts[state] += 1;
    else counts.notYet += 1;
  }
  counts.checkedIn = counts.present + counts.late;
  showCounts(counts, phase);
}

function setPhase(next) {
  phase = next;
  room.dataset.phase = next;
  const badge = document.getElementById("session-phase");
  if (badge) {
    badge.textContent = PHASES[next] ?? next;
    badge.className = `badge ${next}`;
  }
  showAwayCaption(next);
  if (!room.classList.contains("offline")) status.textContent = next === "closed" ? t("up to date") : t("live");
  for (const item of list.children) {
    if (item.dataset.status === "none") item.querySelector(".label").textContent = label(null);
  }
}

// Refused check-ins, by kind, summed up above the flags: who could not get in, so the teacher can mark them.
const REFUSED = {
  tried_out_of_range: (count) => tn(count, "{0} tried from too far", "{0} tried from too far"),
  tried_imprecise_location: (count) => tn(count, "{0} had a location too imprecise", "{0} had a location too imprecise"),
};
const refused = new Map();

function showRefused() {
  const summary = document.getElementById("refused-summary");
  const parts = [...refused].map(([kind, students]) => REFUSED[kind](students.size));
  summary.textContent = parts.length ? t("{0}: mark them by hand if they are in the room.", parts.join(" · ")) : "";
  summary.hidden = parts.length === 0;
}

function addFlag(detail, at, kind, ...students) {
  for (const id of students) if (id != null) flagged.add(String(id));
  if (kind in REFUSED && students[0] != null) {
    if (!refused.has(kind)) refused.set(kind, new Set());
    refused.get(kind).add(String(students[0]));
    showRefused();
  }
  const section = document.getElementById("flags");
  const item = document.createElement("li");
  item.textContent = `${detail} `;
  const when = document.createElement("span");
  when.className = "muted";
  when.textContent = timeText(at);
  item.append(when);
  document.getElementById("flag-list").prepend(item);
  section.hidden = false;
}

function renderSnapshot(snapshot) {
  list.replaceChildren(...snapshot.students.map(row));
  document.getElementById("room-empty")?.toggleAttribute("hidden", snapshot.students.length > 0);
  setPhase(snapshot.session.phase);
  showCounts(snapshot.counts, phase);
  const flags = document.getElementById("flag-list");
  flags.replaceChildren();
  flagged.clear();
  refused.clear();
  showRefused();
  for (const flag of [...snapshot.flags].reverse()) {
    addFlag(flag.detail, flag.createdAt, flag.kind, flag.studentId, flag.otherStudentId);
  }
  document.getElementById("flags").hidden = snapshot.flags.length === 0;
  applyView();
}

function apply(event) {
  const data = event.data;
  switch (event.kind) {
    case "checked_in":
    case "status_changed": {
      const item = list.querySelector(`[data-student="${data.studentId}"]`);
      if (!item) {
        // Someone not on this page's roster: start again from a fresh snapshot.
        lastEventId = null;
        socket.close();
        return false;
      }
      setStatus(item, data.status ?? null, data.at ?? null);
      item.dataset.via = event.kind === "checked_in" ? data.via : data.status == null ? "" : "manual";
      if (data.note !== undefined || data.status == null) setNote(item, data.note);
      recount();
      applyView();
      break;
    }
    case "flagged":
      addFlag(data.detail, event.createdAt, data.kind, data.studentId, data.otherStudentId);
      applyView();
      break;
    case "heard":
      for (const id of data.studentIds ?? []) {
        const item = list.querySelector(`[data-student="${id}"]`);
        const field = item?.querySelector(".heard");
        if (field) setHeard(item, Number(field.dataset.heard ?? 0) + 1);
      }
      break;
    case "session_opened":
      setPhase("open");
      break;
    case "session_closed":
      setPhase("closed");
      break;
  }
  return true;
}

function connect() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const after = lastEventId === null ? "" : `?after=${lastEventId}`;
  const opening = new WebSocket(`${scheme}://${location.host}/api/v1/sessions/${session}/live${after}`);
  socket = opening;
  let opened = false;
  opening.onopen = () => {
    opened = true;
    retry = 500;
    status.textContent = phase === "closed" ? t("up to date") : t("live");
    room.classList.remove("offline");
  };
  opening.onmessage = (message) => {
    const data = JSON.parse(message.data);
    if (data.type === "snapshot") {
      renderSnapshot(data);
      lastEventId = data.lastEventId;
    } else if (data.type === "event") {
      // Ids only grow; one already applied is never applied twice.
      if (lastEventId !== null && data.id <= lastEventId) return;
      if (apply(data)) lastEventId = data.id;
    } else if (data.type === "counts") {
      if (data.lastEventId <= lastEventId) showCounts(data.counts, phase);
    }
    room.dataset.lastEvent = lastEventId ?? "";
  };
  opening.onclose = async () => {
    status.textContent = t("reconnecting…");
    room.classList.add("offline");
    if (!opened && lastEventId !== null) {
      // Down, or refused? A refused resume point (say, after a restore) means starting from a fresh snapshot.
      try {
        const probe = await fetch(`/api/v1/sessions/${session}/live?after=${lastEventId}`, { credentials: "same-origin" });
        if (probe.status === 400) lastEventId = null;
      } catch {
        // The server is unreachable: keep the resume point and try again.
      }
    }
    setTimeout(connect, retry);
    retry = Math.min(retry * 2, 5000);
  };
}

// Marking many at once: a selection (through the dialog), or everyone not yet checked in; the last change can be
// undone here, and from the list of recent changes after a reload.
const markPicked = document.getElementById("mark-picked");
const bulkError = document.getElementById("bulk-error");
const undoBox = document.getElementById("room-undo");
let lastBatch = null;

function showPicked() {
  document.getElementById("picked-count").textContent = picked.size;
  document.getElementById("picked").hidden = picked.size === 0;
  markPicked.hidden = picked.size === 0;
}

list.addEventListener("change", (event) => {
  if (!event.target.classList.contains("pick")) return;
  const id = event.target.closest(".room-row").dataset.student;
  if (event.target.checked) picked.add(id);
  else picked.delete(id);
  showPicked();
});

document.getElementById("pick-shown").addEventListener("click", () => {
  for (const item of list.children) {
    if (item.hidden) continue;
    picked.add(item.dataset.student);
    item.querySelector(".pick").checked = true;
  }
  showPicked();
});

document.getElementById("pick-none").addEventListener("click", () => {
  picked.clear();
  for (const box of list.querySelectorAll(".pick")) box.checked = false;
  showPicked();
});

/** What a bulk change that changed `count` records to `status` says; `rest`: it marked everyone not yet checked in. */
function markedText(count, status, rest) {
  if (rest && status === "absent") {
    return tn(count, "Marked {0} student absent who had not checked in.", "Marked {0} students absent who had not checked in.");
  }
  switch (rest ? null : status) {
    case "present": return tn(count, "Marked {0} student present.", "Marked {0} students present.");
    case "late": return tn(count, "Marked {0} student late.", "Marked {0} students late.");
    case "excused": return tn(count, "Marked {0} student excused.", "Marked {0} students excused.");
    case "absent": return tn(count, "Marked {0} student absent.", "Marked {0} students absent.");
  }
  // A status this page does not know: its own word.
  return rest
    ? tn(count, "Marked {0} student {1} who had not checked in.", "Marked {0} students {1} who had not checked in.", status)
    : tn(count, "Marked {0} student {1}.", "Marked {0} students {1}.", status);
}

/** What a bulk change that changed nothing says. */
function nobodyText(status, rest) {
  if (rest && status === "absent") return t("Nobody was marked absent who had not checked in: they all had that status already.");
  switch (rest ? null : status) {
    case "present": return t("Nobody was marked present: they all had that status already.");
    case "late": return t("Nobody was marked late: they all had that status already.");
    case "excused": return t("Nobody was marked excused: they all had that status already.");
    case "absent": return t("Nobody was marked absent: they all had that status already.");
  }
  return rest
    ? t("Nobody was marked {0} who had not checked in: they all had that status already.", status)
    : t("Nobody was marked {0}: they all had that status already.", status);
}

/** Marks many students (`rest`: everyone not yet checked in); a refusal is thrown to the caller. */
async function markMany(body, rest) {
  const { api } = await import("/assets/app.js");
  bulkError.hidden = true;
  const { batch } = await api("POST", `/api/v1/sessions/${session}/attendance`, body);
  document.getElementById("pick-none").click();
  if (batch.changed === 0) {
    // Nothing changed: the change before stays the one Undo takes back.
    bulkError.textContent = nobodyText(batch.status, rest);
    bulkError.hidden = false;
    return;
  }
  lastBatch = batch.id;
  document.getElementById("room-undo-text").textContent = markedText(batch.changed, batch.status, rest);
  document.getElementById("room-undo-button").hidden = false;
  undoBox.hidden = false;
}

document.getElementById("mark-rest-absent").addEventListener("click", () => {
  const rest = [...list.children].filter((item) => item.dataset.status === "none").length;
  if (rest === 0) {
    bulkError.textContent = t("Everyone on the roster has a record already: nobody is left to mark absent.");
    bulkError.hidden = false;
    return;
  }
  if (!window.confirm(tn(rest,
    "Mark the {0} student not yet checked in absent? You can undo it.",
    "Mark the {0} students not yet checked in absent? You can undo it."))) return;
  markMany({ filter: "not_checked_in", status: "absent" }, true).catch((failure) => {
    bulkError.textContent = failure.message;
    bulkError.hidden = false;
  });
});

document.getElementById("room-undo-button").addEventListener("click", async () => {
  const { api } = await import("/assets/app.js");
  bulkError.hidden = true;
  try {
    await api("POST", `/api/v1/attendance-batches/${lastBatch}/undo`);
    document.getElementById("room-undo-text").textContent = t("Undone: every record is back as it was.");
    document.getElementById("room-undo-button").hidden = true;
  } catch (failure) {
    bulkError.textContent = failure.message;
    bulkError.hidden = false;
  }
});

applyView();
// At the wrong address the server refuses the socket: say so above the room, rather than reconnect forever.
if (!explainWrongAddress(room, status)) connect();
