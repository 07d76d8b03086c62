"""A term's timetable as a teacher sets it up: two weekly classes number their sessions in one sequence, a
timetable set up mid-term starts from today unless asked for the weeks past, and a refused field is marked, named
and given the focus."""

import datetime

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from conftest import LAPTOP, PHONE, screenshot, wait_for, wait_for_path
from test_check_in import account, sign_in


def course_page(server, browsers, size=LAPTOP):
    """A teacher on the page of a course in UTC, and the course's id and the teacher's token."""
    token = account(server, "Tia Timetable", "tia@school.test", role="teacher")
    _, course = server.api("POST", "/api/v1/courses", {"name": "Histoire", "timeZone": "UTC"}, token=token)
    course_id = course["course"]["id"]
    browser = browsers(size)
    browser.get(f"{server.url}/sign-in?next=/courses/{course_id}")
    sign_in(browser, server, "tia@school.test", then=True)
    wait_for_path(browser, f"/courses/{course_id}")
    return browser, course_id, token


def fill_weekly_class(browser, weekday, start, end, past_weeks=False):
    form = wait_for(browser, "#timetable-form")
    title = form.find_element(By.NAME, "title")
    title.clear()
    title.send_keys("Cours")
    form.find_element(By.CSS_SELECTOR, f'select[name="weekday"] option[value="{weekday}"]').click()
    for name, value in (("time", "08:15"), ("from", start.isoformat()), ("until", end.isoformat())):
        browser.execute_script("arguments[0].value = arguments[1]", form.find_element(By.NAME, name), value)
    box = form.find_element(By.NAME, "pastWeeks")
    if box.is_selected() != past_weeks:
        browser.execute_script("arguments[0].click()", box)
    browser.execute_script("arguments[0].click()", form.find_element(By.CSS_SELECTOR, "button[type=submit]"))
    return form


def slots_shown(browser, count):
    WebDriverWait(browser, 15).until(
        lambda b: len(b.find_elements(By.CSS_SELECTOR, "#timetable-slots > li")) == count)


def sessions(server, course_id, token):
    _, listed = server.api("GET", f"/api/v1/courses/{course_id}/sessions", token=token)
    return sorted(listed["sessions"], key=lambda session: session["scheduledAt"])


def test_two_weekly_classes_number_their_sessions_in_one_sequence(server, browsers):
    browser, course_id, token = course_page(server, browsers)
    monday = datetime.date(2030, 9, 2)
    fill_weekly_class(browser, 2, monday, monday + datetime.timedelta(days=27))
    slots_shown(browser, 1)
    fill_weekly_class(browser, 4, monday, monday + datetime.timedelta(days=27))
    slots_shown(browser, 2)

    titles = [session["title"] for session in sessions(server, course_id, token)]
    assert titles == [f"Cours {number}" for number in range(1, 9)], titles
    # On the page, each title once: no two "Cours 3" side by side.
    shown = [link.get_attribute("textContent").strip() for link in browser.find_elements(
        By.CSS_SELECTOR, "#session-list > li > a, #later-sessions li > a")]
    assert sorted(shown) == sorted(titles), shown
    browser.execute_script("document.getElementById('session-list').scrollIntoView()")
    screenshot(browser, "timetable-one-sequence", sizes=(PHONE, LAPTOP))


def test_a_timetable_set_up_mid_term_starts_from_today_unless_asked(server, browsers):
    browser, course_id, token = course_page(server, browsers)
    today = datetime.datetime.now(datetime.timezone.utc).date()
    term_start = today - datetime.timedelta(days=8 * 7)
    term_end = today + datetime.timedelta(days=8 * 7)

    # The form asks, and leaves the past weeks out unless ticked.
    form = wait_for(browser, "#timetable-form")
    box = form.find_element(By.NAME, "pastWeeks")
    assert not box.is_selected()
    assert "weeks already past" in box.find_element(By.XPATH, "ancestor::label").text
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", box)
    screenshot(browser, "timetable-past-weeks", sizes=(PHONE, LAPTOP), dark=True)
    fill_weekly_class(browser, 3, term_start, term_end)
    slots_shown(browser, 1)
    now = datetime.datetime.now(datetime.timezone.utc).isoformat()
    scheduled = sessions(server, course_id, token)
    assert scheduled and all(session["scheduledAt"] > now[:10] for session in scheduled), scheduled
    assert len(scheduled) in (8, 9), len(scheduled)

    # Ticked, the eight weeks past come too, as sessions not held.
    fill_weekly_class(browser, 5, term_start, term_end, past_weeks=True)
    slots_shown(browser, 2)
    fridays = [session for session in sessions(server, course_id, token) if "T08:15" in session["scheduledAt"]
               and datetime.date.fromisoformat(session["scheduledAt"][:10]).isoweekday() == 5]
    assert len(fridays) in (16, 17), len(fridays)
    assert sum(session["scheduledAt"] < now for session in fridays) == 8


def test_a_refused_field_is_marked_described_and_focused(server, browsers):
    browser, course_id, token = course_page(server, browsers, PHONE)
    start = datetime.date(2030, 9, 2)
    form = fill_weekly_class(browser, 2, start, start - datetime.timedelta(days=7))
    error = form.find_element(By.CSS_SELECTOR, ".form-error")
    WebDriverWait(browser, 15).until(lambda _: error.is_displayed())
    assert "end after it starts" in error.text
    until = form.find_element(By.NAME, "until")
    assert until.get_attribute("aria-invalid") == "true"
    assert error.get_attribute("id") and error.get_attribute("id") in until.get_attribute("aria-describedby").split()
    assert browser.switch_to.active_element == until
    assert form.find_element(By.NAME, "from").get_attribute("aria-invalid") is None
    screenshot(browser, "timetable-field-error", sizes=(PHONE, LAPTOP), dark=True)
    assert sessions(server, course_id, token) == []

    # Corrected and sent again, the mark goes.
    browser.execute_script(
        "arguments[0].value = arguments[1]", until, (start + datetime.timedelta(days=7)).isoformat())
    browser.execute_script("arguments[0].click()", form.find_element(By.CSS_SELECTOR, "button[type=submit]"))
    slots_shown(browser, 1)
