"""Two Rollcall processes behind Debian's nginx on one PostgreSQL database, as docs/deployment.md sets them up: what one
process projects, the other accepts; what one records, the other's teacher sees live; and when one process dies in
the middle of a room checking in, no check-in it acknowledged is lost and the other goes on serving."""

import concurrent.futures
import json
import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from pathlib import Path

import pytest
import websocket

from conftest import Certificate, Server, free_port
from test_check_in import account
from test_proxy import Front, Nginx, projected_code


class Postgres:
    """A throwaway PostgreSQL on loopback, from Debian's binaries, as the Swift tests start it."""

    def __init__(self):
        root = Path("/usr/lib/postgresql")
        versions = sorted((p.name for p in root.iterdir()), key=int) if root.exists() else []
        if not versions:
            pytest.fail("PostgreSQL is missing: install Debian's postgresql (make deps does).")
        self.binaries = root / versions[-1] / "bin"
        self.directory = tempfile.mkdtemp(prefix="rollcall-pg-")
        # PostgreSQL refuses to run as root; as root, it runs as the postgres account.
        self.prefix = ["runuser", "-u", "postgres", "--"] if os.getuid() == 0 else []
        if self.prefix:
            shutil.chown(self.directory, "postgres")
        self.port = free_port()
        self.run("initdb", "-D", f"{self.directory}/data", "-A", "trust", "-U", "rollcall")
        options = f"-p {self.port} -k {self.directory} -c listen_addresses=127.0.0.1 -c fsync=off"
        self.run("pg_ctl", "-D", f"{self.directory}/data", "-w", "-l", f"{self.directory}/log", "-o", options, "start")
        self.url = f"postgres://rollcall@127.0.0.1:{self.port}/postgres?sslmode=disable"

    def run(self, binary, *arguments):
        subprocess.run(self.prefix + [str(self.binaries / binary), *arguments], check=True, capture_output=True)

    def stop(self):
        self.run("pg_ctl", "-D", f"{self.directory}/data", "-m", "immediate", "stop")
        shutil.rmtree(self.directory, ignore_errors=True)


class Processes:
    """Processes A and B on one database, and nginx in front of both (`front`)."""

    def __init__(self, a, b, front):
        self.a, self.b, self.front = a, b, front


@pytest.fixture
def processes():
    directory = tempfile.mkdtemp(prefix="rollcall-processes-")
    postgres = Postgres()
    certificate = Certificate(directory)
    port = free_port()
    env = {
        "ROLLCALL_DATABASE_URL": postgres.url,
        "ROLLCALL_PUBLIC_URL": f"https://localhost:{port}",
        "ROLLCALL_TRUSTED_PROXIES": "127.0.0.1/32",
    }
    started = []
    try:
        # One after the other: the first brings the schema up to date, the second finds it so.
        for name in ("a", "b"):
            data = Path(directory) / name
            data.mkdir()
            started.append(Server(str(data), env=env))
        a, b = started
        nginx = Nginx(directory, port, [a.port, b.port], certificate)
    except Exception:
        for server in started:
            server.stop()
        postgres.stop()
        raise
    yield Processes(a, b, Front(nginx, a, certificate))
    nginx.stop()
    for server in started:
        if server.process.poll() is None:
            server.stop()
        else:
            server.log.close()
    postgres.stop()
    shutil.rmtree(directory, ignore_errors=True)


def classroom(front, students):
    """A teacher, a course with `students` students joined, and an open session with a 60-second code."""
    teacher = account(front, "Theo Teacher", "theo@school.test", "teacher")
    status, course = front.api("POST", "/api/v1/courses", {"name": "Physics 1"}, teacher)
    assert status == 201
    tokens = []
    for number in range(students):
        token = account(front, f"Student {number}", f"student{number}@school.test")
        status, _ = front.api("POST", "/api/v1/courses/join", {"code": course["course"]["joinCode"]}, token)
        assert status in (200, 201)
        tokens.append(token)
    status, session = front.api(
        "POST", f"/api/v1/courses/{course['course']['id']}/sessions", {"settings": {"period": 60}}, teacher)
    assert status == 201
    return teacher, session["session"]["id"], tokens


def scan(server, code, token):
    """A native client's scan: the ticket, from the process `server`."""
    status, body = server.api("GET", f"/C/{code}", token=token)
    assert status == 200, body
    return body["ticket"]


def present(server, teacher, session_id):
    status, session = server.api("GET", f"/api/v1/sessions/{session_id}", token=teacher)
    assert status == 200
    return session["session"]["counts"]["present"]


def test_codes_tickets_and_the_live_room_cross_processes(processes):
    a, b = processes.a, processes.b
    teacher, session_id, (first, second, third) = classroom(processes.front, 3)

    # The teacher's live view is open on B only.
    socket = websocket.create_connection(
        f"ws://localhost:{b.port}/api/v1/sessions/{session_id}/live",
        header=[f"Authorization: Bearer {teacher}"], timeout=30)
    try:
        assert json.loads(socket.recv())["type"] == "snapshot"

        # The code on A's projector, scanned and checked in on B.
        code = projected_code(a, teacher, session_id)
        status, answer = b.api("POST", "/api/v1/check-ins", {"ticket": scan(b, code, first)}, first)
        assert status == 201, answer

        # A ticket A issued, checked in on B.
        status, answer = b.api("POST", "/api/v1/check-ins", {"ticket": scan(a, code, second)}, second)
        assert status == 201, answer

        # A check-in taken by A reaches the teacher watching on B.
        status, me = a.api("GET", "/api/v1/me", token=third)
        status, answer = a.api("POST", "/api/v1/check-ins", {"ticket": scan(a, code, third)}, third)
        assert status == 201, answer
        deadline = time.time() + 30
        seen = set()
        while me["user"]["id"] not in seen:
            assert time.time() < deadline, f"B's live view saw only {seen}"
            message = json.loads(socket.recv())
            if message.get("type") == "event" and message.get("kind") == "checked_in":
                seen.add(message["data"]["studentId"])
    finally:
        socket.close()
    assert present(a, teacher, session_id) == present(b, teacher, session_id) == 3


def test_killing_one_process_mid_burst_loses_no_acknowledged_check_in(processes):
    a, b, front = processes.a, processes.b, processes.front
    count = 40
    teacher, session_id, tokens = classroom(front, count)
    code = projected_code(front, teacher, session_id)
    acknowledged = set()
    after_kill = set()
    lock = threading.Lock()
    killed = threading.Event()

    def check_in(index):
        """One student through nginx, trying again after a failure, as a phone would, until a deadline."""
        deadline = time.time() + 60
        while time.time() < deadline:
            try:
                status, body = front.api("GET", f"/C/{code}", token=tokens[index])
                if status == 200:
                    status, body = front.api("POST", "/api/v1/check-ins", {"ticket": body["ticket"]}, tokens[index])
                    if status in (200, 201):
                        with lock:
                            if killed.is_set():
                                after_kill.add(index)
                            acknowledged.add(index)
                            if len(acknowledged) >= count // 4 and not killed.is_set():
                                killed.set()
                                a.process.send_signal(signal.SIGKILL)
                        return True
            except (OSError, ValueError):
                # The connection reset by the dying process, or nginx's own error page (502) instead of JSON.
                pass
            time.sleep(0.05)
        return False

    with concurrent.futures.ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(check_in, range(count)))
    assert killed.is_set()
    a.process.wait(timeout=10)
    assert a.process.returncode == -signal.SIGKILL
    # A acknowledged a quarter of the room before it died; B served the rest. A student whose check-in was
    # acknowledged never tries again, so the count below holds only if every acknowledged check-in was stored.
    assert all(results)
    assert len(after_kill) >= count - count // 4 - 8
    assert len(acknowledged) == count
    assert present(b, teacher, session_id) == count
    assert present(front, teacher, session_id) == count
