"""An accessibility audit by axe-core (WCAG 2.0, 2.1 and 2.2, levels A and AA) over every page, as each role meets
it, at phone and laptop width, in light and dark: no violation. And every page at 200 % zoom on a laptop (a 683 px
wide viewport, as the browser lays it out) reads without scrolling sideways (WCAG 1.4.10)."""

import importlib.util
import json
import urllib.request
from pathlib import Path

import pytest

from conftest import LAPTOP, PHONE, screenshot, wait_for_path
from test_check_in import PASSWORD, account, sign_in
from test_exposure import make_admin
from test_quizzes import QUIZ

AXE = Path(importlib.util.find_spec("axe_playwright_python").submodule_search_locations[0]) / "axe.min.js"
RULES = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22a", "wcag22aa"]
# A 1366 × 900 laptop at 200 % zoom lays a page out in 683 × 450 CSS pixels.
ZOOMED = (683, 450)


def audit(browser):
    """axe's violations on the page as it stands: rule, impact, and the first few elements at fault."""
    if not browser.execute_script("return typeof window.axe === 'object'"):
        browser.execute_script(AXE.read_text())
    result = browser.execute_async_script(
        """
        const done = arguments[arguments.length - 1];
        axe.run(document, {runOnly: {type: "tag", values: arguments[0]}, resultTypes: ["violations"]})
          .then((r) => done(JSON.stringify(r.violations)), (e) => done(JSON.stringify([{id: "axe-error", impact: String(e), nodes: []}])));
        """,
        RULES,
    )
    return [
        f"{v['id']} ({v['impact']}): " + "; ".join(
            " ".join(node["target"]) + (f" — {node.get('failureSummary', '')[:160]}" if node.get("failureSummary") else "")
            for node in v["nodes"][:3])
        for v in json.loads(result)
    ]


def every_mode(browser, path, server, failures):
    """Opens `path` and audits it at both widths, in light and dark."""
    browser.set_script_timeout(60)
    browser.get(server.url + path)
    for scheme in ("light", "dark"):
        browser.execute_cdp_cmd(
            "Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": scheme}]})
        for width, height in (PHONE, LAPTOP):
            browser.set_window_size(width, height)
            for violation in audit(browser):
                failures.append(f"{path} {width}px {scheme}: {violation}")
    browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})
    browser.set_window_size(*ZOOMED)
    wide = browser.execute_script(
        "return [document.documentElement.scrollWidth, document.documentElement.clientWidth]")
    if wide[0] > wide[1]:
        failures.append(f"{path} at 200 % zoom scrolls sideways: {wide[0]} px of content in {wide[1]} px")
    screenshot(browser, "zoom-200" + path.replace("/", "-"), sizes=(ZOOMED,))


def signed_in(browsers, server, email, size=LAPTOP, language=None):
    browser = browsers(size, language=language)
    browser.get(f"{server.url}/sign-in?next=/profile")
    sign_in(browser, server, email, then=True)
    wait_for_path(browser, "/profile")
    return browser


def scan_ticket(server, teacher, session_id, token):
    url = server.api("GET", f"/api/v1/sessions/{session_id}/projector", token=teacher)[1]["url"]
    scan = urllib.request.Request(
        server.url + url[url.index("/C/"):], headers={"Authorization": f"Bearer {token}", "Accept": "application/json"})
    with urllib.request.urlopen(scan) as answer:
        return json.loads(answer.read())["ticket"]


def every_page(server, browsers, visit, size=LAPTOP, language=None):
    """A course with a session, a quiz run and an exposure report; then `visit(browser, path)` on every page, as
    each role meets it: nobody, a student, a late student, the teacher, the admin and the health officer."""
    make_admin(server)
    teacher = account(server, "Tara Teacher", "tara@school.test", role="teacher")
    status, course = server.api("POST", "/api/v1/courses", {"name": "Biology 101"}, teacher)
    assert status == 201
    course_id = course["course"]["id"]
    students = []
    for name in ("Sam Student", "Ana Ångström", "Li Wei"):
        email = name.split()[0].lower() + "@school.test"
        token = account(server, name, email)
        server.api("POST", "/api/v1/courses/join", {"code": course["course"]["joinCode"]}, token)
        students.append((token, server.api("GET", "/api/v1/me", token=token)[1]["user"]["id"], email))
    status, session = server.api(
        "POST", f"/api/v1/courses/{course_id}/sessions", {"settings": {"period": 60, "room": "B204"}}, teacher)
    session_id = session["session"]["id"]
    for token, _, _ in students[:2]:
        assert server.api("POST", "/api/v1/check-ins", {"ticket": scan_ticket(server, teacher, session_id, token)}, token)[0] == 201
    status, quiz = server.api("POST", f"/api/v1/courses/{course_id}/quizzes", QUIZ, teacher)
    quiz_id = quiz["quiz"]["id"]
    status, run = server.api("POST", f"/api/v1/sessions/{session_id}/quiz-runs", {"quizId": quiz_id}, teacher)
    run_id = run["run"]["id"]
    server.api("POST", f"/api/v1/quiz-runs/{run_id}/attempts", {"deviceId": "phone-1"}, students[0][0])
    officer = account(server, "Olu Officer", "olu@school.test", role="teacher")
    admin = server.api("POST", "/api/v1/auth/tokens", {"email": "ada@school.test", "password": PASSWORD})[1]["token"]
    officer_id = server.api("GET", "/api/v1/me", token=officer)[1]["user"]["id"]
    server.api("POST", f"/api/v1/admin/users/{officer_id}/health-officer", token=admin)
    status, report = server.api(
        "POST", "/api/v1/exposure-reports", {"personId": students[0][1], "reason": "Positive test"}, officer)
    assert status == 201, report

    anonymous = browsers(size, language=language)
    for path in ("/sign-in", "/register", "/forgot-password", "/privacy"):
        visit(anonymous, path)

    def person(email):
        return signed_in(browsers, server, email, size, language)

    student = person("sam@school.test")
    ticket = scan_ticket(server, teacher, session_id, students[2][0])
    for path in (
        "/courses", f"/courses/{course_id}", f"/sessions/{session_id}", f"/courses/{course_id}/students/{students[0][1]}",
        f"/quiz-runs/{run_id}", "/profile", "/devices",
    ):
        visit(student, path)
    visit(person("li@school.test"), f"/check-in/{ticket}")

    teaching = person("tara@school.test")
    for path in (
        "/courses", f"/courses/{course_id}", f"/sessions/{session_id}", f"/sessions/{session_id}/projector",
        f"/courses/{course_id}/grid", f"/courses/{course_id}/students/{students[1][1]}", f"/courses/{course_id}/quizzes",
        f"/quizzes/{quiz_id}/edit", f"/quiz-runs/{run_id}/dashboard",
    ):
        visit(teaching, path)

    visit(person("ada@school.test"), "/admin")
    health = person("olu@school.test")
    for path in ("/exposure", f"/exposure/reports/{report['report']['id']}"):
        visit(health, path)


@pytest.mark.parametrize("language", [None, "fr"], ids=["en", "fr"])
def test_axe_finds_no_violation_on_any_page_in_any_mode(server, browsers, language):
    """In English, and in French as a French browser asks for it: longer words, other labels, `lang="fr"`."""
    failures = []

    def visit(browser, path):
        every_mode(browser, path, server, failures)
        said = browser.execute_script("return document.documentElement.lang")
        if language and said != language:
            failures.append(f"{path}: the page is in {said!r}, not {language!r}")

    every_page(server, browsers, visit, language=language)
    assert not failures, f"{len(failures)} violations:\n" + "\n".join(failures)
