#!/usr/bin/env python3
"""Checks that every reference to the public wire contract resolves in docs/contract.md.

Code, tests and docs cite the contract as `§2.12`, `contract §3.5`, `§2.8-§2.12`, `§2.15, §3.5`, and
its numbered production decisions as `decision 22`, `Decision 4`, `decisions 3, 4, 8 and 9` or
`decisions 16–21`. A section exists when docs/contract.md has a heading `## N.` (for `§N`) or
`### N.N` (for `§N.N`); a decision exists when its number is an item of the numbered list under the
heading "Where this server departs from the emulator". A range is one reference; every number it
spans must exist. A reference may wrap onto the next comment line. Section marks that cite another
document (`RFC 4648 §5`, `OpenID Connect Core §3.1.3`, `OpenID Connect Discovery §4.3`, `WebAuthn Level 2 §7.1`) are not the
contract's and are skipped.

    python3 scripts/contract-references.py

Prints each reference that does not resolve with its file and line and exits 1; otherwise prints
one summary line and exits 0.
"""
import os, re, sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CONTRACT = os.path.join("docs", "contract.md")
SCANNED = ["Sources", "Tests", os.path.join("Fuzz", "Sources"), "client-tests", "docs", "deploy", "README.md"]
EXTENSIONS = (".swift", ".py", ".md", ".json", ".yml", ".yaml", ".sh", ".html", ".js")
SKIPPED_DIRECTORIES = {".build", "__pycache__", "node_modules", ".venv", ".venv-test"}

NUMBER = r"\d+(?:\.\d+)*"
DASH = r"\s*[-–—]\s*"
# What may stand between the words of a reference when a comment wraps it: spaces, a line break and
# the next line's comment marker.
GAP = r"(?:[ \t]*\n[ \t]*(?:///?|#|\*|--)?)?[ \t]*"
# §2.8, §2.8-§2.12, §2.8-2.12; a list is a run of these joined by commas, "and" or "or".
SECTION_ITEM = rf"§{GAP}{NUMBER}(?:{DASH}§?{NUMBER})?"
SECTIONS = re.compile(rf"{SECTION_ITEM}(?:{GAP}(?:,|and|or|;){GAP}{SECTION_ITEM})*")
ONE_SECTION = re.compile(rf"§{GAP}({NUMBER})(?:{DASH}§?({NUMBER}))?")
# decision 22; decisions 3, 4, 8 and 9; decisions 16–21 (a singular "decision" takes one number).
DECISION_ITEM = rf"\d+(?:{DASH}\d+)?"
DECISIONS = re.compile(
    rf"\b(?:[Dd]ecision{GAP}(\d+)\b|[Dd]ecisions{GAP}({DECISION_ITEM}(?:{GAP}(?:,|and|or){GAP}{DECISION_ITEM})*)\b)"
)
ONE_DECISION = re.compile(rf"(\d+)(?:{DASH}(\d+))?")
# A section mark right after one of these names another document's section.
FOREIGN = re.compile(
    r"(?:\bRFC[ \t]*\d+|\bOpenID Connect(?:[ \t]+\w+)?|\bSP[ \t]*800-\w+|\bWebAuthn(?:[ \t]+Level[ \t]*\d)?)[ \t,(]*$"
)


def contract_numbers(text):
    """(sections, decisions) that docs/contract.md defines."""
    sections = set()
    for match in re.finditer(r"^##[ \t]+(\d+)\.(?:[ \t]|$)", text, re.M):
        sections.add(match.group(1))
    for match in re.finditer(r"^###[ \t]+(\d+\.\d+)(?:[ \t.]|$)", text, re.M):
        sections.add(match.group(1))
    decisions = set()
    heading = re.search(r"^##[ \t]+.*\bdeparts? from the emulator.*$", text, re.M)
    if heading:
        rest = text[heading.end():]
        end = re.search(r"^#{1,2}[ \t]", rest, re.M)
        for match in re.finditer(r"^(\d+)\.[ \t]", rest[: end.start() if end else len(rest)], re.M):
            decisions.add(int(match.group(1)))
    return sections, decisions


def scanned_files():
    for entry in SCANNED:
        path = os.path.join(ROOT, entry)
        if os.path.isfile(path):
            yield entry
            continue
        for directory, subdirectories, files in os.walk(path):
            subdirectories[:] = sorted(d for d in subdirectories if d not in SKIPPED_DIRECTORIES)
            for name in sorted(files):
                relative = os.path.relpath(os.path.join(directory, name), ROOT)
                if name.endswith(EXTENSIONS) and relative != CONTRACT:
                    yield relative


def section_range(first, last):
    """The sections a range names: both ends, and those between them when they share a parent."""
    if last is None:
        return [first]
    a, b = first.split("."), last.split(".")
    if len(a) == len(b) and a[:-1] == b[:-1] and int(a[-1]) <= int(b[-1]):
        return [".".join(a[:-1] + [str(n)]) for n in range(int(a[-1]), int(b[-1]) + 1)]
    return [first, last]


def references(text):
    """(offset, kind, numbers) for every contract reference in text, as written: a range is one
    reference naming every number it spans. kind is "§" or "decision"."""
    found = []
    for match in SECTIONS.finditer(text):
        line_start = text.rfind("\n", 0, match.start()) + 1
        before = text[line_start:match.start()]
        if not before.strip():  # the name of another document may end the line before
            previous_start = text.rfind("\n", 0, max(line_start - 1, 0)) + 1
            before = re.sub(r"^\s*(?:///?|#|\*|--)?", "", text[previous_start:max(line_start - 1, 0)])
        if FOREIGN.search(before):
            continue
        for item in ONE_SECTION.finditer(match.group(0)):
            found.append((match.start() + item.start(), "§", section_range(item.group(1), item.group(2))))
    for match in DECISIONS.finditer(text):
        if match.group(1):
            found.append((match.start(1), "decision", [int(match.group(1))]))
            continue
        for item in ONE_DECISION.finditer(match.group(2)):
            first = int(item.group(1))
            last = int(item.group(2)) if item.group(2) else first
            found.append((match.start(2) + item.start(), "decision", list(range(first, max(first, last) + 1))))
    return found


def main():
    with open(os.path.join(ROOT, CONTRACT), encoding="utf-8") as contract:
        sections, decisions = contract_numbers(contract.read())
    if not sections or not decisions:
        print(f"{CONTRACT}: no numbered sections or no decision list found", file=sys.stderr)
        return 1
    total, files, missing = 0, 0, []
    for relative in scanned_files():
        try:
            with open(os.path.join(ROOT, relative), encoding="utf-8") as source:
                text = source.read()
        except UnicodeDecodeError:
            continue
        found = references(text)
        if found:
            files += 1
            total += len(found)
        for offset, kind, numbers in found:
            for number in numbers:
                if number not in (sections if kind == "§" else decisions):
                    line = text.count("\n", 0, offset) + 1
                    cited = f"§{number}" if kind == "§" else f"decision {number}"
                    missing.append((relative, line, offset, f"{relative}:{line}: {cited} is not in {CONTRACT}"))
    for *_, problem in sorted(missing):
        print(problem)
    if missing:
        print(f"contract references: {len(missing)} of {total} in {files} files not in {CONTRACT}", file=sys.stderr)
        return 1
    print(f"contract references: {total} in {files} files, all in {CONTRACT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
