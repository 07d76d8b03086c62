// Rollcall's pages: every form with data-api is sent to the JSON API, and its answer decides what happens next.

import { fromWallClock } from "/assets/time.js";
import { t } from "/assets/words.js";

const csrfToken = () => document.querySelector('meta[name="csrf-token"]')?.content ?? "";

/** Calls the API with the session cookie and CSRF token; throws an Error carrying the API's message and code. */
export async function api(method, path, body, contentType = "application/json") {
  const headers = { "X-CSRF-Token": csrfToken(), Accept: "application/json" };
  const init = { method, headers, credentials: "same-origin" };
  if (body !== undefined) {
    headers["Content-Type"] = contentType;
    init.body = contentType === "application/json" ? JSON.stringify(body) : body;
  }
  const response = await fetch(path, init);
  const text = await response.text();
  const data = text ? safeJSON(text) : null;
  if (!response.ok) {
    const error = new Error(data?.error?.message ?? t("The server answered {0}.", response.status));
    error.code = data?.error?.code;
    error.details = data?.error?.details;
    error.status = response.status;
    throw error;
  }
  return data;
}

function safeJSON(text) {
  try { return JSON.parse(text); } catch { return null; }
}

/** Turns a form's fields into the JSON body: dotted names nest, numbers stay numbers, empty optional fields are left out. */
export function formBody(form) {
  const body = {};
  for (const field of form.elements) {
    if (!field.name || field.disabled || field.type === "submit" || field.type === "button" || field.type === "file") continue;
    if (field.type === "radio" && !field.checked) continue;
    let value;
    if (field.type === "checkbox") value = field.checked;
    else if (field.dataset.identifier !== undefined) {
      const text = field.value.trim();
      setPath(body, text.includes("@") ? "email" : "studentNumber", text);
      continue;
    } else if (field.type === "number" || field.dataset.type === "number") {
      if (field.value === "") continue;
      value = Number(field.value);
    } else if (field.dataset.type === "boolean") {
      value = field.value === "true";
    } else if (field.dataset.type === "list") {
      value = field.value.split(/[\s,]+/).filter(Boolean);
    } else if (field.dataset.type === "datetime") {
      if (field.value === "") continue;
      value = fromWallClock(field.value).toISOString().replace(/\.\d{3}Z$/, "Z");
    } else {
      value = field.value;
      if (value === "" && field.tagName === "SELECT" && field.dataset.empty !== "send") continue;
    }
    setPath(body, field.name, value);
  }
  return body;
}

function setPath(target, path, value) {
  const keys = path.split(".");
  let node = target;
  for (const key of keys.slice(0, -1)) node = node[key] ??= {};
  node[keys.at(-1)] = value;
}

/** Fills `{a.b}` in a data-then target with values from the API's answer. */
function fill(template, data) {
  return template.replace(/\{([\w.]+)\}/g, (_, path) => path.split(".").reduce((node, key) => node?.[key], data) ?? "");
}

async function submit(form) {
  const [method, path] = form.dataset.api.split(" ");
  const errorBox = form.querySelector(".form-error") ?? form.parentElement.querySelector(".form-error");
  if (form.dataset.confirm && !window.confirm(form.dataset.confirm)) return;
  const buttons = form.querySelectorAll("button");
  buttons.forEach((button) => (button.disabled = true));
  if (errorBox) errorBox.hidden = true;
  clearInvalid(form, errorBox);
  try {
    let data;
    if (form.dataset.upload !== undefined) {
      const file = form.querySelector('input[type="file"]').files[0];
      if (!file) throw new Error(t("Choose a file first."));
      data = await api(method, path, file, file.type || "application/octet-stream");
    } else {
      const body = formBody(form);
      if (form.dataset.device !== undefined) body.deviceId = deviceId();
      if (form.dataset.location !== undefined) body.location = await locate();
      if (form.dataset.passkey !== undefined) {
        const { checkInPasskey } = await import("/assets/passkeys.js");
        const passkey = await checkInPasskey({ sessionId: body.sessionId, deviceId: body.deviceId });
        if (passkey) body.passkey = passkey;
      }
      data = await api(method, path, method === "DELETE" || (method === "POST" && !hasFields(form)) ? undefined : body);
    }
    follow(form, form.dataset.then ?? "reload", data);
  } catch (error) {
    if (errorBox) {
      errorBox.textContent = error.message;
      errorBox.hidden = false;
      markInvalid(form, errorBox, error.details?.field);
    } else {
      window.alert(error.message);
    }
  } finally {
    buttons.forEach((button) => (button.disabled = false));
  }
}

/** What a form's `data-then` says to do once the API took it: reload, go to a page, show or say something. */
function follow(form, then, data) {
  if (then === "reload") window.location.reload();
  else if (then.startsWith("go:")) window.location.assign(fill(then.slice(3), data));
  else if (then.startsWith("show:")) {
    document.querySelector(then.slice(5)).hidden = false;
    form.reset();
  } else if (then === "roster") {
    // Adding someone already on the roster changes nothing: say so rather than reload as if it had worked.
    if (data.added) window.location.reload();
    else {
      const answer = form.querySelector(".form-answer");
      answer.textContent = t("{0} is already on the roster.", data.student.name);
      answer.hidden = false;
    }
  } else if (then === "say") {
    const answer = form.querySelector(".form-answer");
    answer.textContent = data.message;
    answer.hidden = false;
  } else if (then === "answer") {
    const answer = form.querySelector(".form-answer");
    answer.textContent = data.status === "late" ? t("You're in — marked late.") : t("You're in.");
    answer.hidden = false;
    // Checked in: nothing is left to send from this form.
    form.querySelectorAll("button, label").forEach((element) => (element.hidden = true));
  }
}

/**
 * The input a refusal names (`details.field`, as the API calls it: `period` is the form's `settings.period`), or
 * `null`. A field typed as an email or a student number answers for both.
 */
function fieldNamed(form, name) {
  if (!name) return null;
  const fields = [...form.elements].filter((field) => field.name && field.type !== "hidden");
  return (
    fields.find((field) => field.name === name) ??
    fields.find((field) => field.name.endsWith(`.${name}`) || name.endsWith(`.${field.name}`)) ??
    (["email", "studentNumber"].includes(name) ? fields.find((field) => field.dataset.identifier !== undefined) : null) ??
    null
  );
}

/**
 * Ties the refusal to the field at fault: marked invalid, described by the sentence, and given the focus, so that
 * a screen reader says which field and why, and the person types the fix at once.
 */
function markInvalid(form, errorBox, name) {
  const field = fieldNamed(form, name);
  if (!field) return;
  errorBox.id ||= `error-${Math.random().toString(36).slice(2)}`;
  field.setAttribute("aria-invalid", "true");
  const described = (field.getAttribute("aria-describedby") ?? "").split(" ").filter(Boolean);
  if (!described.includes(errorBox.id)) field.setAttribute("aria-describedby", [...described, errorBox.id].join(" "));
  field.focus();
}

/** Undoes `markInvalid` before the form is sent again. */
function clearInvalid(form, errorBox) {
  for (const field of form.querySelectorAll('[aria-invalid="true"]')) {
    field.removeAttribute("aria-invalid");
    if (!errorBox?.id) continue;
    const described = (field.getAttribute("aria-describedby") ?? "").split(" ").filter((id) => id && id !== errorBox.id);
    if (described.length) field.setAttribute("aria-describedby", described.join(" "));
    else field.removeAttribute("aria-describedby");
  }
}

function hasFields(form) {
  return [...form.elements].some((field) => field.name);
}

document.addEventListener("submit", (event) => {
  const form = event.target.closest("form[data-api]");
  if (!form) return;
  event.preventDefault();
  submit(form);
});

// "Use my current location" fills the geofence centre from the teacher's device.
document.addEventListener("click", (event) => {
  const button = event.target.closest("[data-locate]");
  if (!button) return;
  const form = button.closest("form");
  navigator.geolocation.getCurrentPosition(
    (position) => {
      form.querySelector('[data-geo="latitude"]').value = position.coords.latitude.toFixed(6);
      form.querySelector('[data-geo="longitude"]').value = position.coords.longitude.toFixed(6);
    },
    (error) => window.alert(t("Your location is not available: {0}", error.message)),
    { enableHighAccuracy: true, timeout: 15000 },
  );
});

/** A long-lived random id for this browser, so one phone cannot check in several students in one session. */
export function deviceId() {
  const key = "rollcall-device";
  let id = localStorage.getItem(key);
  if (!id) {
    id = crypto.randomUUID();
    localStorage.setItem(key, id);
  }
  return id;
}

/** The phone's position with its accuracy, or an Error whose message says what to do. */
export function locate() {
  return new Promise((resolve, reject) => {
    if (!navigator.geolocation) {
      reject(new Error(t("This browser cannot share your location. Use your phone's own browser and try again.")));
      return;
    }
    navigator.geolocation.getCurrentPosition(
      (position) => resolve({
        latitude: position.coords.latitude,
        longitude: position.coords.longitude,
        accuracy: position.coords.accuracy,
      }),
      (error) => reject(new Error(error.code === error.PERMISSION_DENIED
        ? t("Rollcall needs your location to check you in. Allow location access for this page and try again.")
        : t("Your phone could not find its location. Move nearer a window and try again."))),
      { enableHighAccuracy: true, timeout: 20000, maximumAge: 0 },
    );
  });
}

// A person's first visit tells Rollcall the browser's time zone, for the pages not tied to a course; the profile
// changes it afterwards.
if (document.querySelector('meta[name="time-zone-unset"]')) {
  const browserZone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  if (browserZone) api("PATCH", "/api/v1/me", { timeZone: browserZone }).catch(() => {});
}

// A new course's zone is the teacher's: the browser's, unless their profile names one (the form then shows that).
for (const select of document.querySelectorAll("select[data-browser-zone]")) {
  const browserZone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  if (!browserZone) continue;
  if (![...select.options].some((option) => option.value === browserZone)) {
    select.add(new Option(browserZone, browserZone));
  }
  select.value = browserZone;
}

// A Print button prints the page (scripts cannot be inline under the page's content policy).
document.addEventListener("click", (event) => {
  if (event.target.closest("[data-print]")) window.print();
});

// CSV downloads in the separator the reader's spreadsheets expect: semicolons (and decimal commas) where their region
// writes decimals with a comma (es-ES, fr-FR, de-DE), whose Excel would otherwise put each line in one cell; commas
// where it writes a point (es-MX). The server names it from the browser's region, else the language.
const csvSeparator = document.querySelector('meta[name="csv-separator"]')?.content;
if (csvSeparator && csvSeparator !== "comma") {
  for (const link of document.querySelectorAll('a[href$=".csv"]')) {
    link.href = `${link.getAttribute("href")}?separator=${csvSeparator}`;
  }
}
