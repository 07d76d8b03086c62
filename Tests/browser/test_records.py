"""Records as teachers and students see them: a correction by hand and its audit entry, a student's meter, a roster import."""

import tempfile
import time
from pathlib import Path

from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

from conftest import LAPTOP, screenshot, wait_for, wait_for_path
from test_check_in import account, sign_in


def course_with_past_sessions(server):
    """A teacher's course with one student and two sessions already held, made through the API."""
    teacher = account(server, "Rhea Records", "rhea@school.test", role="teacher")
    student = account(server, "Stan Student", "stan@school.test")
    _, course = server.api("POST", "/api/v1/courses", {"name": "Geology 210"}, token=teacher)
    course_id = course["course"]["id"]
    server.api("POST", "/api/v1/courses/join", {"code": course["course"]["joinCode"]}, token=student)
    sessions = []
    for title in ("Rocks", "Minerals"):
        _, created = server.api("POST", f"/api/v1/courses/{course_id}/sessions", {"title": title}, token=teacher)
        sessions.append(created["session"]["id"])
    status, _ = server.api("PUT", f"/api/v1/sessions/{sessions[0]}/attendance/{me(server, student)}", {"status": "present"}, token=teacher)
    assert status == 200
    for session in sessions:
        server.api("POST", f"/api/v1/sessions/{session}/close", token=teacher)
    return course_id, sessions, me(server, student)


def me(server, token):
    _, body = server.api("GET", "/api/v1/me", token=token)
    return body["user"]["id"]


def test_a_correction_by_hand_shows_in_the_audit_log_and_the_students_meter(server, browsers):
    course_id, sessions, student_id = course_with_past_sessions(server)

    teacher = browsers(LAPTOP)
    teacher.get(f"{server.url}/sign-in?next=/courses/{course_id}/students/{student_id}")
    sign_in(teacher, server, "rhea@school.test", then=True)
    wait_for_path(teacher, f"/courses/{course_id}/students/{student_id}")
    assert wait_for(teacher, "#count-absent").text == "1", "the second session closed without a record: absent"
    row = wait_for(teacher, f'#student-sessions li[data-session="{sessions[1]}"]')
    Select(row.find_element(By.NAME, "status")).select_by_value("excused")
    row.find_element(By.NAME, "reason").send_keys("Field trip with the geology club")
    row.find_element(By.CSS_SELECTOR, "button[type=submit]").click()

    WebDriverWait(teacher, 15, ignored_exceptions=[StaleElementReferenceException]).until(lambda b: "Field trip" in b.find_element(By.ID, "audit").text)
    audit = teacher.find_element(By.ID, "audit").text
    assert "Minerals" in audit and "absent" not in audit.split("Minerals")[0]
    assert "no record → excused" in audit
    assert "Rhea Records" in audit
    assert wait_for(teacher, "#count-excused").text == "1"
    WebDriverWait(teacher, 10).until(lambda b: b.find_element(By.CSS_SELECTOR, ".meter-number").text == "100%")
    assert teacher.find_element(By.CSS_SELECTOR, ".meter-number").get_attribute("data-count-to") == "100.0"
    screenshot(teacher, "student-record-teacher")

    teacher.get(f"{server.url}/sessions/{sessions[1]}")
    assert "Field trip with the geology club" in wait_for(teacher, "#audit").text

    student = browsers()
    student.get(f"{server.url}/sign-in?next=/courses/{course_id}")
    sign_in(student, server, "stan@school.test", then=True)
    summary = wait_for(student, "#my-attendance")
    # The meter counts up to its figure.
    WebDriverWait(student, 10).until(lambda b: b.find_element(By.CSS_SELECTOR, "#my-attendance .meter-number").text == "100%")
    assert "Excused" in summary.text
    screenshot(student, "my-attendance-student")
    student.find_element(By.LINK_TEXT, "Every session and change").click()
    assert "Field trip with the geology club" in wait_for(student, "#audit").text
    assert not student.find_elements(By.CSS_SELECTOR, ".status-form"), "students see their record, not the controls"


def test_a_roster_import_lists_every_bad_line_then_imports_a_good_file(server, browsers):
    teacher_token = account(server, "Ivo Importer", "ivo@school.test", role="teacher")
    _, course = server.api("POST", "/api/v1/courses", {"name": "Botany 101"}, token=teacher_token)
    course_id = course["course"]["id"]
    account(server, "Kai Known", "kai@school.test")

    teacher = browsers(LAPTOP)
    teacher.get(f"{server.url}/sign-in?next=/courses/{course_id}")
    sign_in(teacher, server, "ivo@school.test", then=True)
    form = wait_for(teacher, "#import-form")
    with tempfile.TemporaryDirectory() as directory:
        bad = Path(directory) / "bad.csv"
        bad.write_text("name,email\nKai Known,kai@school.test\n,nameless@school.test\nNed,not-an-email\n")
        form.find_element(By.NAME, "file").send_keys(str(bad))
        form.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
        errors = wait_for(teacher, "#import-form .import-errors")
        assert "Line 3" in errors.text and "Line 4" in errors.text
        assert "Nothing was imported" in teacher.find_element(By.CSS_SELECTOR, "#import-form .form-error").text
        teacher.execute_script("arguments[0].scrollIntoView({block: 'center'})", errors)
        screenshot(teacher, "roster-import-errors", sizes=(LAPTOP,))

        good = Path(directory) / "good.csv"
        good.write_text("name,email\nKai Known,kai@school.test\nNora New,nora@school.test\n")
        form.find_element(By.NAME, "file").clear()
        form.find_element(By.NAME, "file").send_keys(str(good))
        form.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
        answer = wait_for(teacher, "#import-form .import-answer")
        assert "1 added" in answer.text and "1 invited" in answer.text
    WebDriverWait(teacher, 15, ignored_exceptions=[StaleElementReferenceException]).until(lambda b: "Kai Known" in b.find_element(By.ID, "roster-table").text)
    assert "nora@school.test" in wait_for(teacher, "#invitations").text
