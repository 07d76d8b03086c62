"""The whole API fuzzed from its own description with schemathesis, as a teacher, a student and someone signed
out: no answer may be a server error, and every answer must be one the description documents (status, content
type, schema, headers), with 405 for a method a path does not take."""

import json
import os
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "browser"))
from conftest import Server  # noqa: E402  (the browser tests' real server)

CHECKS = ",".join(
    [
        "not_a_server_error",
        "status_code_conformance",
        "content_type_conformance",
        "response_schema_conformance",
        "response_headers_conformance",
        "unsupported_method",
    ]
)
# A few minutes on the shared 2-core machine for all three actors; raise it to look harder.
EXAMPLES = os.environ.get("ROLLCALL_FUZZ_EXAMPLES", "12")


def call(server, method, path, body=None, token=None):
    request = urllib.request.Request(server.url + "/api/v1" + path, method=method)
    if body is not None:
        request.data = json.dumps(body).encode()
        request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    with urllib.request.urlopen(request) as response:
        text = response.read()
        return json.loads(text) if text else {}


def account(server, name, role):
    email = f"{name.lower()}@fuzz.test"
    call(server, "POST", "/auth/register", {"name": name, "email": email, "password": "fuzzing rollcall", "role": role})
    return call(server, "POST", "/auth/tokens", {"email": email, "password": "fuzzing rollcall"})["token"]


@pytest.fixture(scope="module")
def classroom(tmp_path_factory):
    server = Server(str(tmp_path_factory.mktemp("fuzz")))
    teacher = account(server, "Tess", "teacher")
    student = account(server, "Sam", "student")
    course = call(server, "POST", "/courses", {"name": "Fuzzing 101"}, teacher)["course"]
    call(server, "POST", "/courses/join", {"code": course["joinCode"]}, student)
    call(server, "POST", f"/courses/{course['id']}/sessions", {"title": "Week 1"}, teacher)
    yield server, {"teacher": teacher, "student": student, "anonymous": None}
    server.stop()


def schemathesis(server, base, options, token):
    command = [
        str(Path(sys.executable).parent / "schemathesis"), "run", server.url + "/api/v1/openapi.yaml",
        "--url", server.url + base, "--checks", CHECKS, "--max-examples", EXAMPLES, "--seed", "2026", "--no-color",
    ] + options
    if token:
        command += ["-H", f"Authorization: Bearer {token}"]
    result = subprocess.run(command, capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-2000:]


@pytest.mark.parametrize("actor", ["teacher", "student", "anonymous"])
def test_every_answer_is_documented_and_none_is_a_server_error(classroom, actor):
    server, tokens = classroom
    # schemathesis's --url stands for every server URL the description names, so the scanned link, which has the
    # server root as its own, runs apart.
    schemathesis(server, "/api/v1", [
        # Signing out or removing the token mid-run would turn the rest of the run anonymous.
        "--exclude-operation-id", "revokeAccessToken", "--exclude-operation-id", "signOutWeb",
        "--exclude-operation-id", "deleteMe", "--exclude-operation-id", "scanCode",
    ], tokens[actor])
    schemathesis(server, "", ["--include-operation-id", "scanCode"], tokens[actor])
