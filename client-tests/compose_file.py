"""docker-compose.yml read the way docker-compose reads it, for the production test stack: anchors
merged (`<<: *service-environment`), `${VAR}`, `${VAR:-default}` and `${VAR:?error}` interpolated
from an env file's variables, and a key listed without a value taken from those variables or left
unset. Only what the stack needs; docker-compose itself validates the files (scripts/validate-compose.sh).
"""

import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
_REFERENCE = re.compile(r"\$(?:(?P<escaped>\$)|\{(?P<braced>[^}]*)\}|(?P<named>[A-Za-z_][A-Za-z0-9_]*))")
_BRACED = re.compile(r"(?P<name>[A-Za-z_][A-Za-z0-9_]*)(?:(?P<operator>:?[-?])(?P<argument>.*))?", re.S)


class MissingVariable(Exception):
    """A `${VAR:?message}` whose variable is unset or empty: compose refuses the file, and so do we."""


def read_env_file(path: Path) -> dict[str, str]:
    """`KEY=value` lines; blank lines and `#` comments skipped (a commented-out setting stays unset)."""
    variables = {}
    for line in path.read_text().splitlines():
        line = line.strip()
        if line and not line.startswith("#") and "=" in line:
            key, value = line.split("=", 1)
            variables[key.strip()] = value.strip()
    return variables


def interpolate(text: str, variables: dict[str, str]) -> str:
    def replace(match: re.Match) -> str:
        if match["escaped"]:
            return "$"
        if match["named"]:
            return variables.get(match["named"], "")
        parts = _BRACED.fullmatch(match["braced"])
        if parts is None:
            raise ValueError(f"invalid interpolation: {match[0]}")
        value, operator, argument = variables.get(parts["name"]), parts["operator"], parts["argument"]
        unset = value is None or (operator is not None and operator.startswith(":") and value == "")
        if operator in ("-", ":-"):
            return interpolate(argument, variables) if unset else value
        if operator in ("?", ":?"):
            if unset:
                raise MissingVariable(f"{parts['name']}: {argument}")
            return value
        return value or ""

    return _REFERENCE.sub(replace, text)


class ComposeFile:
    def __init__(self, path: Path, variables: dict[str, str]):
        self.path = path
        self.variables = variables
        self.services = yaml.safe_load(path.read_text())["services"]

    def named(self, product: str) -> str:
        """The service built with this PRODUCT (deploy/Dockerfile's build argument)."""
        for name, service in self.services.items():
            if ((service.get("build") or {}).get("args") or {}).get("PRODUCT") == product:
                return name
        raise KeyError(f"{self.path.name}: no service builds {product}")

    def running(self, image: str) -> str:
        """The service that runs an image pulled as it is (`postgres` for `postgres:15`)."""
        for name, service in self.services.items():
            if str(service.get("image", "")).split(":")[0] == image and "build" not in service:
                return name
        raise KeyError(f"{self.path.name}: no service runs {image}")

    def environment(self, service: str) -> dict[str, str]:
        """The service's environment as its container gets it."""
        environment = {}
        for key, value in (self.services[service].get("environment") or {}).items():
            if value is None:
                # `KEY:` passes the variable of the same name on, or nothing when it is unset.
                if key in self.variables:
                    environment[key] = self.variables[key]
            else:
                environment[key] = interpolate(str(value), self.variables)
        return environment

    def mounts(self, service: str) -> list[tuple[str, str, bool]]:
        """(source, target, read-only): a named volume's name, or a bind mount's absolute host path."""
        found = []
        for volume in self.services[service].get("volumes") or []:
            source, target, *options = interpolate(volume, self.variables).split(":")
            if source.startswith((".", "/")):
                source = str((ROOT / source).resolve())
            found.append((source, target, "ro" in ",".join(options).split(",")))
        return found

    def command(self, service: str) -> str:
        """The shell script of a service whose entrypoint is `/bin/sh -c SCRIPT`."""
        entrypoint = self.services[service]["entrypoint"]
        assert entrypoint[:2] == ["/bin/sh", "-c"], entrypoint
        return interpolate(entrypoint[2], self.variables)
