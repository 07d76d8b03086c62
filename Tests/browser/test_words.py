"""The words people met in French: the signed-out scan's notice in their language, counts whose words agree with
their number ("1 présent", "2 présents"), and words with two meanings in the right one ("Pointer" in the room, not
"Noter", which grades)."""

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from conftest import LAPTOP, PHONE, screenshot, wait_for
from test_check_in import account, sign_in


def course_with_students(server, count):
    teacher = account(server, "Claire Durand", "claire@school.test", role="teacher")
    _, course = server.api("POST", "/api/v1/courses", {"name": "Biologie"}, token=teacher)
    students = []
    for number in range(count):
        token = account(server, f"Élève {number}", f"eleve{number}@school.test")
        server.api("POST", "/api/v1/courses/join", {"code": course["course"]["joinCode"]}, token)
        _, me = server.api("GET", "/api/v1/me", token=token)
        students.append(me["user"]["id"])
    _, created = server.api("POST", f"/api/v1/courses/{course['course']['id']}/sessions", {"title": "Cours 3"}, token=teacher)
    return teacher, course["course"]["id"], created["session"]["id"], students


def test_a_student_who_scans_signed_out_reads_the_notice_in_french(server, browsers):
    teacher, _, session_id, _ = course_with_students(server, 0)
    _, frame = server.api("GET", f"/api/v1/sessions/{session_id}/projector", token=teacher)
    phone = browsers(PHONE, language="fr")
    phone.get(frame["url"])
    notice = wait_for(phone, "#scan-notice")
    assert notice.text.startswith("Connectez-vous pour enregistrer votre présence à Biologie — Cours 3."), notice.text
    assert "Votre scan est conservé 2 minutes" in notice.text
    screenshot(phone, "scan-notice-fr", dark=True)


def test_counts_agree_with_their_number_and_the_room_marks_attendance(server, browsers):
    teacher, course_id, session_id, students = course_with_students(server, 3)
    server.api("PUT", f"/api/v1/sessions/{session_id}/attendance/{students[0]}", {"status": "present"}, token=teacher)
    for student in students[1:]:
        server.api("PUT", f"/api/v1/sessions/{session_id}/attendance/{student}", {"status": "excused"}, token=teacher)

    room = browsers(LAPTOP, language="fr")
    room.get(f"{server.url}/sign-in?next=/sessions/{session_id}")
    sign_in(room, server, "claire@school.test", then=True)
    WebDriverWait(room, 20).until(lambda b: b.find_element(By.ID, "live-status").text == "en direct")
    caption = lambda key: room.find_element(By.CSS_SELECTOR, f'[data-caption="{key}"]').text
    assert caption("present") == "présent" and caption("excused") == "excusés"
    # The row's button records attendance; "Noter" would read as grading.
    assert {button.text for button in room.find_elements(By.CSS_SELECTOR, ".room-row .mark")} == {"Pointer"}

    # One more present, live: the caption follows its number.
    server.api("PUT", f"/api/v1/sessions/{session_id}/attendance/{students[1]}", {"status": "present"}, token=teacher)
    WebDriverWait(room, 15).until(lambda b: caption("present") == "présents")
    assert caption("excused") == "excusé"
    screenshot(room, "room-counts-fr", dark=True)

    room.get(f"{server.url}/courses/{course_id}")
    assert wait_for(room, "#now-title").text == "Ouvertes en ce moment"
    assert "2 ont pointé" in room.find_element(By.CSS_SELECTOR, "#now").text
    screenshot(room, "course-open-now-fr", dark=True)


FRENCH_QUIZ = {
    "title": "La cellule",
    "instructions": "Sans notes.",
    "timeLimitSeconds": 600,
    "questions": [
        {"id": "q1", "kind": "single_choice", "prompt": "Quelle est la centrale énergétique de la cellule ?",
         "points": 1, "options": ["Le noyau", "La mitochondrie"], "correct": [1]},
        {"id": "q2", "kind": "short_text", "prompt": "Expliquez l’osmose.", "points": 2},
    ],
}


def test_a_french_quiz_is_read_to_a_german_student_in_french(server, browsers):
    """The teacher's words carry the course's language, the page's own words the reader's: a screen reader reads the
    French question with a French voice and the German buttons with a German one."""
    teacher = account(server, "Claire Durand", "claire@school.test", role="teacher")
    status, course = server.api("POST", "/api/v1/courses", {"name": "Biologie", "language": "fr"}, token=teacher)
    assert status == 201 and course["course"]["language"] == "fr", course
    course_id = course["course"]["id"]
    student = account(server, "Jonas Weber", "jonas@school.test")
    server.api("PATCH", "/api/v1/me", {"language": "de"}, token=student)
    server.api("POST", "/api/v1/courses/join", {"code": course["course"]["joinCode"]}, student)
    _, session = server.api("POST", f"/api/v1/courses/{course_id}/sessions", {"settings": {"period": 30}}, teacher)
    _, frame = server.api("GET", f"/api/v1/sessions/{session['session']['id']}/projector", token=teacher)
    assert server.api("POST", "/api/v1/check-ins", {"code": frame["url"].split("/C/")[1]}, student)[0] == 201
    _, quiz = server.api("POST", f"/api/v1/courses/{course_id}/quizzes", FRENCH_QUIZ, teacher)
    _, run = server.api(
        "POST", f"/api/v1/sessions/{session['session']['id']}/quiz-runs", {"quizId": quiz["quiz"]["id"]}, teacher)

    phone = browsers(PHONE, language="de")
    phone.get(f"{server.url}/sign-in?next=/quiz-runs/{run['run']['id']}")
    sign_in(phone, server, "jonas@school.test", then=True)
    wait_for(phone, "#quiz")
    assert phone.execute_script("return document.documentElement.lang") == "de"
    assert phone.find_element(By.CSS_SELECTOR, ".quiz-head h1").get_attribute("lang") == "fr"
    assert phone.find_element(By.CSS_SELECTOR, "#quiz-instructions p").get_attribute("lang") == "fr"
    assert phone.find_element(By.CSS_SELECTOR, "#quiz-instructions h2").text == "Anleitung"
    phone.find_element(By.ID, "start-quiz").click()
    prompt = wait_for(phone, "#prompt-q1")
    assert prompt.get_attribute("lang") == "fr" and prompt.text.startswith("Quelle est"), prompt.text
    choices = phone.find_elements(By.CSS_SELECTOR, 'fieldset[data-question="q1"] label.option span')
    assert [choice.get_attribute("lang") for choice in choices] == ["fr", "fr"]
    answer = phone.find_element(By.CSS_SELECTOR, 'fieldset[data-question="q2"] textarea')
    assert answer.accessible_name.startswith("Expliquez"), answer.accessible_name
    screenshot(phone, "quiz-french-course-de", sizes=(PHONE, LAPTOP))

    phone.get(f"{server.url}/courses/{course_id}")
    assert wait_for(phone, "#course-name").get_attribute("lang") == "fr"
