"""A real headless browser for the pages the gateway serves: Debian's chromium and chromium-driver,
driven by selenium (no browser download: both come from the system's packages, which
scripts/test.sh installs)."""

import contextlib
import shutil
import subprocess
from pathlib import Path

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service


def tool(name: str) -> str:
    path = shutil.which(name)
    assert path, f"{name} is missing: scripts/test.sh installs it (Debian: chromium, chromium-driver, zbar-tools)"
    return path


@contextlib.contextmanager
def chromium(width: int = 1000, height: int = 2200, trusted_certificates: tuple[Path, ...] = ()):
    """`trusted_certificates`: leaf certificates (PEM) the browser accepts as if a public CA had issued
    them (by their key's SPKI hash), for a stand-in outside service such as an identity provider."""
    options = Options()
    if trusted_certificates:
        options.add_argument("--ignore-certificate-errors-spki-list=" + ",".join(spki_hash(path) for path in trusted_certificates))
    options.binary_location = tool("chromium")
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                     f"--window-size={width},{height}", "--no-first-run", "--disable-extensions"):
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service(executable_path=tool("chromedriver")), options=options)
    try:
        yield driver
    finally:
        driver.quit()


def spki_hash(certificate: Path) -> str:
    """The base64 SHA-256 of a certificate's public key (what Chromium pins by)."""
    import base64
    import hashlib

    from cryptography import x509
    from cryptography.hazmat.primitives import serialization

    key = x509.load_pem_x509_certificate(certificate.read_bytes()).public_key()
    spki = key.public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
    return base64.b64encode(hashlib.sha256(spki).digest()).decode()


def decode_qr(png: bytes, work: Path) -> str:
    """What a QR code in a PNG image says, read by zbar (zbar-tools' zbarimg)."""
    image = work / "qr.png"
    image.write_bytes(png)
    out = subprocess.run([tool("zbarimg"), "--quiet", "--raw", "-Sdisable", "-Sqrcode.enable", str(image)],
                         capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, f"zbarimg found no QR code: {out.stderr}"
    return out.stdout.strip()
