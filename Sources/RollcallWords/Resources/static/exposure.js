// An exposure report at a lecture hall's size: find a contact by name, keep those above a number of shared minutes,
// shared or near by phone, in the contacts and in every session; printing shows every session unfolded.
import { t, tn } from "/assets/words.js";

const search = document.getElementById("contact-search");
const minutes = document.getElementById("contact-minutes");
const shown = document.getElementById("contacts-shown");
const folded = (text) => text.normalize("NFD").replace(/[\u0300-\u036f]/g, "").toLocaleLowerCase();

function apply() {
  const words = folded(search.value.trim()).split(/\s+/).filter(Boolean);
  const least = Number(minutes.value) || 0;
  const keep = (row) =>
    words.every((word) => folded(row.querySelector(".name").textContent).includes(word)) &&
    Math.max(
      Number(row.querySelector(".minutes").textContent),
      Number(row.querySelector(".phone-minutes")?.textContent ?? 0),
    ) >= least;
  const rows = [...document.querySelectorAll("#contacts tbody tr")];
  let count = 0;
  for (const row of rows) {
    row.hidden = !keep(row);
    if (!row.hidden) count += 1;
  }
  for (const row of document.querySelectorAll(".exposure-session tbody tr")) row.hidden = !keep(row);
  shown.textContent = count === rows.length ? "" : tn(count, "{0} of {1} shown", "{0} of {1} shown", rows.length);
}

if (search && minutes) {
  search.addEventListener("input", apply);
  minutes.addEventListener("input", apply);
}

// A printed report is whole: every session opens for the printer, and folds again after.
let opened = [];
window.addEventListener("beforeprint", () => {
  opened = [...document.querySelectorAll("details.exposure-session:not([open])")];
  for (const session of opened) session.open = true;
});
window.addEventListener("afterprint", () => {
  for (const session of opened) session.open = false;
});
