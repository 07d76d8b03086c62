// The room's counts above the list: each number with a caption that agrees with it ("1 présent", "24 présents": the
// "count" meaning of the status words), and a summary a screen reader hears at most every ten seconds, not 200 times
// as a hall checks in.
import { t, tnc } from "/assets/words.js";

const CAPTIONS = {
  present: (n) => tnc("count", n, "present", "present"),
  late: (n) => tnc("count", n, "late", "late"),
  excused: (n) => tnc("count", n, "excused", "excused"),
};
let away = Number(document.querySelector('#room [data-count="away"]')?.textContent) || 0;

/** The red count's caption: nobody is absent before the session closes, only not in the room yet. */
export function showAwayCaption(phase) {
  document.getElementById("away-label").textContent = phase === "closed"
    ? tnc("count", away, "absent", "absent")
    : tnc("count", away, "absent or not yet", "absent or not yet");
}

/** Every count and its caption, from the server's counts or the rows on the page. */
export function renderCounts(counts, phase) {
  away = counts.absent + counts.notYet;
  for (const [key, value] of Object.entries({ ...counts, away })) {
    const cell = document.querySelector(`#room [data-count="${key}"]`);
    if (cell) cell.textContent = value;
    const caption = document.querySelector(`#room [data-caption="${key}"]`);
    if (caption && CAPTIONS[key]) caption.textContent = CAPTIONS[key](value);
  }
  showAwayCaption(phase);
  announce(t("{0} of {1} in the room", counts.checkedIn, counts.enrolled));
}

const announcer = document.getElementById("room-announce");
let announceTimer = null;
let pendingAnnouncement = "";
function announce(text) {
  pendingAnnouncement = text;
  if (announceTimer || !announcer) return;
  announceTimer = setTimeout(() => {
    announceTimer = null;
    if (announcer.textContent !== pendingAnnouncement) announcer.textContent = pendingAnnouncement;
  }, 10000);
}
