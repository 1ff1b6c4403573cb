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
def chromium(width: int = 1000, height: int = 2200):
    options = Options()
    options.binary_location = tool("chromium")
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                     f"--window-size={width},{height}", "--no-first-run", "--disable-extensions"):
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service(executable_path=tool("chromedriver")), options=options)
    try:
        yield driver
    finally:
        driver.quit()


def decode_qr(png: bytes, work: Path) -> str:
    """What a QR code in a PNG image says, read by zbar (zbar-tools' zbarimg)."""
    image = work / "qr.png"
    image.write_bytes(png)
    out = subprocess.run([tool("zbarimg"), "--quiet", "--raw", "-Sdisable", "-Sqrcode.enable", str(image)],
                         capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, f"zbarimg found no QR code: {out.stderr}"
    return out.stdout.strip()
