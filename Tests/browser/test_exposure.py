"""An exposure report as a health officer runs it: granted by the admin, run for a student across three sessions
with known overlaps, every contact and minute checked; the student sees that a report was made."""

import sqlite3
import subprocess
import time
from pathlib import Path

from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from conftest import LAPTOP, PHONE, screenshot, server_binary, wait_for, wait_for_path
from test_check_in import PASSWORD, account, sign_in

DAY = 86_400


def make_admin(server):
    subprocess.run(
        [str(server_binary()), "create-admin", "--data-dir", server.data_dir, "--name", "Ada Admin",
         "--email", "ada@school.test", "--password", PASSWORD],
        check=True, capture_output=True,
    )


def me(server, token):
    _, body = server.api("GET", "/api/v1/me", token=token)
    return body["user"]["id"]


def three_sessions(server):
    """Pat's course with three past sessions, placed at known moments with known check-ins, straight in the file.

    Cells (B204, 60 min): Pat at 5, Ann at 0 (55 shared), Ben at 20 (40).
    Genes (no room, 50 min): Pat marked present by hand (from the opening), Ann at 10 (40), Cy late at 30 (20),
      Dee absent (not a contact).
    Lab (Lab 3, 90 min): Pat at 0, Ben late at 45 (45).
    """
    teacher = account(server, "Tom Teacher", "tom@school.test", role="teacher")
    _, course = server.api("POST", "/api/v1/courses", {"name": "Biology 101"}, token=teacher)
    ids = {}
    for name in ("Pat Person", "Ann Able", "Ben Baker", "Cy Cole", "Dee Dunn"):
        token = account(server, name, name.split()[0].lower() + "@school.test")
        server.api("POST", "/api/v1/courses/join", {"code": course["course"]["joinCode"]}, token=token)
        ids[name.split()[0]] = me(server, token)
    sessions = []
    for title, room in (("Cells", "B204"), ("Genes", None), ("Lab", "Lab 3")):
        settings = {"room": room} if room else {}
        status, created = server.api(
            "POST", f"/api/v1/courses/{course['course']['id']}/sessions", {"title": title, "settings": settings}, token=teacher)
        assert status == 201, created
        sessions.append(created["session"]["id"])
        server.api("POST", f"/api/v1/sessions/{created['session']['id']}/close", token=teacher)
    now = time.time()
    plan = [
        (sessions[0], now - 10 * DAY, 60, [("Pat", "present", "qr", 5), ("Ann", "present", "qr", 0), ("Ben", "present", "typed", 20)]),
        (sessions[1], now - 6 * DAY, 50, [("Pat", "present", "manual", 49), ("Ann", "present", "spot", 10), ("Cy", "late", "qr", 30), ("Dee", "absent", "manual", 0)]),
        (sessions[2], now - 2 * DAY, 90, [("Pat", "present", "qr", 0), ("Ben", "late", "api", 45)]),
    ]
    with sqlite3.connect(Path(server.data_dir) / "rollcall.sqlite", timeout=10) as db:
        for session, opened, minutes, records in plan:
            end = opened + minutes * 60
            db.execute("UPDATE sessions SET opened_at = ?, closes_at = ?, closed_at = ? WHERE id = ?", (opened, end, end, session))
            db.execute("DELETE FROM attendance WHERE session_id = ?", (session,))
            for who, status, source, at in records:
                db.execute(
                    "INSERT INTO attendance (session_id, student_id, status, recorded_at, source) VALUES (?, ?, ?, ?, ?)",
                    (session, ids[who], status, opened + at * 60, source))
    return ids, sessions


def test_a_health_officer_runs_a_report_with_every_contact_and_minute(server, browsers):
    make_admin(server)
    account(server, "Hana Health", "hana@school.test", role="teacher")
    ids, sessions = three_sessions(server)

    admin = browsers(LAPTOP)
    admin.get(f"{server.url}/sign-in?next=/admin")
    sign_in(admin, server, "ada@school.test", then=True)
    wait_for_path(admin, "/admin")
    row = next(r for r in admin.find_elements(By.CSS_SELECTOR, "#users-table tbody tr") if "hana@school.test" in r.text)
    row.find_element(By.CSS_SELECTOR, ".grant-officer button").click()
    # The role shows whom people sat beside: the page asks first, and the change is on record.
    question = admin.switch_to.alert
    assert question.text.startswith("Make Hana Health a health officer?")
    question.accept()
    WebDriverWait(admin, 15, ignored_exceptions=[StaleElementReferenceException]).until(
        lambda b: "Ada Admin made Hana Health a health officer" in b.find_element(By.ID, "account-changes").text)
    WebDriverWait(admin, 15, ignored_exceptions=[StaleElementReferenceException]).until(
        lambda b: any("hana@school.test" in r.text and "HEALTH OFFICER" in r.text.upper()
                      for r in b.find_elements(By.CSS_SELECTOR, "#users-table tbody tr")))

    officer = browsers(LAPTOP)
    officer.get(f"{server.url}/sign-in?next=/exposure")
    sign_in(officer, server, "hana@school.test", then=True)
    form = wait_for(officer, "#exposure-form")
    screenshot(officer, "exposure-form")
    form.find_element(By.NAME, "person").send_keys("pat@school.test")
    form.find_element(By.NAME, "reason").send_keys("Positive test reported on Monday")
    form.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    wait_for_path(officer, "/exposure/reports/")
    contacts = wait_for(officer, "#contacts")
    ranked = [
        (r.find_element(By.CSS_SELECTOR, ".name").text, r.find_element(By.CSS_SELECTOR, ".minutes").text,
         r.find_element(By.CSS_SELECTOR, ".sessions").text)
        for r in contacts.find_elements(By.CSS_SELECTOR, "tbody tr")
    ]
    assert ranked == [("Ann Able", "95", "2"), ("Ben Baker", "85", "2"), ("Cy Cole", "20", "1")]
    assert officer.find_element(By.ID, "contact-total").text == "3 contacts, 3 of them for 15 minutes or more"

    # At a lecture hall's size the contacts are found by name or kept above some minutes, sessions too.
    least = officer.find_element(By.ID, "contact-minutes")
    least.clear()
    least.send_keys("50")
    WebDriverWait(officer, 10).until(lambda b: b.find_element(By.ID, "contacts-shown").text == "2 of 3 shown")
    least.clear()
    least.send_keys("0")
    officer.find_element(By.ID, "contact-search").send_keys("cy")
    WebDriverWait(officer, 10).until(lambda b: b.find_element(By.ID, "contacts-shown").text == "1 of 3 shown")
    visible = [r.text for r in contacts.find_elements(By.CSS_SELECTOR, "tbody tr") if r.is_displayed()]
    assert len(visible) == 1 and "Cy Cole" in visible[0]
    officer.find_element(By.ID, "contact-search").clear()
    officer.execute_script("document.getElementById('contact-search').dispatchEvent(new Event('input'))")

    def session_contacts(session):
        article = officer.find_element(By.CSS_SELECTOR, f'.exposure-session[data-session="{session}"]')
        if article.get_attribute("open") is None:
            article.find_element(By.TAG_NAME, "summary").click()
        rows = article.find_elements(By.CSS_SELECTOR, "tbody tr")
        shared = {r.find_element(By.CSS_SELECTOR, ".name").text: int(r.find_element(By.CSS_SELECTOR, ".minutes").text) for r in rows}
        return article.find_element(By.CSS_SELECTOR, ".room").text, shared

    assert session_contacts(sessions[0]) == ("B204", {"Ann Able": 55, "Ben Baker": 40})
    assert session_contacts(sessions[1]) == ("—", {"Ann Able": 40, "Cy Cole": 20})
    assert session_contacts(sessions[2]) == ("Lab 3", {"Ben Baker": 45})
    assert "Dee Dunn" not in officer.find_element(By.ID, "sessions").text, "absent is not a contact"
    assert "did not check in" in officer.find_element(By.ID, "report-method").text
    assert "Positive test reported on Monday" in officer.find_element(By.ID, "report-facts").text
    assert officer.find_element(By.ID, "report-csv").get_attribute("href").endswith("/report.csv")
    screenshot(officer, "exposure-report")

    # The admin sees the audit; Pat sees that a report was made, not what it found.
    admin.get(f"{server.url}/admin")
    audit = wait_for(admin, "#exposure-audit")
    assert "Hana Health" in audit.text and "Pat Person" in audit.text and "Positive test" in audit.text
    pat = browsers(PHONE)
    pat.get(f"{server.url}/sign-in?next=/profile")
    sign_in(pat, server, "pat@school.test", then=True)
    notices = wait_for(pat, "#my-privacy")
    assert "A health officer made an exposure report about you" in notices.text
    assert "Ann" not in notices.text and "Positive" not in notices.text
    pat.find_element(By.LINK_TEXT, "privacy page").click()
    kept = wait_for(pat, "#privacy-kept")
    assert "30 days, then deleted" in kept.text
    screenshot(pat, "privacy")
