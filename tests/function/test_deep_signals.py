"""SIGINT and SIGTERM sent to the installed `sitemap-auditor deep` alone, at 50 moments drawn
from a fixed seed over its whole run: every time the partial document, whole, and 130 or 143;
never a traceback, never a wait past the signal."""

from __future__ import annotations

import contextlib
import json
import os
import pty
import random
import select
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pytest
from support.deep import SITEMAPS_NS, urlset_of

from harness.servers import Site, reply, stream

COMMAND = Path(sys.executable).parent / "sitemap-auditor"
CHILDREN = 12
URLS_PER_CHILD = 3000
RUNS = 50
AT_ONCE = 5


def _slowly(body: bytes, pieces: int, pause: float) -> Iterator[bytes]:
    step = -(-len(body) // pieces)
    for at in range(0, len(body), step):
        time.sleep(pause)
        yield body[at : at + step]


def _slow_route(body: bytes) -> object:
    def route(h: BaseHTTPRequestHandler) -> None:
        stream(_slowly(body, 10, 0.03))(h)

    return route


@pytest.fixture(scope="module")
def busy_site() -> Iterator[Site]:
    """An index of 12 children of 3,000 URLs each (some listed twice), each sent in ten pieces
    30 ms apart: a walk of about two seconds."""
    site = Site().start()
    index = f'<?xml version="1.0"?><sitemapindex xmlns="{SITEMAPS_NS}">' + "".join(
        f"<sitemap><loc>{site.url(f'/c{i}.xml')}</loc></sitemap>" for i in range(CHILDREN)
    )
    site.route("/robots.txt", reply(f"Sitemap: {site.url('/i.xml')}\n", content_type="text/plain"))
    site.route("/i.xml", reply(index + "</sitemapindex>"))
    for i in range(CHILDREN):
        entries = [
            f"<loc>{site.url(f'/p{(i * URLS_PER_CHILD + k) % 30000}')}</loc>"
            f"<lastmod>2026-11-{1 + k % 28:02d}T10:{k % 60:02d}:00+01:00</lastmod>"
            for k in range(URLS_PER_CHILD + 200)  # 200 URLs also listed by the next child
        ]
        site.route(f"/c{i}.xml", _slow_route(urlset_of(entries)))  # type: ignore[arg-type]
    yield site
    site.stop()


@dataclass
class Run:
    delay: float
    signum: int
    as_json: bool
    code: int | None = None
    out: str = ""
    err: str = ""
    signalled: bool = False
    waited: float = 0.0


def _one(url: str, run: Run) -> Run:
    args = [str(COMMAND), "deep", "--allow-private-networks", *(["--json"] if run.as_json else [])]
    proc = subprocess.Popen([*args, url], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(run.delay)
    if proc.poll() is None:
        proc.send_signal(run.signum)
        run.signalled = True
    sent = time.monotonic()
    run.out, run.err = proc.communicate(timeout=60)
    run.waited = time.monotonic() - sent
    run.code = proc.returncode
    return run


@pytest.mark.slow
def test_fifty_signals_at_random_moments_give_the_partial_document(busy_site: Site) -> None:
    draw = random.Random(37)
    runs = [
        Run(draw.uniform(0.2, 3.0), draw.choice([signal.SIGINT, signal.SIGTERM]), i % 2 == 0)
        for i in range(RUNS)
    ]
    with ThreadPoolExecutor(AT_ONCE) as pool:
        done = list(pool.map(lambda r: _one(busy_site.url("/"), r), runs))
    stopped_mid_walk = 0
    for run in done:
        assert "Traceback" not in run.err, run.err
        assert run.code is not None and run.code >= 0, run  # never killed by the signal
        if run.signalled and run.code in (130, 143):
            assert run.code == 128 + run.signum, run
            assert "stopped: interrupted" in run.err
        else:
            # The run ended before the signal, or took it while ending: a whole document.
            assert run.code in (0, 1, 2), run
        if run.as_json:
            doc = json.loads(run.out)  # whole: it parses
            assert doc["auditedUrl"] == busy_site.url("/")
            if doc["stoppedBy"] == "interrupted":
                stopped_mid_walk += 1
                assert run.code in (130, 143)
                assert not any(f["kind"] == "limit-reached" for f in doc["findings"])
        else:
            assert run.out.startswith(f"Deep audit of {busy_site.url('/')}"), run.out[:200]
            if "stopped: interrupted" in run.out:
                stopped_mid_walk += 1
                assert "a limit was reached" not in run.out.lower()
        # A fetch still running never holds the end: the signal is taken within a wait's turn.
        assert run.waited < 15, run
    # The moments do fall inside walks, not only before or after them.
    assert stopped_mid_walk >= 10, [(r.delay, r.code) for r in done]


@pytest.fixture(scope="module")
def wide_site() -> Iterator[Site]:
    """An index of 300 small children, each with a finding of its own: a document of a few
    hundred kilobytes, several times what a pipe holds."""
    site = Site().start()
    children = [f"<sitemap><loc>{site.url(f'/w{i}.xml')}</loc></sitemap>" for i in range(300)]
    index = f'<?xml version="1.0"?><sitemapindex xmlns="{SITEMAPS_NS}">'
    site.route("/robots.txt", reply(f"Sitemap: {site.url('/w.xml')}\n", content_type="text/plain"))
    site.route("/w.xml", reply(index + "".join(children) + "</sitemapindex>"))
    for i in range(300):
        entry = f"<loc>{site.url(f'/page{i}')}</loc><lastmod>not a date {i}</lastmod>"
        site.route(f"/w{i}.xml", reply(urlset_of([entry])))
    yield site
    site.stop()


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_while_a_slow_reader_takes_the_document_leaves_it_whole(
    wide_site: Site, signum: int
) -> None:
    # Unbuffered (`python -u`, PYTHONUNBUFFERED), the text layer makes one write(2) of the
    # document; a signal ends that write early while the pipe is full, and what it did not
    # take was lost: the document was cut at what the pipe held.
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    args = [str(COMMAND), "deep", "--allow-private-networks", "--json", wide_site.url("/")]
    got = bytearray()
    with subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env) as proc:
        assert proc.stdout is not None and proc.stderr is not None
        out = proc.stdout.fileno()
        got += os.read(out, 4096)  # the document's writing has begun: the pipe is full
        proc.send_signal(signum)
        while chunk := os.read(out, 4096):
            got += chunk
            time.sleep(0.002)  # a slow reader
        err = proc.stderr.read().decode()
        assert proc.wait(timeout=60) == 128 + signum, err
    assert "Traceback" not in err
    doc = json.loads(got)  # whole
    assert len(got) > 4 * 65536 and len(doc["sitemaps"]) == 301


def _ended(proc: subprocess.Popen[bytes], timeout: float) -> int:
    """proc's exit status once it ended within timeout; else it is killed, and the test fails."""
    try:
        return proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        raise


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_while_input_waits_on_standard_input_ends_the_command(signum: int) -> None:
    # `--input -` from a terminal (or a pipe kept open) waits for its next line: a signal
    # ends that wait at once; no site was begun, so there is no document.
    args = [str(COMMAND), "deep", "--json", "--input", "-", "--allow-private-networks"]
    with subprocess.Popen(
        args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    ) as proc:
        assert proc.stdin is not None
        proc.stdin.write(b"http://127.0.0.1:9/\n")
        proc.stdin.flush()  # and kept open
        time.sleep(1.0)
        proc.send_signal(signum)
        code = _ended(proc, 10)  # standard input still open
        out, err = proc.communicate()
        assert code == 128 + signum, err
    assert out == b"" and b"interrupted" in err and b"Traceback" not in err


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_at_the_password_prompt_ends_the_command(signum: int) -> None:
    main, terminal = pty.openpty()
    env = {k: v for k, v in os.environ.items() if k != "SITEMAP_AUDITOR_PASSWORD"}
    args = [str(COMMAND), "deep", "--allow-private-networks", "-u", "bob", "http://127.0.0.1:9/"]
    try:
        with subprocess.Popen(
            args, stdin=terminal, stdout=terminal, stderr=terminal, env=env, start_new_session=True
        ) as proc:
            shown = b""
            deadline = time.monotonic() + 20
            while b"Password" not in shown and time.monotonic() < deadline:
                if select.select([main], [], [], 0.2)[0]:
                    shown += os.read(main, 1024)
            assert b"Password" in shown
            proc.send_signal(signum)
            assert _ended(proc, 10) != 0  # it did not wait for a password
            with contextlib.suppress(OSError):
                while select.select([main], [], [], 0.2)[0]:
                    shown += os.read(main, 4096)
    finally:
        os.close(main)
        os.close(terminal)
    assert b"no password given" in shown and b"Traceback" not in shown


def test_a_signal_held_before_the_credentials_are_read_stops_the_walk(
    wide_site: Site, tmp_path: Path
) -> None:
    # A signal that came before --user's password is read (while --compare's document was
    # read, say; here asked for at once) is the walk's to take: the partial document and 143,
    # as without --user, never a traceback.
    script = (
        "import signal, sys\n"
        "from sitemap_auditor.core.interrupts import Interrupt\n"
        "from sitemap_auditor.cli.main import exit_with, main\n"
        "i = Interrupt(); i.install(); i.hold(); i.request(signal.SIGTERM)\n"
        "exit_with(main(['deep', '--json', '-u', 'alice', '--allow-private-networks', "
        f"{wide_site.url('/')!r}], interrupt=i))\n"
    )
    env = {**os.environ, "SITEMAP_AUDITOR_PASSWORD": "secret-pass"}
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=60
    )
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode == 143, done.stderr
    assert json.loads(done.stdout)["stoppedBy"] == "interrupted"


def test_a_signal_held_before_input_reads_standard_input_ends_the_command() -> None:
    # The signal came during the start-up (held, as start.py holds it), before standard input
    # is read: the read does not begin, and the command ends at once.
    script = (
        "import signal\n"
        "from sitemap_auditor.core.interrupts import Interrupt\n"
        "from sitemap_auditor.cli.main import exit_with, main\n"
        "i = Interrupt(); i.install(); i.hold(); i.request(signal.SIGINT)\n"
        "exit_with(main(['deep', '--json', '--input', '-', '--allow-private-networks'], "
        "interrupt=i))\n"
    )
    with subprocess.Popen(
        [sys.executable, "-c", script],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    ) as proc:
        code = _ended(proc, 20)  # standard input kept open
        out, err = proc.communicate()
    assert code == 130 and out == b"" and b"interrupted" in err and b"Traceback" not in err
