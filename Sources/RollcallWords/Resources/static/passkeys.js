// Passkeys in the browser: WebAuthn options from the server in, the browser's answer out, as base64url JSON.
import { api } from "/assets/app.js";
import { ClientErrorCode, ErrorCode } from "/assets/codes.js";
import { t } from "/assets/words.js";

const toBytes = (text) => Uint8Array.from(atob(text.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0));
const toText = (buffer) =>
  btoa(String.fromCharCode(...new Uint8Array(buffer))).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");

/** Whether this browser can use passkeys at all. */
export const passkeysAvailable = () => typeof window.PublicKeyCredential === "function";

/** The sentence for a browser that refused or failed, saying what to do next. */
export function passkeyProblem(error) {
  const message = error?.name === "NotAllowedError"
    ? t("Your phone did not confirm it is you: it was cancelled, timed out, or has no face, fingerprint or screen lock set up. Try again, or ask your teacher to mark you by hand.")
    : error?.name === "InvalidStateError"
      ? t("This device already has a passkey for your Rollcall account.")
      : error?.name === "SecurityError"
        ? t("Passkeys work only at Rollcall's own address over HTTPS. Open Rollcall from its usual link and try again.")
        : error?.message ?? t("The passkey did not work. Try again.");
  const problem = new Error(message);
  // DOMException carries a legacy numeric `code`; only the API's string codes are passed on.
  problem.code = typeof error?.code === "string"
    ? error.code
    : error?.name === "NotAllowedError" ? ClientErrorCode.verificationCancelled : ClientErrorCode.passkeyFailed;
  return problem;
}

function creationOptions(publicKey) {
  return {
    ...publicKey,
    challenge: toBytes(publicKey.challenge),
    user: { ...publicKey.user, id: toBytes(publicKey.user.id) },
    excludeCredentials: (publicKey.excludeCredentials ?? []).map((c) => ({ ...c, id: toBytes(c.id) })),
  };
}

function requestOptions(publicKey) {
  return {
    ...publicKey,
    challenge: toBytes(publicKey.challenge),
    allowCredentials: (publicKey.allowCredentials ?? []).map((c) => ({ ...c, id: toBytes(c.id) })),
  };
}

/** Creates a passkey on this device and registers it under `name`; answers the stored passkey. */
export async function registerPasskey(name) {
  if (!passkeysAvailable()) throw new Error(t("This browser cannot use passkeys. Use your phone's own browser."));
  const options = await api("POST", "/api/v1/passkeys/options");
  let credential;
  try {
    credential = await navigator.credentials.create({ publicKey: creationOptions(options.publicKey) });
  } catch (error) {
    throw passkeyProblem(error);
  }
  const body = {
    name,
    credential: {
      id: credential.id, type: credential.type,
      response: {
        clientDataJSON: toText(credential.response.clientDataJSON),
        attestationObject: toText(credential.response.attestationObject),
      },
    },
  };
  return (await api("POST", "/api/v1/passkeys", body)).passkey;
}

/** Asks this device for a passkey assertion with the server's options; answers it as JSON for the API. */
export async function assertPasskey(publicKey) {
  if (!passkeysAvailable()) throw passkeyProblem({ name: "NotAllowedError" });
  let credential;
  try {
    credential = await navigator.credentials.get({ publicKey: requestOptions(publicKey) });
  } catch (error) {
    throw passkeyProblem(error);
  }
  const response = credential.response;
  return {
    id: credential.id, type: credential.type,
    response: {
      clientDataJSON: toText(response.clientDataJSON),
      authenticatorData: toText(response.authenticatorData),
      signature: toText(response.signature),
      ...(response.userHandle ? { userHandle: toText(response.userHandle) } : {}),
    },
  };
}

/** Signs in with a passkey on this device, no password; the server sets the session cookie. */
export async function signInWithPasskey() {
  const options = await api("POST", "/api/v1/auth/passkey-options");
  const credential = await assertPasskey(options.publicKey);
  return api("POST", "/api/v1/auth/passkey-session", { credential });
}

/** The passkey part of a check-in from the course page (typed code or check-in spot), bound to the session. */
export async function checkInPasskey(target) {
  const options = await api("POST", "/api/v1/check-ins/passkey-options", target);
  if (!options.required || options.reuse) return undefined;
  if (!options.hasPasskeys) {
    const problem = new Error(t("This course asks you to confirm it is you with a passkey. Add one on the Devices page, then check in again."));
    problem.code = ErrorCode.verificationRequired;
    throw problem;
  }
  return assertPasskey(options.publicKey);
}
