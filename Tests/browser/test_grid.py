"""The term at a glance: a course of 200 students and 40 sessions as one grid of colours, with each student's
figures at the end of the row and the headers in view while it scrolls."""

import random
import sqlite3
import time
from pathlib import Path

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from conftest import LAPTOP, PHONE, screenshot, wait_for, wait_for_path
from test_check_in import account, sign_in

STUDENTS = 200
SESSIONS = 40
STATUSES = ["present"] * 7 + ["late", "excused", "absent"]


def term(server):
    """A teacher's course with 40 closed sessions (made through the API) and 200 students with a record in each,
    written straight into the database: a term's worth, without 8,000 check-ins."""
    teacher = account(server, "Grid Teacher", "grid@school.test", "teacher")
    _, course = server.api("POST", "/api/v1/courses", {"name": "Statistics 200"}, teacher)
    course_id = course["course"]["id"]
    sessions = []
    for number in range(SESSIONS):
        _, created = server.api("POST", f"/api/v1/courses/{course_id}/sessions", {"title": f"Week {number + 1}"}, teacher)
        sessions.append(created["session"]["id"])
        server.api("POST", f"/api/v1/sessions/{created['session']['id']}/close", token=teacher)
    statuses = random.Random(40).choices(STATUSES, k=STUDENTS * SESSIONS)
    database = sqlite3.connect(Path(server.data_dir) / "rollcall.sqlite", timeout=10)
    try:
        now = time.time()
        joined = now - 86400
        for number in range(STUDENTS):
            cursor = database.execute(
                "INSERT INTO users (email, name, password_hash, role, student_number, approved, disabled, created_at)"
                " VALUES (?, ?, 'x', 'student', ?, 1, 0, ?)",
                (f"grid{number}@school.test", f"Student {number:03d}", f"G{number:05d}", joined))
            student = cursor.lastrowid
            database.execute(
                "INSERT INTO enrollments (course_id, student_id, joined_at) VALUES (?, ?, ?)", (course_id, student, joined))
            for index, session in enumerate(sessions):
                database.execute(
                    "INSERT INTO attendance (session_id, student_id, status, recorded_at, source)"
                    " VALUES (?, ?, ?, ?, 'manual')",
                    (session, student, statuses[number * SESSIONS + index], now))
        database.commit()
    finally:
        database.close()
    return teacher, course_id, statuses


def test_a_term_of_200_students_and_40_sessions_reads_as_one_grid(server, browsers):
    teacher, course_id, statuses = term(server)
    browser = browsers(LAPTOP)
    browser.get(f"{server.url}/sign-in?next=/courses/{course_id}/grid")
    sign_in(browser, server, "grid@school.test", then=True)
    wait_for_path(browser, f"/courses/{course_id}/grid")
    grid = wait_for(browser, "#grid")
    rows = grid.find_elements(By.CSS_SELECTOR, "tbody tr")
    assert len(rows) == STUDENTS
    assert len(grid.find_elements(By.CSS_SELECTOR, "thead th.session")) == SESSIONS

    # The first student's row: every status in its colour and letter, and figures that agree with them.
    first = rows[0]
    cells = first.find_elements(By.CSS_SELECTOR, "td.cell")
    expected = statuses[:SESSIONS]
    assert [cell.get_attribute("class").split()[1] for cell in cells] == expected
    attended = sum(status in ("present", "late") for status in expected)
    counted = sum(status != "excused" for status in expected)
    assert first.find_element(By.CSS_SELECTOR, ".attendance").text == f"{round(attended * 100 / counted)}%"
    points = sum({"present": 2, "late": 1, "excused": 1, "absent": 0}[status] for status in expected)
    assert first.find_element(By.CSS_SELECTOR, ".grade").text == f"{round(points * 100 / (2 * SESSIONS))}%"
    assert "present or late" in browser.find_element(By.ID, "grid-rules").text

    # Scrolled to the far corner, the student names and the session headers stay in view.
    scroller = browser.find_element(By.CSS_SELECTOR, ".term-scroll")
    browser.execute_script("arguments[0].scrollTop = arguments[0].scrollHeight; arguments[0].scrollLeft = arguments[0].scrollWidth", scroller)
    box = browser.execute_script("return arguments[0].getBoundingClientRect()", scroller)
    last = rows[-1].find_element(By.CSS_SELECTOR, "th.who")
    header = grid.find_elements(By.CSS_SELECTOR, "thead th.session")[-1]
    assert abs(browser.execute_script("return arguments[0].getBoundingClientRect().left", last) - box["left"]) < 3
    assert abs(browser.execute_script("return arguments[0].getBoundingClientRect().top", header) - box["top"]) < 3
    screenshot(browser, "grid-200x40", sizes=(PHONE, LAPTOP, (1440, 900)))
