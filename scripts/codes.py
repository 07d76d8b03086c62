#!/usr/bin/env python3
"""Writes the error codes of Sources/RollcallProtocol for the pages' scripts, as messages.py writes the catalogs'
template: the Swift enums are the one list, and `static/codes.js` is made from them.

    scripts/codes.py           write Sources/RollcallWords/Resources/static/codes.js
    scripts/codes.py --check   exit 1 if it is not what the enums make
"""

import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
PROTOCOL = ROOT / "Sources" / "RollcallProtocol"
OUTPUT = ROOT / "Sources" / "RollcallWords" / "Resources" / "static" / "codes.js"
CASE = re.compile(r'^\s*case (\w+) = "([a-z_]+)"', re.M)


def cases(file: str) -> list[tuple[str, str]]:
    return CASE.findall((PROTOCOL / file).read_text())


def script() -> str:
    def table(name: str, entries: list[tuple[str, str]]) -> str:
        rows = "".join(f'  {swift}: "{raw}",\n' for swift, raw in entries)
        return f"export const {name} = Object.freeze({{\n{rows}}});\n"

    return (
        "// Rollcall's error codes, made by scripts/codes.py from Sources/RollcallProtocol: change them there.\n"
        "// The server's codes, as `{\"error\": {\"code\": …}}` carries them.\n"
        + table("ErrorCode", cases("ErrorCode.swift"))
        + "// The codes the pages give a failure the server never answered.\n"
        + table("ClientErrorCode", cases("ClientErrorCode.swift"))
    )


def main() -> int:
    wanted = script()
    if "--check" in sys.argv:
        if not OUTPUT.exists() or OUTPUT.read_text() != wanted:
            print(f"{OUTPUT.relative_to(ROOT)} is not what the enums make: run scripts/codes.py", file=sys.stderr)
            return 1
        return 0
    OUTPUT.write_text(wanted)
    return 0


if __name__ == "__main__":
    sys.exit(main())
