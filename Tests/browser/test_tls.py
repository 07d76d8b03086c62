"""Rollcall serving HTTPS itself (ROLLCALL_TLS_CERT, ROLLCALL_TLS_KEY), a single server without a proxy: Chromium
opens https://localhost:PORT with a certificate made for the test, and the live room's WebSocket works over wss."""

import shutil
import subprocess
import tempfile
import urllib.request
from pathlib import Path

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from conftest import LAPTOP, Certificate, Server, free_port, server_binary, wait_for_path
from test_check_in import account, sign_in


@pytest.fixture
def tls_server():
    directory = tempfile.mkdtemp(prefix="rollcall-tls-")
    certificate = Certificate(directory)
    running = Server(
        directory,
        env={"ROLLCALL_TLS_CERT": certificate.certificate_path, "ROLLCALL_TLS_KEY": certificate.key_path},
        scheme="https",
    )
    running.certificate = certificate
    yield running
    running.stop()
    shutil.rmtree(directory, ignore_errors=True)


def test_a_page_and_the_live_room_work_over_https(tls_server, browsers):
    server = tls_server
    # Plain http on the same port gets no page.
    with pytest.raises(OSError):
        urllib.request.urlopen(f"http://localhost:{server.port}/healthz", timeout=5).read()

    teacher = account(server, "Tia Tls", "tia@school.test", "teacher")
    status, course = server.api("POST", "/api/v1/courses", {"name": "Security 1"}, teacher)
    assert status == 201
    student = account(server, "Sam Secure", "sam@school.test")
    status, _ = server.api("POST", "/api/v1/courses/join", {"code": course["course"]["joinCode"]}, student)
    assert status in (200, 201)
    status, session = server.api(
        "POST", f"/api/v1/courses/{course['course']['id']}/sessions", {"settings": {"period": 30}}, teacher)
    assert status == 201
    session_id = session["session"]["id"]
    status, me = server.api("GET", "/api/v1/me", token=student)
    student_id = me["user"]["id"]

    browser = browsers(LAPTOP, trusted_key=server.certificate.spki_hash)
    browser.get(f"{server.url}/sign-in")
    assert browser.execute_script("return location.protocol") == "https:"
    assert browser.execute_script("return window.isSecureContext") is True
    sign_in(browser, server, "tia@school.test", then=True)
    wait_for_path(browser, "/courses")
    browser.get(f"{server.url}/sessions/{session_id}")
    WebDriverWait(browser, 20).until(lambda b: b.find_element(By.ID, "live-status").text == "live")
    student_row = f'#room-list [data-student="{student_id}"]'
    assert browser.find_element(By.CSS_SELECTOR, student_row).get_attribute("data-status") == "none"

    # A check-in arrives over the wss:// live view without a reload.
    status, frame = server.api("GET", f"/api/v1/sessions/{session_id}/projector", token=teacher)
    status, body = server.api("POST", "/api/v1/check-ins", {"code": frame["url"].rsplit("/", 1)[1]}, student)
    assert status == 201, body
    WebDriverWait(browser, 20).until(
        lambda b: b.find_element(By.CSS_SELECTOR, student_row).get_attribute("data-status") == "present")


@pytest.mark.parametrize("case", ["cert_only", "key_only", "missing_file", "not_pem"])
def test_tls_settings_that_cannot_be_used_stop_the_server_naming_the_variable(case):
    directory = Path(tempfile.mkdtemp(prefix="rollcall-tls-bad-"))
    try:
        certificate = Certificate(directory)
        junk = directory / "junk.pem"
        junk.write_text("not a certificate\n")
        env, variable = {
            "cert_only": ({"ROLLCALL_TLS_CERT": certificate.certificate_path}, "ROLLCALL_TLS_KEY"),
            "key_only": ({"ROLLCALL_TLS_KEY": certificate.key_path}, "ROLLCALL_TLS_CERT"),
            "missing_file": (
                {"ROLLCALL_TLS_CERT": str(directory / "missing.pem"), "ROLLCALL_TLS_KEY": certificate.key_path},
                "ROLLCALL_TLS_CERT"),
            "not_pem": ({"ROLLCALL_TLS_CERT": certificate.certificate_path, "ROLLCALL_TLS_KEY": str(junk)},
                        "ROLLCALL_TLS_KEY"),
        }[case]
        result = subprocess.run(
            [str(server_binary()), "serve", "--port", str(free_port()), "--data-dir", str(directory)],
            env={"PATH": "/usr/bin:/bin", **env}, capture_output=True, text=True, timeout=60)
        assert result.returncode != 0
        assert variable in result.stderr + result.stdout
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def headers_of(url, context=None):
    """The headers of the answer to GET `url`, an error's too."""
    try:
        with urllib.request.urlopen(url, timeout=10, context=context) as response:
            return response.headers
    except urllib.error.HTTPError as error:
        return error.headers


def test_every_answer_over_https_asks_browsers_to_stay_on_https_and_not_to_sniff_or_leak_links(tls_server):
    for path in ["/sign-in", "/reset-password?token=secret", "/api/v1/me", "/assets/app.css", "/no-such-page"]:
        headers = headers_of(f"{tls_server.url}{path}", tls_server.ssl)
        assert headers["Strict-Transport-Security"] == "max-age=31536000", path
        assert headers["X-Content-Type-Options"] == "nosniff", path
        assert headers["Referrer-Policy"] == "no-referrer", path


def test_plain_http_sends_no_strict_transport_security_but_the_other_headers(server):
    headers = headers_of(f"{server.url}/sign-in")
    assert headers["Strict-Transport-Security"] is None, "HSTS over plain http would be ignored, or lock out a test"
    assert headers["X-Content-Type-Options"] == "nosniff"
    assert headers["Referrer-Policy"] == "no-referrer"
