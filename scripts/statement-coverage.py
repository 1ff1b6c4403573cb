#!/usr/bin/env python3
"""Every statement type is run by a Swift test against PostgreSQL (docs/architecture.md,
"Statements and tables").

`swift test`, run by scripts/test.sh with MFA_TEST_STATEMENT_LEDGER naming a file, writes there the
name of each statement type it ran (TenantStore's `StatementLedger`, `Module.Owner.Statement`). This
compares that ledger with the statement types declared in Sources (`struct X: Statement`):

- a declared type the ledger lacks fails, unless it is in NOT_YET_RUN below;
- a type in NOT_YET_RUN that did run fails too, so that the list only shrinks.

Usage: statement-coverage.py LEDGER. Exits 1 and lists every breach.
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
DECLARATION = re.compile(r"^\s*(?:public |fileprivate |private )?struct (\w+): (?:[\w, ]*\b)?Statement\b(?!Row)", re.M)

# Statement types that no Swift test runs yet, by module and name: reached only through the Python
# suite's flows. Each one a test reaches comes off this list.
NOT_YET_RUN: set[tuple[str, str]] = set()


def declared():
    types = {}
    for path in sorted((ROOT / "Sources").rglob("*.swift")):
        module = path.relative_to(ROOT / "Sources").parts[0]
        for match in DECLARATION.finditer(path.read_text()):
            key = (module, match.group(1))
            if key in types:
                sys.exit(f"statement coverage: {module}.{match.group(1)} is declared twice ({types[key]}, {path.relative_to(ROOT)})")
            types[key] = path.relative_to(ROOT)
    return types


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    ledger = pathlib.Path(sys.argv[1])
    if not ledger.exists():
        sys.exit(f"statement coverage: no ledger at {ledger} (swift test writes it when MFA_TEST_STATEMENT_LEDGER names it)")
    ran = set()
    for line in ledger.read_text().splitlines():
        parts = line.strip().split(".")
        if len(parts) >= 2:
            ran.add((parts[0], parts[-1]))
    types = declared()
    breaches = []
    for key, path in sorted(types.items()):
        if key not in ran and key not in NOT_YET_RUN:
            breaches.append(f"{key[0]}.{key[1]} ({path}) is run by no Swift test")
        if key in ran and key in NOT_YET_RUN:
            breaches.append(f"{key[0]}.{key[1]} is run by a Swift test now: take it off NOT_YET_RUN")
    breaches += [f"{module}.{name} is in NOT_YET_RUN but declared nowhere" for module, name in sorted(NOT_YET_RUN - types.keys())]
    if breaches:
        print("statement coverage:", *breaches, sep="\n  ", file=sys.stderr)
        sys.exit(1)
    print(f"statement coverage: {len(types) - len(NOT_YET_RUN)} of {len(types)} statement types run by a Swift test; "
          f"{len(NOT_YET_RUN)} not yet (NOT_YET_RUN)")


if __name__ == "__main__":
    main()
