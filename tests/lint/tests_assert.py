#!/usr/bin/env python3
"""Every Swift Testing `@Test` asserts something (issue 42): its body holds `#expect`,
`#require` or `Issue.record`, or calls a helper of its test target that does. A test that
only runs code and never looks at the result cannot fail, and this check says which.
Run from the repository root; exit 1 naming the tests that assert nothing."""
from __future__ import annotations

import re
import sys
from pathlib import Path

ASSERTS = re.compile(r"#expect|#require|Issue\.record")
FUNC = re.compile(r"\bfunc\s+([A-Za-z_][A-Za-z0-9_]*)")


STRINGS = re.compile(r'#+"""[\s\S]*?"""#+|"""[\s\S]*?"""|#+"(?:[^"\n]|"(?!#))*"#+|"(?:[^"\\\n]|\\.)*"|//[^\n]*')


def blank_strings(text: str) -> str:
    """`text` with every string literal and line comment blanked (same length), so their
    braces and words count for nothing."""
    return STRINGS.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)


def body_at(text: str, start: int) -> tuple[str, int]:
    """The brace-balanced body from the first `{` at or after `start`."""
    open_at = text.index("{", start)
    depth = 0
    for i in range(open_at, len(text)):
        if text[i] == "{":
            depth += 1
        elif text[i] == "}":
            depth -= 1
            if depth == 0:
                return text[open_at:i + 1], i + 1
    return text[open_at:], len(text)


def functions(source: str) -> list[tuple[str, bool, str]]:
    """(name, is a @Test, body) of every func in `source`; a func declared inside a test's body
    is part of that test, not one of its own."""
    text = blank_strings(source)
    found = []
    inside_until = -1
    for match in FUNC.finditer(text):
        if match.start() < inside_until:
            continue
        head = text[max(0, match.start() - 400):match.start()]
        # The attribute applies when it is the last declaration start before `func`.
        last_decl = max(head.rfind("}"), head.rfind(";"))
        is_test = "@Test" in head[last_decl + 1:] if last_decl >= 0 else "@Test" in head
        try:
            body, end = body_at(text, match.end())
        except ValueError:
            continue
        if is_test:
            inside_until = end
        found.append((match.group(1), is_test, body))
    return found


def main() -> int:
    silent: list[str] = []
    total = 0
    for target in sorted(Path("Tests").iterdir()):
        if not target.is_dir():
            continue
        files = {p: p.read_text() for p in target.rglob("*.swift")}
        helpers = {name for text in files.values() for name, is_test, body in functions(text)
                   if not is_test and ASSERTS.search(body)}
        for _ in range(3):  # helpers that call helpers that assert
            helpers |= {name for text in files.values() for name, is_test, body in functions(text)
                        if not is_test and any(re.search(rf"\b{re.escape(h)}\s*[(<{{]", body) for h in helpers)}
        for path, text in files.items():
            for name, is_test, body in functions(text):
                if not is_test:
                    continue
                total += 1
                if ASSERTS.search(body) or any(re.search(rf"\b{re.escape(h)}\s*[(<{{]", body) for h in helpers):
                    continue
                silent.append(f"{path}: {name}")
    for line in silent:
        print(f"asserts nothing: {line}")
    print(f"tests_assert: {total} @Test functions looked at, {len(silent)} assert nothing")
    return 1 if silent else 0


if __name__ == "__main__":
    sys.exit(main())
