#!/usr/bin/env python3
"""Every statement type is run by a Swift test against PostgreSQL (docs/architecture.md,
"Statements and tables").

`swift test`, run by scripts/test.sh with MFA_TEST_STATEMENT_LEDGER naming a file, writes there the
name of each statement type it ran (TenantStore's `StatementLedger`, `Module.Owner.Statement`). This
compares that ledger with the statement types declared in Sources (`struct X: Statement`): a
declared type the ledger lacks fails.

Usage: statement-coverage.py LEDGER. Exits 1 and lists every breach.
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
DECLARATION = re.compile(r"^\s*(?:public |fileprivate |private )?struct (\w+): (?:[\w, ]*\b)?Statement\b(?!Row)", re.M)

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
    breaches = [f"{module}.{name} ({path}) is run by no Swift test" for (module, name), path in sorted(types.items())
                if (module, name) not in ran]
    if breaches:
        print("statement coverage:", *breaches, sep="\n  ", file=sys.stderr)
        sys.exit(1)
    print(f"statement coverage: all {len(types)} statement types are run by a Swift test")

if __name__ == "__main__":
    main()
