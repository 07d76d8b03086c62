import { language } from "/assets/words.js";

// Moments as the page writes them: in the zone the server named (the course's on a course's pages, else the
// person's) and in the same words as the server's text, so that a row drawn live reads like its neighbours.
const zone = document.querySelector('meta[name="time-zone"]')?.content || undefined;
// English, and the pseudo-locale (en-XA) that the server writes as English, read "9:05 AM"; any other language is
// written its own way, as the server writes it.
const words = language === "en" || language === "en-XA" ? "en-US" : language;

// Some browsers put a narrow no-break space before "AM", others a space; the server writes a space.
const spaced = (text) => text.replace(/\u202f/g, " ");

/** "9:05 AM". */
export const timeText = (date) =>
  spaced(date.toLocaleTimeString(words, { hour: "numeric", minute: "2-digit", timeZone: zone }));

/** "9:05:07 AM", for a deadline counted in seconds. */
export const clockText = (date) =>
  spaced(date.toLocaleTimeString(words, { hour: "numeric", minute: "2-digit", second: "2-digit", timeZone: zone }));

/** Milliseconds the zone is ahead of UTC at the moment `ms`. */
function offsetAt(ms) {
  const parts = Object.fromEntries(
    // Read back as numbers, so in a locale that writes them with ASCII digits whatever the page's language.
    new Intl.DateTimeFormat("en-US", {
      timeZone: zone, hourCycle: "h23", year: "numeric", month: "2-digit", day: "2-digit",
      hour: "2-digit", minute: "2-digit", second: "2-digit",
    }).formatToParts(new Date(ms)).map((piece) => [piece.type, piece.value]),
  );
  const wall = Date.UTC(+parts.year, +parts.month - 1, +parts.day, +parts.hour, +parts.minute, +parts.second);
  return wall - Math.floor(ms / 1000) * 1000;
}

/** The moment a wall-clock time from a date field ("2027-01-26T09:00") names in the page's zone, not the
 * browser's: a teacher abroad schedules the course's lecture at the course's nine o'clock. */
export function fromWallClock(text) {
  const [day, time = "00:00"] = text.split("T");
  const [year, month, date] = day.split("-").map(Number);
  const [hour, minute] = time.split(":").map(Number);
  const wall = Date.UTC(year, month - 1, date, hour, minute);
  let moment = wall - offsetAt(wall);
  // Near a clock change the offset at the first guess may be the other one; a second look settles it.
  moment = wall - offsetAt(moment);
  return new Date(moment);
}
