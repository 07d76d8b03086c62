"""A student who forgot a password gets back in through a link that a real mail server delivered."""

import email
import email.policy
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from selenium.webdriver.common.by import By

from conftest import ROOT, Server, screenshot, wait_for, wait_for_path

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


def test_a_forgotten_password_is_replaced_through_the_delivered_link(mail_and_server, browsers):
    mail, server = mail_and_server
    status, _ = server.api(
        "POST", "/api/v1/auth/register",
        {"name": "Zoë Ångström", "email": "zoe@school.test", "password": "my old password"},
    )
    assert status == 201

    browser = browsers()
    browser.get(f"{server.url}/sign-in")
    wait_for(browser, "#forgot-password-link").click()
    form = wait_for(browser, "#forgot-password-form")
    form.find_element(By.NAME, "email").send_keys("zoe@school.test")
    screenshot(browser, "forgot-password")
    form.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    assert "on its way" in wait_for(browser, "#reset-sent").text

    message, envelope = mail.wait_for_message("zoe@school.test", "Set a new password for Hill School")
    assert envelope["mail_from"] == "rollcall@school.test"
    assert envelope["login"] == SMTP_USER and envelope["tls"], "signed in over TLS"
    assert str(message["To"]) == "Zoë Ångström <zoe@school.test>"
    assert message["To"].addresses[0].display_name == "Zoë Ångström"
    assert message["From"].addresses[0].display_name == "Rollcall at Hill School"
    assert message["Date"].datetime is not None
    assert re.fullmatch(r"<rollcall\.\d+\.\d+@school\.test>", message["Message-ID"])
    assert message.get_content_type() == "multipart/alternative"
    text = message.get_body(preferencelist=("plain",)).get_content()
    html = message.get_body(preferencelist=("html",)).get_content()
    assert text.startswith("Hello Zoë Ångström,")
    assert "The link works once, for 30 minutes." in text
    link = re.search(rf"{re.escape(server.url)}/reset-password\?token=[\w-]+", text).group(0)
    assert f'<a href="{link}"' in html, "the HTML part carries the same link"

    browser.get(link)
    form = wait_for(browser, "#reset-password-form")
    form.find_element(By.NAME, "newPassword").send_keys("my brand new password")
    screenshot(browser, "reset-password")
    form.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    wait_for(browser, "#password-set")
    browser.find_element(By.ID, "sign-in-again").click()

    form = wait_for(browser, "#sign-in-form")
    form.find_element(By.NAME, "email").send_keys("zoe@school.test")
    form.find_element(By.NAME, "password").send_keys("my brand new password")
    form.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    wait_for_path(browser, "/courses")

    # The link was single use.
    status, body = server.api(
        "POST", "/api/v1/auth/password-reset/complete", {"token": link.split("token=")[1], "newPassword": "again and again"}
    )
    assert status == 400 and body["error"]["code"] == "invalid_reset_token"
