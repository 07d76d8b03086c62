"""Fixtures for Rollcall's real-browser tests: a real server on a fresh SQLite file, and headless Chromium."""

import base64
import datetime
import email
import email.policy
import hashlib
import ipaddress
import json
import os
import re
import shutil
import socket
import sqlite3
import ssl
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import pytest
from selenium import webdriver
from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException, WebDriverException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.errorhandler import ErrorHandler
from selenium.webdriver.support import expected_conditions
from selenium.webdriver.support import wait as selenium_wait
from selenium.webdriver.support.ui import WebDriverWait

# Many waits read an element of a page that is reloading (after a form's answer). An element of the page going
# away is stale, and a wait looks it up again: Chromium reports some of these as an "unhandled inspector error"
# ("Node with given id does not belong to the document") rather than as a stale element, which is what it is.
_check_response = ErrorHandler.check_response


def _stale_when_detached(self, response):
    try:
        _check_response(self, response)
    except WebDriverException as error:
        if not isinstance(error, StaleElementReferenceException) and "does not belong to the document" in str(error):
            raise StaleElementReferenceException(error.msg) from error
        raise


ErrorHandler.check_response = _stale_when_detached
selenium_wait.IGNORED_EXCEPTIONS = (NoSuchElementException, StaleElementReferenceException)

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = os.environ.get("ROLLCALL_SCREENSHOTS")
PHONE = (390, 844)
LAPTOP = (1366, 900)


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def server_binary():
    binary = ROOT / ".build" / "debug" / "rollcall"
    if not binary.exists():
        subprocess.run(["swift", "build", "--product", "rollcall"], cwd=ROOT, check=True)
    return binary


def answers_health(url, process, context, seconds):
    """Waits until `url/healthz` answers 200, or `process` ends, or `seconds` pass; says whether it answered."""
    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            with urllib.request.urlopen(f"{url}/healthz", timeout=2, context=context) as response:
                if response.status == 200:
                    return True
        except OSError:
            if process.poll() is not None:
                return False
            time.sleep(0.2)
    return False


class JSONClient:
    """Speaks Rollcall's JSON API at `self.url` (with `self.ssl` for https) and answers (status, body)."""

    def api(self, method, path, body=None, token=None, headers=None):
        request = urllib.request.Request(f"{self.url}{path}", method=method, headers=headers or {})
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            request.add_header("Content-Type", "application/json")
        if token:
            request.add_header("Authorization", f"Bearer {token}")
        try:
            with urllib.request.urlopen(request, data, context=self.ssl) as response:
                text = response.read()
                return response.status, json.loads(text) if text else None
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read() or b"null")


def confirm_email(server, email):
    """Opens the confirmation link Rollcall stored for `email` (in the server's SQLite outbox), as its reader would."""
    path = Path(server.data_dir) / "rollcall.sqlite"
    database = sqlite3.connect(path, timeout=10)
    try:
        row = database.execute(
            "SELECT body FROM outbox WHERE recipient = ? AND body LIKE '%/verify-email?token=%' ORDER BY id DESC LIMIT 1",
            (email,)).fetchone()
    finally:
        database.close()
    assert row, f"no confirmation letter to {email}"
    token = re.search(r"/verify-email\?token=([A-Za-z0-9_-]+)", row[0]).group(1)
    status, body = server.api("POST", "/api/v1/auth/verify-email", {"token": token})
    assert status == 200, body


class Server(JSONClient):
    """A running `rollcall serve`, reached at http://localhost:PORT (WebAuthn and geolocation need a name, not an IP).

    `env` adds settings (or replaces the public URL, for a server behind a proxy); with `scheme="https"` the server
    serves TLS itself (`env` then names the certificate) and the test's own requests accept any certificate."""

    def __init__(self, data_dir, env=None, scheme="http"):
        self.port = free_port()
        self.url = f"{scheme}://localhost:{self.port}"
        self.data_dir = data_dir
        self.env = dict(env or {})
        self.ssl = ssl._create_unverified_context() if scheme == "https" else None
        self.start()

    def start(self):
        # Teachers registered by the tests teach at once; the approval itself is tested where a test turns it on.
        env = {**os.environ, "ROLLCALL_PUBLIC_URL": self.url, "ROLLCALL_LOG_LEVEL": "warning",
               "ROLLCALL_TEACHER_APPROVAL": "false", **self.env}
        self.log = open(Path(self.data_dir) / "server.log", "a")
        self.process = subprocess.Popen(
            [str(server_binary()), "serve", "--port", str(self.port), "--data-dir", self.data_dir],
            cwd=tempfile.gettempdir(),  # the binary must not depend on the working directory
            env=env,
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )
        if not answers_health(self.url, self.process, self.ssl, seconds=60):
            self.stop()
            raise RuntimeError(f"Rollcall did not start; see {self.log.name}")

    def restart(self):
        """Starts the server again on the same port and data, as after a crash or an update."""
        self.start()

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
        self.log.close()


@pytest.fixture
def server():
    data_dir = tempfile.mkdtemp(prefix="rollcall-browser-")
    running = Server(data_dir)
    yield running
    running.stop()
    shutil.rmtree(data_dir, ignore_errors=True)


def chromium_path():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    pytest.fail("Chromium is missing: install Debian's chromium and chromium-driver (make deps does).")


def new_browser(size=PHONE, trusted_key=None, language=None):
    options = webdriver.ChromeOptions()
    if language:
        # What the browser asks for in Accept-Language, as a person's language setting in Chromium does.
        options.add_argument(f"--lang={language}")
        options.add_experimental_option("prefs", {"intl.accept_languages": language})
    options.binary_location = chromium_path()
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu"):
        options.add_argument(argument)
    options.add_argument(f"--window-size={size[0]},{size[1]}")
    if trusted_key:
        # A test's self-signed certificate, trusted as a real one would be (a page with a certificate error gets no
        # passkeys), by its public key and for this browser only.
        options.add_argument(f"--ignore-certificate-errors-spki-list={trusted_key}")
    driver_path = shutil.which("chromedriver")
    if not driver_path:
        pytest.fail("chromedriver is missing: install Debian's chromium-driver (make deps does).")
    browser = webdriver.Chrome(service=Service(driver_path), options=options)
    browser.implicitly_wait(0)
    return browser


@pytest.fixture
def browsers():
    """Opens separate browsers (separate cookie jars, as two people on two phones) and closes them afterwards."""
    opened = []

    def open_browser(size=PHONE, trusted_key=None, language=None):
        browser = new_browser(size, trusted_key, language)
        opened.append(browser)
        return browser

    yield open_browser
    for browser in opened:
        browser.quit()


class Certificate:
    """A self-signed certificate for `localhost` and 127.0.0.1, made for one test: PEM files in `directory`, and the
    base64 SHA-256 of its public key, which Chromium's --ignore-certificate-errors-spki-list takes."""

    def __init__(self, directory):
        from cryptography import x509
        from cryptography.hazmat.primitives import hashes, serialization
        from cryptography.hazmat.primitives.asymmetric import ec
        from cryptography.x509.oid import NameOID

        key = ec.generate_private_key(ec.SECP256R1())
        name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
        now = datetime.datetime.now(datetime.timezone.utc)
        certificate = (
            x509.CertificateBuilder()
            .subject_name(name)
            .issuer_name(name)
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(hours=1))
            .not_valid_after(now + datetime.timedelta(days=2))
            .add_extension(
                x509.SubjectAlternativeName([x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
                critical=False,
            )
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(x509.ExtendedKeyUsage([x509.oid.ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
            .sign(key, hashes.SHA256())
        )
        self.certificate_path = str(Path(directory) / "certificate.pem")
        self.key_path = str(Path(directory) / "key.pem")
        Path(self.certificate_path).write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
        Path(self.key_path).write_bytes(
            key.private_bytes(
                serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
            )
        )
        spki = key.public_key().public_bytes(
            serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
        )
        self.spki_hash = base64.b64encode(hashlib.sha256(spki).digest()).decode()


# Generous: CI shares two cores with other work, and a page after a bcrypt hash can take seconds there.
PAGE_WAIT = 40


def wait_for(browser, css, timeout=PAGE_WAIT):
    return WebDriverWait(browser, timeout).until(expected_conditions.visibility_of_element_located((By.CSS_SELECTOR, css)))


def wait_for_path(browser, prefix, timeout=PAGE_WAIT):
    WebDriverWait(browser, timeout).until(lambda b: b.current_url.split("localhost:")[1].split("/", 1)[1].startswith(prefix.lstrip("/")))


def screenshot(browser, name, sizes=(PHONE, LAPTOP), dark=False):
    """Saves the page at phone and laptop sizes when ROLLCALL_SCREENSHOTS names a folder, for people to look at;
    with `dark`, once more in the system's dark mode."""
    if not SCREENSHOTS:
        return
    Path(SCREENSHOTS).mkdir(parents=True, exist_ok=True)
    original = browser.get_window_size()
    for scheme in ("light", "dark") if dark else ("light",):
        browser.execute_cdp_cmd(
            "Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": scheme}]})
        for width, height in sizes:
            browser.set_window_size(width, height)
            suffix = "-dark" if scheme == "dark" else ""
            browser.save_screenshot(str(Path(SCREENSHOTS) / f"{name}-{width}x{height}{suffix}.png"))
    browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})
    browser.set_window_size(original["width"], original["height"])


SMTP_USER, SMTP_PASSWORD = "rollcall", "mail pass"


class MailServer:
    """Tests/mail/smtp_server.py (aiosmtpd) with STARTTLS and AUTH, on loopback; keeps what it receives."""

    def __init__(self, directory):
        self.directory = Path(directory)
        self.process = subprocess.Popen(
            [sys.executable, str(ROOT / "Tests" / "mail" / "smtp_server.py"), "--dir", str(self.directory),
             "--tls", "starttls", "--auth", f"{SMTP_USER}:{SMTP_PASSWORD}"],
            stdout=subprocess.DEVNULL,
            stderr=open(self.directory / "server.log", "a"),
        )
        ready = self.directory / "ready"
        deadline = time.time() + 60
        while not ready.exists():
            assert self.process.poll() is None, (self.directory / "server.log").read_text()
            assert time.time() < deadline, "the mail server did not start within a minute"
            time.sleep(0.05)
        self.port = int(ready.read_text())

    def settings(self):
        return {
            "ROLLCALL_SMTP_URL": f"smtp+starttls://{SMTP_USER}:{SMTP_PASSWORD.replace(' ', '%20')}@localhost:{self.port}",
            "ROLLCALL_MAIL_FROM": "Rollcall at Hill School <rollcall@school.test>",
            "ROLLCALL_SMTP_CA_FILE": str(self.directory / "cert.pem"),
            "ROLLCALL_SCHOOL_NAME": "Hill School",
        }

    def wait_for_message(self, recipient, subject, seconds=60):
        """The first delivered message to `recipient` with `subject`, parsed, and its envelope."""
        deadline = time.time() + seconds
        while time.time() < deadline:
            for path in sorted((self.directory / "messages").glob("*.eml")):
                envelope = json.loads(path.with_suffix(".json").read_text())
                message = email.message_from_bytes(path.read_bytes(), policy=email.policy.default)
                if envelope["rcpt_tos"] == [recipient] and message["Subject"] == subject:
                    return message, envelope
            time.sleep(0.1)
        pytest.fail(f"no message “{subject}” to {recipient} arrived within {seconds} s")

    def stop(self):
        self.process.kill()
        self.process.wait()


@pytest.fixture
def mail_and_server():
    mail_dir = tempfile.mkdtemp(prefix="rollcall-smtp-")
    data_dir = tempfile.mkdtemp(prefix="rollcall-browser-")
    mail = MailServer(mail_dir)
    server = Server(data_dir, env=mail.settings())
    yield mail, server
    server.stop()
    mail.stop()
    shutil.rmtree(mail_dir, ignore_errors=True)
    shutil.rmtree(data_dir, ignore_errors=True)
