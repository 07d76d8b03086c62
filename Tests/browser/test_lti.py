"""Rollcall as an LTI 1.3 tool under a real platform (lti_platform.py, on another site than Rollcall): an admin
registers the platform, the teacher launches Rollcall inside the platform's course page and finds the course linked
with its 40 students, deep linking places "Rollcall attendance" (asking for no second gradebook column), students
launch (one in a browser that blocks third-party cookies), check in, and after the session closes every student's
score reaches the platform's gradebook, through an outage of the platform. Other tests send launches Rollcall must
refuse, and keep the platform's services down from the teacher's first launch until after a session."""

import html
import http.cookies
import re
import shutil
import time
import urllib.parse
from concurrent.futures import ThreadPoolExecutor

import jwt
import pytest
import requests
from selenium import webdriver
from selenium.common.exceptions import TimeoutException, WebDriverException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from conftest import LAPTOP, PAGE_WAIT, PHONE, chromium_path, screenshot, wait_for
from lti_platform import (AGS_CLAIM, INSTRUCTOR, LEARNER, LTI, SCOPE_NRPS, SCOPE_SCORE, TEACHING_ASSISTANT,
                          Platform, iso_time, rsa_private_pem, self_check)
from test_check_in import PASSWORD, check_in_answer, decode_projected_code
from test_exposure import make_admin
from test_room import FIRST, LAST

STUDENTS = 40
CONTEXT, TITLE, LINK = "hill-phys-2", "Physics 2: Waves", "hill-phys-2-rollcall"
TEACHER, ASSISTANT = "staff-ines", "staff-tomas"
IN_BROWSERS = (0, 1, 2)
BLOCKED = 3
# Scores come after a session closes; the platform's outage and Rollcall's backoff take some of this.
GRADES_WAIT = 90


def student(number):
    return f"student-{number:02d}"


def student_email(number):
    return f"s{number:02d}@hill.test"


@pytest.fixture
def platform():
    running = Platform(client_id="rollcall-at-hill", deployment_id="hill-deployment-1").start()
    yield running
    running.stop()


@pytest.fixture
def browsers():
    """Opens Chromium with its third-party cookie setting as a person chose it, and closes them afterwards. Chromium
    now blocks third-party cookies unless told otherwise; many people's browsers still allow them, and Rollcall
    inside the platform's frame must work both ways."""
    opened = []

    def open_browser(size=PHONE, third_party_cookies=True):
        options = webdriver.ChromeOptions()
        options.binary_location = chromium_path()
        for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                         f"--window-size={size[0]},{size[1]}"):
            options.add_argument(argument)
        options.add_experimental_option("prefs", {"profile.block_third_party_cookies": not third_party_cookies,
                                                  "profile.cookie_controls_mode": 0 if third_party_cookies else 1})
        browser = webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=options)
        browser.implicitly_wait(0)
        opened.append(browser)
        return browser

    yield open_browser
    for browser in opened:
        browser.quit()


def admin_token(server):
    make_admin(server)
    status, body = server.api("POST", "/api/v1/auth/tokens", {"email": "ada@school.test", "password": PASSWORD})
    assert status == 201, body
    return body["token"]


def register_platform(server, platform, token):
    """The admin enters the platform in Rollcall and the tool's URLs on the platform, as each side's admin does."""
    status, body = server.api("POST", "/api/v1/admin/lti-platforms", {
        "name": platform.name, "issuer": platform.issuer, "clientId": platform.client_id,
        "deploymentIds": [platform.deployment_id], "authorizationUrl": platform.auth_url,
        "tokenUrl": platform.token_url, "jwksUrl": platform.jwks_url}, token)
    assert status == 201, body
    status, listed = server.api("GET", "/api/v1/admin/lti-platforms", token=token)
    assert status == 200, listed
    assert [p["id"] for p in listed["platforms"]] == [body["platform"]["id"]]
    tool = listed["tool"]
    assert tool["loginUrl"] == f"{server.url}/lti/login" and tool["launchUrl"] == f"{server.url}/lti/launch"
    assert tool["jwksUrl"] == f"{server.url}/lti/jwks"
    platform.register_tool(tool["loginUrl"], tool["launchUrl"], tool["jwksUrl"], tool["deepLinkingUrl"])
    return body["platform"]


def hill_physics(platform, students=STUDENTS):
    """The course on the platform: its teacher, a teaching assistant, `students` students and the Rollcall link a
    teacher added by hand."""
    platform.add_context(CONTEXT, TITLE, "PHYS-2")
    platform.add_user(TEACHER, "Ines Ortega", "ines@hill.test", sourcedid="F-0007")
    platform.enroll(CONTEXT, TEACHER, INSTRUCTOR)
    platform.add_user(ASSISTANT, "Tomás Reyes", "tomas@hill.test", sourcedid="S-9001")
    platform.enroll(CONTEXT, ASSISTANT, [TEACHING_ASSISTANT])
    for number in range(students):
        name = f"{FIRST[number % len(FIRST)]} {LAST[number % len(LAST)]}"
        platform.add_user(student(number), name, student_email(number), sourcedid=f"H{2024000 + number}")
        platform.enroll(CONTEXT, student(number), LEARNER)
    platform.add_link(CONTEXT, LINK, "Rollcall")


def auto_posted(page):
    """The action and fields of an auto-submitting form (an OIDC form_post or an LTI message)."""
    action = html.unescape(re.search(r'<form[^>]* action="([^"]*)"', page).group(1))
    fields = {html.unescape(name): html.unescape(value) for name, value in
              re.findall(r'<input[^>]* name="([^"]+)"[^>]* value="([^"]*)"', page)}
    return action, fields


class Person:
    """Someone launching Rollcall from the platform with a plain HTTP client: what 40 browsers would do, faster.
    Rollcall's cookies are kept by hand, as Chromium keeps them: Secure ones too, http://localhost being a secure
    context for it (Python's cookie jars keep them to https)."""

    def __init__(self, server, platform):
        self.server, self.platform = server, platform
        self.http = requests.Session()
        self.cookies = {}

    def call(self, method, url, **kwargs):
        """A request; to Rollcall with its cookies, whose answers' cookies are kept."""
        ours = url.startswith(self.server.url)
        if ours and self.cookies:
            headers = dict(kwargs.pop("headers", None) or {})
            headers["Cookie"] = "; ".join(f"{name}={value}" for name, value in self.cookies.items())
            kwargs["headers"] = headers
        answer = self.http.request(method, url, allow_redirects=False, timeout=30, **kwargs)
        if ours:
            for header in answer.raw.headers.getlist("Set-Cookie"):
                for name, morsel in http.cookies.SimpleCookie(header).items():
                    if morsel["max-age"] == "0":
                        self.cookies.pop(name, None)
                    else:
                        self.cookies[name] = morsel.value
        return answer

    def log_in(self, user, context=CONTEXT, link=LINK, deep=False):
        """The login initiation and Rollcall's authentication request to the platform, parsed."""
        answer = self.call("GET", self.platform.login_initiation(user, context, link, deep))
        assert answer.status_code in (302, 303), (answer.status_code, answer.text[:500])
        location = answer.headers["Location"]
        assert location.startswith(self.platform.auth_url + "?"), location
        return location, dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(location).query))

    def launch(self, user, context=CONTEXT, link=LINK):
        location, _ = self.log_in(user, context, link)
        action, fields = auto_posted(self.call("GET", location).text)
        assert set(fields) == {"id_token", "state"}, fields
        return self.call("POST", action, data=fields)

    def get(self, path, **kwargs):
        return self.call("GET", f"{self.server.url}{path}", **kwargs)

    def me(self):
        answer = self.get("/api/v1/me")
        return answer.json()["user"] if answer.status_code == 200 else None

    def api(self, method, path, body=None):
        """Rollcall's API as its pages call it: the session cookie and the page's CSRF token."""
        csrf = re.search(r'<meta name="csrf-token" content="([^"]+)"', self.get("/courses").text).group(1)
        answer = self.call(method, f"{self.server.url}{path}", json=body, headers={"X-CSRF-Token": csrf})
        return answer.status_code, answer.json() if answer.content else None

    def check_in(self, projected_url):
        """Scans the projected code and checks in, as the student's page would."""
        scan = self.get(projected_url[projected_url.index("/C/"):], headers={"Accept": "application/json"})
        assert scan.status_code == 200, scan.text
        return self.api("POST", "/api/v1/check-ins", {"ticket": scan.json()["ticket"]})


def into_tool_frame(browser):
    browser.switch_to.default_content()
    browser.switch_to.frame(wait_for(browser, "#tool-frame"))


def frame_location(browser):
    try:
        return browser.execute_script("return location.href")
    except WebDriverException:
        return ""  # the frame between two pages of the launch


def wait_for_frame(browser, server, pattern, timeout=PAGE_WAIT):
    """Waits inside the tool's frame until it shows a Rollcall page whose path matches `pattern`; answers the match."""
    expression = re.compile(re.escape(server.url) + pattern)
    try:
        WebDriverWait(browser, timeout).until(lambda b: expression.match(frame_location(b)))
    except TimeoutException:
        shown = browser.execute_script("return document.body ? document.body.innerText : ''")[:600]
        pytest.fail(f"the frame is not at {pattern} but at {frame_location(browser)}, showing: {shown}")
    return expression.match(frame_location(browser))


def api_in_frame(browser, method, path, body=None):
    """Rollcall's API from the page in the frame, as its own scripts call it."""
    return browser.execute_async_script("""
        const [method, path, body, done] = arguments;
        const csrf = document.querySelector('meta[name=csrf-token]').content;
        fetch(path, {method, headers: {'Content-Type': 'application/json', 'X-CSRF-Token': csrf},
                     body: body === null ? undefined : JSON.stringify(body)})
          .then(async r => done({status: r.status, body: await r.json().catch(() => null)}));
    """, method, path, body)


def wait_until(condition, timeout, message):
    """Polls `condition` until it holds or `timeout` passes; `message` (or what it makes, called then) says why not."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        if condition():
            return
        time.sleep(0.25)
    pytest.fail(message() if callable(message) else message)


def test_the_platform_follows_the_specifications_on_its_own():
    assert len(self_check()) == 7


def test_a_course_from_the_platform_its_roster_deep_linking_check_ins_and_grades(
        server, platform, browsers):
    admin = admin_token(server)
    register_platform(server, platform, admin)
    hill_physics(platform)

    # The teacher opens Rollcall in the course on the platform: it comes up in the frame, on a new Rollcall course
    # named after the platform's, with the 40 students the platform lists by NRPS.
    teacher = browsers(LAPTOP)
    teacher.get(platform.launch_page_url(CONTEXT, TEACHER, LINK))
    into_tool_frame(teacher)
    course_id = int(wait_for_frame(teacher, server, r"/courses/(\d+)", timeout=60).group(1))
    screenshot(teacher, "lti-teacher-launch", sizes=(LAPTOP,))
    login = platform.logins[0]
    assert login["state"] and login["nonce"] and login["redirect_uri"] == f"{server.url}/lti/launch"
    status, course = server.api("GET", f"/api/v1/courses/{course_id}", token=admin)
    assert status == 200 and course["course"]["name"] == TITLE, course
    status, roster = server.api("GET", f"/api/v1/courses/{course_id}/students", token=admin)
    assert status == 200, roster
    assert sorted(s["email"] for s in roster["students"]) == [student_email(n) for n in range(STUDENTS)]
    by_email = {s["email"]: s for s in roster["students"]}
    assert by_email[student_email(7)]["name"] == platform.users[student(7)]["name"]
    pages = [r for r in platform.received if r["path"].startswith(f"/contexts/{CONTEXT}/memberships")]
    assert len(pages) >= 3 and all(r["status"] == 200 for r in pages), pages
    assert "limit=" in pages[0]["path"], "Rollcall asks for pages of a size it chooses"
    assert any(SCOPE_NRPS in token["granted"] for token in platform.tokens)
    assert wait_for(teacher, "#lti-sync") and wait_for(teacher, "#lti-grades")

    # Deep linking: the teacher places "Rollcall attendance", which the platform takes only verified, with its
    # gradebook column; launching the placed link brings that column along.
    teacher.switch_to.default_content()
    teacher.get(platform.launch_page_url(CONTEXT, TEACHER, deep=True))
    into_tool_frame(teacher)
    place = wait_for(teacher, "#lti-place", timeout=60)
    screenshot(teacher, "lti-deep-linking", sizes=(LAPTOP,))
    place.click()
    WebDriverWait(teacher, PAGE_WAIT).until(lambda b: b.find_elements(By.ID, "deep-link-placed")
                                            or b.find_elements(By.ID, "deep-link-error"))
    assert not teacher.find_elements(By.ID, "deep-link-error"), teacher.find_element(By.ID, "deep-link-error").text
    assert "Rollcall attendance" in teacher.find_element(By.ID, "deep-link-placed").text
    screenshot(teacher, "lti-deep-linking-placed", sizes=(LAPTOP,))
    [placed] = platform.placed
    [link] = placed["links"]
    assert link["title"] == "Rollcall attendance" and placed["user"] == TEACHER
    # The teacher's first launch made the course's Attendance column: the placed link asks for no second one.
    assert not link.get("line_item"), link
    [column] = platform.line_items(CONTEXT)
    assert column["scoreMaximum"] == 100 and column["resourceId"] == "rollcall-attendance", column
    teacher.switch_to.default_content()
    teacher.get(platform.launch_page_url(CONTEXT, TEACHER, link["id"]))
    into_tool_frame(teacher)
    assert int(wait_for_frame(teacher, server, r"/courses/(\d+)", timeout=60).group(1)) == course_id
    launched = jwt.decode(platform.launches[-1]["id_token"], options={"verify_signature": False})
    assert launched[LTI + "resource_link"]["id"] == link["id"] and "lineitem" not in launched[AGS_CLAIM]

    # A session opens; the teacher projects its code in a tab of their own.
    opened = api_in_frame(teacher, "POST", f"/api/v1/courses/{course_id}/sessions", {"settings": {"period": 60}})
    assert opened["status"] == 201, opened
    session_id = opened["body"]["session"]["id"]
    teacher.switch_to.default_content()
    teacher.switch_to.new_window("tab")
    teacher.get(f"{server.url}/sessions/{session_id}/projector")
    WebDriverWait(teacher, 15).until(lambda b: b.find_element(By.ID, "projector-status").text == "live")
    course_tab = teacher.window_handles[0]

    # Students launch the placed link in their phones' browsers: inside the frame, onto the course, where the open
    # session waits; then they scan the projected code.
    for number in IN_BROWSERS:
        phone = browsers()
        phone.get(platform.launch_page_url(CONTEXT, student(number), link["id"]))
        into_tool_frame(phone)
        assert int(wait_for_frame(phone, server, r"/courses/(\d+)", timeout=60).group(1)) == course_id
        if number == IN_BROWSERS[0]:
            screenshot(phone, "lti-student-launch", sizes=(PHONE,))
        phone.switch_to.default_content()
        phone.get(decode_projected_code(teacher))
        assert check_in_answer(phone)[0] == "present", f"student {number}"

    # A browser that blocks third-party cookies: Rollcall in the frame cannot keep anyone signed in, so it offers
    # a window of its own, where the student is signed in and checks in.
    blocked = browsers(third_party_cookies=False)
    blocked.get(platform.launch_page_url(CONTEXT, student(BLOCKED), link["id"]))
    into_tool_frame(blocked)
    opener = wait_for(blocked, "#lti-open", timeout=60)
    screenshot(blocked, "lti-third-party-cookies-blocked", sizes=(PHONE,))
    frame_window = blocked.current_window_handle
    opener.click()
    WebDriverWait(blocked, PAGE_WAIT).until(lambda b: len(b.window_handles) == 2, "a new window")
    blocked.switch_to.window(next(h for h in blocked.window_handles if h != frame_window))
    WebDriverWait(blocked, PAGE_WAIT).until(
        lambda b: b.current_url.startswith(f"{server.url}/courses/{course_id}"), "signed in, in the window")
    me = blocked.execute_async_script(
        "const done = arguments[0]; fetch('/api/v1/me').then(r => r.json()).then(done, () => done(null))")
    assert me and me["user"]["email"] == student_email(BLOCKED), me
    blocked.get(decode_projected_code(teacher))
    assert check_in_answer(blocked)[0] == "present"

    # The rest launch without a screen; every other one checks in, the others stay away.
    def launch_and_maybe_check_in(number):
        person = Person(server, platform)
        answer = person.launch(student(number), link=link["id"])
        assert answer.status_code in (302, 303), (number, answer.status_code, answer.text[:300])
        assert (person.me() or {}).get("email") == student_email(number), number
        if number % 2 == 0:
            url = server.api("GET", f"/api/v1/sessions/{session_id}/projector", token=admin)[1]["url"]
            status, body = person.check_in(url)
            assert status == 201, (number, body)
        return number

    with ThreadPoolExecutor(4) as pool:
        list(pool.map(launch_and_maybe_check_in, range(BLOCKED + 1, STUDENTS)))
    present = set(IN_BROWSERS) | {BLOCKED} | {n for n in range(BLOCKED + 1, STUDENTS) if n % 2 == 0}
    WebDriverWait(teacher, 20).until(lambda b: b.find_element(By.ID, "projector-count").text == str(len(present)))

    # The platform goes down just as the teacher closes the session: Rollcall's first tries fail, and with the
    # platform back, its own retry brings every student's score, once, to the column the deep link made.
    platform.down = True
    teacher.switch_to.window(course_tab)
    into_tool_frame(teacher)
    closed = api_in_frame(teacher, "POST", f"/api/v1/sessions/{session_id}/close")
    assert closed["status"] == 200, closed
    wait_until(lambda: platform.unavailable, 30, "Rollcall did not try the platform while it was down")
    platform.down = False
    everyone = {student(number) for number in range(STUDENTS)}

    def scored():
        return {score["userId"] for score in platform.scores(column["id"])}

    wait_until(lambda: everyone <= scored(), GRADES_WAIT, lambda: f"scores missing for {sorted(everyone - scored())}")
    assert scored() == everyone, f"scores for people who are no students: {scored() - everyone}"
    assert all(s["lineItem"] == column["id"] for s in platform.scores()), "a score went to another column"
    grades = {}
    for number in range(STUDENTS):
        scores = platform.scores(column["id"], student(number))
        assert len(scores) == 1, scores
        rollcall_id = by_email[student_email(number)]["id"]
        status, record = server.api("GET", f"/api/v1/courses/{course_id}/students/{rollcall_id}/attendance", token=admin)
        assert status == 200, record
        grades[number] = record["courseGrade"]["value"]
        assert record["summary"]["grade"] == grades[number] == (100 if number in present else 0), (number, record)
        assert scores[0]["scoreGiven"] == pytest.approx(grades[number]) and scores[0]["scoreMaximum"] == 100, scores
        assert scores[0]["gradingProgress"] == "FullyGraded", scores
        # The column is bound to the placed link, so the platform shows the learner the grade.
        assert platform.learner_gradebook(CONTEXT, student(number)) == {column["id"]: scores[0]["scoreGiven"]}
    assert any(SCOPE_SCORE in token["granted"] for token in platform.tokens)
    assert platform.refusals == [], platform.refusals

    # "Send grades now" sends every grade again at once: one more score each, newer than the first.
    wait_for(teacher, "#lti-grades").click()
    wait_until(lambda: len(platform.scores(column["id"])) >= 2 * STUDENTS, PAGE_WAIT, "the grades sent again")
    screenshot(teacher, "lti-grades-sent", sizes=(LAPTOP,))
    for number in range(STUDENTS):
        first, again = platform.scores(column["id"], student(number))
        assert again["scoreGiven"] == pytest.approx(grades[number]), again
        assert iso_time(again["timestamp"]) > iso_time(first["timestamp"]), (first, again)
    assert platform.refusals == [], platform.refusals

    # A late enrolment on the platform reaches the roster when the teacher syncs it.
    platform.add_user("student-late", "Lena Late", "late@hill.test")
    platform.enroll(CONTEXT, "student-late", LEARNER)
    wait_for(teacher, "#lti-sync").click()

    def roster_emails():
        return {s["email"] for s in server.api("GET", f"/api/v1/courses/{course_id}/students", token=admin)[1]["students"]}

    wait_until(lambda: "late@hill.test" in roster_emails(), PAGE_WAIT, "the synced roster lacks the late student")
    assert platform.refusals == [], platform.refusals


def test_rollcall_refuses_launches_not_signed_and_made_as_the_specification_says(server, platform):
    admin = admin_token(server)
    register_platform(server, platform, admin)
    hill_physics(platform, students=1)
    # The teacher's launch links the course; a student's launch before that finds no course to land on.
    assert Person(server, platform).launch(TEACHER).status_code in (302, 303)

    def attempt(id_token_changes, use_nonce=True):
        """A real login, then a launch with an id_token made by the platform with `id_token_changes`; answers
        Rollcall's answer and whether the browser ended signed in."""
        person = Person(server, platform)
        location, asked = person.log_in(student(0))
        changes = dict(id_token_changes)
        token = platform.id_token(student(0), CONTEXT, LINK, nonce=asked["nonce"] if use_nonce else None, **changes)
        answer = person.call("POST", asked["redirect_uri"], data={"id_token": token, "state": asked["state"]})
        return answer, person.me() is not None

    answer, signed_in = attempt({})
    assert answer.status_code in (302, 303) and signed_in, (answer.status_code, answer.text[:300])

    now = int(time.time())
    refused = {
        "signed with another key": {"key": rsa_private_pem()},
        "no kid": {"kid": None},
        "a kid the platform does not publish": {"kid": "not-a-platform-key"},
        "another issuer": {"iss": "https://elsewhere.test"},
        "another audience": {"aud": "someone-else", "azp": "someone-else"},
        "expired": {"exp": now - 600, "iat": now - 900},
        "issued in the future": {"iat": now + 3600, "exp": now + 3900},
        "version 1.2.0": {"version": "1.2.0"},
        "an unknown message type": {"message_type": "LtiSomethingElse"},
        "no deployment_id": {"drop": ["deployment_id"]},
        "an unregistered deployment": {"deployment_id": "hill-deployment-2"},
        "no roles claim": {"drop": ["roles"]},
        "no resource_link": {"drop": ["resource_link"]},
    }
    accepted = []
    for case, changes in refused.items():
        answer, signed_in = attempt(changes)
        if answer.status_code < 400 or signed_in:
            accepted.append(f"{case}: {answer.status_code}, signed in: {signed_in}")
    answer, signed_in = attempt({}, use_nonce=False)
    if answer.status_code < 400 or signed_in:
        accepted.append(f"a nonce Rollcall never sent: {answer.status_code}, signed in: {signed_in}")

    # The same launch twice (a replayed form): the second is refused.
    person = Person(server, platform)
    location, asked = person.log_in(student(0))
    action, fields = auto_posted(person.call("GET", location).text)
    first = person.call("POST", action, data=fields)
    assert first.status_code in (302, 303), first.text[:300]
    replay = Person(server, platform)
    replay.cookies = {name: value for name, value in person.cookies.items() if name == "rollcall_lti"}
    again = replay.call("POST", action, data=fields)
    if again.status_code < 400:
        accepted.append(f"a replayed launch: {again.status_code}")
    assert accepted == [], "Rollcall accepted launches it must refuse:\n" + "\n".join(accepted)


def test_scores_reach_a_platform_that_was_down_from_the_first_launch_until_after_the_session(server, platform):
    """The platform's services are down when the teacher first launches Rollcall (no roster, no gradebook column
    yet) and stay down until the session has ended. Once they are back, Rollcall's own retries must make or find
    its column and bring the scores, without anyone pressing "Send grades now"."""
    admin = admin_token(server)
    register_platform(server, platform, admin)
    hill_physics(platform, students=3)
    platform.down = True
    teacher = Person(server, platform)
    landed = teacher.launch(TEACHER)
    assert landed.status_code in (302, 303), landed.text[:300]
    course_id = int(re.search(r"/courses/(\d+)", landed.headers["Location"]).group(1))
    # With no roster from the platform, each student arrives by launching.
    students = [Person(server, platform) for _ in range(3)]
    for number, person in enumerate(students):
        assert person.launch(student(number)).status_code in (302, 303)
    status, opened = teacher.api("POST", f"/api/v1/courses/{course_id}/sessions", {"settings": {"period": 60}})
    assert status == 201, opened
    session_id = opened["session"]["id"]
    url = server.api("GET", f"/api/v1/sessions/{session_id}/projector", token=admin)[1]["url"]
    assert students[0].check_in(url)[0] == 201
    status, closed = teacher.api("POST", f"/api/v1/sessions/{session_id}/close")
    assert status == 200, closed
    tried = len(platform.unavailable)
    wait_until(lambda: len(platform.unavailable) > tried, 30, "Rollcall did not try the platform after the session")
    platform.down = False
    everyone = {student(number) for number in range(3)}

    def scored():
        return {score["userId"]: score["scoreGiven"] for score in platform.scores()}

    wait_until(lambda: set(scored()) >= everyone, GRADES_WAIT, lambda: (
        f"scores missing for {sorted(everyone - set(scored()))}; the platform received "
        f"{[r for r in platform.received if '/lineitems' in r['path'] or r['path'].startswith('/token')]}"))
    assert scored() == {student(0): 100, student(1): 0, student(2): 0}
    [column] = platform.line_items(CONTEXT)
    assert column["scoreMaximum"] == 100 and {s["lineItem"] for s in platform.scores()} == {column["id"]}
    assert platform.refusals == [], platform.refusals


def test_a_teacher_with_an_account_links_it_and_picks_their_course(server, platform, browsers):
    """Ines used Rollcall before the school added it to the platform: an account with the address the platform gives,
    and a course. Her first launch asks her to sign in to link the two (never by the address alone), then which of her
    courses this platform course is; she picks last year's, and the platform's roster comes into it."""
    register_platform(server, platform, admin_token(server))
    hill_physics(platform, students=3)
    status, _ = server.api("POST", "/api/v1/auth/register", {
        "name": "Ines Ortega", "email": "ines@hill.test", "password": PASSWORD, "role": "teacher"})
    assert status == 201
    status, signed = server.api("POST", "/api/v1/auth/tokens", {"email": "ines@hill.test", "password": PASSWORD})
    status, made = server.api("POST", "/api/v1/courses", {"name": "Physics 2 (last year)"}, signed["token"])
    assert status == 201, made
    course_id = made["course"]["id"]

    ines = browsers(LAPTOP)
    ines.get(platform.launch_page_url(CONTEXT, TEACHER, LINK, top=True))
    WebDriverWait(ines, PAGE_WAIT).until(lambda b: "/lti/link" in b.current_url)
    wait_for(ines, "#lti-link-sign-in").click()
    wait_for(ines, "input[name=password]")
    ines.find_element(By.NAME, "email").send_keys("ines@hill.test")
    ines.find_element(By.NAME, "password").send_keys(PASSWORD)
    ines.find_element(By.NAME, "password").submit()
    wait_for(ines, "#lti-link-yes").click()
    wait_for(ines, "#lti-course-form")
    screenshot(ines, "lti-course-choice", sizes=(LAPTOP,))
    ines.find_element(By.CSS_SELECTOR, f"input[name=courseId][value='{course_id}']").click()
    ines.find_element(By.ID, "lti-course-link").click()
    WebDriverWait(ines, PAGE_WAIT).until(lambda b: b.current_url.endswith(f"/courses/{course_id}"))
    status, roster = server.api("GET", f"/api/v1/courses/{course_id}/students", token=signed["token"])
    assert status == 200 and len(roster["students"]) == 3, roster
    # From now on her launches open her course directly.
    again = Person(server, platform).launch(TEACHER)
    assert again.headers["Location"] == f"/courses/{course_id}", again.text[:300]
