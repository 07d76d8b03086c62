"""The teacher's course page with a term's worth in it (200 students, 40 sessions): the roster in pages, searchable,
"Remove" behind a menu and a confirmation, the absentees folded, and a student added twice told so."""

import datetime
import sqlite3
from pathlib import Path

from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from conftest import LAPTOP, PHONE, screenshot, wait_for, wait_for_path
from test_check_in import account, sign_in
from test_grid import term


def test_a_course_of_200_stays_within_reach(server, browsers):
    teacher, course_id, _ = term(server)
    browser = browsers(LAPTOP)
    browser.get(f"{server.url}/sign-in?next=/courses/{course_id}")
    sign_in(browser, server, "grid@school.test", then=True)
    wait_for_path(browser, f"/courses/{course_id}")
    roster = wait_for(browser, "#roster-table")
    assert len(roster.find_elements(By.CSS_SELECTOR, "tbody tr")) == 25
    assert browser.find_element(By.ID, "roster-pager").text.startswith("Page 1 of 8")
    height = browser.execute_script("return document.documentElement.scrollHeight")
    assert height < 9000, f"the course page is {height} px tall"
    screenshot(browser, "course-200", sizes=(PHONE, LAPTOP))

    # The next page, then a search that finds one student by number.
    browser.find_element(By.CSS_SELECTOR, "#roster-pager a[rel=next]").click()
    WebDriverWait(browser, 10).until(lambda b: "Page 2 of 8" in b.find_element(By.ID, "roster-pager").text)
    assert browser.find_element(By.CSS_SELECTOR, "#roster-table tbody tr td").text == "Student 025"
    search = browser.find_element(By.CSS_SELECTOR, '#roster input[name="q"]')
    search.send_keys("G00137")
    search.submit()
    WebDriverWait(browser, 10).until(lambda b: len(b.find_elements(By.CSS_SELECTOR, "#roster-table tbody tr")) == 1)
    assert not browser.find_elements(By.ID, "roster-pager")

    # Remove is behind the row's menu, and asks first.
    row = browser.find_element(By.CSS_SELECTOR, "#roster-table tbody tr")
    remove = row.find_element(By.CSS_SELECTOR, ".row-menu form button")
    assert not remove.is_displayed()
    row.find_element(By.CSS_SELECTOR, ".row-menu summary").click()
    assert remove.is_displayed()
    remove.click()
    alert = browser.switch_to.alert
    assert "Remove Student 137 from this course?" in alert.text
    alert.dismiss()
    _, listed = server.api("GET", f"/api/v1/courses/{course_id}/students?q=G00137", token=teacher)
    assert len(listed["students"]) == 1, "dismissing the question removes nobody"

    # A student already on the roster, added again: told so, nothing else happens.
    form = browser.find_element(By.ID, "add-student-form")
    form.find_element(By.NAME, "identifier").send_keys("G00137")
    form.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    answer = form.find_element(By.CSS_SELECTOR, ".form-answer")
    WebDriverWait(browser, 10).until(lambda _: answer.is_displayed())
    assert answer.text == "Student 137 is already on the roster."

    # The absentees, with a threshold that puts nearly everyone under it: the first ten, the rest folded.
    status, _ = server.api("PATCH", f"/api/v1/courses/{course_id}", {"absenteeThreshold": 100}, token=teacher)
    assert status == 200
    _, absentees = server.api("GET", f"/api/v1/courses/{course_id}/absentees", token=teacher)
    under = len(absentees["students"])
    assert under > 10
    browser.get(f"{server.url}/courses/{course_id}")
    assert len(browser.find_elements(By.CSS_SELECTOR, "#absentees li")) == 10
    more = browser.find_element(By.ID, "more-absentees")
    assert more.find_element(By.TAG_NAME, "summary").text == f"Show all ({under - 10} more)"
    assert not more.find_element(By.CSS_SELECTOR, "li").is_displayed()


def test_a_new_join_code_an_archived_course_and_a_student_who_leaves(server, browsers):
    teacher = account(server, "Kim Keeper", "kim@school.test", role="teacher")
    student = account(server, "Lee Leaver", "lee@school.test")
    _, course = server.api("POST", "/api/v1/courses", {"name": "Rhetoric"}, token=teacher)
    course_id = course["course"]["id"]
    old_code = course["course"]["joinCode"]
    server.api("POST", "/api/v1/courses/join", {"code": old_code}, token=student)

    browser = browsers(LAPTOP)
    browser.get(f"{server.url}/sign-in?next=/courses/{course_id}")
    sign_in(browser, server, "kim@school.test", then=True)
    wait_for_path(browser, f"/courses/{course_id}")
    browser.find_element(By.ID, "new-join-code").click()
    alert = browser.switch_to.alert
    assert "The old one stops working" in alert.text
    alert.accept()
    WebDriverWait(browser, 10, ignored_exceptions=[StaleElementReferenceException]).until(
        lambda b: b.find_element(By.ID, "join-code").text not in ("", old_code))

    # The student leaves, after a question; their attendance stays with the course.
    phone = browsers(PHONE)
    phone.get(f"{server.url}/sign-in?next=/courses/{course_id}")
    sign_in(phone, server, "lee@school.test", then=True)
    wait_for_path(phone, f"/courses/{course_id}")
    phone.find_element(By.CSS_SELECTOR, "#leave-form button").click()
    phone.switch_to.alert.accept()
    wait_for(phone, "#no-courses")

    # Archived at the end of term: the course page says so and the list folds it away.
    browser.get(f"{server.url}/courses/{course_id}")
    browser.find_element(By.CSS_SELECTOR, "#archive-form button").click()
    browser.switch_to.alert.accept()
    wait_for(browser, "#archived-notice")
    browser.get(f"{server.url}/courses")
    assert "Rhetoric" not in browser.find_element(By.ID, "course-list").text
    archived = browser.find_element(By.ID, "archived-courses")
    archived.find_element(By.TAG_NAME, "summary").click()
    assert "Rhetoric" in archived.text
    screenshot(browser, "courses-archived", sizes=(PHONE, LAPTOP))


def test_a_weekly_class_from_the_timetable_form_schedules_the_term(server, browsers):
    teacher = account(server, "Tia Timetable", "tia@school.test", role="teacher")
    _, course = server.api("POST", "/api/v1/courses", {"name": "Music", "timeZone": "Europe/Berlin"}, token=teacher)
    course_id = course["course"]["id"]
    browser = browsers(LAPTOP)
    browser.get(f"{server.url}/sign-in?next=/courses/{course_id}")
    sign_in(browser, server, "tia@school.test", then=True)
    wait_for_path(browser, f"/courses/{course_id}")
    form = wait_for(browser, "#timetable-form")
    form.find_element(By.NAME, "title").send_keys("Choir")
    form.find_element(By.CSS_SELECTOR, 'select[name="weekday"] option[value="3"]').click()
    for name, value in (("time", "16:30"), ("from", "2030-09-02"), ("until", "2030-12-20")):
        browser.execute_script("arguments[0].value = arguments[1]", form.find_element(By.NAME, name), value)
    # The full check-in settings: a geofence and a typed code beside the QR, late after ten minutes.
    form.find_element(By.CSS_SELECTOR, "details summary").click()
    form.find_element(By.NAME, "settings.latitude").send_keys("52.0")
    form.find_element(By.NAME, "settings.longitude").send_keys("4.0")
    form.find_element(By.CSS_SELECTOR, 'select[name="settings.classroomSize"] option[value="medium"]').click()
    form.find_element(By.NAME, "settings.allowTyping").click()
    assert form.find_element(By.NAME, "settings.lateAfterMinutes").get_attribute("value") == "10"
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", form)
    screenshot(browser, "course-timetable-settings", sizes=(PHONE, LAPTOP), dark=True)
    form.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    slots = wait_for(browser, "#timetable-slots")
    assert "Choir · Wednesdays at 16:30 (Europe/Berlin), 90 minutes" in slots.text
    assert "2030-09-02 to 2030-12-20" in slots.text
    _, listed = server.api("GET", f"/api/v1/courses/{course_id}/sessions", token=teacher)
    assert len(listed["sessions"]) == 16, "the Wednesdays from 4 September to 18 December"
    assert all(session["phase"] == "scheduled" for session in listed["sessions"])
    settings = listed["sessions"][0]["settings"]
    assert settings["geofence"]["center"]["latitude"] == 52.0 and settings["allowTyping"] is True, settings
    assert settings["lateAfterMinutes"] == 10 and settings["openMinutes"] == 90, settings
    browser.execute_script("document.getElementById('timetable').scrollIntoView()")
    screenshot(browser, "course-timetable", sizes=(PHONE, LAPTOP))


def test_an_assistant_added_on_the_course_page_marks_attendance_in_the_room(server, browsers):
    teacher = account(server, "Ola Owner", "ola@school.test", role="teacher")
    account(server, "Tai Assistant", "tai@school.test")
    student = account(server, "Stu Dent", "stu@school.test")
    _, course = server.api("POST", "/api/v1/courses", {"name": "Chemistry Lab"}, token=teacher)
    course_id = course["course"]["id"]
    server.api("POST", "/api/v1/courses/join", {"code": course["course"]["joinCode"]}, token=student)
    _, session = server.api("POST", f"/api/v1/courses/{course_id}/sessions", {"title": "Lab 1"}, token=teacher)
    session_id = session["session"]["id"]

    owner = browsers(LAPTOP)
    owner.get(f"{server.url}/sign-in?next=/courses/{course_id}")
    sign_in(owner, server, "ola@school.test", then=True)
    wait_for_path(owner, f"/courses/{course_id}")
    form = wait_for(owner, "#staff-form")
    form.find_element(By.NAME, "email").send_keys("tai@school.test")
    form.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    assert "Tai Assistant" in wait_for(owner, "#staff-list").text
    assert "teaching assistant" in owner.find_element(By.ID, "staff-list").text

    assistant = browsers(PHONE)
    assistant.get(f"{server.url}/sign-in?next=/sessions/{session_id}")
    sign_in(assistant, server, "tai@school.test", then=True)
    wait_for_path(assistant, f"/sessions/{session_id}")
    WebDriverWait(assistant, 15).until(lambda b: b.find_element(By.ID, "live-status").text == "live")
    assert not assistant.find_element(By.CSS_SELECTOR, ".room-actions").is_displayed(), "no close, no projector"
    assert not assistant.find_elements(By.ID, "corrections")
    mark = assistant.find_element(By.CSS_SELECTOR, "#room-list .room-row .mark")
    assistant.execute_script("arguments[0].click()", mark)
    dialog = assistant.find_element(By.ID, "mark-dialog")
    WebDriverWait(assistant, 10).until(lambda _: dialog.is_displayed())
    dialog.find_element(By.CSS_SELECTOR, 'input[value="present"]').click()
    dialog.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    WebDriverWait(assistant, 15).until(
        lambda b: b.find_element(By.CSS_SELECTOR, "#room-list .room-row").get_attribute("data-status") == "present")
    screenshot(assistant, "room-assistant", sizes=(PHONE,))


def test_a_session_that_never_opened_is_shown_as_missed_with_open_and_cancel(server, browsers):
    teacher = account(server, "Mia Missed", "mia@school.test", role="teacher")
    _, course = server.api("POST", "/api/v1/courses", {"name": "Geology", "timeZone": "Europe/Paris"}, token=teacher)
    course_id = course["course"]["id"]
    later = (datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(hours=2)).strftime("%Y-%m-%dT%H:%M:%SZ")
    _, made = server.api("POST", f"/api/v1/courses/{course_id}/sessions",
                         {"title": "Field lab", "scheduledAt": later, "settings": {"openMinutes": 30}}, token=teacher)
    session_id = made["session"]["id"]
    # Yesterday's lab: nobody opened it.
    database = sqlite3.connect(Path(server.data_dir) / "rollcall.sqlite", timeout=10)
    try:
        database.execute("UPDATE sessions SET scheduled_at = scheduled_at - 93600 WHERE id = ?", (session_id,))
        database.commit()
    finally:
        database.close()

    browser = browsers(PHONE)
    browser.get(f"{server.url}/sign-in?next=/courses/{course_id}")
    sign_in(browser, server, "mia@school.test", then=True)
    wait_for_path(browser, f"/courses/{course_id}")
    badge = wait_for(browser, f'#session-list a[href="/sessions/{session_id}"] ~ .badge')
    assert badge.text == "MISSED"
    browser.get(f"{server.url}/sessions/{session_id}")
    notice = wait_for(browser, "#missed-notice")
    assert "never" in notice.text and "opened" in notice.text
    screenshot(browser, "session-missed", sizes=(PHONE, LAPTOP), dark=True)
    # Clicked by script: the screenshots' resizing leaves the next pointer click to the headless browser's mercy.
    browser.execute_script("arguments[0].click()", notice.find_element(By.CSS_SELECTOR, "button.primary"))
    WebDriverWait(browser, 15).until(lambda b: b.find_element(By.ID, "session-phase").text.upper() == "OPEN")
    assert not browser.find_elements(By.ID, "missed-notice")
