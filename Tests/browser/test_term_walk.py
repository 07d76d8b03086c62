"""A real lecture hall's first weeks, end to end: a course of 200 whose first lecture takes a newcomer who joins
from the scan, a typed code inside a geofence, marking one and many with an undo, a session reopened for late
arrivals, a session opened by mistake and deleted, and the term's grid; each page at a phone, two laptops and a
projector, in light and dark."""

from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

from conftest import LAPTOP, PHONE, screenshot, wait_for, wait_for_path
from test_check_in import INSIDE, PASSWORD, ROOM, check_in_answer, decode_projected_code, place_phone, sign_in
from test_live import open_dashboard, row
from test_room import lecture_hall

SIZES = (PHONE, (1280, 800), (1440, 900), (1920, 1080))


def test_a_first_week_with_200_students(server, browsers):
    teacher_token, session_id, students = lecture_hall(server)
    course_id = server.api("GET", f"/api/v1/sessions/{session_id}", token=teacher_token)[1]["session"]["courseId"]

    teacher = browsers(LAPTOP)
    sign_in(teacher, server, "hall@school.test")
    wait_for_path(teacher, "/courses")

    # The projector, and a newcomer who scans it, registers on the same ticket and joins from the scan.
    teacher.get(f"{server.url}/sessions/{session_id}/projector")
    WebDriverWait(teacher, 15).until(lambda b: b.find_element(By.ID, "projector-status").text == "live")
    screenshot(teacher, "walk-projector", sizes=SIZES, dark=True)
    newcomer = browsers(PHONE)
    newcomer.get(decode_projected_code(teacher))
    wait_for_path(newcomer, "/sign-in")
    newcomer.find_element(By.ID, "register-link").click()
    form = wait_for(newcomer, "#register-form")
    form.find_element(By.NAME, "name").send_keys("Nova Newcomer")
    form.find_element(By.NAME, "email").send_keys("nova@school.test")
    form.find_element(By.NAME, "password").send_keys(PASSWORD)
    form.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    wait_for_path(newcomer, "/check-in/")
    assert check_in_answer(newcomer)[0] == "not_enrolled"
    screenshot(newcomer, "walk-join-from-scan", sizes=(PHONE,), dark=True)
    newcomer.find_element(By.ID, "check-in-join").click()
    WebDriverWait(newcomer, 20).until(lambda b: b.find_element(By.ID, "check-in").get_attribute("data-result") == "present")

    # A second room with a geofence and a typed code: a student inside types it on the course page.
    _, fenced = server.api(
        "POST", f"/api/v1/courses/{course_id}/sessions",
        {"title": "Tutorial", "settings": {"latitude": ROOM[0], "longitude": ROOM[1], "radius": 30, "allowTyping": True,
                                           "period": 60, "typedPeriod": 60}},
        token=teacher_token)
    typist = browsers(PHONE)
    place_phone(typist, server, INSIDE)
    sign_in(typist, server, "hall150@school.test")
    wait_for_path(typist, "/courses")
    typist.get(f"{server.url}/courses/{course_id}")
    typed = WebDriverWait(typist, 15).until(
        lambda b: b.find_element(
            By.XPATH, f'//form[contains(@class, "typed-form")][input[@value="{fenced["session"]["id"]}"]]'))
    frame = server.api("GET", f"/api/v1/sessions/{fenced['session']['id']}/projector", token=teacher_token)[1]
    typed.find_element(By.NAME, "typedCode").send_keys(frame["typedCode"])
    typed.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    answer = typed.find_element(By.CSS_SELECTOR, ".form-answer")
    WebDriverWait(typist, 20).until(lambda _: answer.is_displayed())
    assert answer.text == "You're in."
    screenshot(typist, "walk-typed-in-geofence", sizes=(PHONE,), dark=True)

    # The room of the first lecture: one marked by hand, the rest marked absent at once, then undone.
    open_dashboard(teacher, server, session_id)
    mark = row(teacher, students[151]["id"]).find_element(By.CSS_SELECTOR, ".mark")
    teacher.execute_script("arguments[0].click()", mark)
    dialog = teacher.find_element(By.ID, "mark-dialog")
    WebDriverWait(teacher, 10).until(lambda _: dialog.is_displayed())
    dialog.find_element(By.CSS_SELECTOR, 'input[value="excused"]').click()
    dialog.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    WebDriverWait(teacher, 20).until(lambda b: row(b, students[151]["id"]).get_attribute("data-status") == "excused")
    teacher.find_element(By.ID, "mark-rest-absent").click()
    teacher.switch_to.alert.accept()
    WebDriverWait(teacher, 20).until(lambda b: b.find_element(By.ID, "room-undo").is_displayed())
    Select(teacher.find_element(By.ID, "room-filter")).select_by_value("absent")
    WebDriverWait(teacher, 20).until(lambda b: b.find_element(By.ID, "room-shown").text == "79 of 201 shown")
    screenshot(teacher, "walk-room-bulk", sizes=SIZES, dark=True)
    teacher.find_element(By.ID, "room-undo-button").click()
    WebDriverWait(teacher, 20).until(lambda b: b.find_element(By.ID, "room-shown").text == "0 of 201 shown")

    # Closed, then reopened for the latecomers.
    teacher.execute_script("document.querySelector('#room form[data-api$=\"/close\"]').removeAttribute('data-confirm')")
    teacher.find_element(By.CSS_SELECTOR, '#room form[data-api$="/close"] button').click()
    reopen = wait_for(teacher, "#reopen-form", timeout=20)
    reopen.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    WebDriverWait(teacher, 20, ignored_exceptions=[StaleElementReferenceException]).until(
        lambda b: b.find_element(By.ID, "session-phase").text.lower() == "open")
    teacher.execute_script("document.getElementById('corrections').scrollIntoView()")
    screenshot(teacher, "walk-reopened", sizes=SIZES, dark=True)

    # A session opened by mistake: deleted after a question that says what goes.
    _, mistake = server.api("POST", f"/api/v1/courses/{course_id}/sessions", {"title": "Oops"}, token=teacher_token)
    teacher.get(f"{server.url}/sessions/{mistake['session']['id']}")
    wait_for(teacher, "#other-open")
    teacher.find_element(By.CSS_SELECTOR, "#delete-form button").click()
    alert = teacher.switch_to.alert
    assert "Nothing was recorded in it." in alert.text
    alert.accept()
    wait_for(teacher, "#course-name")
    assert server.api("GET", f"/api/v1/sessions/{mistake['session']['id']}", token=teacher_token)[0] == 404

    # The term at a glance.
    teacher.get(f"{server.url}/courses/{course_id}/grid")
    grid = wait_for(teacher, "#grid")
    assert len(grid.find_elements(By.CSS_SELECTOR, "tbody tr")) == 201
    screenshot(teacher, "walk-grid", sizes=SIZES, dark=True)
    teacher.get(f"{server.url}/courses/{course_id}")
    wait_for(teacher, "#roster-table")
    screenshot(teacher, "walk-course", sizes=SIZES, dark=True)
