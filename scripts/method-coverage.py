#!/usr/bin/env python3
"""Every RPC method the data services serve is called by at least one Swift test.

Reads the method types of `Sources/Contracts/{FactorRegistry,ChallengeIssuer,SessionToken,Common}`
(each `RPCMethod` with its `static let name`) and looks for each type's name in `Tests/`: a method
no Swift test names is tested, if at all, only through the Python suite, minutes per run instead of
seconds (docs/architecture.md, "Modules"). The gateway's public operations are covered by the
Python clients, not here. Exits 1 and lists the methods without a test.
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
SERVED = ["FactorRegistry", "ChallengeIssuer", "SessionToken", "Common"]
METHOD = re.compile(r'public (?:struct|enum) (\w+)\s*:\s*RPCMethod[^{]*\{(?:(?!public (?:struct|enum) \w+\s*:\s*RPCMethod).)*?'
                    r'static let name = "([^"]+)"', re.S)


def main() -> int:
    methods = []
    for folder in SERVED:
        for path in sorted((ROOT / "Sources" / "Contracts" / folder).glob("*.swift")):
            methods += [(folder, m.group(1), m.group(2)) for m in METHOD.finditer(path.read_text())]
    tests = "\n".join(path.read_text() for path in (ROOT / "Tests").rglob("*.swift"))
    missing = [(folder, name, wire) for folder, name, wire in methods if not re.search(r"\b" + name + r"\b", tests)]
    for folder, name, wire in missing:
        print(f"{folder}: {name} ({wire}) is called by no Swift test", file=sys.stderr)
    if missing or not methods:
        print(f"method coverage: {len(missing)} of {len(methods)} methods without a Swift test", file=sys.stderr)
        return 1
    print(f"method coverage: all {len(methods)} data-service methods are called by a Swift test")
    return 0


if __name__ == "__main__":
    sys.exit(main())
