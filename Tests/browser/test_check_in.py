"""Checking in as students do: the projector's QR code, scanned by phones in and outside the room."""

import subprocess
import tempfile
import time
from pathlib import Path

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from conftest import PAGE_WAIT, confirm_email, screenshot, wait_for, wait_for_path

ROOM = (52.0, 4.0)
INSIDE = (52.0001, 4.0)  # 11 m from the teacher's point
OUTSIDE = (52.001, 4.0)  # 111 m away
PASSWORD = "a long enough password"


def account(server, name, email, role="student"):
    status, _ = server.api("POST", "/api/v1/auth/register", {"name": name, "email": email, "password": PASSWORD, "role": role})
    assert status == 201
    if role == "teacher" and (Path(getattr(server, "data_dir", "/nonexistent")) / "rollcall.sqlite").exists():
        confirm_email(server, email)  # a teacher reaches students only from a confirmed address
    status, body = server.api("POST", "/api/v1/auth/tokens", {"email": email, "password": PASSWORD})
    assert status == 201
    return body["token"]


def sign_in(browser, server, email, then=None):
    if then is None:
        browser.get(f"{server.url}/sign-in")
    form = wait_for(browser, "#sign-in-form")
    form.find_element(By.NAME, "email").send_keys(email)
    form.find_element(By.NAME, "password").send_keys(PASSWORD)
    form.find_element(By.CSS_SELECTOR, "button[type=submit]").click()


def place_phone(browser, server, position, accuracy=8):
    """Grants this page location access and puts the phone at `position`, as the phone's GPS would report it."""
    browser.execute_cdp_cmd("Browser.grantPermissions", {"origin": server.url, "permissions": ["geolocation"]})
    browser.execute_cdp_cmd(
        "Emulation.setGeolocationOverride",
        {"latitude": position[0], "longitude": position[1], "accuracy": accuracy},
    )


def decode_projected_code(projector):
    """Reads the QR code off the projector page the way a phone camera would: render it, then decode it with zbar."""
    # Read in one step: the code turns every few seconds, and the picture found a moment ago may be gone.
    svg = WebDriverWait(projector, PAGE_WAIT).until(
        lambda b: b.execute_script("return document.querySelector('#projector-qr svg')?.outerHTML"))
    with tempfile.TemporaryDirectory() as directory:
        svg_file = Path(directory) / "code.svg"
        png_file = Path(directory) / "code.png"
        svg_file.write_text(svg)
        subprocess.run(["rsvg-convert", "-b", "white", str(svg_file), "-o", str(png_file)], check=True)
        decoded = subprocess.run(["zbarimg", "--raw", "-q", str(png_file)], capture_output=True, text=True, check=True)
    return decoded.stdout.strip()


def check_in_answer(browser):
    WebDriverWait(browser, 20).until(lambda b: b.find_element(By.ID, "check-in").get_attribute("data-result"))
    root = browser.find_element(By.ID, "check-in")
    if root.get_attribute("data-result") in ("present", "late"):
        return root.get_attribute("data-result"), browser.find_element(By.ID, "check-in-result").text
    return root.get_attribute("data-result"), browser.find_element(By.ID, "check-in-error").text


def test_students_check_in_from_the_projected_code(server, browsers):
    teacher_token = account(server, "Theo Teacher", "theo@school.test", "teacher")
    status, course = server.api("POST", "/api/v1/courses", {"name": "Physics 1"}, teacher_token)
    assert status == 201
    students = {}
    for name, email in [("In Room", "in@school.test"), ("Far Away", "far@school.test"),
                        ("Late Scanner", "late@school.test"), ("Slow Signer", "slow@school.test")]:
        students[email] = account(server, name, email)
        server.api("POST", "/api/v1/courses/join", {"code": course["course"]["joinCode"]}, students[email])
    settings = {"latitude": ROOM[0], "longitude": ROOM[1], "radius": 30, "period": 5, "grace": 1}
    status, session = server.api("POST", f"/api/v1/courses/{course['course']['id']}/sessions", {"settings": settings}, teacher_token)
    assert status == 201
    session_id = session["session"]["id"]

    projector = browsers((1920, 1080))
    sign_in(projector, server, "theo@school.test")
    wait_for_path(projector, "/courses")
    projector.get(f"{server.url}/sessions/{session_id}/projector")
    WebDriverWait(projector, 15).until(lambda b: b.find_element(By.ID, "projector-status").text == "live")
    first_url = url = decode_projected_code(projector)
    assert url.startswith("HTTP://LOCALHOST:") and "/C/" in url
    screenshot(projector, "projector", sizes=((1920, 1080),))

    # A student in the room opens the link the QR code holds and is in.
    phone = browsers()
    place_phone(phone, server, INSIDE)
    sign_in(phone, server, "in@school.test")
    wait_for_path(phone, "/courses")
    phone.get(decode_projected_code(projector))
    assert check_in_answer(phone) == ("present", "You're in")
    screenshot(phone, "check-in-done", sizes=((390, 844),))
    WebDriverWait(projector, 10).until(lambda b: b.find_element(By.ID, "projector-count").text == "1")

    # The teacher's room is open on a laptop: it hears of refused attempts too.
    room = browsers((1366, 900))
    sign_in(room, server, "theo@school.test")
    wait_for_path(room, "/courses")
    room.get(f"{server.url}/sessions/{session_id}")
    WebDriverWait(room, 15).until(lambda b: b.find_element(By.ID, "live-status").text == "live")

    # A student 111 m away is told how far away they are.
    far = browsers()
    place_phone(far, server, OUTSIDE)
    sign_in(far, server, "far@school.test")
    wait_for_path(far, "/courses")
    far.get(decode_projected_code(projector))
    result, message = check_in_answer(far)
    assert result == "out_of_range"
    assert message == "You are 111 m from the classroom — move closer and try again."
    screenshot(far, "check-in-out-of-range", sizes=((390, 844),))
    # The room says so at once, so that the teacher can mark a student whose phone cannot place them.
    WebDriverWait(room, 15).until(
        lambda b: b.find_element(By.ID, "refused-summary").text.startswith("1 tried from too far"), "the refusal, live")
    assert "Far Away tried to check in 111 m from the room." in room.find_element(By.ID, "flag-list").text

    # A student who must first sign in, taking 30 s, still gets in: the scan was pinned in a ticket.
    slow = browsers()
    place_phone(slow, server, INSIDE)
    slow.get(decode_projected_code(projector))
    wait_for_path(slow, "/sign-in")
    time.sleep(30)
    sign_in(slow, server, "slow@school.test", then=True)
    wait_for_path(slow, "/check-in/")
    assert check_in_answer(slow) == ("present", "You're in")

    # By now the first code is long past its 5 s period and one step of grace: a forwarded copy is refused, and
    # trying again with it cannot help, so the page does not offer it.
    late = browsers()
    place_phone(late, server, INSIDE)
    sign_in(late, server, "late@school.test")
    wait_for_path(late, "/courses")
    late.get(first_url)
    error = wait_for(late, "#check-in-error")
    assert error.text == "The code has changed — scan the code on the screen again."
    assert not late.find_elements(By.ID, "check-in-retry") and "Try again" not in late.page_source
    screenshot(late, "check-in-expired", sizes=((390, 844),))
    # Out of range can be mended by walking in: there, "Try again" is offered.
    assert far.find_element(By.ID, "check-in-retry").is_displayed()

    # First lecture: a student with no account and not on the roster scans, registers on the same ticket, and
    # joins the course and checks in with one button.
    new = browsers()
    place_phone(new, server, INSIDE)
    new.get(decode_projected_code(projector))
    wait_for_path(new, "/sign-in")
    new.find_element(By.ID, "register-link").click()
    form = wait_for(new, "#register-form")
    form.find_element(By.NAME, "name").send_keys("Nia Newcomer")
    form.find_element(By.NAME, "email").send_keys("nia@school.test")
    form.find_element(By.NAME, "password").send_keys(PASSWORD)
    form.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    wait_for_path(new, "/check-in/")
    assert "Your scan is good until" in wait_for(new, "#check-in-validity").text
    result, message = check_in_answer(new)
    assert result == "not_enrolled"
    assert message == "You are not on this course's roster yet. Join it and check in at once, with this scan."
    join = new.find_element(By.ID, "check-in-join")
    assert join.text == "Join Physics 1 and check in"
    assert not new.find_element(By.ID, "check-in-retry").is_displayed()
    screenshot(new, "check-in-join", sizes=((390, 844),))
    join.click()
    WebDriverWait(new, 20).until(lambda b: b.find_element(By.ID, "check-in").get_attribute("data-result") == "present")
    assert new.find_element(By.ID, "check-in-result").text == "You're in"
    _, roster = server.api("GET", f"/api/v1/courses/{course['course']['id']}/students", token=teacher_token)
    assert "Nia Newcomer" in [student["name"] for student in roster["students"]]

    # The projector moved on to new codes all along, pushed by the server.
    assert decode_projected_code(projector) != first_url
    WebDriverWait(projector, 10).until(lambda b: b.find_element(By.ID, "projector-count").text == "3")


def test_a_typed_code_inside_a_geofence_sends_the_location_and_a_wrong_one_says_to_type_again(server, browsers):
    teacher_token = account(server, "Tia Typist", "tia@school.test", "teacher")
    status, course = server.api("POST", "/api/v1/courses", {"name": "Typing 1"}, teacher_token)
    assert status == 201
    student_token = account(server, "Tom Typed", "tom@school.test")
    server.api("POST", "/api/v1/courses/join", {"code": course["course"]["joinCode"]}, student_token)
    # A long period, so that the code read from the projector is still the one shown when it is typed.
    settings = {"mode": "typed", "latitude": ROOM[0], "longitude": ROOM[1], "radius": 30, "period": 60}
    status, session = server.api(
        "POST", f"/api/v1/courses/{course['course']['id']}/sessions", {"settings": settings}, teacher_token)
    assert status == 201

    phone = browsers()
    place_phone(phone, server, INSIDE)
    sign_in(phone, server, "tom@school.test")
    wait_for_path(phone, "/courses")
    phone.get(f"{server.url}/courses/{course['course']['id']}")
    form = wait_for(phone, "form.typed-form")
    assert not phone.find_elements(By.CSS_SELECTOR, "#session-list .status:empty"), "an empty status pill"

    def type_code(code):
        field = form.find_element(By.NAME, "typedCode")
        field.clear()
        field.send_keys(code)
        form.find_element(By.CSS_SELECTOR, "button[type=submit]").click()

    status, frame = server.api("GET", f"/api/v1/sessions/{session['session']['id']}/projector", None, teacher_token)
    wrong = "111111" if frame["typedCode"] == "000000" else "000000"
    type_code(wrong)
    error = form.find_element(By.CSS_SELECTOR, ".form-error")
    WebDriverWait(phone, 20).until(lambda _: error.is_displayed() and error.text)
    assert error.text == "That is not the code on the screen. Check the digits and type the code shown there now."

    # The code of this moment, typed by a phone inside the room: the location goes with it, and the student is in.
    status, frame = server.api("GET", f"/api/v1/sessions/{session['session']['id']}/projector", None, teacher_token)
    type_code(frame["typedCode"])
    answer = form.find_element(By.CSS_SELECTOR, ".form-answer")
    WebDriverWait(phone, 20).until(lambda _: answer.is_displayed() or (error.is_displayed() and error.text))
    assert answer.text == "You're in.", error.text
    assert not form.find_element(By.CSS_SELECTOR, "button[type=submit]").is_displayed()
    screenshot(phone, "typed-check-in-done", sizes=((390, 844),))
