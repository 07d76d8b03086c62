"""Text at 200 % on a phone, as a person with low vision sets it in the browser's settings, and a window 320 CSS
pixels wide (WCAG 1.4.4 Resize Text, 1.4.10 Reflow): every page reads without scrolling sideways and without a word
cut off."""

import time

from conftest import PHONE, screenshot
from test_axe import every_page
from test_languages import CUT_OFF

# Chromium's "Font size" setting (16 px unless changed), set as its settings page does: every rem of app.css and
# every media query in rem follow it.
NORMAL_TEXT, LARGE_TEXT = 16, 32
NARROW = (320, 640)


def laid_out(browser, path, server, failures, size, font_size):
    browser.execute_cdp_cmd("Page.setFontSizes", {"fontSizes": {"standard": font_size, "fixed": font_size * 13 // 16}})
    browser.set_window_size(*size)
    browser.get(server.url + path)
    # The live parts (the quiz's questions, the room) are drawn after the page loads.
    time.sleep(1.5)
    where = f"{path} at {size[0]} px" + (" with 200 % text" if font_size == LARGE_TEXT else "")
    for cut in browser.execute_script(CUT_OFF):
        failures.append(f"{where}: {cut}")
    name = ("text-200" if font_size == LARGE_TEXT else "width-320") + path.replace("/", "-")
    screenshot(browser, name, sizes=(size,), dark=font_size == LARGE_TEXT)


def test_every_page_reflows_at_200_percent_text_on_a_phone_and_at_320_pixels(server, browsers):
    failures = []

    def visit(browser, path):
        laid_out(browser, path, server, failures, PHONE, LARGE_TEXT)
        laid_out(browser, path, server, failures, NARROW, NORMAL_TEXT)

    every_page(server, browsers, visit, size=PHONE)
    assert not failures, "\n".join(failures)
