"""Nothing acknowledged is lost: the server is killed while a room checks in, and every "you're in" is on record."""

import csv
import http.client
import io
import shutil
import tempfile
import threading
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor

from conftest import Server
from test_check_in import account

STUDENTS = 24


def scan(server, url, token):
    """Opens the projected link as the student's app would, with its token: the answer is the ticket, in JSON."""
    path = url[url.index("/C/"):]
    status, body = server.api("GET", path, token=token)
    assert status == 200, body
    return body["ticket"]


def test_killing_the_server_mid_check_in_loses_no_acknowledged_check_in():
    data_dir = tempfile.mkdtemp(prefix="rollcall-durability-")
    server = Server(data_dir)
    try:
        teacher = account(server, "Dora Durable", "dora@school.test", role="teacher")
        _, course = server.api("POST", "/api/v1/courses", {"name": "Chemistry 300"}, token=teacher)
        _, session = server.api("POST", f"/api/v1/courses/{course['course']['id']}/sessions", {}, token=teacher)
        session_id = session["session"]["id"]
        with ThreadPoolExecutor(max_workers=4) as pool:
            tokens = list(pool.map(lambda i: account(server, f"Student {i}", f"s{i}@school.test"), range(STUDENTS)))
        for token in tokens:
            status, _ = server.api("POST", "/api/v1/courses/join", {"code": course["course"]["joinCode"]}, token=token)
            assert status == 200
        _, frame = server.api("GET", f"/api/v1/sessions/{session_id}/projector", token=teacher)
        tickets = [scan(server, frame["url"], token) for token in tokens]

        acknowledged = set()
        first_answer = threading.Event()
        start = threading.Barrier(STUDENTS + 1)

        def check_in(index):
            start.wait()
            try:
                status, body = server.api("POST", "/api/v1/check-ins", {"ticket": tickets[index], "deviceId": f"phone-{index:04}"}, token=tokens[index])
            except (OSError, http.client.HTTPException):
                return  # the server died before answering, or in the middle of it: nothing was promised
            if status in (200, 201) and body and body.get("status") == "present":
                acknowledged.add(index)
                first_answer.set()

        threads = [threading.Thread(target=check_in, args=(index,)) for index in range(STUDENTS)]
        for thread in threads:
            thread.start()
        start.wait()
        assert first_answer.wait(30), "no check-in was answered"
        server.process.kill()  # no shutdown: as a power cut of the process
        server.process.wait()
        for thread in threads:
            thread.join(30)
        server.log.close()
        assert acknowledged, "the kill came before any answer; the test proved nothing"

        restarted = Server(data_dir)
        try:
            request = urllib.request.Request(
                f"{restarted.url}/api/v1/sessions/{session_id}/report.csv", headers={"Authorization": f"Bearer {teacher}"}
            )
            with urllib.request.urlopen(request) as response:
                rows = list(csv.reader(io.StringIO(response.read().decode("utf-8-sig"))))
            present = {row[1] for row in rows[1:] if row[3] == "present"}
            lost = {f"s{index}@school.test" for index in acknowledged} - present
            assert not lost, f"acknowledged check-ins lost by the kill: {sorted(lost)}"
        finally:
            restarted.stop()
    finally:
        if server.process.poll() is None:
            server.stop()
        shutil.rmtree(data_dir, ignore_errors=True)
