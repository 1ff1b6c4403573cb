"""mfa-all-in-one, the four services in one process: what differs from four processes. (The rest of
the suite runs against it too with MFA_TEST_PROCESSES=one.)"""

import os
import socket
import subprocess
import time
from pathlib import Path

from conftest import ROOT, free_port


def test_a_service_that_cannot_start_stops_the_whole_process_with_its_reason(stack):
    bin_dir = Path(os.environ.get("MFA_TEST_BIN_DIR", ROOT / ".build" / "debug"))
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "MODE": "development",
            "TLS_DIRECTORY": str(stack.certs), "CONTRACTS_DIRECTORY": str(ROOT / "proto-json"),
            # factor-registry's ops port is already in use; everything else is free.
            "FACTOR_REGISTRY_OPS_PORT": str(taken.getsockname()[1]),
            "PUBLIC_PORT": str(free_port()), "PUBLIC_TLS_PORT": "0",
            **{f"{key}_{kind}_PORT": str(free_port())
               for key in ("FACTOR_REGISTRY", "CHALLENGE_ISSUER", "SESSION_TOKEN", "GATEWAY")
               for kind in ("RPC", "OPS") if (key, kind) != ("FACTOR_REGISTRY", "OPS")},
            # Databases that do not exist: the pools only log while the process is stopping.
            **{f"{key}_POSTGRES_URL": f"{stack.postgres}/absent_{key.lower()}"
               for key in ("FACTOR_REGISTRY", "CHALLENGE_ISSUER", "SESSION_TOKEN")},
        }
        started = time.monotonic()
        done = subprocess.run([str(bin_dir / "mfa-all-in-one")], env=env, capture_output=True, text=True, timeout=30)
        assert done.returncode == 1
        assert time.monotonic() - started < 15
        assert "factor-registry: " in done.stderr and "Address already in use" in done.stderr, done.stderr
