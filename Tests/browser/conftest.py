"""Fixtures for Rollcall's real-browser tests: a real server on a fresh SQLite file, and headless Chromium."""

import json
import os
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions
from selenium.webdriver.support.ui import WebDriverWait

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = os.environ.get("ROLLCALL_SCREENSHOTS")
PHONE = (390, 844)
LAPTOP = (1366, 900)


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def server_binary():
    binary = ROOT / ".build" / "debug" / "rollcall"
    if not binary.exists():
        subprocess.run(["swift", "build", "--product", "rollcall"], cwd=ROOT, check=True)
    return binary


class Server:
    """A running `rollcall serve`, reached at http://localhost:PORT (WebAuthn and geolocation need a name, not an IP)."""

    def __init__(self, data_dir):
        self.port = free_port()
        self.url = f"http://localhost:{self.port}"
        self.data_dir = data_dir
        self.start()

    def start(self):
        env = dict(os.environ, ROLLCALL_PUBLIC_URL=self.url, ROLLCALL_LOG_LEVEL="warning")
        self.log = open(Path(self.data_dir) / "server.log", "a")
        self.process = subprocess.Popen(
            [str(server_binary()), "serve", "--port", str(self.port), "--data-dir", self.data_dir],
            cwd=tempfile.gettempdir(),  # the binary must not depend on the working directory
            env=env,
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )
        deadline = time.time() + 60
        while time.time() < deadline:
            try:
                with urllib.request.urlopen(f"{self.url}/healthz", timeout=1) as response:
                    if response.status == 200:
                        return
            except OSError:
                time.sleep(0.2)
        raise RuntimeError(f"Rollcall did not start; see {self.log.name}")

    def api(self, method, path, body=None, token=None):
        request = urllib.request.Request(f"{self.url}{path}", method=method)
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            request.add_header("Content-Type", "application/json")
        if token:
            request.add_header("Authorization", f"Bearer {token}")
        try:
            with urllib.request.urlopen(request, data) as response:
                text = response.read()
                return response.status, json.loads(text) if text else None
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read() or b"null")

    def restart(self):
        """Starts the server again on the same port and data, as after a crash or an update."""
        self.start()

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
        self.log.close()


@pytest.fixture
def server():
    data_dir = tempfile.mkdtemp(prefix="rollcall-browser-")
    running = Server(data_dir)
    yield running
    running.stop()
    shutil.rmtree(data_dir, ignore_errors=True)


def chromium_path():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    pytest.fail("Chromium is missing: install Debian's chromium and chromium-driver (make deps does).")


def new_browser(size=PHONE):
    options = webdriver.ChromeOptions()
    options.binary_location = chromium_path()
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu"):
        options.add_argument(argument)
    options.add_argument(f"--window-size={size[0]},{size[1]}")
    driver_path = shutil.which("chromedriver")
    if not driver_path:
        pytest.fail("chromedriver is missing: install Debian's chromium-driver (make deps does).")
    browser = webdriver.Chrome(service=Service(driver_path), options=options)
    browser.implicitly_wait(0)
    return browser


@pytest.fixture
def browsers():
    """Opens separate browsers (separate cookie jars, as two people on two phones) and closes them afterwards."""
    opened = []

    def open_browser(size=PHONE):
        browser = new_browser(size)
        opened.append(browser)
        return browser

    yield open_browser
    for browser in opened:
        browser.quit()


def wait_for(browser, css, timeout=15):
    return WebDriverWait(browser, timeout).until(expected_conditions.visibility_of_element_located((By.CSS_SELECTOR, css)))


def wait_for_path(browser, prefix, timeout=15):
    WebDriverWait(browser, timeout).until(lambda b: b.current_url.split("localhost:")[1].split("/", 1)[1].startswith(prefix.lstrip("/")))


def screenshot(browser, name, sizes=(PHONE, LAPTOP)):
    """Saves the page at phone and laptop sizes when ROLLCALL_SCREENSHOTS names a folder, for people to look at."""
    if not SCREENSHOTS:
        return
    Path(SCREENSHOTS).mkdir(parents=True, exist_ok=True)
    original = browser.get_window_size()
    for width, height in sizes:
        browser.set_window_size(width, height)
        browser.save_screenshot(str(Path(SCREENSHOTS) / f"{name}-{width}x{height}.png"))
    browser.set_window_size(original["width"], original["height"])
