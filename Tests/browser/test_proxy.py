"""Rollcall behind nginx, as docs/deployment.md sets it up: nginx terminates TLS on a loopback port with a certificate made
for the test and passes everything to a running Rollcall; Chromium opens https://localhost:PORT. The projector, the
live room, a passkey check-in with location and network-restricted sessions all work through it, and a forwarding
header sent straight to Rollcall by anyone but the proxy counts for nothing."""

import http.client
import json
import shutil
import ssl
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from conftest import LAPTOP, ROOT, Certificate, JSONClient, Server, answers_health, free_port, screenshot, wait_for, wait_for_path
from test_check_in import INSIDE, ROOM, account, check_in_answer, decode_projected_code, place_phone, sign_in
from test_passkeys import with_authenticator

NGINX_CONF = ROOT / "deploy" / "nginx.conf"


def nginx_binary():
    path = shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None)
    if not path:
        pytest.fail("nginx is missing: install Debian's nginx (make deps does).")
    return path


def site_config(port, upstream, certificate):
    """deploy/nginx.conf, the file docs/deployment.md shows, with this test's port, name, certificate and upstream (an
    address, or the name of an upstream group)."""
    text = NGINX_CONF.read_text()
    for old, new in [
        ("listen 443 ssl;", f"listen 127.0.0.1:{port} ssl;"),
        ("server_name rollcall.school.edu;", "server_name localhost;"),
        ("/etc/ssl/rollcall/fullchain.pem", certificate.certificate_path),
        ("/etc/ssl/rollcall/privkey.pem", certificate.key_path),
        ("proxy_pass http://127.0.0.1:8080;", f"proxy_pass http://{upstream};"),
    ]:
        assert text.count(old) == 1, f"deploy/nginx.conf no longer has “{old}”"
        text = text.replace(old, new)
    return text


class Nginx:
    """Debian's nginx in the foreground, with everything it writes in `directory`. `upstream_port` is one Rollcall's
    port, or a list of several processes' ports, which nginx then takes in turn as the upstream group of docs/deployment.md does."""

    def __init__(self, directory, port, upstream_port, certificate):
        self.directory = Path(directory)
        self.port = port
        self.url = f"https://localhost:{port}"
        for folder in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"):
            (self.directory / folder).mkdir(exist_ok=True)
        if isinstance(upstream_port, list):
            servers = "".join(f"        server 127.0.0.1:{each};\n" for each in upstream_port)
            upstream_group = f"    upstream rollcall {{\n{servers}    }}"
            upstream = "rollcall"
        else:
            upstream_group, upstream = "", f"127.0.0.1:{upstream_port}"
        config = self.directory / "nginx.conf"
        config.write_text(
            f"""daemon off;
pid {self.directory}/nginx.pid;
error_log {self.directory}/error.log warn;
events {{ worker_connections 256; }}
http {{
    access_log {self.directory}/access.log;
    client_body_temp_path {self.directory}/client_body;
    proxy_temp_path {self.directory}/proxy;
    fastcgi_temp_path {self.directory}/fastcgi;
    uwsgi_temp_path {self.directory}/uwsgi;
    scgi_temp_path {self.directory}/scgi;
{upstream_group}
{site_config(port, upstream, certificate)}
}}
"""
        )
        self.log = open(self.directory / "nginx.out", "a")
        self.process = subprocess.Popen(
            [nginx_binary(), "-p", str(self.directory), "-c", str(config), "-e", str(self.directory / "error.log")],
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )
        if not answers_health(self.url, self.process, ssl._create_unverified_context(), seconds=30):
            self.stop()
            raise RuntimeError(f"nginx did not start: {(self.directory / 'error.log').read_text()}")

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
        self.log.close()


class Front(JSONClient):
    """Rollcall as people reach it: through nginx at https://localhost:PORT. `api` goes through nginx too."""

    def __init__(self, nginx, backend, certificate):
        self.url = nginx.url
        self.backend = backend
        self.certificate = certificate
        self.ssl = ssl._create_unverified_context()


@pytest.fixture
def proxied():
    """A Rollcall that trusts 127.0.0.1 as its proxy, and nginx in front of it with the configuration docs/deployment.md shows."""
    directory = tempfile.mkdtemp(prefix="rollcall-proxy-")
    certificate = Certificate(directory)
    port = free_port()
    backend = Server(
        directory,
        env={"ROLLCALL_PUBLIC_URL": f"https://localhost:{port}", "ROLLCALL_TRUSTED_PROXIES": "127.0.0.1/32"},
    )
    try:
        nginx = Nginx(directory, port, backend.port, certificate)
    except Exception:
        backend.stop()
        raise
    yield Front(nginx, backend, certificate)
    nginx.stop()
    backend.stop()
    shutil.rmtree(directory, ignore_errors=True)


def test_the_deployment_page_shows_the_nginx_configuration_the_test_runs():
    page = (ROOT / "docs" / "deployment.md").read_text()
    assert NGINX_CONF.read_text().strip() in page


def test_answers_through_nginx_keep_browsers_on_https(proxied):
    request = urllib.request.Request(f"{proxied.url}/sign-in")
    with urllib.request.urlopen(request, timeout=10, context=proxied.ssl) as response:
        assert response.headers["Strict-Transport-Security"] == "max-age=31536000", "nginx sends it, as configured"
        assert response.headers["X-Content-Type-Options"] == "nosniff", "Rollcall's own headers pass through"


def test_projector_live_room_and_passkey_check_in_with_location_through_nginx(proxied, browsers):
    front = proxied
    teacher = account(front, "Nia Nginx", "nia@school.test", "teacher")
    status, course = front.api("POST", "/api/v1/courses", {"name": "Networks 1"}, teacher)
    assert status == 201
    course_id = course["course"]["id"]
    status, _ = front.api("PUT", f"/api/v1/courses/{course_id}/verification", {"required": True}, teacher)
    assert status == 200
    student = account(front, "Pia Proxied", "pia@school.test")
    status, _ = front.api("POST", "/api/v1/courses/join", {"code": course["course"]["joinCode"]}, student)
    assert status in (200, 201)
    settings = {"latitude": ROOM[0], "longitude": ROOM[1], "radius": 30, "period": 10}
    status, session = front.api("POST", f"/api/v1/courses/{course_id}/sessions", {"settings": settings}, teacher)
    assert status == 201
    session_id = session["session"]["id"]
    status, me = front.api("GET", "/api/v1/me", token=student)
    student_id = me["user"]["id"]

    # The teacher's projector and live room, over wss:// through nginx.
    projector = browsers((1920, 1080), trusted_key=front.certificate.spki_hash)
    sign_in(projector, front, "nia@school.test")
    wait_for_path(projector, "/courses")
    projector.get(f"{front.url}/sessions/{session_id}/projector")
    WebDriverWait(projector, 20).until(lambda b: b.find_element(By.ID, "projector-status").text == "live")
    code_url = decode_projected_code(projector)
    assert code_url.startswith(f"HTTPS://LOCALHOST:{front.url.rsplit(':', 1)[1]}/C/")
    room = browsers(LAPTOP, trusted_key=front.certificate.spki_hash)
    sign_in(room, front, "nia@school.test")
    wait_for_path(room, "/courses")
    room.get(f"{front.url}/sessions/{session_id}")
    WebDriverWait(room, 20).until(lambda b: b.find_element(By.ID, "live-status").text == "live")
    student_row = f'#room-list [data-student="{student_id}"]'
    assert room.find_element(By.CSS_SELECTOR, student_row).get_attribute("data-status") == "none"

    # The student adds a passkey, scans the code in the room, and the phone confirms it is her.
    phone = with_authenticator(browsers(trusted_key=front.certificate.spki_hash))
    place_phone(phone, front, INSIDE)
    sign_in(phone, front, "pia@school.test")
    wait_for_path(phone, "/courses")
    phone.get(f"{front.url}/devices")
    wait_for(phone, "#add-passkey").find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    wait_for(phone, ".passkey")
    phone.get(decode_projected_code(projector))
    assert check_in_answer(phone) == ("present", "You're in")
    screenshot(phone, "proxy-check-in", sizes=((390, 844),))

    # Both of the teacher's screens follow at once, through the proxy's WebSockets.
    WebDriverWait(projector, 20).until(lambda b: b.find_element(By.ID, "projector-count").text == "1")
    WebDriverWait(room, 20).until(
        lambda b: b.find_element(By.CSS_SELECTOR, student_row).get_attribute("data-status") == "present")
    status, detail = front.api("GET", f"/api/v1/sessions/{session_id}", token=teacher)
    assert detail["session"]["counts"]["present"] == 1


def projected_code(front, teacher, session_id):
    status, frame = front.api("GET", f"/api/v1/sessions/{session_id}/projector", token=teacher)
    assert status == 200
    return frame["url"].rsplit("/", 1)[1]


def checked_in(front, teacher, session_id):
    status, session = front.api("GET", f"/api/v1/sessions/{session_id}", token=teacher)
    assert status == 200
    return session["session"]["counts"]["present"]


def direct_from_other_address(backend, path, body, token, headers):
    """A request straight to Rollcall, not through nginx, from 127.0.0.2: a loopback address that is not the
    trusted proxy, as a client on the network reaching Rollcall's port would be."""
    connection = http.client.HTTPConnection("127.0.0.1", backend.port, timeout=10, source_address=("127.0.0.2", 0))
    try:
        connection.request(
            "POST", path, body=json.dumps(body),
            headers={"Content-Type": "application/json", "Authorization": f"Bearer {token}", **headers})
        response = connection.getresponse()
        return response.status, json.loads(response.read() or b"null")
    finally:
        connection.close()


def test_network_restricted_sessions_see_the_client_nginx_names(proxied):
    front = proxied
    teacher = account(front, "Ned Network", "ned@school.test", "teacher")
    status, course = front.api("POST", "/api/v1/courses", {"name": "Networks 2"}, teacher)
    assert status == 201
    student = account(front, "Lou Loopback", "lou@school.test")
    status, _ = front.api("POST", "/api/v1/courses/join", {"code": course["course"]["joinCode"]}, student)
    assert status in (200, 201)
    sessions = {}
    for name, networks in [("here", ["127.0.0.1/32"]), ("elsewhere", ["192.0.2.0/24"])]:
        status, session = front.api(
            "POST", f"/api/v1/courses/{course['course']['id']}/sessions",
            {"title": name, "settings": {"period": 30, "grace": 2, "allowedNetworks": networks}}, teacher)
        assert status == 201, session
        sessions[name] = session["session"]["id"]

    # Straight to Rollcall from another address, claiming the allowed one: the header is not the proxy's, so it
    # counts for nothing, and nothing is stored.
    code = projected_code(front, teacher, sessions["here"])
    status, body = direct_from_other_address(
        front.backend, "/api/v1/check-ins", {"code": code}, student, {"X-Forwarded-For": "127.0.0.1"})
    assert (status, body["error"]["code"]) == (403, "network_not_allowed")
    status, body = direct_from_other_address(
        front.backend, "/api/v1/check-ins", {"code": code}, student, {"Forwarded": "for=127.0.0.1"})
    assert (status, body["error"]["code"]) == (403, "network_not_allowed")
    assert checked_in(front, teacher, sessions["here"]) == 0

    # Through nginx, which names the student's address (127.0.0.1): in the one range, not in the other.
    status, body = front.api("POST", "/api/v1/check-ins", {"code": projected_code(front, teacher, sessions["elsewhere"])}, student)
    assert (status, body["error"]["code"]) == (403, "network_not_allowed")
    assert checked_in(front, teacher, sessions["elsewhere"]) == 0
    status, body = front.api("POST", "/api/v1/check-ins", {"code": projected_code(front, teacher, sessions["here"])}, student)
    assert status == 201, body
    assert body["status"] == "present"
    assert checked_in(front, teacher, sessions["here"]) == 1
