"""A school's real OpenID Connect provider for the browser tests: LemonLDAP::NG from Debian's packages, as
scripts/lemonldap.sh runs it on loopback, with its own defaults (claims in UserInfo only, no email_verified, consent
asked once per person, the role and student number released only under the `school` scope)."""

import json
import os
import sqlite3
import subprocess
import time
import urllib.request
from pathlib import Path

from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions
from selenium.webdriver.support.ui import WebDriverWait

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "lemonldap.sh"


class LemonLDAP:
    """A private portal at http://localhost:PORT with everything in `directory`, and one client, `rollcall`, that
    may come back to `redirect_uri`. Its ID tokens are signed with `algorithm`: RS256 with the portal's key, or
    HS256/HS384/HS512 with the client secret. `users` are dicts with uid, cn, sn, mail, eduPersonAffiliation (a
    list), studentNumber and password (the uid if not given); without them the portal knows the script's four:
    tess (faculty, member), and the students amara, ben and chloe (h1001 to h1003), each with their login as
    password."""

    client_id = "rollcall"

    def __init__(self, directory, port, redirect_uri, algorithm="RS256", secret="the school's secret for Rollcall",
                 users=None):
        self.directory = Path(directory)
        self.port = port
        self.redirect_uri = redirect_uri
        self.algorithm = algorithm
        self.secret = secret
        self.users = users
        self.issuer = f"http://localhost:{port}"

    def start(self, seconds=90):
        if self.users is not None:
            self._write_users()
        subprocess.run([str(SCRIPT), "start", str(self.directory), str(self.port), self.redirect_uri, self.algorithm],
                       check=True, env={**os.environ, "CLIENT_SECRET": self.secret})
        # Each FastCGI worker compiles the portal on its first request: a few seconds on a busy machine.
        deadline = time.time() + seconds
        while True:
            try:
                if self.discovery()["issuer"] == self.issuer:
                    return
            except (OSError, ValueError, KeyError):
                pass
            if time.time() > deadline:
                self.stop()
                raise RuntimeError(f"LemonLDAP::NG did not start: see {self.directory}/portal.log and nginx-error.log")
            time.sleep(0.2)

    def stop(self):
        subprocess.run([str(SCRIPT), "stop", str(self.directory)], check=True)

    def discovery(self):
        return self._json(f"{self.issuer}/.well-known/openid-configuration")

    def key_ids(self):
        return [key["kid"] for key in self._json(f"{self.issuer}/oauth2/jwks")["keys"]]

    def rotate_keys(self, seconds=60):
        """Replaces the signing key with LemonLDAP::NG's own rotateOidcKeys and waits until the JWKS serves the new
        one (the old one leaves it at once); answers the new key id."""
        before = self.key_ids()
        subprocess.run([str(SCRIPT), "rotate", str(self.directory)], check=True)
        deadline = time.time() + seconds
        while (after := self.key_ids()) == before:
            if time.time() > deadline:
                raise RuntimeError("the JWKS still serves the old key")
            time.sleep(0.2)
        return after[0]

    def _json(self, url):
        with urllib.request.urlopen(url, timeout=5) as response:
            return json.load(response)

    def _write_users(self):
        self.directory.mkdir(parents=True, exist_ok=True)
        path = self.directory / "users.sqlite"
        path.unlink(missing_ok=True)
        database = sqlite3.connect(path)
        with database:
            database.execute("CREATE TABLE users (uid TEXT PRIMARY KEY, password TEXT, cn TEXT, sn TEXT, mail TEXT, "
                             "eduPersonAffiliation TEXT, studentNumber TEXT)")
            # Several values in one attribute are separated as LemonLDAP::NG's multiValuesSeparator says ("; ").
            database.executemany("INSERT INTO users VALUES (?, ?, ?, ?, ?, ?, ?)", [
                (user["uid"], user.get("password", user["uid"]), user["cn"], user.get("sn"), user["mail"],
                 "; ".join(user.get("eduPersonAffiliation", [])) or None, user.get("studentNumber"))
                for user in self.users])
        database.close()


def sign_in(browser, login, password, timeout=40):
    """Fills the portal's login form as a person does, and accepts the consent it asks for the first time a person
    signs in to Rollcall (or for new scopes); returns once the browser has left the portal."""
    field = WebDriverWait(browser, timeout).until(
        expected_conditions.visibility_of_element_located((By.ID, "userfield")))
    portal = browser.current_url.split("/", 3)[:3]
    field.send_keys(login)
    browser.find_element(By.ID, "passwordfield").send_keys(password)
    browser.find_element(By.CSS_SELECTOR, "form.login button[type=submit]").click()

    def left_or_consent(b):
        if b.current_url.split("/", 3)[:3] != portal:
            return "left"
        accept = b.find_elements(By.CSS_SELECTOR, "form.confirm button.positive")
        return "consent" if accept and accept[0].is_displayed() else None

    if WebDriverWait(browser, timeout).until(left_or_consent) == "consent":
        browser.find_element(By.CSS_SELECTOR, "form.confirm button.positive").click()
        WebDriverWait(browser, timeout).until(lambda b: b.current_url.split("/", 3)[:3] != portal)
