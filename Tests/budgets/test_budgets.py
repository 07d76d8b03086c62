"""scripts/budgets.py fails on each budget broken once, and passes the same tree kept within them."""

import pathlib
import re
import shutil
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


def lines(count: int, text: str = "        total += 1") -> str:
    return "\n".join([text] * count)


def function(name: str, body_lines: int) -> str:
    # A function's lines count from its declaration to its closing brace.
    return f"    func {name}() {{\n        var total = 0\n{lines(body_lines - 4)}\n        _ = total\n    }}\n"


def tree(tmp_path: pathlib.Path, files: dict[str, str], allowed: str = "") -> pathlib.Path:
    (tmp_path / "scripts").mkdir(parents=True)
    shutil.copy(ROOT / "scripts" / "budgets.py", tmp_path / "scripts" / "budgets.py")
    (tmp_path / "scripts" / "budgets-allowed.txt").write_text(allowed)
    for path, text in files.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text)
    return tmp_path


def budgets(root: pathlib.Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(root / "scripts" / "budgets.py"), str(root)], capture_output=True, text=True
    )


CLEAN = {
    "Sources/RollcallCore/Rules.swift": "public enum Rules {\n" + function("within", 60) + "}\n",
    "Sources/RollcallServer/Store.swift": "import RollcallCore\n\nstruct Store {\n"
    + function("read", 60)
    + '    func pause() async { try? await Task.sleep(for: .seconds(1)) }\n'
    + '    func decode(_ container: any SingleValueDecodingContainer) -> Bool? { try? container.decode(Bool.self) }\n'
    + "}\n",
    "Tests/RulesTests/RulesTests.swift": '@Suite("Rules", .timeLimit(.minutes(5)))\nstruct RulesTests {}\n',
}


def test_a_tree_within_its_budgets_passes(tmp_path):
    result = budgets(tree(tmp_path, CLEAN))
    assert result.returncode == 0, result.stdout


@pytest.mark.parametrize(
    "path, text, breach",
    [
        ("Sources/RollcallServer/Long.swift", "struct Long {\n" + function("tooLong", 61) + "}\n",
         "function tooLong is 61 lines"),
        ("Sources/RollcallServer/Big.swift",
         "struct Big {\n" + "".join(function(f"part{n}", 50) for n in range(8)) + "}\n",
         "type Big is 402 lines"),
        ("Sources/RollcallServer/Big+More.swift",
         "extension Store {\n" + "".join(function(f"more{n}", 50) for n in range(7)) + "}\n",
         "type Store is 416 lines in"),
        ("Sources/RollcallServer/Huge.swift",
         "".join(f"struct Part{n} {{\n" + function("run", 40) + "}\n" for n in range(13)),
         "file is 546 lines"),
        ("Sources/RollcallServer/Quiet.swift",
         'struct Quiet {\n    func read(_ text: String) -> [String]? {\n'
         '        try? JSONDecoder().decode([String].self, from: Data(text.utf8))\n    }\n}\n',
         "try? outside the listed idioms"),
        ("Sources/RollcallCore/Upward.swift", "import RollcallServer\n", "imports go down the layers only"),
        ("Sources/RollcallNew/New.swift", "enum New {}\n", "a target with no layer"),
        ("Sources/RollcallQuizzes/Wide.swift", "struct Wide {\n    let configuration: Configuration\n}\n",
         "a feature holds Configuration"),
        ("Tests/RulesTests/Endless.swift", '@Suite("Endless", .serialized)\nstruct Endless {}\n',
         "a suite with no .timeLimit"),
    ],
    ids=[
        "function", "type", "type with its extensions", "server file", "try?", "upward import", "unlayered target",
        "whole configuration in a feature", "suite without a time limit",
    ],
)
def test_each_budget_broken_once_fails(tmp_path, path, text, breach):
    result = budgets(tree(tmp_path, {**CLEAN, path: text}))
    assert result.returncode == 1
    assert breach in result.stdout, result.stdout


def test_braces_in_strings_and_comments_do_not_move_a_function_end(tmp_path):
    tricky = (
        "struct Tricky {\n    func short() -> String {\n"
        '        // a } in a comment\n        let a = "}}} \\(1 + (2)) {"\n'
        '        let b = """\n        }\n        """\n        return a + b + #"}"#\n    }\n'
        + function("after", 60) + "}\n"
    )
    result = budgets(tree(tmp_path, {**CLEAN, "Sources/RollcallServer/Tricky.swift": tricky}))
    assert result.returncode == 0, result.stdout


def test_the_allowlist_lets_a_listed_line_through_and_refuses_one_that_allows_nothing(tmp_path):
    quiet = 'struct Quiet {\n    func read() -> Data? { try? Data(contentsOf: URL(filePath: "/proc/loadavg")) }\n}\n'
    files = {**CLEAN, "Sources/RollcallServer/Quiet.swift": quiet}
    allowed = "Sources/RollcallServer/Quiet.swift | /proc/loadavg | a probe of the machine's load\n"
    assert budgets(tree(tmp_path / "a", files, allowed)).returncode == 0
    stale = allowed + "Sources/RollcallServer/Gone.swift | try? | nothing here any more\n"
    result = budgets(tree(tmp_path / "b", files, stale))
    assert result.returncode == 1 and "allows nothing" in result.stdout


def test_rollcalls_own_sources_keep_their_budgets():
    result = budgets(ROOT)
    assert result.returncode == 0, result.stdout


def test_the_pages_error_codes_are_made_from_the_shared_enums():
    result = subprocess.run([sys.executable, str(ROOT / "scripts" / "codes.py"), "--check"], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


STATIC = ROOT / "Sources" / "RollcallWords" / "Resources" / "static"
# A code compared, set, defaulted or chosen as a quoted literal.
CODE_LITERAL = re.compile(
    r'\.code\s*(===|!==|=)\s*"[a-z]+_[a-z_]+"|\.code \?\? "[a-z]+_[a-z_]+"|"[a-z]+_[a-z_]+" : "[a-z]+_[a-z_]+"'
)


@pytest.mark.parametrize("script", sorted(p.name for p in STATIC.glob("*.js")))
def test_no_page_script_writes_an_error_code_by_hand(script):
    text = (STATIC / script).read_text()
    assert not CODE_LITERAL.search(text), f"{script}: name codes from /assets/codes.js"


def test_the_code_check_finds_a_code_written_by_hand():
    assert CODE_LITERAL.search('if (error.code === "stale_sequence") {')
    assert CODE_LITERAL.search('problem.code = "verification_required";')
    assert not CODE_LITERAL.search("if (error.code === ErrorCode.staleSequence) {")


ARCHITECTURE = ROOT / "docs" / "architecture.md"


@pytest.mark.parametrize("target", sorted(p.name for p in (ROOT / "Sources").iterdir() if p.is_dir()))
def test_the_architecture_page_names_every_target(target):
    page = ARCHITECTURE.read_text()
    assert f"Sources/{target} " in page and f"`{target}`" in page, f"docs/architecture.md: add {target}"


def server_folders() -> list[tuple[str, str]]:
    sys.path.insert(0, str(ROOT / "scripts"))
    import budgets

    return sorted(
        (target, folder.name)
        for target in budgets.SERVER_TARGETS
        for folder in (ROOT / "Sources" / target).iterdir()
        if folder.is_dir()
    )


def layout_sections() -> dict[str, str]:
    """The layout's text, cut at each `Sources/Target` line: what the page says of each target."""
    sections: dict[str, str] = {}
    current = None
    for line in ARCHITECTURE.read_text().split("\n"):
        heading = re.match(r"^Sources/(\S+) ", line)
        if heading:
            current = heading.group(1)
        elif not line.startswith(" "):
            current = None
        if current:
            sections[current] = sections.get(current, "") + line + "\n"
    return sections


@pytest.mark.parametrize(("target", "folder"), server_folders())
def test_the_architecture_page_names_every_folder_of_every_server_target(target, folder):
    section = layout_sections().get(target, "")
    assert re.search(rf"^  {folder}/ ", section, re.M), f"docs/architecture.md: add {folder}/ under Sources/{target}"


def test_the_readme_is_a_newcomers_page_that_links_the_architecture():
    readme = (ROOT / "README.md").read_text()
    assert readme.count("\n") <= 250
    assert "(docs/architecture.md)" in readme
