"""The message catalogs: the template of all messages is current, every language translates every message and keeps
its placeholders and tags, gettext reads every file, and no template or page script holds a sentence outside them."""
import html
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
import messages  # noqa: E402

TEMPLATES = ROOT / "Sources/RollcallWords/Resources/templates"
SCRIPTS = ROOT / "Sources/RollcallWords/Resources/static"
CATALOGS = sorted(messages.LOCALES.glob("*.po"))

# Attributes whose values a person reads or hears.
READ_ATTRIBUTES = ("placeholder", "title", "aria-label", "alt", "aria-description", "data-label", "data-confirm")


def literal_sentences_in_template(text):
    """Words a template shows outside {{#t}} markers: text between tags and the attributes people read."""
    text = re.sub(r"\{\{#t(?::[\w-]+)?\}\}.*?\{\{/t\}\}", "", text, flags=re.S)
    text = re.sub(r"<script\b.*?</script>|<style\b.*?</style>", "", text, flags=re.S)
    text = re.sub(r"\{\{\{?[^}]*\}?\}\}", "", text)
    found = []
    for match in re.finditer(r">([^<]*)<", text):
        words = html.unescape(match.group(1)).strip()
        if re.search(r"[A-Za-z]{2,}", words) and words != "Rollcall":
            found.append(words)
    for match in re.finditer(r'\b(' + "|".join(READ_ATTRIBUTES) + r')="([^"]*)"', text):
        value = match.group(2)
        # An example address or code shows the form, in every language alike.
        example = re.fullmatch(r"https?://\S+|[A-Z0-9 ]+", value)
        if re.search(r"[A-Za-z]{2,}", value) and not example:
            found.append(f'{match.group(1)}="{match.group(2)}"')
    return found


def literal_sentences_in_script(text):
    """String literals outside t() and tn() that read as words for people: two words or more with a capital or an
    end mark, or one capitalised word. Class names, selectors and codes are lower case and bare."""
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    text = re.sub(r"(?m)^\s*//.*$", "", text)
    # A context comes first and is no sentence: tc("quiz", "Mark") reads as t("Mark").
    text = re.sub(r'\b(tn?)c\(\s*"[\w-]*"\s*,', r"\1(", text)
    calls = r'\btn?\((?:[^"()]|\([^()]*\))*?"(?:[^"\\]|\\.)*"(?:\s*,\s*"(?:[^"\\]|\\.)*")?'
    text = re.sub(calls, "t(", text, flags=re.S)
    found = []
    for match in re.finditer(r'"((?:[^"\\\n]|\\.)*)"|`([^`]*)`|\'((?:[^\'\\\n]|\\.)*)\'', text):
        words = next(group for group in match.groups() if group is not None)
        words = re.sub(r"\$\{[^}]*\}", "", words)
        sentence = re.search(r"[A-Za-z]{2,}\s+[A-Za-z]{2,}", words) and re.search(r"[A-Z]|[.!?:]\s*$", words)
        if sentence or re.fullmatch(r"[A-Z][a-z]+[.!?]?", words):
            found.append(words)
    return found


# A mustache value that is a number of things, by its name: "studentCount", "evidenceDays", "room.counts.present".
COUNT_VALUE = r"\{\{(?:[\w]+\.)*(?:\w*(?:Count|Days|Minutes|Seconds|Total)|counts\.\w+|present|late|excused|absent|questions)\}\}"


def counts_without_plural_in_template(text):
    """Numbers said next to a word without a plural form: a count value followed by a word inside one {{#t}}
    sentence ("{{laterCount}} more to come"), or followed by a caption of its own ("<strong>{{room.counts.present}}
    </strong><span>{{#t}}present{{/t}}"). Both give "24 présent" and "1 séances"; say the number and its words
    together with say(n, one:, other:) instead."""
    found = []
    for match in re.finditer(r"\{\{#t(?::[\w-]+)?\}\}(.*?)\{\{/t\}\}", text, re.S):
        for count in re.finditer(COUNT_VALUE + r"\s+(?:\{\{|[^\W\d_])", match.group(1)):
            found.append(" ".join(match.group(1).split()))
            break
    for match in re.finditer(COUNT_VALUE + r"(?:\s|<[^>]*>)*\{\{#t(?::[\w-]+)?\}\}[a-z][^{<]*\{\{/t\}\}", text):
        found.append(match.group(0))
    return found


def counts_without_plural_in_script(text):
    """t() given a number of things (`list.length`, `set.size`, a `count`) for a sentence with words: tn() chooses
    the form ("12 of 40 shown" is "12 sur 40 affichés", "1 sur 40 affiché")."""
    found = []
    for match in re.finditer(r'\bt\(\s*"((?:[^"\\]|\\.)*)"((?:[^()]|\([^()]*\))*)\)', text):
        english, values = match.groups()
        counted = re.search(r"\.(?:length|size)\b|\b\w*[cC]ount\b", values)
        if counted and re.search(r"[A-Za-z]{3,}", re.sub(r"\{\d+\}", "", english)):
            found.append(english)
    return found


def test_the_template_of_all_messages_is_current():
    collected = messages.collect()
    assert messages.TEMPLATE.read_text() == messages.pot_text(collected), "run scripts/messages.py --update"
    assert len(collected.entries) > 1000


@pytest.mark.parametrize("catalog", CATALOGS, ids=lambda path: path.name)
def test_every_language_translates_every_message_and_keeps_its_placeholders_and_tags(catalog):
    assert messages.problems_in(catalog, messages.collect()) == []


@pytest.mark.parametrize("catalog", CATALOGS + [messages.TEMPLATE], ids=lambda path: path.name)
def test_gettext_reads_every_catalog(catalog):
    msgfmt = shutil.which("msgfmt")
    assert msgfmt, "gettext is installed by scripts/test-deps.sh"
    result = subprocess.run([msgfmt, "-c", "-o", "/dev/null", str(catalog)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def test_the_four_languages_are_shipped():
    assert {path.stem for path in CATALOGS} == {"de", "es", "fr"}


@pytest.mark.parametrize("template", sorted(TEMPLATES.glob("*.mustache")), ids=lambda path: path.name)
def test_no_template_holds_a_sentence_outside_the_catalogs(template):
    assert literal_sentences_in_template(template.read_text()) == []


@pytest.mark.parametrize("script", sorted(SCRIPTS.glob("*.js")), ids=lambda path: path.name)
def test_no_page_script_holds_a_sentence_outside_the_catalogs(script):
    assert literal_sentences_in_script(script.read_text()) == []


def test_no_swift_code_holds_a_sentence_outside_the_catalogs():
    # A sentence returned as a plain String is English in every language: the signed-out scan's notice was one.
    assert messages.unmarked_swift(messages.collect()) == []


@pytest.mark.parametrize("template", sorted(TEMPLATES.glob("*.mustache")), ids=lambda path: path.name)
def test_no_template_says_a_count_without_its_plural(template):
    assert counts_without_plural_in_template(template.read_text()) == []


@pytest.mark.parametrize("script", sorted(SCRIPTS.glob("*.js")), ids=lambda path: path.name)
def test_no_page_script_says_a_count_without_its_plural(script):
    assert counts_without_plural_in_script(script.read_text()) == []


def test_the_checks_find_what_they_look_for():
    assert counts_without_plural_in_template("<summary>{{#t}}{{laterCount}} more to come{{/t}}</summary>") != []
    assert counts_without_plural_in_template("{{#t}}over {{sessionCount}} {{sessionsWord}}{{/t}}") != []
    assert counts_without_plural_in_template("<strong>{{room.counts.present}}</strong><span>{{#t}}present{{/t}}") != []
    assert counts_without_plural_in_template("{{#t}}Waiting for your approval: {{waitingCount}}.{{/t}}") == []
    assert counts_without_plural_in_template("<h2>{{#t}}Students{{/t}} ({{rosterCount}})</h2>") == []
    assert counts_without_plural_in_script('t("{0} of {1} shown", count, rows.length)') != []
    assert counts_without_plural_in_script('t("{0} of {1}", attempt.answered, questionCount)') == []
    assert counts_without_plural_in_script('tn(rows.length, "{0} row", "{0} rows")') == []
    assert literal_sentences_in_template("<h2>{{#t:heading}}Open now{{/t}}</h2>") == []
    assert literal_sentences_in_script('b.textContent = tc("quiz", "Mark"); c = tnc("count", n, "Present", "Present");') == []
    assert messages.reads_as_sentence("Sign in to check in to {0}.")
    assert not messages.reads_as_sentence("SELECT id FROM users WHERE id = {0}")
    assert not messages.reads_as_sentence("application/json")
    assert literal_sentences_in_template('<p>Sign in</p><p>{{#t}}Sign in{{/t}}</p>') == ["Sign in"]
    assert literal_sentences_in_template('<input placeholder="Your name">') == ['placeholder="Your name"']
    assert literal_sentences_in_template('<input value="present" class="big"> <b>{{name}}</b> ·') == []
    assert literal_sentences_in_script('box.textContent = "Saved at " + time;') == ["Saved at "]
    assert literal_sentences_in_script('alert(`Could not ${verb} it.`);') == ["Could not  it."]
    assert literal_sentences_in_script('button.textContent = "Remove";') == ["Remove"]
    assert literal_sentences_in_script('box.textContent = t("Saved at {0}", time); el.className = "card question";') == []
    assert literal_sentences_in_script('tn(list.length, "{0} student", "{0} students")') == []


def test_a_catalog_that_loses_a_placeholder_or_a_message_is_refused(tmp_path):
    collected = messages.Messages()
    collected.add("Line {0} is empty.", "x.swift:1")
    collected.add("<strong>{{name}}</strong> joined", "templates/x.mustache:1")
    collected.add("Gone", "x.swift:2")
    broken = tmp_path / "xx.po"
    broken.write_text(
        'msgid ""\nmsgstr ""\n"Language: xx\\n"\n"Plural-Forms: nplurals=2; plural=(n != 1);\\n"\n\n'
        'msgid "Line {0} is empty."\nmsgstr "La ligne est vide."\n\n'
        'msgid "<strong>{{name}}</strong> joined"\nmsgstr "{{name}} est arrivé"\n\n'
        'msgid "Old"\nmsgstr "Vieux"\n')
    problems = messages.problems_in(broken, collected)
    assert any("Line {0} is empty." in p and "keeps" in p for p in problems)
    assert any("joined" in p and "keeps" in p for p in problems)
    assert any("no translation of 'Gone'" in p for p in problems)
    assert any("'Old' is no longer used" in p for p in problems)
