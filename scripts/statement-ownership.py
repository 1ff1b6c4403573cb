#!/usr/bin/env python3
"""Holds three rules of the data services' SQL (docs/architecture.md, "Statements and tables").

1. Every table is named by one repository type only: its file `<Owner>.swift`, or an extension file
   `<Owner>+<Concern>.swift` beside it. Another component asks the owner, either through a method or,
   for a join or a list of tables, through the owner's own constant (`EnrollmentRepository.table`),
   never by writing the name itself. The migrations that create the tables are exempt.
2. No statement's rows are decoded as a positional tuple (`rows.decode((String, Int64).self)`): each
   statement's row is a struct read by column name (`StatementRow`).
3. Every statement is a type of its own (TenantStore's `Statement`: its values, its text in a
   schema, its `Row`), run with `run`/`first`: no `.query(…)` is written in the data services or
   ServiceKit (INLINE_STATEMENTS, 0, is how many may be).

A table is "named" where its name appears in code (comments are skipped) as a `qualified("…")`
argument, a retention rule's `table:`, an `SQLText` constant, an entry of a `from: [...]` list, after
FROM/JOIN/INTO/UPDATE/TABLE in SQL text, or as `control.<table>`. The tables are read from the
`CREATE TABLE` statements, so a new table without an owner below fails too.
Exits 1 and lists every breach.
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
SOURCES = ROOT / "Sources"

# The one repository type that owns each table.
OWNERS = {
    "accounts": "AccountRepository",
    "mfa_enrollments": "EnrollmentRepository",
    "federated_identities": "FederatedIdentityRepository",
    "idp_used_nonces": "FederatedIdentityRepository",
    "idp_configs": "IdentityProviderConfigRepository",
    "oob_codes": "OOBCodeRepository",
    "passkeys": "PasskeyRepository",
    "password_signer_keys": "PasswordSignerKeyRepository",
    "projects": "TenantRepository",
    "tenants": "TenantRepository",
    "security_events": "SecurityEventLog",
    "rate_buckets": "RateLimiter",
    "schema_migrations": "TenantMigrator",
    "signing_keys": "SigningKeyRepository",
    "session_families": "SessionRepository",
    "refresh_tokens": "SessionRepository",
    "mfa_pending_credentials": "PendingCredentials",
    "totp_factors": "TOTPFactorRepository",
    "recovery_codes": "RecoveryCodeRepository",
    "recovery_code_sets": "RecoveryCodeRepository",
    "verification_sessions": "VerificationSessionRepository",
    "finished_sign_ins": "FinishedSignIns",
    "passkey_challenges": "PasskeyChallenges",
    "development_outbox": "DevelopmentOutbox",
    "ios_receipts": "IosReceipts",
    "sms_regions": "SMSDefenseRepository",
    "sms_sends": "SMSDefenseRepository",
    "sms_daily": "SMSDefenseRepository",
}

# Statements written inline in the data services and ServiceKit: none (every statement is a type).
INLINE_STATEMENTS = 0
INLINE_ROOTS = ["FactorRegistryApp", "ChallengeIssuerApp", "SessionTokenApp", "ServiceKit"]
INLINE = re.compile(r"\.query\(")

CREATE = re.compile(r"CREATE (?:UNLOGGED )?TABLE (?:IF NOT EXISTS )?(?:\\\(sql: [^)]*\)\.|\w+\.)?(\w+)")
TUPLE_DECODE = re.compile(r"\.decode\(\s*\(|typealias Row = \(")


def is_migration(path: pathlib.Path) -> bool:
    return path.name.endswith("Migrations.swift") or path.name in ("TenantMigration.swift", "TenantMigrator.swift")


def code_lines(text: str):
    """The file's lines with `//` comments dropped (a `//` inside a string literal is kept)."""
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.lstrip()
        if stripped.startswith("//"):
            continue
        yield number, line


def named_tables(line: str, tables: set[str]):
    patterns = [
        r'qualified\("(\w+)"\)',
        r'table:\s*"(\w+)"',
        r':\s*SQLText\s*=\s*"(\w+)"',
        r"\b(?:FROM|JOIN|INTO|UPDATE|TABLE)\s+(?:ONLY\s+)?(?:control\.)?(\w+)\b",
        r"\bcontrol\.(\w+)\b",
    ]
    found = set()
    for pattern in patterns:
        found.update(m.group(1) for m in re.finditer(pattern, line))
    for listed in re.finditer(r"from:\s*\[([^\]]*)\]", line):
        found.update(re.findall(r'"(\w+)"', listed.group(1)))
    return found & tables


def owns(path: pathlib.Path, owner: str) -> bool:
    return path.stem == owner or path.stem.startswith(owner + "+")


def main() -> int:
    files = sorted(SOURCES.rglob("*.swift"))
    tables = set()
    for path in files:
        if is_migration(path) or path.parent.name == "Database":
            tables.update(CREATE.findall(path.read_text()))
    breaches = []
    for table in sorted(tables - OWNERS.keys()):
        breaches.append(f"table {table} has no owner in scripts/statement-ownership.py")
    for path in files:
        text = path.read_text()
        relative = path.relative_to(ROOT)
        for match in TUPLE_DECODE.finditer(text):
            number = text.count("\n", 0, match.start()) + 1
            breaches.append(f"{relative}:{number}: rows decoded as a tuple; give the statement a StatementRow")
        for number, line in code_lines(text):
            if is_migration(path):
                continue
            for table in sorted(named_tables(line, tables)):
                if not owns(path, OWNERS[table]):
                    breaches.append(f"{relative}:{number}: names {table}, which only {OWNERS[table]} may name")
    inline = 0
    for root in INLINE_ROOTS:
        for path in sorted((SOURCES / root).rglob("*.swift")):
            if not is_migration(path):
                inline += sum(len(INLINE.findall(line)) for _, line in code_lines(path.read_text()))
    if inline > INLINE_STATEMENTS:
        breaches.append(
            f"{inline} statements written inline (at most {INLINE_STATEMENTS}): write the statement as a Statement type"
        )
    for breach in breaches:
        print(breach, file=sys.stderr)
    if breaches:
        print(f"statement ownership: {len(breaches)} breaches", file=sys.stderr)
        return 1
    print(
        f"statement ownership: {len(tables)} tables, each named by its owner only; no tuple decoding; "
        f"every statement a type ({inline} inline)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
