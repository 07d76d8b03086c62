"""A teacher and a student meet in Rollcall for the first time, each in their own browser."""

from selenium.webdriver.common.by import By

from conftest import screenshot, wait_for, wait_for_path


def register(browser, server, name, email, role, student_number=None):
    browser.get(f"{server.url}/register")
    form = wait_for(browser, "#register-form")
    form.find_element(By.CSS_SELECTOR, f'input[name="role"][value="{role}"]').click()
    form.find_element(By.NAME, "name").send_keys(name)
    form.find_element(By.NAME, "email").send_keys(email)
    form.find_element(By.NAME, "password").send_keys("a long enough password")
    if student_number:
        form.find_element(By.NAME, "studentNumber").send_keys(student_number)
    screenshot(browser, f"register-{role}")
    form.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    wait_for_path(browser, "/courses")


def test_teacher_creates_course_and_student_joins_by_code(server, browsers):
    teacher = browsers()
    register(teacher, server, "Tamsin Teacher", "tamsin@school.test", "teacher")
    form = wait_for(teacher, "#new-course-form")
    form.find_element(By.NAME, "name").send_keys("Marine Biology")
    form.find_element(By.NAME, "description").send_keys("Tides, reefs and the creatures between.")
    form.find_element(By.NAME, "plannedSessions").send_keys("12")
    screenshot(teacher, "courses-teacher")
    form.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    wait_for_path(teacher, "/courses/")
    code = wait_for(teacher, "#join-code").text.strip()
    assert len(code) == 7
    course_url = teacher.current_url

    student = browsers()
    register(student, server, "Sol Student", "sol@school.test", "student", "S-0042")
    join = wait_for(student, "#join-form")
    join.find_element(By.NAME, "code").send_keys(code.lower())
    screenshot(student, "courses-student")
    join.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    wait_for_path(student, "/courses/")
    assert wait_for(student, "#course-name").text == "Marine Biology"
    assert not student.find_elements(By.CSS_SELECTOR, "#join-code"), "students do not see the join code"

    teacher.get(course_url)
    roster = wait_for(teacher, "#roster-table")
    assert "Sol Student" in roster.text
    assert "S-0042" in roster.text
    screenshot(teacher, "course-teacher")


def test_wrong_password_shows_a_plain_sentence(server, browsers):
    browser = browsers()
    browser.get(f"{server.url}/sign-in")
    form = wait_for(browser, "#sign-in-form")
    form.find_element(By.NAME, "email").send_keys("nobody@school.test")
    form.find_element(By.NAME, "password").send_keys("wrong password")
    form.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    error = wait_for(browser, "#sign-in-form .form-error")
    assert error.text == "The email address or password is wrong."
    screenshot(browser, "sign-in-error")


def test_pages_need_sign_in(server, browsers):
    browser = browsers()
    browser.get(f"{server.url}/courses")
    wait_for_path(browser, "/sign-in")
    assert "next=%2Fcourses" in browser.current_url
