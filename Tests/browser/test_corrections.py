"""Mistakes undone from the session page: a rename, an extension, a reopening for late arrivals whose check-ins
count as late, a warning when two sessions are open, and a mistaken session deleted with its records after a
confirmation that says how many go."""

from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

from conftest import LAPTOP, PHONE, screenshot, wait_for, wait_for_path
from test_check_in import account, sign_in


def check_in(server, session_id, teacher, student):
    status, frame = server.api("GET", f"/api/v1/sessions/{session_id}/projector", token=teacher)
    assert status == 200
    return server.api("POST", "/api/v1/check-ins", {"code": frame["url"].split("/C/")[1]}, student)


def test_a_session_is_renamed_extended_reopened_and_a_mistaken_one_deleted(server, browsers):
    teacher = account(server, "Cora Corrects", "cora@school.test", role="teacher")
    early = account(server, "Eli Early", "eli@school.test")
    late = account(server, "Lia Late", "lia@school.test")
    _, course = server.api("POST", "/api/v1/courses", {"name": "Chemistry 101"}, token=teacher)
    course_id = course["course"]["id"]
    for student in (early, late):
        server.api("POST", "/api/v1/courses/join", {"code": course["course"]["joinCode"]}, token=student)
    _, created = server.api("POST", f"/api/v1/courses/{course_id}/sessions", {"title": "Lecture 1"}, token=teacher)
    session_id = created["session"]["id"]
    status, _ = check_in(server, session_id, teacher, early)
    assert status == 201

    browser = browsers(LAPTOP)
    browser.get(f"{server.url}/sign-in?next=/sessions/{session_id}")
    sign_in(browser, server, "cora@school.test", then=True)
    wait_for_path(browser, f"/sessions/{session_id}")

    # Renamed.
    title = wait_for(browser, "#rename-form").find_element(By.NAME, "title")
    title.clear()
    title.send_keys("Lecture 1: atoms")
    browser.find_element(By.CSS_SELECTOR, "#rename-form button").click()
    WebDriverWait(browser, 15, ignored_exceptions=[StaleElementReferenceException]).until(
        lambda b: b.find_element(By.TAG_NAME, "h1").text == "Lecture 1: atoms")

    # Extended by ten minutes.
    _, before = server.api("GET", f"/api/v1/sessions/{session_id}", token=teacher)
    wait_for(browser, "#extend-form button").click()

    def extended(_):
        _, now = server.api("GET", f"/api/v1/sessions/{session_id}", token=teacher)
        return now["session"]["closesAt"] != before["session"]["closesAt"]

    WebDriverWait(browser, 15).until(extended)

    # Closed, then reopened for a latecomer, whose check-in counts as late.
    wait_for(browser, "#room")
    browser.execute_script("document.querySelector('#room form[data-api$=\"/close\"]').removeAttribute('data-confirm')")
    browser.find_element(By.CSS_SELECTOR, '#room form[data-api$="/close"] button').click()
    reopen = wait_for(browser, "#reopen-form", timeout=20)
    assert browser.find_element(By.ID, "session-phase").text.lower() == "closed"
    Select(reopen.find_element(By.NAME, "minutes")).select_by_value("5")
    assert reopen.find_element(By.NAME, "late").is_selected()
    browser.execute_script("document.getElementById('corrections').scrollIntoView()")
    screenshot(browser, "session-corrections-closed", sizes=(PHONE, LAPTOP))
    reopen.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    WebDriverWait(browser, 15, ignored_exceptions=[StaleElementReferenceException]).until(
        lambda b: b.find_element(By.ID, "session-phase").text.lower() == "open")
    status, answer = check_in(server, session_id, teacher, late)
    assert status == 201 and answer["status"] == "late", answer

    # A second session opened by mistake: both pages warn of the other.
    _, mistake = server.api("POST", f"/api/v1/courses/{course_id}/sessions", {"title": "Lecture 1 again"}, token=teacher)
    assert "still open" in mistake["warning"]
    mistake_id = mistake["session"]["id"]
    status, _ = check_in(server, mistake_id, teacher, early)
    assert status == 201
    browser.get(f"{server.url}/sessions/{mistake_id}")
    warning = wait_for(browser, "#other-open")
    assert "“Lecture 1: atoms” is still open in this course too" in warning.text
    assert browser.find_element(By.ID, "delete-count").text == "1 attendance record goes with it."
    screenshot(browser, "session-corrections-open", sizes=(PHONE, LAPTOP))

    # Deleted, after a confirmation that says how many records go.
    browser.find_element(By.CSS_SELECTOR, "#delete-form button").click()
    alert = browser.switch_to.alert
    assert "its 1 attendance record?" in alert.text
    alert.accept()
    wait_for_path(browser, f"/courses/{course_id}")
    status, _ = server.api("GET", f"/api/v1/sessions/{mistake_id}", token=teacher)
    assert status == 404
    _, audit = server.api("GET", f"/api/v1/courses/{course_id}/audit", token=teacher)
    assert [entry["action"] for entry in audit["entries"]] == ["session_deleted"]
    assert "“Lecture 1 again”" in audit["entries"][0]["detail"]
    # The first session is the only one open again: no warning there.
    browser.get(f"{server.url}/sessions/{session_id}")
    wait_for(browser, "#room")
    assert not browser.find_elements(By.ID, "other-open")
