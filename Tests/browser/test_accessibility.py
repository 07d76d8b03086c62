"""Accessibility that can be checked without a person: the palette's contrast (WCAG 2.2 AA, 4.5:1 for text) in light
and dark, and the keyboard's way past the navigation and past a room of students."""

import re

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

from conftest import LAPTOP, ROOT, wait_for, wait_for_path
from test_check_in import account, sign_in

CSS = ROOT / "Sources" / "RollcallWords" / "Resources" / "static" / "app.css"


def palettes():
    """The custom properties of the light palette and of the dark one, as app.css declares them."""
    text = CSS.read_text()
    light = dict(re.findall(r"--([\w-]+):\s*(#[0-9a-f]{6})", text[text.index(":root {"):text.index("@media (prefers-color-scheme: dark)")]))
    dark_block = text[text.index("@media (prefers-color-scheme: dark)"):]
    dark = {**light, **dict(re.findall(r"--([\w-]+):\s*(#[0-9a-f]{6})", dark_block[:dark_block.index("}\n}")]))}
    return {"light": light, "dark": dark}


def luminance(colour):
    channels = [int(colour[i:i + 2], 16) / 255 for i in (1, 3, 5)]
    r, g, b = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a, b):
    high, low = sorted([luminance(a), luminance(b)], reverse=True)
    return (high + 0.05) / (low + 0.05)


def mix(colour, base, share):
    """`color-mix(in srgb, colour share, base)`, as the room's tinted rows are drawn."""
    parts = [round(int(colour[i:i + 2], 16) * share + int(base[i:i + 2], 16) * (1 - share)) for i in (1, 3, 5)]
    return "#" + "".join(f"{part:02x}" for part in parts)


def test_every_text_colour_reads_at_4_5_to_1_in_light_and_dark():
    failures = []
    for scheme, colours in palettes().items():
        backgrounds = {"page": colours["bg"], "card": colours["surface"]}
        # The room's rows: tinted 7 % by their status, an absent row 14 % by the danger colour.
        for state in ("ok", "warn", "accent", "danger"):
            backgrounds[f"{state} row"] = mix(colours[state], colours["surface"], 0.07)
        backgrounds["absent row"] = mix(colours["danger"], colours["surface"], 0.14)
        for text in ("text", "muted", "accent", "danger", "ok", "warn"):
            for where, background in backgrounds.items():
                ratio = contrast(colours[text], background)
                if ratio < 4.5:
                    failures.append(f"{scheme}: {text} on {where} is {ratio:.2f}:1")
        # Pills, buttons and the grid's cells: text on a status colour.
        for state in ("ok", "warn", "danger", "muted"):
            ratio = contrast(colours["on-state"], colours[state])
            if ratio < 4.5:
                failures.append(f"{scheme}: on-state on {state} is {ratio:.2f}:1")
        if contrast(colours["accent-text"], colours["accent"]) < 4.5:
            failures.append(f"{scheme}: accent-text on accent")
        # Parts of controls read at 3:1 (WCAG 1.4.11): a field's edge, and the focus ring in the accent colour, on the
        # card and on the page.
        for part in ("field-border", "accent"):
            for where in ("bg", "surface"):
                ratio = contrast(colours[part], colours[where])
                if ratio < 3:
                    failures.append(f"{scheme}: {part} on {where} is {ratio:.2f}:1 (3:1 for controls)")
    assert not failures, "\n".join(failures)


def test_the_keyboard_skips_the_navigation_and_a_room_of_students(server, browsers):
    teacher = account(server, "Kim Keys", "kim@school.test", "teacher")
    _, course = server.api("POST", "/api/v1/courses", {"name": "Typing"}, teacher)
    _, session = server.api("POST", f"/api/v1/courses/{course['course']['id']}/sessions", {}, teacher)
    browser = browsers(LAPTOP)
    sign_in(browser, server, "kim@school.test")
    wait_for_path(browser, "/courses")

    # The first Tab lands on "Skip to the content", shown while it has the focus; Enter goes to the content.
    browser.find_element(By.TAG_NAME, "body").send_keys(Keys.TAB)
    focused = browser.switch_to.active_element
    assert focused.text == "Skip to the content" and focused.is_displayed()
    focused.send_keys(Keys.ENTER)
    WebDriverWait(browser, 5).until(lambda b: b.current_url.endswith("#main"))

    # In the room, one link passes the whole list of students.
    browser.get(f"{server.url}/sessions/{session['session']['id']}")
    wait_for(browser, "#room")
    skip = browser.find_element(By.CSS_SELECTOR, '#room a.skip-link[href="#after-room"]')
    browser.execute_script("arguments[0].focus()", skip)
    browser.switch_to.active_element.send_keys(Keys.ENTER)
    WebDriverWait(browser, 5).until(lambda b: b.switch_to.active_element.get_attribute("id") == "after-room")


def test_the_room_announces_its_count_politely_once_a_burst_is_over_and_the_projector_bar_keeps_still(server, browsers):
    from test_live import course_with_students, open_dashboard
    from test_proximity import check_in

    names = [f"Student {letter}" for letter in "ABCDE"]
    teacher, session_id, students = course_with_students(server, names)
    browser = browsers(LAPTOP)
    sign_in(browser, server, "theo@school.test")
    wait_for_path(browser, "/courses")
    open_dashboard(browser, server, session_id)
    announcer = browser.find_element(By.ID, "room-announce")
    assert announcer.get_attribute("aria-live") == "polite" and announcer.get_attribute("role") == "status"
    browser.execute_script(
        "window.announced = [];"
        "new MutationObserver(() => window.announced.push(arguments[0].textContent))"
        ".observe(arguments[0], {childList: true, characterData: true, subtree: true});", announcer)
    for name in names:
        check_in(server, teacher, session_id, students[name]["token"], [])
    WebDriverWait(browser, 40).until(lambda b: b.find_element(By.ID, "room-announce").get_attribute("textContent")
                                     == "5 of 5 in the room")
    said = browser.execute_script("return window.announced")
    assert len(said) <= 2, f"five check-ins, announced {said}"

    # With reduced motion, the projector's bar does not slide.
    browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-reduced-motion", "value": "reduce"}]})
    browser.get(f"{server.url}/sessions/{session_id}/projector")
    wait_for(browser, "#projector-qr")
    bar = browser.find_element(By.ID, "projector-progress")
    WebDriverWait(browser, 20).until(lambda b: b.execute_script(
        "return getComputedStyle(arguments[0]).transitionDuration", bar) == "0s")
    assert browser.execute_script("return arguments[0].getBoundingClientRect().width", bar) > 0
    browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})
