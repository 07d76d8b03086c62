"""The phones' own evidence as a teacher and a health officer see it: a session opened to count classmates' phones,
students checking in from the app with what their phones heard, the room's "heard by" counts arriving live, and the
report's phone contacts with the request for an upload."""

import json
import time
import urllib.request

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from conftest import LAPTOP, PHONE, screenshot, wait_for, wait_for_path
from test_check_in import PASSWORD, account, sign_in
from test_exposure import make_admin
from test_live import open_dashboard, row

NAMES = ["Ines Ortega", "Jonas Weber", "Kofi Mensah", "Lea Martin", "Mei Tanaka"]


def current_id(server, token):
    """Proximity on for this phone, and the pseudo-ID it broadcasts now (the first of those issued)."""
    assert server.api("PUT", "/api/v1/me/proximity", {"on": True}, token)[0] == 200
    status, issued = server.api("POST", "/api/v1/me/proximity-ids", {"days": 1}, token)
    assert status == 201, issued
    return issued["ids"][0]["id"]


def check_in(server, teacher, session_id, token, heard):
    url = server.api("GET", f"/api/v1/sessions/{session_id}/projector", token=teacher)[1]["url"]
    scan = urllib.request.Request(
        server.url + url[url.index("/C/"):], headers={"Authorization": f"Bearer {token}", "Accept": "application/json"})
    with urllib.request.urlopen(scan) as answer:
        ticket = json.loads(answer.read())["ticket"]
    status, body = server.api("POST", "/api/v1/check-ins", {"ticket": ticket, "heard": heard}, token)
    assert status == 201, body


def test_the_room_counts_the_phones_that_heard_each_student_and_the_report_names_them(server, browsers):
    make_admin(server)
    teacher_token = account(server, "Tilde Teacher", "tilde@school.test", role="teacher")
    status, course = server.api("POST", "/api/v1/courses", {"name": "Chemistry"}, teacher_token)
    assert status == 201
    students = []
    for name in NAMES:
        email = name.split()[0].lower() + "@school.test"
        token = account(server, name, email)
        server.api("POST", "/api/v1/courses/join", {"code": course["course"]["joinCode"]}, token)
        user = server.api("GET", "/api/v1/me", token=token)[1]["user"]
        students.append((token, user))

    # The teacher opens the session from the course page, asking for classmates' phones.
    teacher = browsers(LAPTOP)
    teacher.get(f"{server.url}/sign-in?next=/courses/{course['course']['id']}")
    sign_in(teacher, server, "tilde@school.test", then=True)
    form = wait_for(teacher, "#open-session-form")
    details = form.find_element(By.TAG_NAME, "details")
    teacher.execute_script("arguments[0].open = true", details)
    ask = form.find_element(By.NAME, "settings.askProximity")
    assert "never needed to check in" in ask.find_element(By.XPATH, "..").text
    teacher.execute_script("arguments[0].click()", ask)
    teacher.execute_script("arguments[0].scrollIntoView({block: 'center'})", ask)
    screenshot(teacher, "proximity-session-form", sizes=(LAPTOP,))
    teacher.execute_script("arguments[0].click()", form.find_element(By.CSS_SELECTOR, "button[type=submit]"))
    wait_for_path(teacher, "/sessions/")
    session_id = int(teacher.current_url.rstrip("/").split("/")[-1])
    _, session = server.api("GET", f"/api/v1/sessions/{session_id}", token=students[0][0])
    assert session["session"]["checkIn"]["askProximity"] is True
    open_dashboard(teacher, server, session_id)

    # Four phones with the app, in the room together; Mei checks in from the web, without it.
    ids = [current_id(server, token) for token, _ in students[:4]]
    for index, (token, _) in enumerate(students[:4]):
        check_in(server, teacher_token, session_id, token, [ids[other] for other in range(4) if other != index])
    check_in(server, teacher_token, session_id, students[4][0], [])

    def heard(student):
        return row(teacher, student["id"]).find_element(By.CSS_SELECTOR, ".heard").text

    WebDriverWait(teacher, 15).until(lambda b: all(heard(user) == "heard by 3 phones" for _, user in students[:4]))
    assert heard(students[4][1]) == "heard by 0 phones"
    screenshot(teacher, "proximity-room", sizes=(PHONE, LAPTOP), dark=True)

    # Ines's phone uploads what it heard; a health officer's report about Jonas names her, from the phones.
    assert server.api(
        "POST", "/api/v1/me/proximity-encounters",
        {"encounters": [{"heard": ids[1], "firstSeen": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - 60)),
                         "lastSeen": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "signal": -58}]},
        students[0][0])[0] == 201
    officer_token = account(server, "Olu Officer", "olu@school.test", role="teacher")
    admin = server.api("POST", "/api/v1/auth/tokens", {"email": "ada@school.test", "password": PASSWORD})
    officer_id = server.api("GET", "/api/v1/me", token=officer_token)[1]["user"]["id"]
    assert server.api("POST", f"/api/v1/admin/users/{officer_id}/health-officer", token=admin[1]["token"])[0] == 200
    officer = browsers(LAPTOP)
    officer.get(f"{server.url}/sign-in?next=/exposure")
    sign_in(officer, server, "olu@school.test", then=True)
    form = wait_for(officer, "#exposure-form")
    form.find_element(By.NAME, "person").send_keys("jonas@school.test")
    form.find_element(By.NAME, "reason").send_keys("Positive test reported today")
    form.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    wait_for_path(officer, "/exposure/reports/")
    phones = wait_for(officer, "#phone-contacts")
    assert [r.find_element(By.CSS_SELECTOR, ".name").text for r in phones.find_elements(By.CSS_SELECTOR, "tbody tr")] == [
        "Ines Ortega"]
    ranked = {
        r.find_element(By.CSS_SELECTOR, ".name").text: r.find_element(By.CSS_SELECTOR, ".evidence").text
        for r in officer.find_elements(By.CSS_SELECTOR, "#contacts tbody tr")
    }
    assert ranked["Ines Ortega"] == "attendance and phones"
    assert ranked["Mei Tanaka"] == "attendance"

    # The officer asks Jonas for his phone's side; the report says it is asked and not yet uploaded.
    officer.execute_script("arguments[0].click()", officer.find_element(By.CSS_SELECTOR, "#ask-phone button"))
    WebDriverWait(officer, 15).until(lambda b: "not uploaded yet" in b.find_element(By.ID, "phones").text)
    officer.execute_script("document.getElementById('contacts').scrollIntoView()")
    screenshot(officer, "proximity-report", sizes=(PHONE, LAPTOP), dark=True)
    _, standing = server.api("GET", "/api/v1/me/proximity", token=students[1][0])
    assert len(standing["proximity"]["requests"]) == 1

    # The privacy page says what is kept of the phones.
    student = browsers(PHONE)
    student.get(f"{server.url}/privacy")
    assert "pseudo-ID" in wait_for(student, "#privacy-proximity").text
    assert "forget" in student.find_element(By.ID, "privacy-phones").text
