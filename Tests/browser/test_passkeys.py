"""Passkeys in a real Chromium with WebDriver's virtual authenticator (CTAP2, internal, resident keys, user
verification): registering one on the Devices page or inside the check-in flow, checking in with it in a course that
asks for it, signing in with it, and a phone that fails to verify its user."""

from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.common.virtual_authenticator import VirtualAuthenticatorOptions
from selenium.webdriver.support.ui import WebDriverWait

from conftest import screenshot, wait_for, wait_for_path
from test_check_in import account, check_in_answer, decode_projected_code, sign_in

CANCELLED = (
    "Your phone did not confirm it is you: it was cancelled, timed out, or has no face, fingerprint or screen lock "
    "set up. Try again, or ask your teacher to mark you by hand."
)


def with_authenticator(browser):
    """Gives the browser a platform authenticator, as a phone with Face ID or a fingerprint reader has."""
    options = VirtualAuthenticatorOptions()
    options.protocol = VirtualAuthenticatorOptions.Protocol.CTAP2
    options.transport = VirtualAuthenticatorOptions.Transport.INTERNAL
    options.has_resident_key = True
    options.has_user_verification = True
    options.is_user_verified = True
    browser.add_virtual_authenticator(options)
    return browser


def classroom(server, students):
    """A teacher, a course that asks for a passkey at check-in, its students, and an open session."""
    teacher = account(server, "Vera Verifier", "vera@school.test", "teacher")
    status, course = server.api("POST", "/api/v1/courses", {"name": "Chemistry 2"}, teacher)
    assert status == 201
    course_id = course["course"]["id"]
    status, _ = server.api("PUT", f"/api/v1/courses/{course_id}/verification", {"required": True}, teacher)
    assert status == 200
    for name, email in students:
        token = account(server, name, email)
        server.api("POST", "/api/v1/courses/join", {"code": course["course"]["joinCode"]}, token)
    status, session = server.api("POST", f"/api/v1/courses/{course_id}/sessions", {"settings": {"period": 10}}, teacher)
    assert status == 201
    return teacher, course_id, session["session"]["id"]


def open_projector(browsers, server, session_id):
    projector = browsers((1920, 1080))
    sign_in(projector, server, "vera@school.test")
    wait_for_path(projector, "/courses")
    projector.get(f"{server.url}/sessions/{session_id}/projector")
    WebDriverWait(projector, 15).until(lambda b: b.find_element(By.ID, "projector-status").text == "live")
    return projector


def present_count(server, teacher, session_id):
    status, session = server.api("GET", f"/api/v1/sessions/{session_id}", token=teacher)
    assert status == 200
    return session["session"]["counts"]["present"]


def test_students_register_passkeys_and_check_in_with_them(server, browsers):
    teacher, course_id, session_id = classroom(
        server, [("Dana Devices", "dana@school.test"), ("Noor Newkey", "noor@school.test")])
    projector = open_projector(browsers, server, session_id)

    # Dana adds a passkey on the Devices page first.
    phone = with_authenticator(browsers())
    sign_in(phone, server, "dana@school.test")
    wait_for_path(phone, "/courses")
    phone.get(f"{server.url}/devices")
    wait_for(phone, "#no-passkeys")
    screenshot(phone, "devices-empty")
    form = wait_for(phone, "#add-passkey")
    name = form.find_element(By.NAME, "name")
    name.clear()
    name.send_keys("Dana's phone")
    form.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    wait_for(phone, ".passkey")
    assert phone.find_element(By.CSS_SELECTOR, ".passkey-name").text == "Dana's phone"
    assert "Device-bound passkey" in phone.find_element(By.CSS_SELECTOR, ".passkey-head").text
    assert len(phone.get_credentials()) == 1
    screenshot(phone, "devices-one-passkey")

    # She scans the projected code; the page asks the phone for the passkey and she is in.
    phone.get(decode_projected_code(projector))
    assert check_in_answer(phone) == ("present", "You're in")
    screenshot(phone, "check-in-with-passkey", sizes=((390, 844),))

    # Noor has no passkey yet: the check-in page offers to add one there and then, within the ticket's time.
    noor = with_authenticator(browsers())
    sign_in(noor, server, "noor@school.test")
    wait_for_path(noor, "/courses")
    noor.get(decode_projected_code(projector))
    WebDriverWait(noor, 20).until(lambda b: b.find_element(By.ID, "check-in").get_attribute("data-result") == "no_passkey")
    assert wait_for(noor, "#check-in-deadline").text
    screenshot(noor, "check-in-add-passkey", sizes=((390, 844),))
    noor.find_element(By.ID, "check-in-add-passkey").click()
    assert check_in_answer(noor) == ("present", "You're in")
    assert len(noor.get_credentials()) == 1
    WebDriverWait(projector, 10).until(lambda b: b.find_element(By.ID, "projector-count").text == "2")
    assert present_count(server, teacher, session_id) == 2

    # The teacher sees how each student proved it was them.
    desk = browsers((1366, 900))
    sign_in(desk, server, "vera@school.test")
    wait_for_path(desk, "/courses")
    desk.get(f"{server.url}/sessions/{session_id}")
    table = wait_for(desk, "#verification-table")
    assert "Dana Devices" in table.text and "Noor Newkey" in table.text and "device-bound" in table.text
    screenshot(desk, "session-passkey-check-ins")
    desk.get(f"{server.url}/courses/{course_id}")
    assert wait_for(desk, "#verification-form input[name=required]").is_selected()
    desk.execute_script("document.getElementById('verification').scrollIntoView()")
    screenshot(desk, "course-verification-setting")

    # Signed out, Dana signs in again with the passkey alone.
    phone.delete_all_cookies()
    phone.get(f"{server.url}/sign-in")
    screenshot(phone, "sign-in-with-passkey")
    wait_for(phone, "#passkey-sign-in-button").click()
    wait_for_path(phone, "/courses")
    assert "Dana Devices" in phone.find_element(By.CSS_SELECTOR, "nav").text

    # She renames and removes the passkey on the Devices page.
    phone.get(f"{server.url}/devices")
    rename = wait_for(phone, ".passkey-rename")
    field = rename.find_element(By.NAME, "name")
    field.clear()
    field.send_keys("Old phone")
    rename.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    WebDriverWait(phone, 10, ignored_exceptions=(StaleElementReferenceException,)).until(
        lambda b: b.find_element(By.CSS_SELECTOR, ".passkey-name").text == "Old phone")
    phone.execute_cdp_cmd(
        "Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": "dark"}]})
    screenshot(phone, "devices-dark")
    phone.find_element(By.CSS_SELECTOR, ".passkey-remove button").click()
    phone.switch_to.alert.accept()
    wait_for(phone, "#no-passkeys")


def test_a_phone_that_does_not_verify_its_user_is_refused(server, browsers):
    teacher, _, session_id = classroom(server, [("Uma Unverified", "uma@school.test")])
    projector = open_projector(browsers, server, session_id)
    phone = with_authenticator(browsers())
    sign_in(phone, server, "uma@school.test")
    wait_for_path(phone, "/courses")
    phone.get(f"{server.url}/devices")
    wait_for(phone, "#add-passkey").find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    wait_for(phone, ".passkey")

    # The fingerprint does not match (or the person cancels): the check-in is refused, with what to do next.
    phone.set_user_verified(False)
    phone.get(decode_projected_code(projector))
    result, message = check_in_answer(phone)
    assert result == "verification_cancelled"
    assert message == CANCELLED
    screenshot(phone, "check-in-not-verified", sizes=((390, 844),))
    assert present_count(server, teacher, session_id) == 0

    # Trying again once the phone recognises her works within the ticket's time.
    phone.set_user_verified(True)
    phone.find_element(By.ID, "check-in-retry").click()
    assert check_in_answer(phone) == ("present", "You're in")
    assert present_count(server, teacher, session_id) == 1
