"""A course in Paris taught by a teacher whose laptop is in Los Angeles: the first visit records the browser's zone
for the person's own pages; a session scheduled for nine o'clock is the course's nine o'clock; the room drawn live
writes Paris times, as the server's rows do."""

import json
import urllib.request
from datetime import datetime, timezone
from zoneinfo import ZoneInfo

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from conftest import LAPTOP, PHONE, screenshot, wait_for, wait_for_path
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
