"""Every page in the pseudo-locale (each sentence accented, a third longer, between brackets) on a phone: no English
sentence is left, nothing is cut off, no page scrolls sideways. And the same pages in French, German and Spanish at
phone, laptop and projector size, light and dark, for people to look at."""

import re
import sys
from pathlib import Path

from selenium.webdriver.support.ui import WebDriverWait

from conftest import LAPTOP, PHONE, screenshot, wait_for
from test_axe import every_page
from test_check_in import account, sign_in
from test_quizzes import QUIZ

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
import messages  # noqa: E402

# What people typed, not what Rollcall says: the brand, names, the course, the quiz, the report's reason, and the
# session's title, which is kept as it was written when the session opened.
DATA = [
    "Rollcall", "Tara Teacher", "Biology 101", "Sam Student", "Ana Ångström", "Li Wei", "Olu Officer", "Ada Admin", "Positive test",
    "B204", QUIZ["title"], QUIZ["instructions"], *[q["prompt"] for q in QUIZ["questions"]],
    *QUIZ["questions"][0]["options"],
]
STORED_TITLE = re.compile(r"Session of [^·\n]*")
# The pseudo-locale writes dates and times as English does: "26 Nov 2026 at 1:45 PM UTC".
MOMENT = re.compile(r"\d{1,2} [A-Z][a-z]{2} \d{4}( at \d{1,2}:\d{2} [AP]M)?( (UTC|GMT[+-]?[\d:]*))?|\d{1,2}:\d{2} [AP]M")

VISIBLE_TEXT = """
const texts = [];
const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
while (walker.nextNode()) {
  const node = walker.currentNode;
  const element = node.parentElement;
  // translate="no": what is already in the reader's language or in none, such as a letter as it was sent.
  if (!node.textContent.trim() || element.closest('script, style, template, [hidden], .visually-hidden, [translate="no"]')) continue;
  const style = getComputedStyle(element);
  if (style.display === "none" || style.visibility === "hidden") continue;
  texts.push(node.textContent.replace(/\\s+/g, " ").trim());
}
for (const element of document.querySelectorAll("[placeholder], [title], [aria-label], img[alt]")) {
  for (const name of ["placeholder", "title", "aria-label", "alt"]) {
    const value = element.getAttribute(name);
    if (value && value.trim()) texts.push(value.trim());
  }
}
return texts;
"""

CUT_OFF = """
const cut = [];
for (const element of document.querySelectorAll("body *")) {
  if (!element.textContent.trim() || element.closest("[hidden], .visually-hidden")) continue;
  const style = getComputedStyle(element);
  if (style.display === "none") continue;
  const clips = ["hidden", "clip"].includes(style.overflowX) || style.textOverflow === "ellipsis";
  if (clips && element.scrollWidth > element.clientWidth + 1) {
    cut.push(`${element.tagName.toLowerCase()}${element.id ? "#" + element.id : ""}.${element.className}: ${element.textContent.trim().slice(0, 60)}`);
  }
}
const page = document.documentElement;
if (page.scrollWidth > page.clientWidth) {
  // Name the innermost elements that stick out, so that the failure says where to look.
  const out = [...document.querySelectorAll("body *")].filter((element) =>
    element.getBoundingClientRect().right > page.clientWidth + 1
    && ![...element.children].some((child) => child.getBoundingClientRect().right > page.clientWidth + 1));
  const names = out.slice(0, 3).map((element) =>
    `${element.tagName.toLowerCase()}${element.id ? "#" + element.id : ""}${element.name ? "[name=" + element.name + "]" : ""} in ${element.parentElement.tagName.toLowerCase()}.${element.parentElement.className} "${element.parentElement.textContent.trim().slice(0, 40)}"`);
  cut.push(`the page: ${page.scrollWidth} px of content in ${page.clientWidth} px (${names.join("; ")})`);
}
return cut;
"""


def english_left(texts):
    """The texts that still read as English: two plain words in a row, outside what people typed."""
    found = []
    for text in texts:
        for data in DATA:
            text = text.replace(data, " ")
        text = MOMENT.sub(" ", STORED_TITLE.sub(" ", text))
        if re.search(r"\b[A-Za-z]{2,}[ ,]+[A-Za-z]{2,}\b", text) or text in ENGLISH_WORDS:
            found.append(text)
    return found


# Every English sentence without values, as a page would show it whole ("Sign in", "Present").
ENGLISH_WORDS = {
    messages.collapsed(re.sub(r"<[^>]+>", "", msgid)) for msgid in messages.collect().entries
    if "{" not in msgid and re.fullmatch(r"[A-Za-z][A-Za-z ,.'’?!-]*", msgid) and len(msgid) > 3
}


def test_no_english_is_left_and_nothing_is_cut_off_in_the_pseudo_locale(server, browsers):
    failures = []

    def visit(browser, path):
        browser.get(server.url + path)
        wait_for(browser, "main, body.bare")
        language = browser.execute_script("return document.documentElement.lang")
        if language != "en-XA":
            failures.append(f"{path}: lang is {language!r}")
        for text in english_left(browser.execute_script(VISIBLE_TEXT)):
            failures.append(f"{path}: English left: {text!r}")
        for cut in browser.execute_script(CUT_OFF):
            failures.append(f"{path}: cut off: {cut}")
        screenshot(browser, "pseudo" + path.replace("/", "-"), sizes=(PHONE,))

    every_page(server, browsers, visit, size=PHONE, language="en-XA")
    assert not failures, f"{len(failures)} problems:\n" + "\n".join(failures)


def test_english_left_is_found():
    texts = ["Sign in", "[Šíĝñ íñ ~~]", "Tara Teacher · B204", "Check in now", "[Öþéñ ~~] 26 Nov 2026 at 1:45 PM UTC"]
    assert english_left(texts) == ["Sign in", "Check in now"]


def test_a_person_reads_rollcall_in_the_language_they_choose(server, browsers):
    """The profile's choice changes every page at once, and the browser's language is what the first visit uses."""
    teacher = account(server, "Tara Teacher", "tara@school.test", role="teacher")
    course_id = server.api("POST", "/api/v1/courses", {"name": "Histoire"}, teacher)[1]["course"]["id"]
    browser = browsers(LAPTOP, language="fr")
    browser.get(f"{server.url}/sign-in?next=/profile")
    assert browser.execute_script("return document.documentElement.lang") == "fr"
    sign_in(browser, server, "tara@school.test", then=True)
    select = wait_for(browser, "#profile-language")
    assert browser.find_element("css selector", "h1").text != "Your profile"
    screenshot(browser, "languages-profile-fr", dark=True)
    browser.execute_script(
        "arguments[0].value = 'de'; arguments[0].dispatchEvent(new Event('change'))", select)
    browser.find_element("css selector", "#profile-form button[type=submit]").click()
    WebDriverWait(browser, 40).until(lambda b: b.execute_script("return document.documentElement.lang") == "de")
    screenshot(browser, "languages-profile-de", dark=True)

    # A German spreadsheet expects semicolons: the page's CSV link asks for them.
    browser.get(f"{server.url}/courses/{course_id}")
    link = wait_for(browser, "#course-report")
    assert link.get_attribute("href").endswith("/report.csv?separator=semicolon")
    screenshot(browser, "languages-course-de", sizes=(PHONE, LAPTOP, (1920, 1080)), dark=True)
