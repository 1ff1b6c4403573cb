"""Every shell example in README.md works as pasted: each ```bash block runs, in order, against a
stack of its own, with only what differs between the README's stack and a test's rewritten (the
ports, the certificate directory, the build directory), and every curl told to fail on an HTTP
error. A block the test cannot run says why in an HTML comment just before it
(`<!-- README test: not run (…) -->`)."""

import os
import re
import subprocess

import pytest

from conftest import ROOT, SERVICES, another_stack

FENCE = re.compile(r"(<!-- README test: not run \((?P<why>[^)]*)\) -->\n)?```bash\n(?P<body>.*?)```", re.S)
BLOCKS = [(match.group("body"), match.group("why")) for match in FENCE.finditer((ROOT / "README.md").read_text())]
PORTS = {service: index for index, service in enumerate(SERVICES, start=1)}


@pytest.fixture(scope="module")
def readme_stack(stack):
    with another_stack(stack, "readme") as running:
        yield running


def as_in_the_test(block: str, stack) -> str:
    block = block.replace("http://127.0.0.1:8080", stack.gateway)
    for service, index in PORTS.items():
        rpc, ops = stack.ports[service]
        block = block.replace(f"127.0.0.1:710{index}", f"127.0.0.1:{rpc}").replace(f"127.0.0.1:910{index}", f"127.0.0.1:{ops}")
    block = block.replace(".stack/certs", str(stack.certs)).replace(".build/release/", f"{stack.bin_dir}/")
    return block.replace("curl -s ", "curl -sS --fail-with-body ")


def test_the_readme_has_examples_and_says_why_any_is_not_run():
    assert len(BLOCKS) >= 4
    for body, why in BLOCKS:
        assert why is None or len(why) > 10, body


@pytest.mark.parametrize("index", [index for index, (_, why) in enumerate(BLOCKS) if why is None])
def test_the_readme_example_works_as_pasted(readme_stack, index, tmp_path):
    body = BLOCKS[index][0]
    environment = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(tmp_path),
        # mfa-admin's defaults are the README stack's addresses; the test's stack has its own.
        "MFA_GATEWAY_URL": readme_stack.gateway, "MFA_SESSION_TOKEN_OPS_URL": readme_stack.ops("session-token"),
    }
    done = subprocess.run(["bash", "-euo", "pipefail", "-c", as_in_the_test(body, readme_stack)], cwd=tmp_path,
                          env=environment, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, f"README block {index}:\n{body}\n--- output:\n{done.stdout}\n{done.stderr}"
    assert '"error"' not in done.stdout, done.stdout
