"""The projector from the back row, at 1920×1080: the count and the typed code large enough to read from 15 m, the
join code for newcomers, a typed-only screen with the code in the middle, and a stale code taken down while the
server cannot be reached, back by itself when it can."""

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from conftest import screenshot, wait_for, wait_for_path
from test_check_in import account, decode_projected_code, sign_in

SCREEN = (1920, 1080)


def pixels(browser, css, prop="font-size"):
    return float(browser.find_element(By.CSS_SELECTOR, css).value_of_css_property(prop).removesuffix("px"))


def inner_height(browser):
    return browser.execute_script("return window.innerHeight")


def open_projector(server, browsers, session_id):
    projector = browsers(SCREEN)
    projector.get(f"{server.url}/sign-in?next=/sessions/{session_id}/projector")
    sign_in(projector, server, "pia@school.test", then=True)
    wait_for_path(projector, f"/sessions/{session_id}/projector")
    WebDriverWait(projector, 15).until(lambda b: b.find_element(By.ID, "projector-status").text == "live")
    return projector


def test_the_projector_reads_from_the_back_row_and_takes_a_stale_code_down(server, browsers):
    teacher = account(server, "Pia Projector", "pia@school.test", role="teacher")
    _, course = server.api("POST", "/api/v1/courses", {"name": "Astronomy for Everyone"}, token=teacher)
    course_id = course["course"]["id"]
    join_code = course["course"]["joinCode"]
    _, created = server.api(
        "POST", f"/api/v1/courses/{course_id}/sessions",
        {"title": "Lecture 3: the Moon", "settings": {"allowTyping": True, "period": 5}}, token=teacher)
    session_id = created["session"]["id"]
    _, frame = server.api("GET", f"/api/v1/sessions/{session_id}/projector", token=teacher)
    assert frame["typedNextChangeIn"] <= 30_000 < frame["typedNextChangeIn"] + 25_000, "the typed code has its own 30 s"

    projector = open_projector(server, browsers, session_id)
    height = inner_height(projector)
    wait_for(projector, "#projector-typed-wrap")
    assert pixels(projector, "#projector-count") >= 0.06 * height
    assert pixels(projector, "#projector-typed") >= 0.08 * height
    assert join_code in projector.find_element(By.ID, "projector-join").text
    assert pixels(projector, "#projector-join strong") >= 0.06 * height, "the join code reads from the back"
    assert projector.find_element(By.ID, "projector-fullscreen").is_displayed()
    # With the typed code and the join code below it, the QR code still fits the screen and reads.
    qr = projector.find_element(By.ID, "projector-qr").rect
    assert qr["y"] + qr["height"] <= height and qr["height"] >= 0.45 * height
    assert "/C/" in decode_projected_code(projector)
    screenshot(projector, "projector-typed-and-join", sizes=(SCREEN,))

    # The server goes away: the code on screen is refused once its period is over, so it comes down.
    server.stop()
    WebDriverWait(projector, 20).until(lambda b: b.find_element(By.ID, "projector-message").text == "Reconnecting…")
    assert not projector.find_element(By.ID, "projector-qr").is_displayed()
    assert not projector.find_element(By.ID, "projector-typed-wrap").is_displayed(), "the typed code is stale too"
    assert pixels(projector, "#projector-message") >= 0.08 * height
    screenshot(projector, "projector-reconnecting", sizes=(SCREEN,))
    server.restart()
    WebDriverWait(projector, 30).until(lambda b: b.find_element(By.ID, "projector-status").text == "live")
    WebDriverWait(projector, 15).until(lambda b: b.find_element(By.ID, "projector-qr").is_displayed())
    assert "/C/" in decode_projected_code(projector)

    # Typed only: the code is the centre of the screen, on one line, and nothing speaks of scanning.
    _, typed = server.api(
        "POST", f"/api/v1/courses/{course_id}/sessions", {"title": "Field trip", "settings": {"mode": "typed"}},
        token=teacher)
    projector.get(f"{server.url}/sessions/{typed['session']['id']}/projector")
    big = wait_for(projector, "#projector-typed-big")
    assert len(big.text.replace(" ", "")) == 6 and big.rect["height"] < 0.3 * height, "one line"
    assert pixels(projector, "#projector-typed-big") >= 0.15 * height
    assert "scan" not in projector.find_element(By.CSS_SELECTOR, ".projector-foot").text.lower()
    assert not projector.find_element(By.ID, "projector-typed-wrap").is_displayed()
    screenshot(projector, "projector-typed-only", sizes=(SCREEN,))
