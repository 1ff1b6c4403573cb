#!/usr/bin/env python3
"""Checks that every target in Package.swift declares exactly the modules its sources import.

SwiftPM lets a target import a module that only another of its dependencies brings in; the build's
`--explicit-target-dependency-import-check error` catches that for the package's own targets, and
this script catches it for products of other packages as well, and catches declared dependencies
that nothing imports. Exits non-zero naming each difference.
"""
import glob, os, re, sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Modules from the toolchain: never declared.
SYSTEM = {"Foundation", "Dispatch", "Synchronization", "Testing", "Glibc", "Darwin"}
IMPORT = re.compile(r'^\s*(?:@\w+ |public |package |internal )*import (?:(?:struct|enum|class|func|protocol) )?(\w+)')

def imports(directory):
    found = set()
    for path in glob.glob(os.path.join(directory, "**", "*.swift"), recursive=True):
        with open(path, encoding="utf-8") as source:
            for line in source:
                match = IMPORT.match(line)
                if match:
                    found.add(match.group(1))
    return found - SYSTEM

def declared(package):
    """name -> (kind, set of module names) for every target, from the manifest's text."""
    targets = {}
    for match in re.finditer(r'\.(target|executableTarget|testTarget|systemLibrary)\(\s*name: "([^"]+)"', package):
        kind, name = match.group(1), match.group(2)
        rest = package[match.end():]
        end = rest.find("\n        .")  # the next target at the same indentation
        block = rest if end < 0 else rest[:end]
        deps = set()
        dep_match = re.search(r'dependencies: \[', block)
        if dep_match:
            depth, i = 1, dep_match.end()
            while depth:
                depth += {"[": 1, "]": -1}.get(block[i], 0)
                i += 1
            text = block[dep_match.end():i - 1]
            deps |= set(re.findall(r'\.product\(name: "([^"]+)"', text))
            deps |= set(re.findall(r'(?<!name: )"([^"]+)"(?!,? package)', re.sub(r'\.product\([^)]*\)', "", text)))
        path = re.search(r'path: "([^"]+)"', block)
        targets[name] = (kind, deps, path.group(1) if path else None)
    return targets

def main():
    with open(os.path.join(ROOT, "Package.swift"), encoding="utf-8") as manifest:
        targets = declared(manifest.read())
    problems = []
    for name, (kind, deps, path) in sorted(targets.items()):
        if kind == "systemLibrary":
            continue
        directory = os.path.join(ROOT, path or os.path.join("Tests" if kind == "testTarget" else "Sources", name))
        used = imports(directory)
        for module in sorted(used - deps):
            problems.append(f"{name} imports {module} without declaring it")
        for module in sorted(deps - used):
            problems.append(f"{name} declares {module} but imports nothing from it")
    for problem in problems:
        print(problem)
    if problems:
        sys.exit(1)
    print(f"package dependencies: {len(targets)} targets declare exactly what they import")

if __name__ == "__main__":
    main()
