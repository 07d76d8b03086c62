"""The school's sign-in against a real OpenID Certified provider on its own defaults: LemonLDAP::NG from Debian's
packages (scripts/lemonldap.sh), where the claims come only from UserInfo, the role and student number only under a
scope of the school's own, no `email_verified` is sent, and a new client signs ID tokens with HS512. A teacher and
the students of a roster import sign in through it; the students land on the roster; the signing key is rotated with
the provider's own tool; signing out hands the provider the ID token hint."""

import os
import shutil
import tempfile

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from conftest import LAPTOP, PAGE_WAIT, Server, free_port, screenshot, wait_for, wait_for_path
from lemonldap import LemonLDAP, sign_in
from test_school_sign_in import api_in_page

STUDENTS = [
    {"uid": f"student{n}", "cn": f"Student {n:02d}", "sn": "Student", "mail": f"student{n}@hill.test",
     "eduPersonAffiliation": ["student"], "studentNumber": f"h{2000 + n}"}
    for n in range(6)
]
# Letters and digits, which every way of sending a client secret keeps as is; 64 of them, as HS512 asks of its key
# (RFC 7518 §3.2).
SECRET = "hillSchoolRollcallSecret2026" + "x7Kq" * 9
TEACHER = {"uid": "tess", "cn": "Tess Hill", "sn": "Hill", "mail": "tess@hill.test",
           "eduPersonAffiliation": ["faculty", "member"]}


def school_and_rollcall(algorithm, extra=None):
    """A LemonLDAP::NG portal signing with `algorithm`, and Rollcall set up for it as the docs say."""
    directory = tempfile.mkdtemp(prefix="rollcall-lemonldap-")
    # The portal runs as its own user (www-data), which must reach its folder inside this one.
    os.chmod(directory, 0o755)
    portal_port = free_port()
    issuer = f"http://localhost:{portal_port}"
    server = Server(directory, env={
        "ROLLCALL_OIDC_ISSUER": issuer, "ROLLCALL_OIDC_CLIENT_ID": LemonLDAP.client_id,
        "ROLLCALL_OIDC_CLIENT_SECRET": SECRET, "ROLLCALL_OIDC_NAME": "Sign in with Hill",
        "ROLLCALL_OIDC_SCOPES": "school", "ROLLCALL_OIDC_ROLE_CLAIM": "eduPersonAffiliation",
        "ROLLCALL_OIDC_TEACHER_VALUES": "faculty", "ROLLCALL_OIDC_STUDENT_NUMBER_CLAIM": "student_number",
        "ROLLCALL_OIDC_TRUSTED_EMAIL_DOMAINS": "hill.test", **(extra or {}),
    })
    portal = LemonLDAP(f"{directory}/portal", portal_port, f"{server.url}/auth/oidc/callback", algorithm=algorithm, secret=SECRET,
                       users=[TEACHER] + STUDENTS)
    try:
        portal.start()
    except Exception:
        server.stop()
        raise
    return portal, server, directory


@pytest.fixture
def hs512():
    portal, server, directory = school_and_rollcall("HS512")
    yield portal, server
    portal.stop()
    server.stop()
    shutil.rmtree(directory, ignore_errors=True)


@pytest.fixture
def rs256():
    portal, server, directory = school_and_rollcall("RS256")
    yield portal, server
    portal.stop()
    server.stop()
    shutil.rmtree(directory, ignore_errors=True)


def through_the_school(browser, server, person, next_path="/courses"):
    browser.get(f"{server.url}/sign-in?next={next_path}")
    wait_for(browser, "#school-sign-in").click()
    sign_in(browser, person["uid"], person.get("password", person["uid"]))
    wait_for_path(browser, next_path)


def me(browser):
    return api_in_page(browser, "GET", "/api/v1/me")["body"]["user"]


def sign_out(browser):
    """Signs out as the page's menu does; answers the status."""
    return browser.execute_async_script("""
        const done = arguments[0];
        const token = document.querySelector('meta[name=csrf-token]').content;
        fetch('/api/v1/auth/session', {method: 'DELETE', headers: {'X-CSRF-Token': token}}).then(r => done(r.status));
    """)


def import_roster(browser, course_id, csv):
    return browser.execute_async_script("""
        const [path, csv, done] = arguments;
        const token = document.querySelector('meta[name=csrf-token]').content;
        fetch(path, {method: 'POST', headers: {'Content-Type': 'text/csv', 'X-CSRF-Token': token}, body: csv})
          .then(async r => done({status: r.status, body: await r.json()}));
    """, f"/api/v1/courses/{course_id}/roster-import", csv)


def test_a_class_on_lemonldap_defaults_signs_in_with_its_roles_and_lands_on_its_roster(hs512, browsers):
    portal, server = hs512
    # The portal as a school installs it: claims only in UserInfo, no email_verified, HS512 for a new client.
    assert "HS512" in portal.discovery()["id_token_signing_alg_values_supported"]

    teacher = browsers(LAPTOP)
    through_the_school(teacher, server, TEACHER)
    tess = me(teacher)
    assert tess["role"] == "teacher", tess  # the role came from UserInfo, under the `school` scope
    assert tess["name"] == "Tess Hill" and tess["email"] == "tess@hill.test"
    created = api_in_page(teacher, "POST", "/api/v1/courses", {"name": "Hill Geology"})
    assert created["status"] == 201, created
    course_id = created["body"]["course"]["id"]
    csv = "name,email\n" + "\n".join(f"{s['cn']},{s['mail']}" for s in STUDENTS)
    imported = import_roster(teacher, course_id, csv)
    assert imported["status"] in (200, 201) and len(imported["body"]["invited"]) == len(STUDENTS), imported

    phone = browsers()
    for number, student in enumerate(STUDENTS):
        phone.delete_all_cookies()
        through_the_school(phone, server, student)
        person = me(phone)
        assert person["role"] == "student" and person["emailVerified"], person
        if number == 0:
            screenshot(phone, "lemonldap-student-courses", sizes=((390, 844),))
        courses = api_in_page(phone, "GET", "/api/v1/courses")["body"]["courses"]
        assert [course["id"] for course in courses] == [course_id], (student["uid"], courses)
        # Sign out of Rollcall, and of the school with the session's ID token as the hint.
        assert sign_out(phone) == 204
        phone.get(f"{server.url}/sign-in?signed-out=1")
        link = wait_for(phone, "#school-sign-out")
        assert "id_token_hint=" in link.get_attribute("href")
        if number == 0:
            link.click()
            WebDriverWait(phone, PAGE_WAIT).until(lambda b: not b.current_url.startswith(server.url))
            accept = phone.find_elements(By.CSS_SELECTOR, "form.confirm button.positive")
            if accept:
                accept[0].click()
            # Signed out at the school too: the next sign-in asks for the password again.
            phone.get(f"{server.url}/auth/oidc/start?next=/courses")
            wait_for(phone, "#userfield")

    roster = api_in_page(teacher, "GET", f"/api/v1/courses/{course_id}/students")["body"]["students"]
    assert sorted(s["name"] for s in roster) == [s["cn"] for s in STUDENTS]
    assert {s.get("studentNumber") for s in roster} == {s["studentNumber"].upper() for s in STUDENTS}


def test_a_key_rotated_with_the_providers_own_tool_is_followed(rs256, browsers):
    portal, server = rs256
    browser = browsers(LAPTOP)
    through_the_school(browser, server, STUDENTS[0])
    first = me(browser)
    old = portal.key_ids()
    new = portal.rotate_keys()
    assert new not in old
    browser.delete_all_cookies()
    through_the_school(browser, server, STUDENTS[0])
    assert me(browser)["id"] == first["id"]


def test_without_the_schools_scope_the_role_never_arrives_and_nothing_changes(browsers):
    portal, server, directory = school_and_rollcall("HS512", extra={"ROLLCALL_OIDC_SCOPES": ""})
    try:
        browser = browsers(LAPTOP)
        through_the_school(browser, server, TEACHER)
        # No role claim at all: a new account is a student, and the log says why; an admin makes the teacher.
        assert me(browser)["role"] == "student"
    finally:
        portal.stop()
        server.stop()
        shutil.rmtree(directory, ignore_errors=True)
