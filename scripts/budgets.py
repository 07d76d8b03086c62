#!/usr/bin/env python3
"""Rollcall's size and shape budgets, checked by `make lint`.

- a function (func, init, subscript, computed property) at most 60 lines;
- a type at most 400 lines, its extensions in the same target counted with it and its nested types apart;
- a source file of a server target at most 500 lines, page scripts included;
- `try?` only in the idioms listed in IDIOMS, or on a line of scripts/budgets-allowed.txt, which says why;
- every import between Rollcall's own targets goes down the layers in LAYERS, so that a cycle, or one feature
  target reaching into another, fails the build instead of waiting for review;
- every test suite has a time limit, so that a test that hangs fails on its own instead of holding the whole run
  until the machine's deadline.

`scripts/budgets.py [ROOT]` prints each breach as `path:line: what` and exits 1 if there is any.
"""

from __future__ import annotations

import pathlib
import re
import sys
from dataclasses import dataclass, field

FUNCTION_LINES = 60
TYPE_LINES = 400
FILE_LINES = 500

# Lower numbers sit lower. A target may import targets of a lower layer only, never one of its own layer or above.
LAYERS = {
    "RollcallProtocol": 0,
    "QRCode": 0,
    "RollcallCore": 1,
    "RollcallClient": 2,
    "RollcallWords": 2,
    "RollcallApp": 3,
    "RollcallStorage": 3,
    "RollcallModel": 4,
    "RollcallWeb": 5,
    "RollcallDelivery": 6,
    "RollcallParts": 7,
    # The features share a layer, so that none imports another: what two features share sits below them.
    "RollcallAccounts": 8,
    "RollcallTeaching": 8,
    "RollcallQuizzes": 8,
    "RollcallHealth": 8,
    "RollcallPlatform": 8,
    "RollcallServer": 9,
    "rollcall": 10,
    "rollcall-bench": 10,
}
# The targets whose files are held to FILE_LINES: the server's, and the pages' scripts it serves.
SERVER_TARGETS = {
    "RollcallWords", "RollcallStorage", "RollcallModel", "RollcallWeb", "RollcallDelivery", "RollcallParts",
    "RollcallAccounts", "RollcallTeaching", "RollcallQuizzes", "RollcallHealth", "RollcallPlatform", "RollcallServer",
}

# `try?` is allowed where throwing away the error is the point, not where it hides a failure of Rollcall's own.
IDIOMS = {
    "sleep": re.compile(r"try\? await Task\.sleep"),
    "close": re.compile(
        r"try\? (await )?[\w.()]*\.(close|shutdown|shutdownGracefully|gracefulShutdown|removeItem)\("
        r"|try\? await gracefulShutdown\(|try\? await Task \{ try await sql\.raw\(\"ROLLBACK\"\)"
    ),
    "probe": re.compile(r"\(try\? [^()]*(\([^()]*\))*[^()]*\) [!=]= nil"),
    "union decode": re.compile(r"try\? container\.decode\("),
    # A rule used as a filter: an optional value from outside that breaks a rule is dropped, as if absent.
    "optional rule": re.compile(r"try\? AccountRules\.\w+\("),
}


TRY = re.compile(r"\btry\?")


@dataclass
class Breach:
    path: str
    line: int
    what: str
    text: str = ""  # the source line, for the allowlist to match

    def allowed_by(self, entry: tuple[str, str]) -> bool:
        where, what = entry
        return (self.path == where or self.path.startswith(where.rstrip("/") + "/")) and (
            what in self.text or what in self.what
        )

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.what}"


def code_only(text: str) -> str:
    """The text with comments and the contents of string literals blanked, keeping lines and interpolations."""
    out: list[str] = []
    i, n = 0, len(text)
    # Each entry is the closing quote of a string we are in, or ")" for an interpolation's parentheses.
    stack: list[tuple[str, int]] = []

    def blank(s: str) -> str:
        return "".join("\n" if c == "\n" else " " for c in s)

    while i < n:
        in_string = bool(stack) and stack[-1][0] != ")"
        if in_string:
            quote, hashes = stack[-1]
            close = quote + "#" * hashes
            if text.startswith("\\" + "#" * hashes + "(", i):
                width = 2 + hashes
                out.append(" " * width)
                stack.append((")", 0))
                i += width
            elif hashes == 0 and text[i] == "\\" and i + 1 < n:
                out.append(blank(text[i : i + 2]))
                i += 2
            elif text.startswith(close, i):
                out.append(close)
                stack.pop()
                i += len(close)
            else:
                out.append(blank(text[i]))
                i += 1
            continue
        if text.startswith("//", i):
            end = text.find("\n", i)
            end = n if end < 0 else end
            out.append(" " * (end - i))
            i = end
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            out.append(blank(text[i:end]))
            i = end
        elif text[i] == "#" or text[i] == '"':
            match = re.compile(r'(#*)("""|")').match(text, i)
            if match:
                out.append(match.group(0))
                stack.append((match.group(2), len(match.group(1))))
                i = match.end()
            else:
                out.append(text[i])
                i += 1
        elif stack and text[i] == "(":
            stack.append((")", 0))
            out.append("(")
            i += 1
        elif stack and text[i] == ")":
            stack.pop()
            out.append(")")
            i += 1
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


@dataclass
class Body:
    kind: str
    name: str
    start: int  # line of the declaration, 1-based
    end: int  # line of the closing brace
    children: list["Body"] = field(default_factory=list)

    @property
    def lines(self) -> int:
        return self.end - self.start + 1


TYPE_DECLARATION = re.compile(r"\b(struct|class|enum|actor|extension|protocol)\s+([A-Za-z_][\w.]*)")
FUNCTION_DECLARATION = re.compile(r"\b(func\s+[^\s(<]+|init[?!]?|deinit|subscript)\s*[(<{]?")
COMPUTED_PROPERTY = re.compile(r"\b(var)\s+(\w+)\s*:[^=]*\{\s*$")


def bodies(code: str) -> list[Body]:
    """Types and functions with their line ranges, nested as in the source."""
    lines = code.split("\n")
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line) + 1)

    def line_of(position: int) -> int:
        low, high = 0, len(offsets) - 1
        while low < high:
            middle = (low + high + 1) // 2
            if offsets[middle] <= position:
                low = middle
            else:
                high = middle - 1
        return low + 1

    starts: list[tuple[int, str, str]] = []
    for match in TYPE_DECLARATION.finditer(code):
        if match.group(1) == "class" and code[match.end() :].lstrip().startswith(("func", "var", "let")):
            continue
        starts.append((match.start(), match.group(1), match.group(2)))
    for match in FUNCTION_DECLARATION.finditer(code):
        starts.append((match.start(), "func", match.group(1).split()[-1]))
    for match in COMPUTED_PROPERTY.finditer(code):
        starts.append((match.start(), "func", match.group(2)))
    starts.sort()

    roots: list[Body] = []
    open_bodies: list[tuple[Body | None, int]] = []  # (body or None for a plain brace, depth)
    pending: list[tuple[int, str, str]] = []
    next_start = 0
    depth_round = 0
    for position, char in enumerate(code):
        while next_start < len(starts) and starts[next_start][0] == position:
            pending = [starts[next_start]]
            depth_round = 0
            next_start += 1
        if char in "([":
            depth_round += 1
        elif char in ")]":
            depth_round -= 1
        elif char == "{":
            if pending and depth_round <= 0:
                _, kind, name = pending[0]
                body = Body(kind, name, line_of(pending[0][0]), 0)
                parent = next((b for b, _ in reversed(open_bodies) if b is not None), None)
                (parent.children if parent else roots).append(body)
                open_bodies.append((body, 0))
                pending = []
            else:
                open_bodies.append((None, 0))
        elif char == "}":
            if open_bodies:
                body, _ = open_bodies.pop()
                if body is not None:
                    body.end = line_of(position)
        elif char == "\n" and pending and depth_round <= 0:
            # A requirement or a declaration without a body ends at its line unless the next line goes on with it.
            rest = code[position + 1 :].lstrip(" ")
            if not rest.startswith(("{", "where", "->", "throws", "async", "rethrows", ")", ".", "&", ",")):
                if not code[:position].rstrip().endswith(("->", ",", "(", ":", "&", "=")):
                    pending = []
    return roots


def target_of(path: pathlib.Path, sources: pathlib.Path) -> str:
    return path.relative_to(sources).parts[0]


def check_sizes(path: str, target: str, code: str, types: dict[tuple[str, str], list[tuple[str, int, int]]]) -> list[Breach]:
    breaches: list[Breach] = []

    def walk(body: Body, outer: str) -> None:
        if body.kind == "func":
            if body.lines > FUNCTION_LINES:
                breaches.append(Breach(path, body.start, f"function {body.name} is {body.lines} lines (at most {FUNCTION_LINES})"))
            return
        name = body.name if body.kind == "extension" or not outer else f"{outer}.{body.name}"
        nested = sum(child.lines for child in body.children if child.kind != "func")
        types.setdefault((target, name), []).append((path, body.start, body.lines - nested))
        for child in body.children:
            walk(child, name)

    for root in bodies(code):
        if root.kind == "func":
            walk(root, "")
        else:
            walk(root, "")
    return breaches


def allowlist(root: pathlib.Path) -> list[tuple[str, str]]:
    """scripts/budgets-allowed.txt: `path or folder | text on the line or in the breach | why`, one entry a line."""
    entries: list[tuple[str, str]] = []
    listing = root / "scripts" / "budgets-allowed.txt"
    if not listing.exists():
        return entries
    for number, line in enumerate(listing.read_text().splitlines(), start=1):
        if not line.strip() or line.startswith("#"):
            continue
        parts = [part.strip() for part in line.split(" | ")]
        if len(parts) != 3 or not all(parts):
            raise SystemExit(f"scripts/budgets-allowed.txt:{number}: write `path | text on the line | why`")
        entries.append((parts[0], parts[1]))
    return entries


def check_try(path: str, text: str) -> list[Breach]:
    breaches = []
    for number, line in enumerate(text.split("\n"), start=1):
        if not TRY.search(line.split("//")[0]):
            continue
        if any(idiom.search(line) for idiom in IDIOMS.values()):
            continue
        what = "try? outside the listed idioms hides a failure: use try, or list it with a reason"
        breaches.append(Breach(path, number, what, line))
    return breaches


# A feature holds the values of the settings it reads, not the whole `Configuration`: they are taken out of it where
# its controllers are made, in `…Routes+Controllers.swift`, or in a settings struct of its own.
FEATURE_LAYER = 8
SETTINGS_MADE_IN = re.compile(r"(\+Controllers|Settings)\.swift$")
WHOLE_CONFIGURATION = re.compile(r"(?<![.\w])Configuration\b")


def check_settings(root: pathlib.Path, sources: pathlib.Path) -> list[Breach]:
    breaches = []
    for path in sorted(sources.rglob("*.swift")):
        target = target_of(path, sources)
        if LAYERS.get(target) != FEATURE_LAYER or SETTINGS_MADE_IN.search(path.name):
            continue
        for number, line in enumerate(code_only(path.read_text()).split("\n"), start=1):
            if WHOLE_CONFIGURATION.search(line):
                breaches.append(Breach(str(path.relative_to(root)), number,
                                       "a feature holds Configuration: give it the values it reads instead", line))
    return breaches


def check_layers(root: pathlib.Path, sources: pathlib.Path) -> list[Breach]:
    breaches = []
    targets = sorted(p.name for p in sources.iterdir() if p.is_dir())
    for target in targets:
        if target not in LAYERS:
            breaches.append(Breach(f"Sources/{target}", 1, "a target with no layer: add it to LAYERS in scripts/budgets.py"))
    for path in sorted(sources.rglob("*.swift")):
        target = target_of(path, sources)
        for number, line in enumerate(path.read_text().split("\n"), start=1):
            match = re.match(r"\s*(?:@\w+\s+)*(?:@_exported\s+)?import\s+(?:\w+\s+)?(\w+)", line)
            if not match or match.group(1) not in LAYERS or target not in LAYERS:
                continue
            imported = match.group(1)
            if LAYERS[imported] >= LAYERS[target]:
                breaches.append(
                    Breach(str(path.relative_to(root)), number,
                           f"{target} (layer {LAYERS[target]}) imports {imported} (layer {LAYERS[imported]}): "
                           "imports go down the layers only")
                )
    return breaches


SUITE = re.compile(r"^\s*@Suite\b", re.M)


def suite_attribute(text: str, start: int) -> str:
    """The `@Suite` attribute from `start`, with its arguments over however many lines they take."""
    end = text.index("@Suite", start) + len("@Suite")
    if not text.startswith("(", end):
        return text[start:end]
    depth = 0
    for position in range(end, len(text)):
        depth += {"(": 1, ")": -1}.get(text[position], 0)
        if depth == 0:
            return text[start:position + 1]
    return text[start:]


def check_time_limits(root: pathlib.Path) -> list[Breach]:
    breaches = []
    for path in sorted((root / "Tests").rglob("*.swift")):
        text = path.read_text()
        for match in SUITE.finditer(text):
            attribute = suite_attribute(text, match.start())
            if ".timeLimit(" not in attribute:
                number = text.count("\n", 0, match.start()) + 1
                line = text.split("\n")[number - 1]
                breaches.append(Breach(str(path.relative_to(root)), number, "a suite with no .timeLimit", line))
    return breaches


def check(root: pathlib.Path) -> list[Breach]:
    sources = root / "Sources"
    entries = allowlist(root)
    breaches: list[Breach] = []
    types: dict[tuple[str, str], list[tuple[str, int, int]]] = {}
    for path in sorted(sources.rglob("*.swift")):
        relative = str(path.relative_to(root))
        target = target_of(path, sources)
        text = path.read_text()
        line_count = text.count("\n")
        if target in SERVER_TARGETS and line_count > FILE_LINES:
            breaches.append(Breach(relative, 1, f"file is {line_count} lines (at most {FILE_LINES} in a server target)"))
        breaches += check_sizes(relative, target, code_only(text), types)
        breaches += check_try(relative, text)
    for target in SERVER_TARGETS:
        for script in sorted((sources / target).rglob("*.js")):
            line_count = script.read_text().count("\n")
            if line_count > FILE_LINES:
                breaches.append(Breach(str(script.relative_to(root)), 1, f"page script is {line_count} lines (at most {FILE_LINES})"))
    for (target, name), parts in sorted(types.items()):
        total = sum(lines for _, _, lines in parts)
        if total > TYPE_LINES:
            path, line, _ = parts[0]
            where = ", ".join(sorted({p for p, _, _ in parts}))
            breaches.append(Breach(path, line, f"type {name} is {total} lines in {where} (at most {TYPE_LINES})"))
    breaches += check_layers(root, sources)
    breaches += check_settings(root, sources)
    if (root / "Tests").is_dir():
        breaches += check_time_limits(root)
    used = {entry for entry in entries for breach in breaches if breach.allowed_by(entry)}
    for entry in entries:
        if entry not in used:
            breaches.append(Breach("scripts/budgets-allowed.txt", 1, f"an entry that allows nothing: {' | '.join(entry)}"))
    return [breach for breach in breaches if not any(breach.allowed_by(entry) for entry in entries)]


def main() -> int:
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parent.parent)
    breaches = check(root)
    for breach in breaches:
        print(breach)
    if breaches:
        print(f"{len(breaches)} over budget", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
