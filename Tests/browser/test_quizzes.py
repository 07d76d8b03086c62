"""In-class quizzes in real browsers: answers survive a cut network and a closed tab and reach the server exactly
once in their latest version; the teacher's dashboard shows the integrity flags as they come; the time limit closes
an attempt with its saved answers."""

import re
import sqlite3
import time
from pathlib import Path

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from conftest import LAPTOP, PHONE, screenshot, wait_for, wait_for_path
from test_check_in import account, sign_in

QUIZ = {
    "title": "Cells",
    "instructions": "No notes.",
    "timeLimitSeconds": 600,
    "questions": [
        {"id": "q1", "kind": "single_choice", "prompt": "Powerhouse of the cell?", "points": 2,
         "options": ["Nucleus", "Mitochondrion", "Ribosome"], "correct": [1]},
        {"id": "q2", "kind": "multiple_choice", "prompt": "Which hold DNA?", "points": 3,
         "options": ["Nucleus", "Mitochondrion", "Ribosome"], "correct": [0, 1]},
        {"id": "q3", "kind": "short_text", "prompt": "Explain osmosis.", "points": 4},
        {"id": "q4", "kind": "number", "prompt": "Chromosomes in a human cell?", "points": 1, "answer": 46},
    ],
}


def quiz_in_session(server):
    """A teacher, a student checked in to an open session, and a quiz running in it."""
    teacher = account(server, "Theo Teacher", "theo@school.test", "teacher")
    status, course = server.api("POST", "/api/v1/courses", {"name": "Biology"}, teacher)
    assert status == 201
    course_id = course["course"]["id"]
    student = account(server, "Sam Student", "sam@school.test")
    status, _ = server.api("POST", "/api/v1/courses/join", {"code": course["course"]["joinCode"]}, student)
    assert status == 200
    status, session = server.api("POST", f"/api/v1/courses/{course_id}/sessions", {"settings": {"period": 30}}, teacher)
    assert status == 201
    session_id = session["session"]["id"]
    status, frame = server.api("GET", f"/api/v1/sessions/{session_id}/projector", token=teacher)
    assert status == 200
    status, _ = server.api("POST", "/api/v1/check-ins", {"code": frame["url"].split("/C/")[1]}, student)
    assert status == 201
    status, quiz = server.api("POST", f"/api/v1/courses/{course_id}/quizzes", QUIZ, teacher)
    assert status == 201
    status, run = server.api("POST", f"/api/v1/sessions/{session_id}/quiz-runs", {"quizId": quiz["quiz"]["id"]}, teacher)
    assert status == 201
    return teacher, student, session_id, run["run"]["id"]


def save_state(browser):
    return browser.find_element(By.ID, "save-state").text


def question(browser, question_id):
    return browser.find_element(By.CSS_SELECTOR, f'fieldset[data-question="{question_id}"]')


def option(browser, question_id, text):
    box = question(browser, question_id)
    return next(label for label in box.find_elements(By.CSS_SELECTOR, "label.option") if label.text.strip() == text)


def stored_answers(server, attempt_id):
    database = sqlite3.connect(Path(server.data_dir) / "rollcall.sqlite", timeout=10)
    try:
        return database.execute(
            "SELECT question_id, answer, sequence FROM quiz_answers WHERE attempt_id = ? ORDER BY question_id",
            (attempt_id,),
        ).fetchall()
    finally:
        database.close()


def open_quiz(phone, server, run_id):
    phone.get(f"{server.url}/quiz-runs/{run_id}")
    wait_for(phone, "#quiz")


def attempt_id(server, student, run_id):
    status, run = server.api("GET", f"/api/v1/quiz-runs/{run_id}", token=student)
    assert status == 200
    return run["attemptId"]


def test_answers_survive_a_cut_network_and_a_closed_tab_and_the_teacher_sees_the_flags(server, browsers):
    teacher, student, session_id, run_id = quiz_in_session(server)

    dashboard = browsers(LAPTOP)
    sign_in(dashboard, server, "theo@school.test")
    wait_for_path(dashboard, "/courses")
    dashboard.get(f"{server.url}/quiz-runs/{run_id}/dashboard")
    WebDriverWait(dashboard, 15).until(lambda b: b.find_element(By.ID, "live-status").text == "live")

    phone = browsers(PHONE)
    sign_in(phone, server, "sam@school.test")
    wait_for_path(phone, "/courses")
    open_quiz(phone, server, run_id)
    # Told what is recorded, before starting.
    recorded = phone.find_element(By.ID, "recorded-list").text
    for words in ("leave this page", "offline", "second tab", "pasted", "narrower"):
        assert words in recorded
    screenshot(phone, "quiz-intro")
    phone.find_element(By.ID, "start-quiz").click()
    wait_for(phone, 'fieldset[data-question="q1"]')
    attempt = attempt_id(server, student, run_id)

    # The teacher sees the student start.
    WebDriverWait(dashboard, 15).until(
        lambda b: "answering" in b.find_element(By.CSS_SELECTOR, "#attempt-rows tr").text)

    option(phone, "q1", "Nucleus").click()
    option(phone, "q1", "Mitochondrion").click()
    WebDriverWait(phone, 15).until(lambda b: save_state(b) == "saved")
    assert [row[:2] for row in stored_answers(server, attempt)] == [("q1", '{"choice":1}')]

    # The student leaves the page and comes back: the teacher sees it.
    phone.execute_script("window.dispatchEvent(new Event('blur')); window.dispatchEvent(new Event('focus'));")
    WebDriverWait(dashboard, 15).until(
        lambda b: b.find_elements(By.CSS_SELECTOR, '#flag-feed li[data-kind="left_page"]'))

    # The network is cut mid-quiz: answers stay on the phone, and the page says so.
    phone.execute_cdp_cmd("Network.enable", {})
    phone.execute_cdp_cmd(
        "Network.emulateNetworkConditions",
        {"offline": True, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1},
    )
    WebDriverWait(phone, 15).until(lambda b: save_state(b).startswith("offline"))
    option(phone, "q2", "Nucleus").click()
    option(phone, "q2", "Mitochondrion").click()
    text = question(phone, "q3").find_element(By.TAG_NAME, "textarea")
    text.send_keys("Water moves")
    text.send_keys(" across a membrane")
    question(phone, "q4").find_element(By.TAG_NAME, "input").send_keys("46")
    assert save_state(phone) == "offline — answers kept on this phone"
    screenshot(phone, "quiz-offline")
    assert [row[0] for row in stored_answers(server, attempt)] == ["q1"]

    # The tab is closed and opened again while the server is still out of reach.
    old_tab = phone.current_window_handle
    phone.switch_to.new_window("tab")
    new_tab = phone.current_window_handle
    phone.switch_to.window(old_tab)
    phone.close()
    phone.switch_to.window(new_tab)
    phone.execute_cdp_cmd("Network.enable", {})
    phone.execute_cdp_cmd("Network.setBlockedURLs", {"urls": ["*/api/v1/*"]})
    open_quiz(phone, server, run_id)
    wait_for(phone, 'fieldset[data-question="q3"]')
    # What the phone kept is on the page again.
    assert question(phone, "q3").find_element(By.TAG_NAME, "textarea").get_attribute("value") == "Water moves across a membrane"
    assert question(phone, "q4").find_element(By.TAG_NAME, "input").get_attribute("value") == "46"
    WebDriverWait(phone, 15).until(lambda b: save_state(b).startswith("offline"))

    # The network comes back: every answer reaches the server, once, in its latest version.
    phone.execute_cdp_cmd("Network.setBlockedURLs", {"urls": []})
    WebDriverWait(phone, 30).until(lambda b: save_state(b) == "saved")
    rows = stored_answers(server, attempt)
    assert [row[:2] for row in rows] == [
        ("q1", '{"choice":1}'),
        ("q2", '{"choices":[0,1]}'),
        ("q3", '{"text":"Water moves across a membrane"}'),
        ("q4", '{"number":46}'),
    ]
    assert len({row[2] for row in rows}) == 4, "each save has its own sequence number"
    kept = phone.execute_script(
        f"return Object.keys(localStorage).filter((k) => k.startsWith('rollcall-quiz-{run_id}-')).map((k) => localStorage.getItem(k))")
    assert len(kept) == 1 and '"pending":{}' in kept[0], "nothing left unsent on the phone"

    # The flag queued offline reaches the teacher too, with the reload (the tab that went offline was closed before
    # it could see the network come back).
    for kind in ("offline", "reloaded", "online"):
        WebDriverWait(dashboard, 15).until(
            lambda b, kind=kind: b.find_elements(By.CSS_SELECTOR, f'#flag-feed li[data-kind="{kind}"]'))
    # "Back online" says how long the phone was away, though the tab that went offline was closed meanwhile.
    back = dashboard.find_element(By.CSS_SELECTOR, '#flag-feed li[data-kind="online"]').text
    assert re.search(r"back online \(after (\d+ min )?\d+ s offline\)", back), back
    WebDriverWait(dashboard, 15).until(
        lambda b: "4 of 4" in b.find_element(By.CSS_SELECTOR, "#attempt-rows tr").text)
    screenshot(dashboard, "quiz-dashboard")
    screenshot(phone, "quiz-saved")

    # Handing in is final.
    phone.find_element(By.ID, "submit-quiz").click()
    phone.switch_to.alert.accept()
    WebDriverWait(phone, 15).until(lambda b: b.find_element(By.ID, "quiz-done").is_displayed())
    WebDriverWait(dashboard, 15).until(
        lambda b: "handed in" in b.find_element(By.CSS_SELECTOR, "#attempt-rows tr").text)

    # The teacher stops the quiz and reads, per question, how the class answered.
    dashboard.find_element(By.ID, "stop-quiz").click()
    dashboard.switch_to.alert.accept()

    def stopped(_):
        status, run = server.api("GET", f"/api/v1/quiz-runs/{run_id}", token=teacher)
        return status == 200 and run["run"].get("stoppedAt")

    WebDriverWait(dashboard, 15).until(stopped)
    dashboard.find_element(By.ID, "load-results").click()
    WebDriverWait(dashboard, 15).until(
        lambda b: b.find_elements(By.CSS_SELECTOR, '#statistics-body li[data-question="q4"]'))
    stats = {item.get_attribute("data-question"): item.text
             for item in dashboard.find_elements(By.CSS_SELECTOR, "#statistics-body li.question-stat")}
    assert "1 of 1 correct (100%)" in stats["q1"]
    assert "Mitochondrion ✓" in stats["q1"]
    assert "1 to mark" in stats["q3"] and "water moves across a membrane" in stats["q3"]
    assert "46" in stats["q4"]
    dashboard.execute_script("document.getElementById('statistics').scrollIntoView()")
    screenshot(dashboard, "quiz-statistics")

    # Quizzes count for 40% of the course grade: a sum that is not 100 is refused with a sentence, then fixed.
    status, session = server.api("GET", f"/api/v1/sessions/{session_id}", token=teacher)
    course_id = session["session"]["courseId"]
    dashboard.get(f"{server.url}/courses/{course_id}")
    form = wait_for(dashboard, "#record-settings-form")
    for name, value in (("gradeWeights.attendance", "50"), ("gradeWeights.quizzes", "40")):
        field = form.find_element(By.NAME, name)
        field.clear()
        field.send_keys(value)
    form.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    error = form.find_element(By.CSS_SELECTOR, ".form-error")
    WebDriverWait(dashboard, 15).until(lambda b: error.is_displayed())
    assert "make 90%" in error.text
    field = form.find_element(By.NAME, "gradeWeights.attendance")
    field.clear()
    field.send_keys("60")
    form.find_element(By.CSS_SELECTOR, "button[type=submit]").click()

    def weighed(_):
        status, course = server.api("GET", f"/api/v1/courses/{course_id}", token=teacher)
        return status == 200 and course["course"]["gradeWeights"] == {"attendance": 60, "quizzes": 40}

    WebDriverWait(dashboard, 15).until(weighed)

    # The student sees the course grade, and how each figure is made.
    phone.get(f"{server.url}/courses/{course_id}")
    wait_for(phone, "#course-grade")
    assert phone.find_element(By.ID, "course-grade").text == "84%"
    assert phone.find_element(By.ID, "explain-course-grade").text == (
        "Course grade: 60% attendance grade (100%) + 40% quizzes (60%).")
    assert phone.find_element(By.ID, "explain-quizzes").text == (
        "Quizzes: 6 of 10 points over 1 quiz; 1 answer waits for the teacher's mark.")
    phone.execute_script("document.getElementById('course-grade').scrollIntoView()")
    screenshot(phone, "course-grade")


def test_the_time_limit_closes_an_attempt_with_its_saved_answers(server, browsers):
    teacher, student, session_id, run_id = quiz_in_session(server)
    phone = browsers(PHONE)
    sign_in(phone, server, "sam@school.test")
    wait_for_path(phone, "/courses")
    open_quiz(phone, server, run_id)
    phone.find_element(By.ID, "start-quiz").click()
    wait_for(phone, 'fieldset[data-question="q1"]')
    option(phone, "q1", "Mitochondrion").click()
    WebDriverWait(phone, 15).until(lambda b: save_state(b) == "saved")
    attempt = attempt_id(server, student, run_id)

    # Ten minutes later, as far as the server is concerned: its sweep closes the attempt.
    database = sqlite3.connect(Path(server.data_dir) / "rollcall.sqlite", timeout=10)
    database.execute("UPDATE quiz_attempts SET deadline = ? WHERE id = ?", (time.time() - 10, attempt))
    database.commit()
    database.close()

    def ending(_):
        status, view = server.api("GET", f"/api/v1/quiz-attempts/{attempt}", token=teacher)
        return status == 200 and view["attempt"].get("ending") == "time_limit"

    WebDriverWait(phone, 30).until(ending)
    # A late change is refused; the page says the time is up and keeps the saved answer.
    question(phone, "q4").find_element(By.TAG_NAME, "input").send_keys("23")
    WebDriverWait(phone, 30).until(lambda b: b.find_element(By.ID, "quiz-done").is_displayed())
    assert phone.find_element(By.ID, "done-title").text == "Time is up"
    status, view = server.api("GET", f"/api/v1/quiz-attempts/{attempt}", token=student)
    assert view["answers"]["q1"]["answer"] == {"choice": 1}
    assert "q4" not in view["answers"]
    screenshot(phone, "quiz-time-up")


def test_a_second_tab_a_paste_and_a_narrow_window_are_flagged(server, browsers):
    teacher, student, session_id, run_id = quiz_in_session(server)
    phone = browsers(PHONE)
    sign_in(phone, server, "sam@school.test")
    wait_for_path(phone, "/courses")
    open_quiz(phone, server, run_id)
    phone.find_element(By.ID, "start-quiz").click()
    wait_for(phone, 'fieldset[data-question="q3"]')
    attempt = attempt_id(server, student, run_id)

    # Text pasted into a short answer (the page reads the clipboard's text from the paste event).
    phone.execute_script(
        """
        const text = document.querySelector('fieldset[data-question="q3"] textarea');
        const data = new DataTransfer();
        data.setData('text/plain', 'Osmosis is the movement of water');
        text.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true }));
        """
    )
    # The window made narrower than the quiz needs, as a split screen does.
    phone.set_window_size(280, 700)
    # The same quiz opened in a second tab of this browser.
    phone.switch_to.new_window("tab")
    open_quiz(phone, server, run_id)
    wait_for(phone, 'fieldset[data-question="q3"]')

    def kinds(_):
        status, results = server.api("GET", f"/api/v1/quiz-runs/{run_id}/results", token=teacher)
        assert status == 200
        return {flag["kind"]: flag for flag in results["flags"] if flag["attemptId"] == attempt}

    WebDriverWait(phone, 15).until(lambda b: {"pasted", "resized", "second_device"} <= set(kinds(b)))
    flags = kinds(phone)
    assert flags["pasted"]["detail"] == "32 characters into q3"
    assert flags["resized"]["detail"].startswith("280")


def test_handing_in_raises_no_flag_and_keeps_the_focus(server, browsers):
    teacher, student, session_id, run_id = quiz_in_session(server)
    phone = browsers(PHONE)
    sign_in(phone, server, "sam@school.test")
    wait_for_path(phone, "/courses")
    open_quiz(phone, server, run_id)
    phone.find_element(By.ID, "start-quiz").click()
    wait_for(phone, 'fieldset[data-question="q1"]')
    # The start button went with the intro: the focus is on the first question, not at the page's top.
    focused = phone.execute_script("return document.activeElement.closest('fieldset')?.dataset.question ?? null")
    assert focused == "q1", focused
    attempt = attempt_id(server, student, run_id)
    option(phone, "q1", "Mitochondrion").click()
    WebDriverWait(phone, 15).until(lambda b: save_state(b) == "saved")

    # A desktop browser takes the window's focus for a confirm dialog and hands the blur and the focus back to the
    # page once it closed; headless Chromium sends neither, so the test sends them as that browser does.
    phone.execute_script(
        """
        const ask = window.confirm.bind(window);
        window.confirm = (message) => {
          const answer = ask(message);
          setTimeout(() => { window.dispatchEvent(new Event('blur')); window.dispatchEvent(new Event('focus')); }, 0);
          return answer;
        };
        """
    )
    phone.find_element(By.ID, "submit-quiz").click()
    phone.switch_to.alert.accept()
    WebDriverWait(phone, 15).until(lambda b: b.find_element(By.ID, "quiz-done").is_displayed())
    # The Hand in button went too: the focus is on what says the answers are in.
    assert phone.execute_script("return document.activeElement.id") == "done-title"
    time.sleep(1)
    status, results = server.api("GET", f"/api/v1/quiz-runs/{run_id}/results", token=teacher)
    assert status == 200
    flags = [flag["kind"] for flag in results["flags"] if flag["attemptId"] == attempt]
    assert "left_page" not in flags and "returned" not in flags, flags


def test_a_running_quiz_is_found_from_the_check_in_the_course_page_and_the_session(server, browsers):
    teacher = account(server, "Theo Teacher", "theo@school.test", "teacher")
    _, course = server.api("POST", "/api/v1/courses", {"name": "Biology"}, teacher)
    course_id = course["course"]["id"]
    student = account(server, "Sam Student", "sam@school.test")
    server.api("POST", "/api/v1/courses/join", {"code": course["course"]["joinCode"]}, student)
    _, session = server.api("POST", f"/api/v1/courses/{course_id}/sessions", {"settings": {"period": 30}}, teacher)
    session_id = session["session"]["id"]

    phone = browsers(PHONE)
    sign_in(phone, server, "sam@school.test")
    wait_for_path(phone, "/courses")
    _, frame = server.api("GET", f"/api/v1/sessions/{session_id}/projector", token=teacher)
    phone.get(frame["url"])
    WebDriverWait(phone, 20).until(lambda b: b.find_element(By.ID, "check-in").get_attribute("data-result") == "present")
    assert not phone.find_element(By.ID, "check-in-quiz").is_displayed(), "no quiz yet"

    # The teacher starts a quiz after the student checked in: the "You're in" page learns of it by itself.
    _, quiz = server.api("POST", f"/api/v1/courses/{course_id}/quizzes", QUIZ, teacher)
    _, run = server.api("POST", f"/api/v1/sessions/{session_id}/quiz-runs", {"quizId": quiz["quiz"]["id"]}, teacher)
    run_id = run["run"]["id"]
    link = WebDriverWait(phone, 60).until(
        lambda b: b.find_element(By.CSS_SELECTOR, "#check-in-quiz a") if b.find_elements(By.CSS_SELECTOR, "#check-in-quiz a") else False,
        "the running quiz announced on the check-in page")
    assert link.text == "open “Cells”"
    screenshot(phone, "check-in-quiz-running", sizes=(PHONE,))
    screenshot(phone, "check-in-quiz-running-dark", sizes=(PHONE,), dark=True)

    # The course page names it in the open session's card at the top, and so does the session's page.
    phone.get(f"{server.url}/courses/{course_id}")
    announced = wait_for(phone, "#now [data-quiz-announce] a")
    assert announced.get_attribute("href").endswith(f"/quiz-runs/{run_id}")
    screenshot(phone, "course-now-quiz", sizes=(PHONE, LAPTOP), dark=True)
    phone.get(f"{server.url}/sessions/{session_id}")
    wait_for(phone, "#my-quiz a").click()

    # The quiz's instructions are there to read before starting.
    wait_for_path(phone, f"/quiz-runs/{run_id}")
    assert wait_for(phone, "#quiz-instructions").text == "Instructions\nNo notes."


def test_identical_short_answers_are_marked_together_and_let_in_goes_when_the_quiz_stops(server, browsers):
    teacher = account(server, "Theo Teacher", "theo@school.test", "teacher")
    _, course = server.api("POST", "/api/v1/courses", {"name": "Biology"}, teacher)
    course_id = course["course"]["id"]
    _, session = server.api("POST", f"/api/v1/courses/{course_id}/sessions", {"settings": {"period": 30}}, teacher)
    session_id = session["session"]["id"]
    answers = ["Water crosses a membrane", "water  crosses a membrane ", "WATER crosses a membrane"] * 3 + ["Diffusion"]
    students = []
    for number, text in enumerate(answers + [None]):
        token = account(server, f"Student {number}", f"s{number}@school.test")
        server.api("POST", "/api/v1/courses/join", {"code": course["course"]["joinCode"]}, token)
        students.append((token, text))
    _, quiz = server.api("POST", f"/api/v1/courses/{course_id}/quizzes", {
        "title": "Osmosis", "timeLimitSeconds": 600,
        "questions": [{"id": "q1", "kind": "short_text", "prompt": "What is osmosis?", "points": 2}]}, teacher)
    for token, text in students:
        _, frame = server.api("GET", f"/api/v1/sessions/{session_id}/projector", token=teacher)
        assert server.api("POST", "/api/v1/check-ins", {"code": frame["url"].split("/C/")[1]}, token)[0] == 201
    # On the roster, not in the room.
    outside = account(server, "Zoe Outside", "zoe@school.test")
    server.api("POST", "/api/v1/courses/join", {"code": course["course"]["joinCode"]}, outside)
    _, run = server.api("POST", f"/api/v1/sessions/{session_id}/quiz-runs", {"quizId": quiz["quiz"]["id"]}, teacher)
    run_id = run["run"]["id"]
    for number, (token, text) in enumerate(students[:-1]):
        status, started = server.api("POST", f"/api/v1/quiz-runs/{run_id}/attempts", {"deviceId": f"phone-{number}"}, token)
        assert status == 201, started
        attempt = started["attempt"]["id"]
        server.api("PUT", f"/api/v1/quiz-attempts/{attempt}/answers/q1", {"sequence": 1, "answer": {"text": text}}, token)
        server.api("POST", f"/api/v1/quiz-attempts/{attempt}/submit", {}, token)

    dashboard = browsers(LAPTOP)
    sign_in(dashboard, server, "theo@school.test")
    wait_for_path(dashboard, "/courses")
    dashboard.get(f"{server.url}/quiz-runs/{run_id}/dashboard")
    # A student on the roster but not in the room can be let in while the quiz runs, and not once it stopped; the
    # one in the room who has not started may start already, and is offered nothing.
    def row_of(name):
        return next(row for row in dashboard.find_elements(By.CSS_SELECTOR, "#attempt-rows tr") if name in row.text)

    WebDriverWait(dashboard, 15).until(lambda b: "Let in" in b.find_element(By.ID, "attempt-rows").text)
    assert "Let in" in row_of("Zoe Outside").text and "not checked in" in row_of("Zoe Outside").text
    assert "Let in" not in row_of("Student 10").text and "not started" in row_of("Student 10").text
    server.api("POST", f"/api/v1/quiz-runs/{run_id}/stop", token=teacher)
    WebDriverWait(dashboard, 15).until(lambda b: "Let in" not in b.find_element(By.ID, "attempt-rows").text)

    dashboard.find_element(By.ID, "load-results").click()
    section = wait_for(dashboard, '#results-body section.marking[data-question="q1"]')
    assert section.find_element(By.TAG_NAME, "h3").text == "What is osmosis? (2 points)"
    forms = section.find_elements(By.CSS_SELECTOR, "form.mark-form")
    assert len(forms) == 2, "three spellings of one answer, nine times, and another"
    first = forms[0]
    assert "9 students: Student 0, Student 1, Student 2, Student 3, Student 4, Student 5 and 3 more" in first.text, first.text
    assert first.find_element(By.CSS_SELECTOR, "button[type=submit]").text == "Mark all 9"
    first.find_element(By.CSS_SELECTOR, 'input[type="number"]').send_keys("2")
    first.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    WebDriverWait(dashboard, 20).until(
        lambda b: b.find_element(By.CSS_SELECTOR, '#results-body form.mark-form .mark-state').text == "Marked: 2 of 2.",
        "the mark given, shown after saving")
    # The results were drawn anew: the focus is on the next answer to mark, not at the page's top.
    focused = dashboard.switch_to.active_element
    forms = dashboard.find_elements(By.CSS_SELECTOR, '#results-body section.marking[data-question="q1"] form.mark-form')
    assert focused == forms[1].find_element(By.CSS_SELECTOR, 'input[type="number"]')
    dashboard.execute_script(
        "arguments[0].scrollIntoView({block: 'center'})", dashboard.find_element(By.CSS_SELECTOR, "section.marking"))
    screenshot(dashboard, "quiz-marking-together", sizes=(PHONE, LAPTOP), dark=True)
    _, results = server.api("GET", f"/api/v1/quiz-runs/{run_id}/results", token=teacher)
    marked = sorted(result["answers"]["q1"]["mark"]["points"] for result in results["results"])
    assert marked == [0] + [2] * 9, marked


def test_the_new_quizs_defaults_are_placeholders_that_typing_replaces(server, browsers):
    teacher = account(server, "Theo Teacher", "theo@school.test", "teacher")
    _, course = server.api("POST", "/api/v1/courses", {"name": "Biology"}, teacher)
    course_id = course["course"]["id"]
    browser = browsers(LAPTOP)
    browser.get(f"{server.url}/sign-in?next=/courses/{course_id}/quizzes")
    sign_in(browser, server, "theo@school.test", then=True)
    wait_for(browser, "#new-quiz").click()
    form = wait_for(browser, "#quiz-editor")
    wait_for(browser, '#questions li[data-question="q1"]')
    minutes = form.find_element(By.NAME, "minutes")
    title = form.find_element(By.NAME, "title")
    # The defaults are shown, as placeholders: typing writes the value, it does not add to the default.
    assert (minutes.get_attribute("value"), minutes.get_attribute("placeholder")) == ("", "10")
    assert (title.get_attribute("value"), title.get_attribute("placeholder")) == ("", "New quiz")
    prompt = form.find_element(By.CSS_SELECTOR, '#questions li[data-question="q1"] textarea')
    assert (prompt.get_attribute("value"), prompt.get_attribute("placeholder")) == ("", "First question")
    screenshot(browser, "quiz-editor-placeholders", sizes=(PHONE, LAPTOP), dark=True)
    minutes.send_keys("8")
    title.send_keys("Cells")
    form.find_element(By.ID, "save-quiz").click()
    WebDriverWait(browser, 15).until(lambda b: b.find_element(By.ID, "save-state").text == "saved")
    quiz_id = form.get_attribute("data-quiz")
    _, saved = server.api("GET", f"/api/v1/quizzes/{quiz_id}", token=teacher)
    assert saved["quiz"]["timeLimitSeconds"] == 480, saved["quiz"]["timeLimitSeconds"]
    assert saved["quiz"]["title"] == "Cells"
    # What was left empty keeps its default.
    question = saved["quiz"]["questions"][0]
    assert (question["prompt"], question["options"], question["points"]) == ("First question", ["Yes", "No"], 1)
