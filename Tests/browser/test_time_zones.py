"""A course in Paris taught by a teacher whose laptop is in Los Angeles: the first visit records the browser's zone
for the person's own pages; a session scheduled for nine o'clock is the course's nine o'clock; the room drawn live
writes Paris times, as the server's rows do. And a teacher in Lyon on a server that runs in UTC: the course form
offers the browser's zone, and the weekly classes open at Lyon's 08:15."""

import json
import shutil
import tempfile
import urllib.request
from datetime import datetime, timezone
from zoneinfo import ZoneInfo

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

import pytest

from conftest import LAPTOP, PHONE, Server, screenshot, wait_for, wait_for_path
from test_check_in import account, sign_in
from test_live import open_dashboard, row


def paris_time(iso):
    """The room's words for a moment in Paris: "9:05 AM"."""
    moment = datetime.fromisoformat(iso.replace("Z", "+00:00")).astimezone(ZoneInfo("Europe/Paris"))
    return f"{moment.hour % 12 or 12}:{moment.minute:02d} {'AM' if moment.hour < 12 else 'PM'}"


def test_a_course_in_paris_reads_paris_times_from_a_laptop_in_los_angeles(server, browsers):
    teacher_token = account(server, "Tomas Teacher", "tomas@school.test", role="teacher")
    status, course = server.api(
        "POST", "/api/v1/courses", {"name": "Histoire", "timeZone": "Europe/Paris"}, teacher_token)
    assert status == 201
    course_id = course["course"]["id"]
    student_token = account(server, "Sara Student", "sara@school.test")
    server.api("POST", "/api/v1/courses/join", {"code": course["course"]["joinCode"]}, student_token)
    assert server.api("GET", "/api/v1/me", token=teacher_token)[1]["user"].get("timeZone") is None

    teacher = browsers(LAPTOP)
    teacher.execute_cdp_cmd("Emulation.setTimezoneOverride", {"timezoneId": "America/Los_Angeles"})
    teacher.get(f"{server.url}/sign-in?next=/courses/{course_id}")
    sign_in(teacher, server, "tomas@school.test", then=True)
    form = wait_for(teacher, "#open-session-form")
    # The first visit told Rollcall the browser's zone, for the teacher's own pages.
    WebDriverWait(teacher, 15).until(
        lambda _: server.api("GET", "/api/v1/me", token=teacher_token)[1]["user"].get("timeZone")
        == "America/Los_Angeles")

    # Nine o'clock on 29 March 2027 is the course's nine o'clock: Paris is on summer time by then (UTC+2).
    form.find_element(By.NAME, "title").send_keys("Lundi matin")
    field = form.find_element(By.NAME, "scheduledAt")
    teacher.execute_script("arguments[0].value = '2027-03-29T09:00'", field)
    teacher.execute_script("arguments[0].click()", form.find_element(By.CSS_SELECTOR, "button[type=submit]"))
    wait_for_path(teacher, "/sessions/")
    scheduled_id = int(teacher.current_url.rstrip("/").split("/")[-1])
    _, scheduled = server.api("GET", f"/api/v1/sessions/{scheduled_id}", token=teacher_token)
    assert scheduled["session"]["scheduledAt"].startswith("2027-03-29T07:00:00"), scheduled["session"]
    assert "scheduled for 29 Mar 2027 at 9:00 AM GMT+2" in teacher.find_element(By.TAG_NAME, "main").text

    # The room, open now: a check-in drawn live reads the same Paris time as the rows the server wrote.
    status, session = server.api("POST", f"/api/v1/courses/{course_id}/sessions", {"settings": {"period": 10}}, teacher_token)
    assert status == 201
    session_id = session["session"]["id"]
    open_dashboard(teacher, server, session_id)
    url = server.api("GET", f"/api/v1/sessions/{session_id}/projector", token=teacher_token)[1]["url"]
    scan = urllib.request.Request(
        server.url + url[url.index("/C/"):], headers={"Authorization": f"Bearer {student_token}", "Accept": "application/json"})
    with urllib.request.urlopen(scan) as answer:
        ticket = json.loads(answer.read())["ticket"]
    status, checked = server.api("POST", "/api/v1/check-ins", {"ticket": ticket}, student_token)
    assert status == 201
    student_id = server.api("GET", "/api/v1/me", token=student_token)[1]["user"]["id"]
    WebDriverWait(teacher, 15).until(lambda b: row(b, student_id).get_attribute("data-status") == "present")
    drawn = row(teacher, student_id).find_element(By.CSS_SELECTOR, ".at").text
    assert drawn == paris_time(checked["checkedInAt"]), (drawn, checked["checkedInAt"])
    teacher.refresh()
    WebDriverWait(teacher, 15).until(lambda b: b.find_element(By.ID, "live-status").text == "live")
    assert row(teacher, student_id).find_element(By.CSS_SELECTOR, ".at").text == drawn, "the server writes the same"
    screenshot(teacher, "session-in-paris", sizes=(PHONE, LAPTOP))

    # The teacher's profile offers the zone the browser gave, to change.
    teacher.get(f"{server.url}/profile")
    chosen = wait_for(teacher, "#profile-time-zone")
    assert chosen.get_attribute("value") == "America/Los_Angeles"


@pytest.fixture
def utc_server():
    """A server whose own zone is UTC, as a school's server in a data centre often is."""
    data_dir = tempfile.mkdtemp(prefix="rollcall-browser-")
    running = Server(data_dir, env={"TZ": "UTC"})
    yield running
    running.stop()
    shutil.rmtree(data_dir, ignore_errors=True)


def add_weekly_class(browser, day, until, count):
    """Adds Tuesdays at 08:15 for 90 minutes from `day` to `until` with the course page's timetable form, the
    timetable's `count`th weekly class."""
    form = wait_for(browser, "#timetable-form")
    form.find_element(By.NAME, "title").send_keys("Cours")
    form.find_element(By.CSS_SELECTOR, 'select[name="weekday"] option[value="2"]').click()
    for name, value in (("time", "08:15"), ("from", day), ("until", until)):
        browser.execute_script("arguments[0].value = arguments[1]", form.find_element(By.NAME, name), value)
    browser.execute_script("arguments[0].click()", form.find_element(By.CSS_SELECTOR, "button[type=submit]"))
    WebDriverWait(browser, 15).until(
        lambda b: len(b.find_elements(By.CSS_SELECTOR, "#timetable-slots > li")) == count)


def test_a_teacher_in_lyon_on_a_server_in_utc_gets_classes_at_lyons_time(utc_server, browsers):
    server = utc_server
    token = account(server, "Lou Lyon", "lou@school.test", role="teacher")
    teacher = browsers(LAPTOP)
    teacher.execute_cdp_cmd("Emulation.setTimezoneOverride", {"timezoneId": "Europe/Paris"})
    teacher.get(f"{server.url}/sign-in?next=/courses")
    sign_in(teacher, server, "lou@school.test", then=True)

    # The form shows the zone the course will take, the browser's, and lets the teacher change it.
    form = wait_for(teacher, "#new-course-form")
    zone = form.find_element(By.ID, "new-course-time-zone")
    WebDriverWait(teacher, 15).until(lambda _: zone.get_attribute("value") == "Europe/Paris")
    assert zone.is_displayed()
    assert "Time zone" in zone.find_element(By.XPATH, "ancestor::label").text
    form.find_element(By.NAME, "name").send_keys("Histoire moderne")
    teacher.execute_script("arguments[0].scrollIntoView({block: 'center'})", zone)
    screenshot(teacher, "course-form-zone", sizes=(PHONE, LAPTOP))
    form.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    wait_for_path(teacher, "/courses/")
    course_id = int(teacher.current_url.split("#")[0].rstrip("/").split("/")[-1])
    assert server.api("GET", f"/api/v1/courses/{course_id}", token=token)[1]["course"]["timeZone"] == "Europe/Paris"

    # Tuesdays at 08:15 for a winter week and a summer week: 07:15 and 06:15 UTC.
    add_weekly_class(teacher, "2027-01-04", "2027-01-10", 1)
    add_weekly_class(teacher, "2027-06-07", "2027-06-13", 2)
    _, listed = server.api("GET", f"/api/v1/courses/{course_id}/sessions", token=token)
    starts = sorted(session["scheduledAt"] for session in listed["sessions"])
    assert starts == ["2027-01-05T07:15:00.000Z", "2027-06-08T06:15:00.000Z"], starts

    # The course page names the zone beside the weekly classes, and the zone's setting is beside them.
    slots = wait_for(teacher, "#timetable-slots")
    assert "Tuesdays at 08:15 (Europe/Paris), 90 minutes" in slots.text
    timetable = teacher.find_element(By.ID, "timetable")
    assert timetable.find_element(By.ID, "course-time-zone").get_attribute("value") == "Europe/Paris"
    teacher.execute_script("arguments[0].scrollIntoView()", timetable)
    screenshot(teacher, "course-timetable-zone", sizes=(PHONE, LAPTOP))


def test_a_course_in_bogota_taught_from_mexico_city_names_its_zone_and_both_clocks(server, browsers):
    from test_quizzes import QUIZ

    token = account(server, "Marta Mexico", "marta@school.test", role="teacher")
    assert server.api("PATCH", "/api/v1/me", {"timeZone": "America/Mexico_City"}, token)[0] == 200
    _, course = server.api("POST", "/api/v1/courses", {"name": "Historia", "timeZone": "America/Bogota"}, token)
    course_id = course["course"]["id"]
    _, session = server.api("POST", f"/api/v1/courses/{course_id}/sessions", {"settings": {"period": 30}}, token)
    _, quiz = server.api("POST", f"/api/v1/courses/{course_id}/quizzes", QUIZ, token)
    _, run = server.api("POST", f"/api/v1/sessions/{session['session']['id']}/quiz-runs",
                        {"quizId": quiz["quiz"]["id"]}, token)
    teacher = browsers(LAPTOP)
    teacher.execute_cdp_cmd("Emulation.setTimezoneOverride", {"timezoneId": "America/Mexico_City"})
    teacher.get(f"{server.url}/sign-in?next=/courses/{course_id}")
    sign_in(teacher, server, "marta@school.test", then=True)
    wait_for_path(teacher, f"/courses/{course_id}")

    # Bogotá is an hour ahead of Mexico City all year: the page says whose times it shows, with both clocks.
    now = datetime.now(timezone.utc)
    bogota, mexico = (now.astimezone(ZoneInfo(zone)) for zone in ("America/Bogota", "America/Mexico_City"))
    note = wait_for(teacher, "#zone-note").text
    assert "America/Bogota" in note and "America/Mexico_City" in note and "your time" in note, note
    assert f"{mexico.hour % 12 or 12}:" in note and f"{bogota.hour % 12 or 12}:" in note, note
    # "Schedule for later" names the zone its time is read in.
    later = teacher.find_element(By.NAME, "scheduledAt").find_element(By.XPATH, "ancestor::label")
    assert "America/Bogota" in later.text, later.text
    screenshot(teacher, "course-zone-note", sizes=(PHONE, LAPTOP))

    # The quiz dashboard is in the course's zone, as the room is, and says so too.
    teacher.get(f"{server.url}/quiz-runs/{run['run']['id']}/dashboard")
    assert "America/Bogota" in wait_for(teacher, "#zone-note").text
    zone = teacher.find_element(By.CSS_SELECTOR, 'meta[name="time-zone"]').get_attribute("content")
    assert zone == "America/Bogota", zone
