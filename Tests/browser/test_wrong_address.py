"""A teacher who opens the projector or the live room at another address than ROLLCALL_PUBLIC_URL (127.0.0.1 for
localhost, a LAN address) has the live socket refused by the origin check. The page says so and links the public
address, instead of "reconnecting…" forever."""

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from conftest import LAPTOP, PHONE, screenshot, wait_for
from test_check_in import account, sign_in


def wrong_address_url(server, path):
    return server.url.replace("://localhost:", "://127.0.0.1:") + path


def test_the_projector_and_the_room_at_another_address_say_which_to_open(server, browsers):
    teacher = account(server, "Pia Projector", "pia@school.test", role="teacher")
    _, course = server.api("POST", "/api/v1/courses", {"name": "Astronomie"}, token=teacher)
    _, created = server.api(
        "POST", f"/api/v1/courses/{course['course']['id']}/sessions", {"title": "Cours 3"}, token=teacher)
    session_id = created["session"]["id"]

    browser = browsers(LAPTOP, language="fr")
    # Signed in at the wrong address: its cookie is that host's, as a teacher who typed 127.0.0.1 would have it.
    browser.get(wrong_address_url(server, f"/sign-in?next=/sessions/{session_id}/projector"))
    sign_in(browser, server, "pia@school.test", then=True)
    notice = wait_for(browser, "#wrong-address")
    assert "127.0.0.1" in notice.text and server.url in notice.text, notice.text
    link = notice.find_element(By.CSS_SELECTOR, "a")
    assert link.get_attribute("href") == f"{server.url}/sessions/{session_id}/projector"
    assert "Ouvrir" in link.text
    assert browser.find_element(By.ID, "projector-status").text == "non connecté"
    screenshot(browser, "projector-wrong-address", sizes=(LAPTOP, (1920, 1080)), dark=True)

    browser.get(wrong_address_url(server, f"/sessions/{session_id}"))
    notice = wait_for(browser, "#wrong-address")
    assert notice.find_element(By.CSS_SELECTOR, "a").get_attribute("href") == f"{server.url}/sessions/{session_id}"
    browser.set_window_size(*PHONE)
    screenshot(browser, "room-wrong-address", dark=True)

    # At the public address nothing is said, and the room goes live.
    right = browsers(PHONE, language="fr")
    right.get(f"{server.url}/sign-in?next=/sessions/{session_id}")
    sign_in(right, server, "pia@school.test", then=True)
    WebDriverWait(right, 20).until(lambda b: b.find_element(By.ID, "live-status").text == "en direct")
    assert not right.find_elements(By.ID, "wrong-address")
