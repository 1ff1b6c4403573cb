#!/usr/bin/env python3
"""CPU per request, by process (docs/performance.md, "Where a finalize's CPU goes now").

For each shape (four processes, then one), brings up a fresh stack with `scripts/stack.sh up` (the
benchmark project hashes passwords cheaply, as scripts/bench-pairs.sh does), runs one `mfa-bench load`
scenario closed-loop, and divides the CPU each process used over the measured seconds (from /proc,
bracketing the run between its "measuring" line and its result) by the requests served. With
--perf, the gateway of the four-process stack is also profiled for 8 s of the run
(`perf record -F 499 -g`, written to perf-gateway.data here; read it with `perf report -i`).

    scripts/bench-cpu-per-request.py [--scenario totp-finalize] [--perf] [four] [one]

Loopback only, like mfa-bench itself. Uses this checkout's release build (`swift build -c release`).
"""
import argparse
import glob
import os
import re
import subprocess
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HZ = os.sysconf("SC_CLK_TCK")


def ticks(pid):
    """User and system CPU of a process, in clock ticks; 0 once it is gone."""
    try:
        fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
        return int(fields[11]) + int(fields[12])
    except (OSError, IndexError, ValueError):
        return 0


def postgres_ticks():
    total = 0
    for comm in glob.glob("/proc/[0-9]*/comm"):
        try:
            if open(comm).read().strip() == "postgres":
                total += ticks(comm.split("/")[2])
        except OSError:
            pass
    return total


def snapshot(pids, bench):
    taken = {name: ticks(pid) for name, pid in pids.items()}
    taken["postgres"] = postgres_ticks()
    taken["mfa-bench (load generator)"] = ticks(bench.pid)
    return taken


def measure(shape, scenario, binaries, profile):
    directory = tempfile.mkdtemp(prefix="mfa-cpu.")
    # PostgreSQL runs as its own user when we are root: the directory must be reachable by it.
    os.chmod(directory, 0o755)
    env = dict(os.environ, STACK_DIR=directory, STACK_PROCESSES=shape, PASSWORDS_SCRYPT_PROJECTS="demo-project=1024:8:1")
    try:
        with open(f"{directory}/up.log", "w") as log:
            subprocess.run(["scripts/stack.sh", "up"], cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, check=True)
        pids = {os.path.basename(f)[:-4]: open(f).read().strip() for f in glob.glob(f"{directory}/run/*.pid")}
        bench = subprocess.Popen(
            [f"{binaries}/mfa-bench", "load", "--password-hashing", "scrypt N=1024 r=8 p=1 (benchmark project)",
             "--scenarios", scenario, "--users", "500", "--pending", "6000", "--output", f"{directory}/result.json"],
            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        perf = None
        start = None
        for line in bench.stderr:
            if "measuring" in line:
                start = snapshot(pids, bench)
                if profile and "gateway" in pids:
                    perf = subprocess.Popen(
                        ["perf", "record", "-F", "499", "-g", "-o", "perf-gateway.data", "-p", pids["gateway"], "--", "sleep", "8"],
                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                break
        result = bench.stdout.readline()
        end = snapshot(pids, bench)
        bench.wait()
        if perf:
            perf.wait()
        served = re.search(r"(\d+) ok", result or "")
        if start is None or not served:
            raise SystemExit(f"{shape}: the load did not run ({directory}/up.log)")
        print(f"{shape} process(es): {result.strip()}")
        services = 0.0
        for name in sorted(end):
            milliseconds = (end[name] - start[name]) * 1000 / HZ / int(served[1])
            if name not in ("postgres", "mfa-bench (load generator)"):
                services += milliseconds
            print(f"  {name}: {milliseconds:.2f} ms CPU per request")
        print(f"  services in all: {services:.2f} ms")
    finally:
        subprocess.run(["scripts/stack.sh", "down"], cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        subprocess.run(["rm", "-rf", directory])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("shapes", nargs="*", default=["four", "one"], choices=["four", "one"])
    parser.add_argument("--scenario", default="totp-finalize")
    parser.add_argument("--perf", action="store_true", help="profile the four-process gateway for 8 s")
    arguments = parser.parse_args()
    subprocess.run(["swift", "build", "-c", "release"], cwd=ROOT, stdout=subprocess.DEVNULL, check=True)
    binaries = subprocess.run(["swift", "build", "-c", "release", "--show-bin-path"], cwd=ROOT, capture_output=True,
                              text=True, check=True).stdout.strip()
    for shape in arguments.shapes:
        measure(shape, arguments.scenario, binaries, arguments.perf)


if __name__ == "__main__":
    main()
