"""A student confirms a phone number on the profile and signs in with it and a texted code (read from the outbox)."""

import shutil
import subprocess
import tempfile
import time
import urllib.parse

import pytest
from selenium.webdriver.common.by import By

from conftest import Server, screenshot, server_binary, wait_for, wait_for_path

PASSWORD = "a long enough password"


@pytest.fixture
def gb_server():
    data_dir = tempfile.mkdtemp(prefix="rollcall-browser-")
    running = Server(data_dir, env={"ROLLCALL_DEFAULT_REGION": "GB"})
    yield running
    running.stop()
    shutil.rmtree(data_dir, ignore_errors=True)


def admin_token(server):
    subprocess.run(
        [str(server_binary()), "create-admin", "--data-dir", server.data_dir, "--name", "Ada Admin",
         "--email", "ada@school.test", "--password", PASSWORD],
        check=True, capture_output=True,
    )
    status, body = server.api("POST", "/api/v1/auth/tokens", {"email": "ada@school.test", "password": PASSWORD})
    assert status == 201
    return body["token"]


def texted_code(server, token, phone, after=0, seconds=30):
    """The code of the newest text to `phone` with an id above `after`, from the admin's outbox; and that id."""
    deadline = time.time() + seconds
    while time.time() < deadline:
        status, body = server.api(
            "GET", f"/api/v1/admin/outbox?recipient={urllib.parse.quote(phone)}", token=token)
        assert status == 200
        texts = [m for m in body["messages"] if m["channel"] == "sms" and m["id"] > after]
        if texts:
            return texts[0]["body"][:6], texts[0]["id"]
        time.sleep(0.1)
    pytest.fail(f"no text message to {phone} in the outbox")


def test_a_confirmed_phone_signs_in_with_a_texted_code(gb_server, browsers):
    server = gb_server
    token = admin_token(server)
    status, _ = server.api(
        "POST", "/api/v1/auth/register", {"name": "Pia Phone", "email": "pia@school.test", "password": PASSWORD})
    assert status == 201

    browser = browsers()
    browser.get(f"{server.url}/sign-in?next=/profile")
    form = wait_for(browser, "#sign-in-form")
    form.find_element(By.NAME, "email").send_keys("pia@school.test")
    form.find_element(By.NAME, "password").send_keys(PASSWORD)
    form.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    wait_for_path(browser, "/profile")

    ask = wait_for(browser, "#phone-add-form")
    ask.find_element(By.NAME, "phone").send_keys("07700 900123")
    ask.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    check = wait_for(browser, "#phone-confirm-form")
    assert "+447700900123" in check.find_element(By.CSS_SELECTOR, ".phone-sent").text
    # The page reloads, as when the phone switches to its messages app and back: the code's field is still there.
    browser.refresh()
    check = wait_for(browser, "#phone-confirm-form")
    assert "+447700900123" in check.find_element(By.CSS_SELECTOR, ".phone-sent").text
    assert not browser.find_element(By.ID, "phone-add-form").is_displayed()
    code, last = texted_code(server, token, "+447700900123")
    check.find_element(By.NAME, "code").send_keys(code)
    check.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    number = wait_for(browser, "#phone-number")
    assert "+447700900123" in number.text and "sign in with it" in number.text

    browser.delete_all_cookies()
    browser.get(f"{server.url}/sign-in")
    ask = wait_for(browser, "#phone-code-form")
    ask.find_element(By.NAME, "phone").send_keys("07700 900123")
    ask.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    check = wait_for(browser, "#phone-check-form")
    assert "5 minutes" in check.find_element(By.CSS_SELECTOR, ".phone-sent").text
    code, _ = texted_code(server, token, "+447700900123", after=last)

    wrong = "000000" if code != "000000" else "111111"
    field = check.find_element(By.NAME, "code")
    field.send_keys(wrong)
    check.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    assert "wrong" in wait_for(browser, "#phone-check-form .form-error").text
    field.clear()
    field.send_keys(code)
    check.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    wait_for_path(browser, "/courses")


def sms_count(server, token):
    status, body = server.api("GET", "/api/v1/admin/outbox?limit=100", token=token)
    assert status == 200
    return sum(1 for m in body["messages"] if m["channel"] == "sms")


def test_a_remembered_browser_continues_without_a_code_until_it_is_forgotten(gb_server, browsers):
    server = gb_server
    token = admin_token(server)
    status, _ = server.api(
        "POST", "/api/v1/auth/register", {"name": "Rory Remember", "email": "rory@school.test", "password": PASSWORD})
    assert status == 201
    status, signed_in = server.api("POST", "/api/v1/auth/tokens", {"email": "rory@school.test", "password": PASSWORD})
    rory = signed_in["token"]
    status, _ = server.api("POST", "/api/v1/me/phone", {"phone": "07700 900456"}, token=rory)
    assert status == 202
    code, last = texted_code(server, token, "+447700900456")
    status, _ = server.api("POST", "/api/v1/me/phone/confirm", {"phone": "+447700900456", "code": code}, token=rory)
    assert status == 200

    browser = browsers()
    browser.get(f"{server.url}/sign-in")
    ask = wait_for(browser, "#phone-code-form")
    ask.find_element(By.NAME, "phone").send_keys("07700 900456")
    ask.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    check = wait_for(browser, "#phone-check-form")
    code, last = texted_code(server, token, "+447700900456", after=last)
    check.find_element(By.NAME, "code").send_keys(code)
    check.find_element(By.NAME, "rememberDevice").click()
    screenshot(browser, "phone-remember-this-browser", dark=True)
    check.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    wait_for_path(browser, "/courses")

    # The session ends (signed out, or its 14 days are up); the browser still remembers the phone.
    browser.delete_cookie("rollcall_session")
    texts = sms_count(server, token)
    browser.get(f"{server.url}/sign-in?next=/devices")
    card = wait_for(browser, "#remembered-device")
    assert "Rory Remember" in card.text and "••• 0456" in card.text
    assert "+447700900456" not in browser.page_source
    screenshot(browser, "phone-continue-as", dark=True)
    browser.find_element(By.ID, "continue-remembered").click()
    wait_for_path(browser, "/devices")
    assert sms_count(server, token) == texts, "no code was texted"

    row = wait_for(browser, "#remembered-browsers .remembered-browser")
    assert "Chrome on Linux" in row.text and "this browser" in row.text.lower() and "••• 0456" in row.text
    browser.execute_script("document.getElementById('remembered-browsers').scrollIntoView()")
    screenshot(browser, "devices-remembered-browsers", dark=True)
    row.find_element(By.CSS_SELECTOR, ".remembered-forget button[type=submit]").click()
    alert = browser.switch_to.alert
    assert "Forget “Chrome on Linux”?" in alert.text
    alert.accept()

    # Forgetting it signed this very session out at once, and the browser is asked for a code again.
    wait_for_path(browser, "/sign-in")
    wait_for(browser, "#phone-code-form")
    assert not browser.find_elements(By.ID, "remembered-device")
    status, body = server.api("GET", "/api/v1/me/remembered-devices", token=rory)
    assert status == 200 and body["devices"] == []
