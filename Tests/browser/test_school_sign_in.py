"""The school's sign-in: a real OpenID Connect provider (oidc-provider-mock) on loopback, a school that has turned
passwords off, a teacher whose role comes from the school's claim, and 20 students who scan the projected code, sign
in through the school and check in, with no Rollcall password anywhere."""

import json
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from conftest import LAPTOP, PAGE_WAIT, Server, free_port, screenshot, wait_for, wait_for_path
from test_check_in import INSIDE, check_in_answer, decode_projected_code, place_phone

STUDENTS = 20


@pytest.fixture
def school():
    """The school's identity provider, with a teacher (affiliation faculty) and the students it knows."""
    port = free_port()
    users = [{"sub": "staff-7", "email": "tess@hill.test", "email_verified": True, "name": "Tess Hill",
              "affiliation": ["faculty", "member"]}]
    for number in range(STUDENTS):
        users.append({"sub": f"student-{number}", "email": f"student{number}@hill.test", "email_verified": True,
                      "name": f"Student {number:02d}", "affiliation": ["student"], "student_number": f"h{1000 + number}"})
    directory = tempfile.mkdtemp(prefix="rollcall-school-")
    log = open(Path(directory) / "provider.log", "w")
    arguments = [sys.executable, "-m", "oidc_provider_mock", "--port", str(port), "--require-nonce", "true"]
    for user in users:
        arguments += ["--user-claims", json.dumps(user)]
    process = subprocess.Popen(arguments, stdout=log, stderr=subprocess.STDOUT)
    issuer = f"http://localhost:{port}"
    deadline = time.time() + 60
    while True:
        try:
            with urllib.request.urlopen(f"{issuer}/.well-known/openid-configuration", timeout=2) as response:
                if response.status == 200:
                    break
        except OSError:
            if process.poll() is not None or time.time() > deadline:
                raise RuntimeError(f"the provider did not start; see {log.name}")
            time.sleep(0.2)
    yield issuer
    process.terminate()
    process.wait(timeout=10)
    log.close()
    shutil.rmtree(directory, ignore_errors=True)


@pytest.fixture
def sso_server(school):
    data_dir = tempfile.mkdtemp(prefix="rollcall-browser-")
    running = Server(data_dir, env={
        "ROLLCALL_OIDC_ISSUER": school, "ROLLCALL_OIDC_CLIENT_ID": "rollcall",
        "ROLLCALL_OIDC_CLIENT_SECRET": "the school's secret for Rollcall", "ROLLCALL_OIDC_NAME": "Sign in with Hill School",
        "ROLLCALL_OIDC_ROLE_CLAIM": "affiliation", "ROLLCALL_OIDC_TEACHER_VALUES": "faculty,staff",
        "ROLLCALL_OIDC_STUDENT_NUMBER_CLAIM": "student_number", "ROLLCALL_PASSWORD_SIGN_IN": "false",
    })
    yield running
    running.stop()
    shutil.rmtree(data_dir, ignore_errors=True)


def through_the_school(browser, subject):
    """On the sign-in page: the school's button, then the provider's form as the person fills it."""
    wait_for(browser, "#school-sign-in").click()
    field = wait_for(browser, "input[name=sub]")
    field.send_keys(subject)
    field.submit()


def api_in_page(browser, method, path, body=None):
    """Calls Rollcall's API from the signed-in page, as its own scripts do (cookie and CSRF token)."""
    return browser.execute_async_script("""
        const [method, path, body, done] = arguments;
        const csrf = document.querySelector('meta[name=csrf-token]').content;
        fetch(path, {method, headers: {'Content-Type': 'application/json', 'X-CSRF-Token': csrf},
                     body: body === null ? undefined : JSON.stringify(body)})
          .then(async r => done({status: r.status, body: await r.json()}));
    """, method, path, body)


def test_a_teacher_and_twenty_students_sign_in_through_the_school_and_check_in(sso_server, browsers):
    server = sso_server
    teacher = browsers(LAPTOP)
    teacher.get(f"{server.url}/sign-in")
    # Passwords are off: the school's button, no registration, the password form folded away for admins.
    assert wait_for(teacher, "#school-sign-in").text == "Sign in with Hill School"
    assert not teacher.find_elements(By.ID, "register-link")
    assert not teacher.find_element(By.ID, "sign-in-form").is_displayed()
    screenshot(teacher, "school-sign-in")
    screenshot(teacher, "school-sign-in-dark", dark=True)

    through_the_school(teacher, "staff-7")
    wait_for_path(teacher, "/courses")
    # A teacher because the school says so: the course form is there, no approval waited for.
    created = api_in_page(teacher, "POST", "/api/v1/courses", {"name": "Hill Physics"})
    assert created["status"] == 201, created
    course = created["body"]["course"]
    opened = api_in_page(teacher, "POST", f"/api/v1/courses/{course['id']}/sessions",
                         {"settings": {"period": 10, "latitude": 52.0, "longitude": 4.0, "radius": 50}})
    assert opened["status"] == 201, opened
    session_id = opened["body"]["session"]["id"]
    teacher.get(f"{server.url}/sessions/{session_id}/projector")
    WebDriverWait(teacher, 15).until(lambda b: b.find_element(By.ID, "projector-status").text == "live")

    # Each student scans the code, signs in through the school on the way, joins and is in. One browser, emptied
    # between students (cookies and the stored device id), as twenty phones would start.
    phone = browsers()
    for number in range(STUDENTS):
        if number > 0:
            phone.execute_script("localStorage.clear(); sessionStorage.clear()")
        phone.delete_all_cookies()
        place_phone(phone, server, INSIDE)
        phone.get(decode_projected_code(teacher))
        wait_for_path(phone, "/sign-in")
        through_the_school(phone, f"student-{number}")
        wait_for_path(phone, "/check-in/")
        result, message = check_in_answer(phone)
        assert result == "not_enrolled", message
        phone.find_element(By.ID, "check-in-join").click()
        WebDriverWait(phone, PAGE_WAIT).until(
            lambda b: b.find_element(By.ID, "check-in").get_attribute("data-result") == "present")
        if number == 0:
            screenshot(phone, "school-sign-in-checked-in", sizes=((390, 844),))

    WebDriverWait(teacher, 20).until(lambda b: b.find_element(By.ID, "projector-count").text == str(STUDENTS))
    roster = api_in_page(teacher, "GET", f"/api/v1/courses/{course['id']}/students")
    students = sorted(roster["body"]["students"], key=lambda student: student["name"])
    assert [student["name"] for student in students] == [f"Student {n:02d}" for n in range(STUDENTS)]
    # The school's student numbers came with them.
    assert {student.get("studentNumber") for student in students} == {f"H{1000 + n}" for n in range(STUDENTS)}

    # No password anywhere: registering is refused, and nobody's account has one to sign in with.
    status, body = server.api("POST", "/api/v1/auth/register",
                              {"name": "Sam Self", "email": "sam@hill.test", "password": "a long enough password"})
    assert status == 403 and body["error"]["code"] == "password_sign_in_off"
    status, body = server.api("POST", "/api/v1/auth/tokens", {"email": "student0@hill.test", "password": ""})
    assert status == 403 and body["error"]["code"] == "password_sign_in_off"
