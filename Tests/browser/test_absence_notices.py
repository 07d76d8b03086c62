"""A teacher turns on the weekly absence notices, a student turns theirs off, and on Monday the notes and the
teacher's list arrive at a real mail server, sent by the server's own weekly round."""

import json
import sqlite3
import time
from pathlib import Path

from selenium.webdriver.common.by import By
from selenium.webdriver.support.expected_conditions import staleness_of
from selenium.webdriver.support.ui import WebDriverWait

from conftest import LAPTOP, PAGE_WAIT, PHONE, screenshot, wait_for, wait_for_path
from test_check_in import account, sign_in


def save_and_reload(browser, form):
    """Submits a form whose answer reloads the page, and waits until the new page has replaced the old one."""
    form.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    WebDriverWait(browser, PAGE_WAIT).until(staleness_of(form))


def user_id(server, token):
    status, body = server.api("GET", "/api/v1/me", token=token)
    assert status == 200
    return body["user"]["id"]


def closed_session(server, teacher, course_id, title, present):
    status, body = server.api("POST", f"/api/v1/courses/{course_id}/sessions", {"title": title}, teacher)
    assert status == 201
    session = body["session"]["id"]
    for student in present:
        status, _ = server.api("PUT", f"/api/v1/sessions/{session}/attendance/{student}", {"status": "present"}, teacher)
        assert status == 200
    status, _ = server.api("POST", f"/api/v1/sessions/{session}/close", None, teacher)
    assert status == 200


def letter(mail, recipient, subject):
    message, _ = mail.wait_for_message(recipient, subject)
    return message.get_body(preferencelist=("html",)).get_content()


def look_at(browser, html, path, name):
    """Opens a delivered letter's HTML part in the browser, as a mail app would show it, for the screenshots."""
    Path(path).write_text(html, encoding="utf-8")
    browser.get(f"file://{path}")
    screenshot(browser, name, sizes=(PHONE, LAPTOP), dark=False)


def test_monday_notes_reach_students_below_the_threshold_and_the_teacher_gets_the_list(mail_and_server, browsers):
    mail, server = mail_and_server
    teacher = account(server, "Tess Teacher", "tess@school.test", "teacher")
    status, body = server.api("POST", "/api/v1/courses", {"name": "Biologie 101"}, teacher)
    assert status == 201
    course_id, code = body["course"]["id"], body["course"]["joinCode"]
    server.api("PATCH", f"/api/v1/courses/{course_id}", {"timeZone": "UTC"}, teacher)
    students = {}
    for name, email in [("Ann Attends", "ann@school.test"), ("Ben Absent", "ben@school.test"),
                        ("Cat Halfway", "cat@school.test"), ("Dan Declines", "dan@school.test")]:
        token = account(server, name, email)
        assert server.api("POST", "/api/v1/courses/join", {"code": code}, token)[0] == 200
        students[name.split()[0]] = (user_id(server, token), email)
    closed_session(server, teacher, course_id, "Week 1", [students["Ann"][0], students["Cat"][0]])
    closed_session(server, teacher, course_id, "Week 2", [students["Ann"][0]])

    tess = browsers(LAPTOP)
    sign_in(tess, server, "tess@school.test")
    wait_for_path(tess, "/courses")
    tess.get(f"{server.url}/courses/{course_id}")
    form = wait_for(tess, "#record-settings-form")
    notices = form.find_element(By.NAME, "absenceNotices")
    assert not notices.is_selected(), "off unless the teacher asks"
    tess.execute_script("arguments[0].scrollIntoView({block: 'center'})", notices)
    notices.click()
    save_and_reload(tess, form)
    assert "The first go out next Monday" in wait_for(tess, "#absence-notices-last").text
    assert tess.find_element(By.NAME, "absenceNotices").is_selected()
    tess.execute_script("document.getElementById('absence-notices-last').scrollIntoView({block: 'center'})")
    screenshot(tess, "course-absence-notices", dark=True)

    dan = browsers()
    sign_in(dan, server, "dan@school.test")
    wait_for_path(dan, "/courses")
    dan.get(f"{server.url}/courses/{course_id}")
    choice = wait_for(dan, "#absence-notices-form")
    box = choice.find_element(By.NAME, "receive")
    assert box.is_selected() and "below 80%" in choice.text
    dan.execute_script("arguments[0].scrollIntoView({block: 'center'})", choice)
    screenshot(dan, "student-absence-notes", dark=True)
    box.click()
    save_and_reload(dan, choice)
    assert not wait_for(dan, "#absence-notices-form [name=receive]").is_selected()

    # A week passes: the notices were turned on eight days ago. The server's own round, at its start, sends them.
    server.stop()
    database = sqlite3.connect(Path(server.data_dir) / "rollcall.sqlite", timeout=10)
    try:
        database.execute("UPDATE courses SET absence_notices_since = ? WHERE id = ?", (time.time() - 8 * 86400, course_id))
        database.commit()
    finally:
        database.close()
    server.restart()

    cat = letter(mail, "cat@school.test", "Your attendance in Biologie 101: 50%")
    assert "You have attended 50% of the sessions of Biologie 101 at Hill School so far" in cat
    assert f"{server.url}/courses/{course_id}#my-attendance" in cat
    letter(mail, "ben@school.test", "Your attendance in Biologie 101: 0%")
    listed = letter(mail, "tess@school.test", "Biologie 101: 3 students below 80% attendance")
    for line in ["Ben Absent: 0%, 2 absences in 2 sessions", "Cat Halfway: 50%, 1 absence in 2 sessions",
                 "Dan Declines: 0%, 2 absences in 2 sessions"]:
        assert f"<li>{line}</li>" in listed
    assert "Ann Attends" not in listed

    # Dan turned his off, and Ann is above the threshold. The week's messages were queued together, the students'
    # before the teacher's list, and leave the queue in order: with the list delivered, any note to them would be too.
    notes = [path for path in (mail.directory / "messages").glob("*.eml") if b"Subject: Your attendance" in path.read_bytes()]
    assert sorted(json.loads(path.with_suffix(".json").read_text())["rcpt_tos"][0] for path in notes) == [
        "ben@school.test", "cat@school.test"]

    tess.get(f"{server.url}/courses/{course_id}")
    assert "to 2 students." in wait_for(tess, "#absence-notices-last").text

    reader = browsers()
    look_at(reader, cat, Path(server.data_dir) / "note.html", "letter-absence-note")
    look_at(reader, listed, Path(server.data_dir) / "list.html", "letter-absence-list")
