"""The room, live: the teacher's session page shows each check-in as it happens, without a reload."""

import sqlite3
import time
from pathlib import Path

from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from conftest import LAPTOP, PHONE, screenshot, wait_for, wait_for_path
from test_check_in import account, check_in_answer, decode_projected_code, sign_in


def course_with_students(server, names):
    teacher = account(server, "Theo Teacher", "theo@school.test", "teacher")
    status, course = server.api("POST", "/api/v1/courses", {"name": "Physics 1"}, teacher)
    assert status == 201
    students = {}
    for name in names:
        email = name.lower().replace(" ", ".") + "@school.test"
        token = account(server, name, email)
        status, _ = server.api("POST", "/api/v1/courses/join", {"code": course["course"]["joinCode"]}, token)
        assert status in (200, 201)
        status, me = server.api("GET", "/api/v1/me", token=token)
        students[name] = {"email": email, "token": token, "id": me["user"]["id"]}
    status, session = server.api("POST", f"/api/v1/courses/{course['course']['id']}/sessions", {"settings": {"period": 10}}, teacher)
    assert status == 201
    return teacher, session["session"]["id"], students


def row(browser, student_id):
    return browser.find_element(By.CSS_SELECTOR, f'#room-list [data-student="{student_id}"]')


def count(browser, name):
    return browser.find_element(By.CSS_SELECTOR, f'#room [data-count="{name}"]').text


def open_dashboard(browser, server, session_id):
    browser.get(f"{server.url}/sessions/{session_id}")
    WebDriverWait(browser, 15).until(lambda b: b.find_element(By.ID, "live-status").text == "live")
    # A mark that a reload would wipe out.
    browser.execute_script("window.rollcallNotReloaded = true")


def test_the_teachers_dashboard_shows_a_check_in_from_another_window(server, browsers):
    teacher_token, session_id, students = course_with_students(server, ["Ada Arrives", "Bea Later"])
    ada, bea = students["Ada Arrives"], students["Bea Later"]

    dashboard = browsers(LAPTOP)
    sign_in(dashboard, server, "theo@school.test")
    wait_for_path(dashboard, "/courses")
    open_dashboard(dashboard, server, session_id)
    assert row(dashboard, ada["id"]).get_attribute("data-status") == "none"
    assert row(dashboard, ada["id"]).find_element(By.CLASS_NAME, "label").text == "not yet"
    assert count(dashboard, "checkedIn") == "0"
    assert count(dashboard, "enrolled") == "2"

    # The projector in a second window of the teacher's browser; a student's phone scans it.
    dashboard.switch_to.new_window("window")
    projector = dashboard
    projector.get(f"{server.url}/sessions/{session_id}/projector")
    WebDriverWait(projector, 15).until(lambda b: b.find_element(By.ID, "projector-status").text == "live")
    link = decode_projected_code(projector)
    projector_window = projector.current_window_handle
    dashboard.switch_to.window(dashboard.window_handles[0])

    phone = browsers(PHONE)
    sign_in(phone, server, ada["email"])
    wait_for_path(phone, "/courses")
    phone.get(link)
    assert check_in_answer(phone) == ("present", "You're in")

    WebDriverWait(dashboard, 5).until(lambda b: row(b, ada["id"]).get_attribute("data-status") == "present")
    assert row(dashboard, ada["id"]).find_element(By.CLASS_NAME, "label").text == "present"
    assert row(dashboard, ada["id"]).find_element(By.CLASS_NAME, "at").text != ""
    assert row(dashboard, bea["id"]).get_attribute("data-status") == "none"
    WebDriverWait(dashboard, 5).until(lambda b: count(b, "checkedIn") == "1")
    assert count(dashboard, "present") == "1"
    assert count(dashboard, "away") == "1"
    assert dashboard.execute_script("return window.rollcallNotReloaded === true"), "the page was reloaded"

    # The projector's count moved on the same change.
    dashboard.switch_to.window(projector_window)
    WebDriverWait(projector, 5).until(lambda b: b.find_element(By.ID, "projector-count").text == "1")
    dashboard.switch_to.window(dashboard.window_handles[0])

    # The teacher closes the session (the page reloads): whoever is not in is now absent.
    dashboard.find_element(By.CSS_SELECTOR, 'form[data-api$="/close"] button').click()
    dashboard.switch_to.alert.accept()
    reloading = WebDriverWait(dashboard, 10, ignored_exceptions=[StaleElementReferenceException])
    reloading.until(lambda b: b.find_element(By.ID, "session-phase").text.lower() == "closed")
    reloading.until(lambda b: b.find_element(By.ID, "live-status").text == "up to date")
    reloading.until(lambda b: row(b, bea["id"]).find_element(By.CLASS_NAME, "label").text == "absent")
    assert count(dashboard, "away") == "1"


def test_the_dashboard_marks_every_status_and_catches_up_after_a_restart(server, browsers):
    names = ["Ada Present", "Ben Late", "Cy Excused", "Di Absent", "Eve Notyet", "Finn Present", "Gus Notyet"]
    teacher_token, session_id, students = course_with_students(server, names)
    # Marks the lead's manual edits will make, written straight into the file for this picture.
    database = sqlite3.connect(Path(server.data_dir) / "rollcall.sqlite", timeout=10)
    now = time.time()
    for name, status in [("Ada Present", "present"), ("Ben Late", "late"), ("Cy Excused", "excused"),
                         ("Di Absent", "absent"), ("Finn Present", "present")]:
        database.execute(
            "INSERT INTO attendance (session_id, student_id, status, recorded_at, source) VALUES (?, ?, ?, ?, 'teacher')",
            (session_id, students[name]["id"], status, now))
    database.commit()
    database.close()

    dashboard = browsers(LAPTOP)
    sign_in(dashboard, server, "theo@school.test")
    wait_for_path(dashboard, "/courses")
    open_dashboard(dashboard, server, session_id)
    expected = {"Ada Present": "present", "Ben Late": "late", "Cy Excused": "excused", "Di Absent": "absent",
                "Eve Notyet": "none", "Finn Present": "present", "Gus Notyet": "none"}
    for name, status in expected.items():
        assert row(dashboard, students[name]["id"]).get_attribute("data-status") == status
    assert [count(dashboard, key) for key in ("checkedIn", "present", "late", "excused", "away")] == ["3", "2", "1", "1", "3"]
    # Present is green and absent red, in either colour scheme.
    for scheme in ("light", "dark"):
        dashboard.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": scheme}]})
        green = dashboard.execute_script(
            "return getComputedStyle(arguments[0].querySelector('.dot')).backgroundColor", row(dashboard, students["Ada Present"]["id"]))
        red = dashboard.execute_script(
            "return getComputedStyle(arguments[0].querySelector('.dot')).backgroundColor", row(dashboard, students["Di Absent"]["id"]))
        assert rgb(green)[1] > rgb(green)[0] and rgb(red)[0] > rgb(red)[1], (scheme, green, red)
        screenshot(dashboard, f"live-dashboard-{scheme}")

    # The server restarts while the page stays open: it reconnects by itself and catches up.
    server.stop()
    WebDriverWait(dashboard, 10).until(lambda b: b.find_element(By.ID, "live-status").text == "reconnecting…")
    server.restart()
    status, frame = server.api("GET", f"/api/v1/sessions/{session_id}/projector", token=teacher_token)
    assert status == 200
    eve = students["Eve Notyet"]
    status, _ = server.api("POST", "/api/v1/check-ins", {"code": frame["url"].split("/C/")[1]}, eve["token"])
    assert status == 201
    WebDriverWait(dashboard, 15).until(lambda b: row(b, eve["id"]).get_attribute("data-status") == "present")
    # It came as an event (replayed after the last one the page had, or live), not from a fresh snapshot.
    assert "changed" in row(dashboard, eve["id"]).get_attribute("class")
    WebDriverWait(dashboard, 5).until(lambda b: count(b, "checkedIn") == "4")
    assert dashboard.execute_script("return window.rollcallNotReloaded === true"), "the page was reloaded"


def rgb(text):
    return [int(float(part)) for part in text[text.index("(") + 1:text.index(")")].split(",")[:3]]
