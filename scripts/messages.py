#!/usr/bin/env python3
"""Rollcall's message catalogs: finds every sentence a person reads and writes the template of all of them.

    scripts/messages.py            writes Sources/RollcallWords/Resources/locales/rollcall.pot
    scripts/messages.py --check    fails when the template is out of date or a catalog does not match it
    scripts/messages.py --update   also adds new messages to every catalog (empty, for the translator) and drops
                                   messages no longer used

The sentences are found where the code marks them:
- templates: {{#t}}English{{/t}} (whitespace collapsed, as the server does);
- page scripts: t("English", ...) and tn(count, "one", "other", ...);
- Swift: reader.say("…"), reader.say(n, one: "…", other: "…") (`say` is a method of the reader, whichever value
  holds it: `context.reader.say`, `letters.reader.say`), the sentence of AppError(…), .forbidden(…), .conflict(…),
  .notFound(…), refused(…), message: "…", what: "…", one:/other: pairs, and every literal inside a declaration whose
  type is Phrase (`var message: Phrase { … }`, `func …(…) -> Phrase { … }`, `let x: Phrase = "…"`).
A Swift interpolation \\(…) becomes {0}, {1}… in order, as Phrase does at run time. A Swift literal that reads as a
sentence and none of these marks fails --check, unless AS_WRITTEN says why it stays as written.
"""
import json
import re
import sys
from collections import OrderedDict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESOURCES = ROOT / "Sources/RollcallWords/Resources"
LOCALES = RESOURCES / "locales"
TEMPLATE = LOCALES / "rollcall.pot"
SWIFT_DIRS = [
    ROOT / f"Sources/{target}"
    for target in (
        "RollcallWords", "RollcallStorage", "RollcallModel", "RollcallWeb", "RollcallDelivery", "RollcallParts",
        "RollcallAccounts", "RollcallTeaching", "RollcallQuizzes", "RollcallHealth", "RollcallPlatform",
        "RollcallServer", "RollcallCore",
    )
]


# gettext joins a message's context (msgctxt) to its msgid with U+0004; so are the keys here.
CONTEXT_MARK = "\x04"


def with_context(msgid, context):
    return f"{context}{CONTEXT_MARK}{msgid}" if context else msgid


def split_context(key):
    """(context or None, msgid) of a key."""
    context, _, msgid = key.rpartition(CONTEXT_MARK)
    return context or None, msgid


class Messages:
    def __init__(self):
        self.entries = OrderedDict()  # key (msgid, or context and msgid) -> {"plural": str|None, "refs": [..]}

    def add(self, msgid, ref, plural=None, context=None):
        if not msgid or not re.search(r"[A-Za-z]", msgid):
            return
        entry = self.entries.setdefault(with_context(msgid, context), {"plural": plural, "refs": []})
        if plural and not entry["plural"]:
            entry["plural"] = plural
        if ref not in entry["refs"]:
            entry["refs"].append(ref)


def collapsed(text):
    return " ".join(text.split())


def templates(messages):
    for path in sorted((RESOURCES / "templates").glob("*.mustache")):
        text = path.read_text()
        for match in re.finditer(r"\{\{#t(?::([\w-]+))?\}\}(.*?)\{\{/t\}\}", text, re.S):
            messages.add(collapsed(match.group(2)), f"templates/{path.name}", context=match.group(1))


JS_STRING = r'"((?:[^"\\\n]|\\.)*)"'


def scripts(messages):
    for path in sorted((RESOURCES / "static").glob("*.js")):
        text = path.read_text()
        ref = lambda m: f"static/{path.name}"
        for match in re.finditer(r"\bt\(\s*" + JS_STRING, text):
            messages.add(json.loads('"' + match.group(1) + '"'), ref(match))
        for match in re.finditer(r"\btn\(", text):
            literals = re.match(r"(?:[^\"()]|\([^()]*\))*?,\s*" + JS_STRING + r"\s*,\s*" + JS_STRING, text[match.end():], re.S)
            if literals:
                one, other = (json.loads('"' + g + '"') for g in literals.groups())
                messages.add(one, ref(match), plural=other)
        # Words with two meanings: tc(context, english), tnc(context, count, one, other).
        for match in re.finditer(r"\btc\(\s*" + JS_STRING + r"\s*,\s*" + JS_STRING, text):
            context, english = (json.loads('"' + g + '"') for g in match.groups())
            messages.add(english, ref(match), context=context)
        for match in re.finditer(r"\btnc\(\s*" + JS_STRING, text):
            literals = re.match(r"(?:[^\"()]|\([^()]*\))*?,\s*" + JS_STRING + r"\s*,\s*" + JS_STRING, text[match.end():], re.S)
            if literals:
                one, other = (json.loads('"' + g + '"') for g in literals.groups())
                messages.add(one, ref(match), plural=other, context=json.loads('"' + match.group(1) + '"'))


def swift_literal(text, start):
    """Reads the Swift string literal whose opening quote is at `start`: (key with {n}, end index) or None."""
    if text.startswith('"""', start) or text[start - 1:start] == "#":
        return None
    key, index, count = [], start + 1, 0
    while index < len(text):
        char = text[index]
        if char == '"':
            return "".join(key), index + 1
        if char == "\n":
            return None
        if char == "\\":
            following = text[index + 1]
            if following == "(":
                depth, index = 1, index + 2
                while depth and index < len(text):
                    if text[index] == '"':
                        inner = swift_literal(text, index)
                        index = inner[1] if inner else index + 1
                        continue
                    depth += {"(": 1, ")": -1}.get(text[index], 0)
                    index += 1
                key.append("{%d}" % count)
                count += 1
                continue
            if following == "u":
                close = text.index("}", index)
                key.append(chr(int(text[index + 3:close], 16)))
                index = close + 1
                continue
            key.append({"n": "\n", "t": "\t", "0": "\0"}.get(following, following))
            index += 2
            continue
        key.append(char)
        index += 1
    return None


def swift_literals(text, start, end):
    """Every single-line literal between start and end, with its position."""
    index = start
    while index < end:
        char = text[index]
        if text.startswith("//", index):
            index = text.find("\n", index)
            if index < 0:
                return
            continue
        if char == '"':
            found = swift_literal(text, index)
            if found:
                yield index, found[0]
                index = found[1]
                continue
        index += 1


def closing(text, open_index, pair="()"):
    """The index just after the bracket that closes the one at open_index, skipping string literals."""
    depth, index = 0, open_index
    while index < len(text):
        char = text[index]
        if char == '"':
            found = swift_literal(text, index)
            if found:
                index = found[1]
                continue
        if text.startswith("//", index):
            index = text.find("\n", index)
            continue
        if char == pair[0]:
            depth += 1
        elif char == pair[1]:
            depth -= 1
            if depth == 0:
                return index + 1
        index += 1
    return len(text)


# `say` is matched after a dot too (`reader.say(`, `context.reader.say(`): `\b` sits between the dot and the name.
CALLS = re.compile(
    r"\b(?:say|AppError|forbidden|conflict|notFound|invalidJSON|refused|refuse|PasskeyFailure|TooManyAttempts"
    r"|recordsMustBeKept|invalidValue)\(")
# `context.id("id", .courseNotFound, "course")`: the thing a 404 names is the third argument.
IDS = re.compile(r'\.id\(\s*"[^"]*"\s*,\s*\.\w+\s*,\s*"')
LABELS = re.compile(r"\b(?:message|what|title|refusal|crossSiteRefusal|unknownEvent):\s*\"|:\s*Phrase\s*=\s*\"")
PAIRS = re.compile(r"\bone:\s*\"")
PHRASE_BODIES = re.compile(r"(?::\s*Phrase|->\s*Phrase)\s*\{")


def swift(messages):
    for directory in SWIFT_DIRS:
        for path in sorted(directory.rglob("*.swift")):
            text = path.read_text()
            name = str(path.relative_to(ROOT / "Sources"))
            ref = lambda i: name

            def take(position, key, context=None):
                messages.add(key, ref(position), context=context)

            def meaning(position):
                """The context of the `reader.say(context: "…", …)` call holding the literal at position, if any."""
                found = None
                window = max(0, position - 300)
                for call in re.finditer(r'\bsay\(\s*context:\s*"([^"]*)"', text[window:position]):
                    if closing(text, text.index("(", window + call.start())) > position:
                        found = call.group(1)
                return found

            for match in CALLS.finditer(text):
                open_index = match.end() - 1
                end = closing(text, open_index)
                inner = text[open_index:end]
                if "one:" in inner and match.group(0).startswith("say"):
                    continue  # the counting form, read below
                # The sentence is the call's first literal, or each branch of a choice between two; later ones are
                # values (details, headers).
                first = True
                context = re.match(r'\(\s*context:\s*"([^"]*)"\s*,', inner)
                if context:
                    open_index += context.end()  # the context is no sentence
                for position, key in swift_literals(text, open_index, end):
                    after = swift_literal(text, position)[1]
                    if text[after:after + 1] == ":":
                        continue  # a dictionary key, such as a detail's name
                    branch = re.search(r'(\?|"\s*:)\s*$', text[max(0, position - 40):position])
                    if first or branch:
                        take(position, key, context.group(1) if context else None)
                    first = False
            for match in IDS.finditer(text):
                found = swift_literal(text, match.end() - 1)
                if found:
                    take(match.start(), found[0])
            for match in LABELS.finditer(text):
                found = swift_literal(text, match.end() - 1)
                if found:
                    take(match.start(), found[0])
            for match in PAIRS.finditer(text):
                one = swift_literal(text, match.end() - 1)
                rest = re.match(r"\s*,\s*other:\s*\"", text[one[1]:]) if one else None
                if rest:
                    other = swift_literal(text, one[1] + rest.end() - 1)
                    if other:
                        messages.add(one[0], ref(match.start()), plural=other[0], context=meaning(match.start()))
            for match in PHRASE_BODIES.finditer(text):
                end = closing(text, match.end() - 1, "{}")
                for position, key in swift_literals(text, match.end(), end):
                    if not re.search(r"\bother:\s*$", text[max(0, position - 40):position]):
                        take(position, key)  # a plural's other form belongs to its one form, read above


# Swift literals that read as sentences yet are not said through the catalogs, each with why it stays as written.
# Anything else that reads as a sentence and is not marked fails --check: a sentence returned as a plain String
# (the signed-out scan's notice was one) is English in every language, and nothing else would notice.
AS_WRITTEN = {
    "The request's headers are larger than Rollcall takes.": "answered before the request, and its language, is read",
    "The request could not be read as HTTP.": "answered before the request, and its language, is read",
    "Expected an ISO 8601 date and time.": "a decoder's note; the API answers with its own sentence",
    "No column {0} in {1}": "a programming error in a query, for the log",
    "Executing query": "a log line, for the operator",
    "The database does not answer; resume after your last event.": "a WebSocket close reason, read by scripts",
    "Explain, and keep editing.": "benchmark data",
    "Pick one.": "benchmark data",
    "Cells, genes and evolution. Tuesdays and Thursdays, room B12.": "demo course, written as a teacher would",
    "Algorithms and data from first principles. Mondays, lecture hall 2.": "demo course, written as a teacher would",
    "Deleted person": "stored in place of a name (docs/languages.md)",
    "Course from {0}": "stored as the course's name, which its teacher may change",
    "Copy of {0}": "stored as the quiz's title, which its teacher may change",
    "Sign in with your school account": "the settings' default name, said in the reader's language by the pages",
    "Rollcall's message catalogs cannot be read: {0}": "a programming error, for the log",
    "The first language was not kept: {0}": "a log line, for the operator",
    "PostgreSQL: leaving host {0} of the list": "a log line, for the operator",
    "PostgreSQL: using host {0} of the list": "a log line, for the operator",
    "PostgreSQL: host {0} of the list does not answer: {1}": "a log line, for the operator",
    "PostgreSQL: host {0} of the list did not say whether it takes writes: {1}": "a log line, for the operator",
    "PostgreSQL: host {0} of the list does not take writes": "a log line, for the operator",
}


def reads_as_sentence(text):
    """Two words or more that start with a capital: how a sentence for people looks, and SQL or a code does not."""
    return bool(re.match(r"[A-Z][a-z]", text) and re.search(r"[A-Za-z]{2,}\s+[a-z]{2,}", text))


def unmarked_swift(messages):
    """Swift literals that read as sentences but that no marker gives to the catalogs, as "file:line: text"."""
    known = set(messages.entries) | {entry["plural"] for entry in messages.entries.values() if entry["plural"]}
    found = []
    for directory in SWIFT_DIRS:
        for path in sorted(directory.rglob("*.swift")):
            text = path.read_text()
            for position, key in swift_literals(text, 0, len(text)):
                if key in known or key in AS_WRITTEN or not reads_as_sentence(key):
                    continue
                line = text.count("\n", 0, position) + 1
                found.append(f"{path.relative_to(ROOT / 'Sources')}:{line}: {key}")
    return found


def quoted(text):
    body = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t")
    return f'"{body}"'


def collect():
    messages = Messages()
    templates(messages)
    scripts(messages)
    swift(messages)
    return messages


HEADER = """# The sentences Rollcall says, in English: the template every catalog in this folder translates.
# Made by scripts/messages.py from the templates, the page scripts and the Swift code; do not edit by hand.
msgid ""
msgstr ""
"Project-Id-Version: Rollcall\\n"
"MIME-Version: 1.0\\n"
"Content-Type: text/plain; charset=UTF-8\\n"
"Content-Transfer-Encoding: 8bit\\n"
"Plural-Forms: nplurals=2; plural=(n != 1);\\n"
"""


def entry_text(msgid, entry, translations=None, fuzzy=False):
    lines = []
    refs = entry["refs"]
    # Files without line numbers, as `xgettext --add-location=file` writes them: a line moved is no change.
    lines.append("#: " + " ".join(refs[:4]) + (" …" if len(refs) > 4 else ""))
    if fuzzy:
        lines.append("#, fuzzy")
    context, msgid = split_context(msgid)
    if context:
        lines.append("msgctxt " + quoted(context))
    lines.append("msgid " + quoted(msgid))
    if entry["plural"]:
        lines.append("msgid_plural " + quoted(entry["plural"]))
        forms = translations or ["", ""]
        for index, form in enumerate(forms):
            lines.append(f"msgstr[{index}] " + quoted(form))
    else:
        lines.append("msgstr " + quoted((translations or [""])[0]))
    return "\n".join(lines)


def pot_text(messages):
    return HEADER + "\n" + "\n\n".join(entry_text(k, v) for k, v in messages.entries.items()) + "\n"


def read_po(path):
    """A PO file as (header lines, {msgid: (plural, [forms])}), enough for what this script writes."""
    text = path.read_text()
    blocks = re.split(r"\n\s*\n", text.strip())
    header, entries = None, OrderedDict()
    for block in blocks:
        fields, current = {}, None
        for line in block.splitlines():
            line = line.strip()
            if line.startswith("#") or not line:
                continue
            match = re.match(r'^(msgctxt|msgid_plural|msgid|msgstr(?:\[\d+\])?)\s+(".*")$', line)
            if match:
                current = match.group(1)
                fields[current] = json.loads(match.group(2))
            elif line.startswith('"') and current:
                fields[current] += json.loads(line)
        if "msgid" not in fields:
            continue
        if fields["msgid"] == "":
            header = block
            continue
        forms = [fields[k] for k in sorted(k for k in fields if k.startswith("msgstr"))]
        entries[with_context(fields["msgid"], fields.get("msgctxt"))] = (fields.get("msgid_plural"), forms)
    return header, entries


def plural_count(header):
    """nplurals in a catalog's Plural-Forms header; 2 where it names none."""
    match = re.search(r"nplurals\s*=\s*(\d+)", header or "")
    return int(match.group(1)) if match else 2


def problems_in(path, messages):
    """What is wrong with one catalog: messages it lacks or no longer needs, empty translations, and translations
    that lose a placeholder, a template tag or an HTML tag."""
    header, entries = read_po(path)
    found = []
    if not header or "Language:" not in header or "Plural-Forms:" not in header:
        found.append(f"{path.name}: the header must name the Language and the Plural-Forms")
    for msgid in messages.entries:
        if msgid not in entries:
            found.append(f"{path.name}: no translation of {msgid!r}")
    for msgid, (plural, forms) in entries.items():
        if msgid not in messages.entries:
            found.append(f"{path.name}: {msgid!r} is no longer used")
            continue
        if not forms or any(not form.strip() for form in forms):
            found.append(f"{path.name}: {msgid!r} is not translated")
            continue
        wanted = messages.entries[msgid]
        if wanted["plural"] and len(forms) < plural_count(header):
            # A message that came to count keeps its one old form until a translator gives it every form.
            found.append(f"{path.name}: {msgid!r} has {len(forms)} of its {plural_count(header)} plural forms")
            continue
        sources = [msgid] + ([wanted["plural"]] if wanted["plural"] else [])
        marks = lambda s: sorted(re.findall(r"\{\d+\}|\{\{\{?[^}]*\}?\}\}|</?[a-z][^>]*>", s))
        for form in forms:
            if wanted["plural"]:
                # A singular form may leave out the count ("one row"), so only the plural's other marks count.
                needed = {m for m in marks(sources[-1]) if m != "{0}"}
                if needed - set(marks(form)):
                    found.append(f"{path.name}: {msgid!r} loses {sorted(needed - set(marks(form)))}")
            elif marks(msgid) != marks(form):
                found.append(f"{path.name}: {msgid!r} keeps {marks(msgid)}, its translation has {marks(form)}")
    return found


def update(path, messages):
    header, entries = read_po(path)
    body = "\n\n".join(
        entry_text(k, v, entries.get(k, (None, None))[1]) for k, v in messages.entries.items())
    path.write_text(header.strip() + "\n\n" + body + "\n")


def main(arguments):
    messages = collect()
    if "--check" in arguments:
        problems = []
        if not TEMPLATE.exists() or TEMPLATE.read_text() != pot_text(messages):
            problems.append("rollcall.pot is out of date: run scripts/messages.py --update")
        for path in sorted(LOCALES.glob("*.po")):
            problems += problems_in(path, messages)
        problems += [f"{found}: a sentence outside the catalogs" for found in unmarked_swift(messages)]
        for problem in problems:
            print(problem)
        return 1 if problems else 0
    TEMPLATE.write_text(pot_text(messages))
    if "--update" in arguments:
        for path in sorted(LOCALES.glob("*.po")):
            update(path, messages)
    print(f"{len(messages.entries)} messages")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
