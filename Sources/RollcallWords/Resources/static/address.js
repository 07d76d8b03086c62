// A page opened at another address than Rollcall's public one (127.0.0.1 for localhost, a LAN address) has its live
// socket refused by the server's origin check (403), which a browser reports to the page as a bare close: the page
// would say "reconnecting…" forever. So a live page compares its own origin with the public one the server writes
// into every page, and says which address to open instead of connecting.
import { t } from "/assets/words.js";

const expected = document.querySelector('meta[name="public-origin"]')?.content ?? "";

/** This same page at Rollcall's public address, when it is open elsewhere; null where it is open there. */
export function publicAddress() {
  if (!expected || expected === location.origin) return null;
  return expected + location.pathname + location.search + location.hash;
}

/** When the page is open at the wrong address, shows why nothing live will come and links the right one, first
 * thing in `container`, which goes offline, and says "not connected" in `status`; answers whether it did. */
export function explainWrongAddress(container, status) {
  const address = publicAddress();
  if (!address) return false;
  container.classList.add("offline");
  if (status) status.textContent = t("not connected");
  const box = document.createElement("div");
  box.className = "notice wrong-address";
  box.id = "wrong-address";
  box.setAttribute("role", "alert");
  const text = document.createElement("p");
  text.textContent = t(
    "This page is open at {0}, but Rollcall's address is {1}: live updates reach its pages only there. Open this page there; you may need to sign in again.",
    location.origin, expected);
  const link = document.createElement("a");
  link.className = "button primary";
  link.href = address;
  link.textContent = t("Open {0}", expected);
  box.append(text, link);
  container.prepend(box);
  return true;
}
