"""The function as Lambda runs it: AWS's runtime interface client against a local Runtime API.

`python -m awslambdaric sitemap_auditor.handler.lambda_handler` (what AWS's Python base images
run) polls a Runtime API served here on 127.0.0.1 (tests/support/runtime_api.py), with the variables
Lambda sets. What the runtime posts back and what the function prints are checked, first from the
source tree, then from the package `make build-AuditorFunction` builds, under an interpreter that
holds nothing but what the managed runtime provides (the runtime client and boto3), with X-Ray
tracing off and on.
"""

from __future__ import annotations

import contextlib
import json
import os
import platform
import re
import socket
import subprocess
import sys
import time
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from support.aws import basic, guarded, moto_server, secrets_client
from support.documents import urlset
from support.events import COVERED, EVENTS, load, localise
from support.results import codes_of, data_of, days_ago
from support.runtime_api import Function, Post, RuntimeAPI, run_id, runtime_environment

from harness.servers import Site, reply, slow_headers

if sys.platform != "linux":
    pytest.skip("Lambda runs on Linux; awslambdaric ships Linux wheels", allow_module_level=True)

ROOT = Path(__file__).resolve().parents[2]
# One worker builds the runtime interpreter and the package once for every test here.
pytestmark = pytest.mark.xdist_group("lambda-runtime")

STATUSES = {"SUCCESS", "WARNING", "FAIL", "ERROR"}
# What the managed Python runtime brings (boto3 and its dependencies): never packaged.
RUNTIME_PROVIDED = {"boto3", "botocore", "s3transfer", "jmespath", "dateutil", "six"}
# The largest the zipped package may be (docs/operations.md gives the measured size).
MAX_ZIPPED_BYTES = 6_000_000


# --- running the function ------------------------------------------------------------------------


@dataclass
class Case:
    """One invocation: what was sent and what the handler should log it under."""

    label: str
    request_id: str
    run_id: str | None  # the `run_id` of its log lines; None: left out
    handled: bool = True  # False when the runtime itself refuses the event
    post: Post | None = None


@dataclass
class Run:
    """A function process's invocations, what the runtime posted and what the process printed."""

    cases: list[Case] = field(default_factory=list)
    stdout: str = ""
    stderr: str = ""

    def result(self, label: str) -> dict[str, Any]:
        (case,) = [c for c in self.cases if c.label == label]
        assert case.post is not None
        assert case.post.kind == "response", (case.label, case.post.body[:500], self.stderr)
        result: dict[str, Any] = case.post.json()
        return result


class Invoker:
    """Send events one at a time through the runtime, as Lambda does for one environment."""

    def __init__(self, api: RuntimeAPI, function: Function) -> None:
        self.api = api
        self.function = function
        self.run = Run()

    def send(
        self,
        label: str,
        event: Any,
        *,
        expect_run_id: str | None = None,
        raw: bytes | None = None,
        timeout_ms: int = 150_000,
        handled: bool = True,
    ) -> Case:
        request_id = self.api.invoke(event, raw=raw, timeout_ms=timeout_ms)
        if expect_run_id is None and isinstance(event, dict) and isinstance(event.get("id"), str):
            expect_run_id = event["id"]
        case = Case(label, request_id, expect_run_id, handled)
        end = time.monotonic() + 90
        while case.post is None:
            try:
                case.post = self.api.wait_for(request_id, timeout_s=0.5)
            except AssertionError:
                if self.function.proc.poll() is None and time.monotonic() < end:
                    continue
                code = self.function.stop()
                raise AssertionError(
                    f"{label}: no answer (exit status {code}); the function printed:\n"
                    f"{self.function.stdout[-3000:]}\n{self.function.stderr[-3000:]}"
                ) from None
        self.run.cases.append(case)
        return case

    def finish(self) -> Run:
        assert self.function.proc.poll() is None, "the runtime process ended between invocations"
        self.function.stop()
        self.run.stdout, self.run.stderr = self.function.stdout, self.function.stderr
        unexpected = [p for p in self.api.posts if p.kind not in ("response", "error")]
        assert unexpected == [], unexpected
        assert len(self.api.posts) == len(self.run.cases)
        return self.run


@pytest.fixture(scope="module")
def moto() -> Iterator[str]:
    """moto's Secrets Manager on 127.0.0.1, for events/secret.json."""
    with moto_server() as endpoint:
        yield endpoint


@contextlib.contextmanager
def function(
    python: str | Path,
    task_root: Path,
    extra: dict[str, str] | None = None,
    moto: str | None = None,
) -> Iterator[tuple[RuntimeAPI, Function]]:
    api = RuntimeAPI().start()
    env = runtime_environment(api, task_root, extra)
    if moto is not None:
        env["AWS_ENDPOINT_URL_SECRETS_MANAGER"] = moto
    proc = Function(python, env, cwd=task_root)
    try:
        yield api, proc
    finally:
        proc.stop()
        api.stop()


def trace_root(header: str) -> str:
    return header.split(";")[0].removeprefix("Root=")


# --- what stdout must hold -----------------------------------------------------------------------


def check_stdout(run: Run, api: RuntimeAPI, *, first_is_cold: bool) -> list[list[dict[str, Any]]]:
    """Standard error is empty and every line of standard output is JSON; per handled invocation,
    its lines carry its run id, request id and trace id and the right cold_start, and end with
    exactly one EMF document. Returns each invocation's lines."""
    # Lambda sends standard error to the log group too: nothing may go there.
    assert run.stderr == ""
    # Lines end at "\n" only: the runtime client joins the lines of one error report with "\r".
    lines = [line for line in run.stdout.split("\n") if line.strip()]
    # The one line not the function's: the runtime client's own report of an event it refused
    # (Lambda writes it to the log group too; the template's LogFormat is Text).
    refused = [line for line in lines if line.startswith("[ERROR] Runtime.UnmarshalError: ")]
    assert len(refused) == len([c for c in run.cases if not c.handled])
    parsed = []
    for line in lines:
        if line in refused:
            continue
        try:
            parsed.append(json.loads(line))
        except ValueError:
            raise AssertionError(f"a line of standard output is not JSON: {line[:300]!r}") from None
    blocks: list[list[dict[str, Any]]] = []
    for doc in parsed:
        if doc.get("message") == "audit started":
            blocks.append([])
        assert blocks, f"a line before any invocation: {doc}"
        blocks[-1].append(doc)
    handled = [c for c in run.cases if c.handled]
    assert len(blocks) == len(handled), [c.label for c in handled]
    for i, (case, block) in enumerate(zip(handled, blocks, strict=True)):
        invoke = api.handed_out(case.request_id)
        emf = [doc for doc in block if "_aws" in doc]
        assert len(emf) == 1, (case.label, emf)
        assert block[-1] is emf[0], f"{case.label}: the EMF document ends the invocation"
        for doc in block:
            assert doc.get("run_id") == case.run_id, (case.label, doc)
        for doc in block[:-1]:
            assert doc["request_id"] == case.request_id, (case.label, doc)
            assert doc["cold_start"] is (first_is_cold and i == 0), (case.label, doc)
            assert doc["xray_trace_id"] == trace_root(invoke.trace_id), (case.label, doc)
            assert doc["service"] == "sitemap-auditor"
        assert block[-2]["message"] == "audit finished"
    return blocks


# --- the scenario --------------------------------------------------------------------------------


def serve_listed(site: Site, *lastmods: str) -> None:
    site.route(
        "/robots.txt", reply(f"Sitemap: {site.url('/sitemap.xml')}\n", content_type="text/plain")
    )
    site.route("/sitemap.xml", reply(urlset(list(lastmods))))


def exercise(api: RuntimeAPI, proc: Function, moto: str) -> Run:
    """The sample events, the three outcomes, malformed events, a body that is not JSON and a
    deadline a few seconds away while the site stalls: one execution environment, in order.
    The function's Secrets Manager is moto's server at `moto` (see `function`)."""
    invoker = Invoker(api, proc)
    with contextlib.ExitStack() as stack:
        sites = [stack.enter_context(_site()) for _ in range(6)]
        plain_site, auth_site, secret_site, warning_site, fail_site, stalled = sites

        # The sample events of events/, each against a local stand-in for its site.
        assert {p.name for p in EVENTS.glob("*.json")} == COVERED
        serve_listed(plain_site, days_ago(1))
        invoker.send("plain.json", localise(load("plain.json"), plain_site))

        event = localise(load("basic-auth.json"), auth_site)
        expected = basic(event["basicAuth"]["username"], event["basicAuth"]["password"])
        robots = f"Sitemap: {auth_site.url('/sitemap.xml')}\n"
        auth_site.route("/robots.txt", guarded(expected, reply(robots, content_type="text/plain")))
        # 20 days old: fresh only under the event's preferences.maxAgeDays (30).
        auth_site.route("/sitemap.xml", guarded(expected, reply(urlset([days_ago(20)]))))
        invoker.send("basic-auth.json", event)

        event = localise(load("secret.json"), secret_site)
        sm = secrets_client(moto)
        value = json.dumps({"username": "auditor", "password": "vault-p4ss"})
        try:
            sm.create_secret(Name=event["basicAuthSecretId"], SecretString=value)
        except sm.exceptions.ResourceExistsException:  # moto keeps one store per process
            sm.put_secret_value(SecretId=event["basicAuthSecretId"], SecretString=value)
        secret_auth = basic("auditor", "vault-p4ss")
        robots = f"Sitemap: {secret_site.url('/sitemap.xml')}\n"
        secret_site.route(
            "/robots.txt", guarded(secret_auth, reply(robots, content_type="text/plain"))
        )
        secret_site.route("/sitemap.xml", guarded(secret_auth, reply(urlset([days_ago(1)]))))
        invoker.send("secret.json", event)

        invoker.send("invalid-url.json", load("invalid-url.json"))

        # WARNING (a stale sitemap) and FAIL (no sitemap at all).
        serve_listed(warning_site, days_ago(40))
        invoker.send("warning", {"id": run_id("warning"), "url": warning_site.url("/a/page")})
        invoker.send("fail", {"id": run_id("fail"), "url": fail_site.url("/")})

        # Events the platform should never send: still answered, as results.
        invoker.send("list", [{"id": "x", "url": plain_site.url("/")}])
        invoker.send("string", "https://www.example.com/")
        invoker.send("null", None)
        invoker.send("no-url", {"id": run_id("no-url"), "stack": []})

        # Not JSON at all: the runtime refuses it without calling the handler, and goes on.
        invoker.send("not-json", None, raw=b'{"id": "x", "url": ', handled=False)

        # The function's deadline 5 s away while the site never finishes its headers.
        stalled.route("/robots.txt", slow_headers(interval=0.5, total_seconds=15))
        stalled.route("/sitemap.xml", slow_headers(interval=0.5, total_seconds=15))
        invoker.send(
            "deadline",
            {"id": run_id("deadline"), "url": stalled.url("/")},
            timeout_ms=5_000,
        )

        # After all that, the same environment still audits.
        invoker.send("after", {"id": run_id("after"), "url": plain_site.url("/")})
        run = invoker.finish()

    assert [s.headers.get("authorization") for s in auth_site.seen] == [expected, expected]
    assert [s.headers.get("authorization") for s in secret_site.seen] == [secret_auth] * 2
    return run


def check_exercise(run: Run, api: RuntimeAPI) -> None:
    """What the runtime posted for each case of `exercise`, and what the function printed."""
    for label in ("plain.json", "basic-auth.json", "secret.json", "after"):
        assert run.result(label)["status"] == "SUCCESS", run.result(label)["message"]
    assert data_of(run.result("basic-auth.json"))["maxAgeDays"] == 30
    invalid = run.result("invalid-url.json")
    assert invalid["status"] == "ERROR" and codes_of(invalid) == ["100", "501"]
    assert codes_of(run.result("warning")) == ["100", "300"]
    assert run.result("warning")["status"] == "WARNING"
    assert codes_of(run.result("fail")) == ["100", "400"]
    assert run.result("fail")["status"] == "FAIL"
    for label in ("list", "string", "null", "no-url"):
        result = run.result(label)
        assert result["status"] == "ERROR" and codes_of(result) == ["100", "501"], label
    # Every result as the platform reads it: all keys present, valid UTF-8 JSON.
    for case in run.cases:
        assert case.post is not None
        assert case.post.headers.get("Content-Type", "application/json") == "application/json"
        if case.handled:
            result = run.result(case.label)
            assert result["status"] in STATUSES
            assert set(result) == {"version", "auditor", "status", "date", "message", "checks"} | {
                "groupId"
            }

    (refused,) = [c for c in run.cases if c.label == "not-json"]
    assert refused.post is not None and refused.post.kind == "error"
    assert refused.post.json()["errorType"] == "Runtime.UnmarshalError"

    (late,) = [c for c in run.cases if c.label == "deadline"]
    assert late.post is not None and late.post.kind == "response"
    deadline_ms = api.handed_out(late.request_id).deadline_ms
    assert deadline_ms is not None and late.post.received_ms < deadline_ms, "answered too late"
    # The function's time ran out before the site answered: the remaining candidates are
    # reported as not fetched (docs/operations.md, "Timeout") instead of a Lambda timeout.
    issues = data_of(run.result("deadline"))["issues"]
    assert any(i.endswith("not fetched: the audit ran out of time") for i in issues), issues

    blocks = check_stdout(run, api, first_is_cold=True)
    assert [b[-2]["status"] for b in blocks] == [
        run.result(c.label)["status"] for c in run.cases if c.handled
    ]
    for secret in ("staging-preview-2026", "vault-p4ss"):
        assert secret not in run.stdout + run.stderr


def lone_surrogates(api: RuntimeAPI, proc: Function, site: Site) -> Run:
    """Lone surrogates in `url` and `id`: answered, as valid UTF-8, and the process lives on."""
    invoker = Invoker(api, proc)
    serve_listed(site, days_ago(1))
    rid = run_id("surrogate-url")
    # json.dumps writes a lone surrogate as the escape "\ud800", as a JSON sender may.
    invoker.send("bad-url", {"id": rid, "url": "www.example.com/\ud800"})
    invoker.send("page-url", {"id": run_id("surrogate-page"), "url": site.url("/p\udfff")})
    invoker.send("bad-id", {"id": "run-\ud800", "url": site.url("/")}, expect_run_id="run-\ufffd")
    invoker.send("after", {"id": run_id("after-surrogates"), "url": site.url("/")})
    run = invoker.finish()
    for case in run.cases:
        assert case.post is not None
        case.post.body.decode("utf-8")  # strict: a surrogate cannot be in it
    bad_url = run.result("bad-url")
    assert codes_of(bad_url) == ["100", "501"]
    assert "www.example.com/\ufffd" in bad_url["checks"][1]["recommendation"]
    for label in ("page-url", "bad-id", "after"):
        assert run.result(label)["status"] == "SUCCESS", label
    blocks = check_stdout(run, api, first_is_cold=True)
    assert blocks[0][0]["url"] == "www.example.com/\ufffd"
    return run


@contextlib.contextmanager
def _site() -> Iterator[Site]:
    s = Site().start()
    try:
        yield s
    finally:
        s.stop()


def init_error(python: str | Path, task_root: Path, extra: dict[str, str] | None = None) -> None:
    """A bad SITEMAP_MAX_AGE_DAYS: one POST to /runtime/init/error naming it, and nothing else."""
    with function(python, task_root, {"SITEMAP_MAX_AGE_DAYS": "abc", **(extra or {})}) as (
        api,
        proc,
    ):
        post = api.wait_for_init_error()
        code = proc.wait_exit(30)
        assert code is not None and code != 0, "the runtime must stop after an init error"
        error = post.json()
        assert "SITEMAP_MAX_AGE_DAYS" in error["errorMessage"]
        assert error["errorType"] == "ConfigError"
        assert post.headers.get("Lambda-Runtime-Function-Error-Type") == "ConfigError"
        assert [p.kind for p in api.posts] == ["init-error"]
        assert api.polls == 0, "no invocation may be asked for after an init error"


# --- from the source tree ------------------------------------------------------------------------


def test_runtime_client_runs_every_kind_of_event(moto: str) -> None:
    with function(sys.executable, ROOT, moto=moto) as (api, proc):
        run = exercise(api, proc, moto)
    check_exercise(run, api)


def test_runtime_client_survives_lone_surrogates() -> None:
    with function(sys.executable, ROOT) as (api, proc), _site() as site:
        lone_surrogates(api, proc, site)


def test_runtime_client_posts_a_bad_setting_as_an_init_error() -> None:
    init_error(sys.executable, ROOT)


# --- from the built package ----------------------------------------------------------------------


def _platform_tag() -> str:
    return f"manylinux2014_{platform.machine()}"


def _python_version() -> str:
    return f"{sys.version_info.major}.{sys.version_info.minor}"


def build(out: Path, *variables: str) -> Path:
    done = subprocess.run(
        [
            *("make", "--no-print-directory", "build-AuditorFunction"),
            *(f"ARTIFACTS_DIR={out}", f"PYTHON={sys.executable}", *variables),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return out


@pytest.fixture(scope="session")
def artifact(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The package built for this machine (platform and Python), as the tests can run it."""
    out = tmp_path_factory.mktemp("artifact") / "local"
    return build(out, f"LAMBDA_PLATFORM={_platform_tag()}", f"LAMBDA_PYTHON={_python_version()}")


@pytest.fixture(scope="session")
def deployed_artifact(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The package as `sam build` makes it: the Makefile's defaults, arm64 and Python 3.13."""
    return build(tmp_path_factory.mktemp("artifact") / "arm64")


@pytest.fixture(scope="session")
def runtime_python(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An interpreter holding what the managed runtime holds: the runtime client and boto3."""
    venv = tmp_path_factory.mktemp("lambda-runtime") / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    done = subprocess.run(
        [
            *(sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet"),
            *("--disable-pip-version-check", "awslambdaric", "boto3"),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return python


def zipped_size(folder: Path) -> int:
    """The size of the folder zipped as `sam build` / `sam deploy` zip it (deflate)."""
    path = folder.parent / f"{folder.name}.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for f in sorted(folder.rglob("*")):
            z.write(f, f.relative_to(folder))
    return path.stat().st_size


def _normalise(name: str) -> str:
    return re.sub(r"[-_.]+", "_", name).lower()


def _requirement_names() -> set[str]:
    names = set()
    for line in (ROOT / "requirements.txt").read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            names.add(_normalise(re.split(r"[<>=!~;\[ ]", line, maxsplit=1)[0]))
    return names


# What the Lambda artifact leaves out of the package (the Makefile's build-AuditorFunction).
CLI_ONLY = ("cli", "deep", "__main__.py")
NOT_THE_FUNCTIONS = {
    Path("fetching/replay.py"),
    Path("fetching/memory_transport.py"),
    Path("fetching/kept_transport.py"),
    Path("core/interrupts.py"),
}


def check_contents(folder: Path, python_tag: str, compiled: bool = False) -> None:
    """The package and what requirements.txt lists, nothing else; `compiled`: with bytecode of
    the function's Python for each module, read without checking its source."""
    top = {p.name for p in folder.iterdir()} - ({"__pycache__"} if compiled else set())
    dists = {p.name for p in folder.glob("*.dist-info")}
    assert {_normalise(d.split("-")[0]) for d in dists} == _requirement_names()
    # Each other top-level entry belongs to one of those distributions (their RECORD says so).
    owned = {"sitemap_auditor", *dists}
    for dist in dists:
        for row in (folder / dist / "RECORD").read_text(encoding="utf-8").splitlines():
            owned.add(row.split(",")[0].split("/")[0])
    assert top <= owned, top - owned
    assert "bin" not in top
    # A folder a wheel drops beside its package (ada-url's docs/conf.py, wrapt's stubs) is no
    # part of the function: every top-level folder is a package or a distribution's metadata.
    folders = {p.name for p in folder.iterdir() if p.is_dir()} & top
    assert {n for n in folders - dists if not (folder / n / "__init__.py").exists()} == set()
    assert "docs" not in top
    assert not {_normalise(n.removesuffix(".py")) for n in top} & RUNTIME_PROVIDED
    pycs = list(folder.rglob("*.pyc"))
    if not compiled:
        assert not [p for p in folder.rglob("__pycache__")] and not pycs
    else:
        # The modules a cold start and a first audit import (the Makefile's COLD_PATH).
        tag = sys.implementation.cache_tag
        for module in ("handler.py", "audit/steps.py", "fetching/transport.py"):
            p = folder / "sitemap_auditor" / module
            assert p.parent / "__pycache__" / f"{p.stem}.{tag}.pyc" in pycs, module
        assert folder / "requests" / "__pycache__" / f"sessions.{tag}.pyc" in pycs
        assert all(p.name.endswith(f".{tag}.pyc") for p in pycs)
        # Flags 0b01 (hash-based) without 0b10 (checked): used as they are.
        assert {int.from_bytes(p.read_bytes()[4:8], "little") for p in pycs} == {1}
    for ext in folder.rglob("*.so"):
        assert python_tag in ext.name or ".abi3." in ext.name, ext
    # The package, less what never runs in the function: the command line and the deep audit.
    source = {
        p.relative_to(ROOT / "sitemap_auditor")
        for p in (ROOT / "sitemap_auditor").rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    }
    source = {p for p in source if p.parts[0] not in CLI_ONLY and p not in NOT_THE_FUNCTIONS}
    packaged = {
        p.relative_to(folder / "sitemap_auditor")
        for p in (folder / "sitemap_auditor").rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    }
    assert packaged == source


def test_deployed_package_holds_the_package_and_its_dependencies_only(
    deployed_artifact: Path,
) -> None:
    check_contents(deployed_artifact, "cpython-313-aarch64-linux-gnu")
    size = zipped_size(deployed_artifact)
    print(f"\nthe arm64 Python 3.13 package, zipped: {size:,} bytes")
    assert size <= MAX_ZIPPED_BYTES


@pytest.mark.slow
def test_local_package_is_complete_against_the_runtime(
    artifact: Path, runtime_python: Path
) -> None:
    """Built for this machine: same contents; with the runtime's packages, nothing is missing,
    and the X-Ray SDK and Powertools' Tracer load from it on the runtime's botocore."""
    check_contents(
        artifact, f"cpython-{sys.version_info.major}{sys.version_info.minor}-", compiled=True
    )
    assert zipped_size(artifact) <= MAX_ZIPPED_BYTES
    env = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(artifact)}
    done = subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(runtime_python), "check"],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    probe = (
        "import json, aws_xray_sdk, botocore, jmespath\n"
        "from aws_lambda_powertools import Tracer\n"
        "Tracer(service='probe', auto_patch=True, patch_modules=('botocore',))\n"
        "print(json.dumps([aws_xray_sdk.__file__, botocore.__file__, jmespath.__file__]))\n"
    )
    done = subprocess.run(
        [str(runtime_python), "-c", probe],
        cwd=artifact,
        env={**env, "LAMBDA_TASK_ROOT": str(artifact), "AWS_XRAY_CONTEXT_MISSING": "IGNORE_ERROR"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    xray, botocore, jmespath = json.loads(done.stdout.splitlines()[-1])
    assert Path(xray).is_relative_to(artifact)
    assert not Path(botocore).is_relative_to(artifact)
    assert not Path(jmespath).is_relative_to(artifact)


@contextlib.contextmanager
def xray_daemon() -> Iterator[socket.socket]:
    """A UDP socket on 127.0.0.1 where the X-Ray SDK sends its segments: nothing leaves."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
    sock.bind(("127.0.0.1", 0))
    try:
        yield sock
    finally:
        sock.close()


def received_segments(sock: socket.socket) -> list[dict[str, Any]]:
    """The segment documents the SDK sent (each datagram: a JSON header line, then the body)."""
    sock.setblocking(False)
    docs: list[dict[str, Any]] = []
    while True:
        try:
            data = sock.recv(1 << 16)
        except BlockingIOError:
            return docs
        _, _, body = data.decode("utf-8").partition("\n")
        docs.append(json.loads(body))


def walk(segments: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """Each segment document and, depth first, the subsegments nested in it."""
    for s in segments:
        yield s
        yield from walk(s.get("subsegments", []))


def tracing_environment(sock: socket.socket) -> dict[str, str]:
    address = f"127.0.0.1:{sock.getsockname()[1]}"
    return {
        "POWERTOOLS_TRACE_DISABLED": "false",
        "AWS_XRAY_DAEMON_ADDRESS": address,
        "_AWS_XRAY_DAEMON_ADDRESS": "127.0.0.1",
        "_AWS_XRAY_DAEMON_PORT": str(sock.getsockname()[1]),
        "AWS_XRAY_CONTEXT_MISSING": "LOG_ERROR",
    }


@pytest.mark.slow
@pytest.mark.parametrize("tracing", ["off", "on"])
def test_built_package_under_the_runtime(
    artifact: Path, runtime_python: Path, moto: str, tracing: str
) -> None:
    with contextlib.ExitStack() as stack:
        extra: dict[str, str] = {}
        sock = None
        if tracing == "on":
            sock = stack.enter_context(xray_daemon())
            extra = tracing_environment(sock)
        api, proc = stack.enter_context(function(runtime_python, artifact, extra, moto))
        run = exercise(api, proc, moto)
        check_exercise(run, api)
        if sock is not None:
            segments = received_segments(sock)
            traced = {s.get("trace_id") for s in segments}
            for case in run.cases:
                if case.handled:
                    root = trace_root(api.handed_out(case.request_id).trace_id)
                    assert root in traced, (case.label, segments[:3])
            every = list(walk(segments))
            assert any(s.get("name", "").startswith("## ") for s in every), segments[:3]
            # The secret was read through the runtime's botocore, patched by the packaged SDK.
            aws = [s for s in every if s.get("namespace") == "aws"]
            assert [s["aws"]["operation"] for s in aws] == ["GetSecretValue"], aws


@pytest.mark.slow
@pytest.mark.parametrize("tracing", ["off", "on"])
def test_built_package_survives_lone_surrogates(
    artifact: Path, runtime_python: Path, tracing: str
) -> None:
    with contextlib.ExitStack() as stack:
        extra = tracing_environment(stack.enter_context(xray_daemon())) if tracing == "on" else {}
        api, proc = stack.enter_context(function(runtime_python, artifact, extra))
        lone_surrogates(api, proc, stack.enter_context(_site()))


@pytest.mark.slow
@pytest.mark.parametrize("tracing", ["off", "on"])
def test_built_package_posts_a_bad_setting_as_an_init_error(
    artifact: Path, runtime_python: Path, tracing: str
) -> None:
    with contextlib.ExitStack() as stack:
        extra = tracing_environment(stack.enter_context(xray_daemon())) if tracing == "on" else {}
        init_error(runtime_python, artifact, extra)
