"""What a compose file must keep, beyond compose's own schema: production mode, each service with only
its own key material, nothing published but the gateway's public API (TLS with the operator's
certificate beyond the host; plain HTTP on the host's loopback at most) and its admin listener (on the
host's loopback only, and present, so that no admin credential counts on the public port), no private
key made readable.

    python3 scripts/check_compose.py CONFIG_YAML [NAME]

CONFIG_YAML is `docker-compose config` output (variables interpolated, anchors merged, bind-mount
sources absolute); NAME, the compose file it came from, labels the problems. scripts/validate-compose.sh
runs it for both compose files; it needs PyYAML.
"""

import re
import shlex
import sys
from pathlib import Path

import yaml

SERVICES = ["factor-registry", "challenge-issuer", "session-token", "gateway"]
ALL_IN_ONE = "mfa-all-in-one"
# The gateway's public listeners: HTTP and HTTPS (HTTP/2). Plain HTTP carries passwords and the
# admin token in clear, so it may be published on the host's loopback only (issue 40, M-8).
PUBLIC_PORTS = {8080, 8443}
PLAIN_PORT = 8080
# The admin listener (TLS): where admin credentials count, on the host's loopback only (issue 57, F-8).
ADMIN_PORT = 8444


def product(service: dict) -> str | None:
    return ((service.get("build") or {}).get("args") or {}).get("PRODUCT")


def mounts(service: dict) -> list[tuple[str, str, bool]]:
    """(source, target, read-only) of each volume, in either of compose's two spellings."""
    found = []
    for volume in service.get("volumes") or []:
        if isinstance(volume, str):
            parts = volume.split(":")
            found.append((parts[0], parts[1], len(parts) > 2 and "ro" in parts[2].split(",")))
        else:
            found.append((volume["source"], volume["target"], bool(volume.get("read_only"))))
    return found


def container_port(port) -> int:
    if isinstance(port, dict):
        return int(port["target"])
    return int(str(port).split("/")[0].split(":")[-1])


def container_ports(service: dict) -> list[int]:
    return [container_port(port) for port in service.get("ports") or []]


def host_ip(port) -> str:
    """The host address a published port binds (`127.0.0.1:3000:3000`; all addresses when none)."""
    if isinstance(port, dict):
        return port.get("host_ip") or "0.0.0.0"
    parts = str(port).split(":")
    return parts[0] if len(parts) == 3 else "0.0.0.0"


def command_text(service: dict) -> str:
    parts = []
    for key in ("entrypoint", "command"):
        value = service.get(key) or []
        parts.extend([value] if isinstance(value, str) else value)
    return "\n".join(parts)


def hand_outs(command: str) -> dict[str, list[str]]:
    """The certs job's `distribute.sh PKI DEST SERVICE...` calls: destination -> services."""
    calls = {}
    for line in command.splitlines():
        words = shlex.split(line, comments=True)
        for index, word in enumerate(words):
            if word.endswith("/distribute.sh"):
                calls[words[index + 2]] = words[index + 3:]
    return calls


def world_readable(mode: str) -> bool:
    """An octal mode with the others' read bit, or a symbolic one adding it (`o+r`, `a=r`, `+r`)."""
    if re.fullmatch(r"[0-7]{3,4}", mode):
        return int(mode[-1]) & 4 != 0
    for clause in mode.split(","):
        match = re.fullmatch(r"([ugoa]*)([+=])([rwxXst]*)", clause)
        if match and (not match[1] or set(match[1]) & {"o", "a"}) and "r" in match[3]:
            return True
    return False


def exposed_keys(text: str, origin: str) -> list[str]:
    """Lines that give a private key a mode others can read. A heuristic over shell text: a mode
    (`chmod MODE`, `install -m MODE`, distribute.sh's `copy MODE FILE`) on a line naming a key or a
    glob; and any copy of the CA's key, which must never leave the certs job's volume."""
    problems = []
    for number, line in enumerate(text.splitlines(), 1):
        code = line.split("#", 1)[0]
        if "ca-key" in code and re.search(r"\b(cp|install|copy|mv|cat|tar|rsync)\b", code):
            problems.append(f"{origin}:{number}: copies the CA's private key: {line.strip()}")
        for mode in re.findall(r"(?:chmod|-m|copy)\s+(\S+)", code):
            names_key = "key" in code or "*" in code
            if names_key and world_readable(mode.strip("\"'")):
                problems.append(f"{origin}:{number}: mode {mode} lets others read a key: {line.strip()}")
    return problems


def check(config: dict) -> list[str]:
    problems = []
    services = config.get("services") or {}
    apps = {name: s for name, s in services.items() if product(s) in SERVICES + [ALL_IN_ONE]}
    jobs = {name: s for name, s in services.items() if product(s) == "mfa-dev-pki"}
    if not apps:
        problems.append("no service built from deploy/Dockerfile")
    if len(jobs) != 1:
        problems.append(f"expected one certs job (PRODUCT mfa-dev-pki), found {sorted(jobs)}")

    for name, service in apps.items():
        mode = (service.get("environment") or {}).get("MFA_MODE")
        if mode != "production":
            problems.append(f"{name}: MFA_MODE is {mode!r}, not production")

    for name, service in services.items():
        if "monitoring" in (service.get("profiles") or []):
            # Prometheus and Grafana, opt-in: on the host's loopback only, never on its network.
            exposed = [port for port in service.get("ports") or [] if host_ip(port) != "127.0.0.1"]
            if exposed:
                problems.append(f"{name}: publishes {exposed} beyond 127.0.0.1; monitoring stays on loopback")
            continue
        extra = [port for port in container_ports(service)
                 if product(service) not in ("gateway", ALL_IN_ONE) or port not in PUBLIC_PORTS | {ADMIN_PORT}]
        if extra:
            problems.append(f"{name}: publishes {extra}; only the gateway's {sorted(PUBLIC_PORTS)} may be")
        admin = [port for port in service.get("ports") or []
                 if container_port(port) == ADMIN_PORT and host_ip(port) not in ("127.0.0.1", "::1")]
        if admin:
            problems.append(f"{name}: publishes the admin listener {admin} beyond the host's loopback")
        plain = [port for port in service.get("ports") or []
                 if container_port(port) == PLAIN_PORT and host_ip(port) not in ("127.0.0.1", "::1")]
        if plain:
            problems.append(f"{name}: publishes plain HTTP {plain} beyond the host's loopback; publish TLS only")

    for name, service in apps.items():
        environment = service.get("environment") or {}
        certificate = environment.get("MFA_PUBLIC_TLS_CERTIFICATE") or ""
        if environment.get("MFA_PUBLIC_TLS_PORT") and (not certificate or certificate.startswith("/certs/")):
            problems.append(f"{name}: the public TLS listener must serve the operator's certificate "
                            f"(MFA_PUBLIC_TLS_CERTIFICATE, not the internal identity under /certs)")
        # Without an admin listener, admin credentials count on the public listeners, port 443 among them.
        if product(service) in ("gateway", ALL_IN_ONE) and str(environment.get("MFA_ADMIN_LISTENER_PORT") or "0") in ("", "0"):
            problems.append(f"{name}: no admin listener (MFA_ADMIN_LISTENER_PORT): admin credentials would count on "
                            "the public port")

    for job_name, job in jobs.items():
        command = command_text(job)
        problems += exposed_keys(command, f"{job_name} command")
        job_mounts = {target: source for source, target, _ in mounts(job)}
        for source, target, _ in mounts(job):
            if target.endswith("/distribute.sh"):
                problems += exposed_keys(Path(source).read_text(), source)
        # Which volume receives which services' files.
        received = {job_mounts[dest]: served for dest, served in hand_outs(command).items() if dest in job_mounts}
        pki = re.search(r"mfa-dev-pki\s+(\S+)", command)
        pki_volume = job_mounts.get(pki.group(1)) if pki else None
        if pki_volume is None:
            problems.append(f"{job_name}: mfa-dev-pki's directory is not one of its volumes")
        key_volumes = set(received) | {pki_volume}
        holders = {}
        for name, service in services.items():
            if name == job_name:
                continue
            for source, target, read_only in mounts(service):
                if source not in key_volumes:
                    continue
                holders.setdefault(source, []).append(name)
                if source == pki_volume:
                    problems.append(f"{name}: mounts {source}, which holds the CA's private key")
                    continue
                wanted = SERVICES if product(service) == ALL_IN_ONE else [product(service)]
                if sorted(received[source]) != sorted(wanted):
                    problems.append(f"{name}: mounts {source}, which holds the files of {received[source]}")
                if target != "/certs" or not read_only:
                    problems.append(f"{name}: mounts {source} at {target}{'' if read_only else ' read-write'}; "
                                    "expected /certs, read-only")
        for volume, names in holders.items():
            if len(names) > 1:
                problems.append(f"{volume} is mounted by {names}: each service's key volume is its own")
        for name in apps:
            if not any(source in received for source, _, _ in mounts(apps[name])):
                problems.append(f"{name}: mounts no key volume of its own at /certs")
    return problems


def main() -> int:
    path = sys.argv[1]
    name = sys.argv[2] if len(sys.argv) > 2 else path
    problems = check(yaml.safe_load(Path(path).read_text()))
    for problem in problems:
        print(f"{name}: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
