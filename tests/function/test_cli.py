"""The installed `sitemap-auditor` script, run as a subprocess against local servers."""

from __future__ import annotations

import json
import os
import pty
import queue
import re
import select
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import IO, Any

import pytest
from support.cli import PASSWORD, ROOT, SCRIPT, env
from support.documents import urlset
from support.results import days_ago

from harness.servers import Site, reply, send


def cli(*args: str, stdin: str | None = None, **extra: str) -> subprocess.CompletedProcess[str]:
    assert SCRIPT is not None, "the console script is not installed"
    return subprocess.run(
        [SCRIPT, *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=env(**extra),
        timeout=120,
        cwd=ROOT,
    )


def started(*args: str) -> subprocess.Popen[bytes]:
    """The console script started on args, its standard output and error pipes to read."""
    assert SCRIPT is not None, "the console script is not installed"
    return subprocess.Popen(
        [SCRIPT, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env(), cwd=ROOT
    )


@pytest.fixture
def fresh(site: Site) -> Site:
    site.route("/robots.txt", reply("Sitemap: /sitemap.xml\n", content_type="text/plain"))
    site.route("/sitemap.xml", reply(urlset([days_ago(1)])))
    return site


@pytest.fixture
def stale(other_site: Site) -> Site:
    other_site.route("/sitemap.xml", reply(urlset(["2020-01-01"])))
    return other_site


def test_readable_report_and_exit_0(fresh: Site) -> None:
    done = cli("--allow-private-networks", fresh.url("/"))
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert f"{fresh.url('/')}  SUCCESS" in out
    assert "lists a sitemap" in out and "<urlset>, 1 entry," in out
    assert "✓ 200" in out and "\033[" not in out  # not a terminal: no colour
    assert done.stderr == ""  # logs stay quiet unless --verbose


def test_json_is_the_exact_lambda_result(fresh: Site) -> None:
    done = cli("--json", "--allow-private-networks", fresh.url("/"))
    result = json.loads(done.stdout)
    assert list(result) == ["version", "auditor", "status", "date", "message", "groupId", "checks"]
    assert result["status"] == "SUCCESS"
    assert done.stdout.count("\n") == 1


def test_python_dash_m_prints_json(fresh: Site) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "sitemap_auditor", "--allow-private-networks", fresh.url("/")],
        capture_output=True,
        text=True,
        env=env(),
        timeout=60,
    )
    assert json.loads(done.stdout)["status"] == "SUCCESS"


def test_several_urls_give_json_lines_each_naming_its_url_and_the_worst_exit(
    fresh: Site, stale: Site
) -> None:
    urls = [stale.url("/"), "not a url", fresh.url("/"), stale.url("/x")]
    done = cli("--json", "--jobs", "3", "--allow-private-networks", *urls)
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    # Each record of a batch names its input URL beside the exact Lambda result; they come in
    # the order the audits finished.
    by_url = {r["url"]: r["result"]["status"] for r in lines}
    assert sorted(r["url"] for r in lines) == sorted(urls)
    assert [by_url[u] for u in urls] == ["WARNING", "ERROR", "SUCCESS", "WARNING"]
    assert done.returncode == 3
    assert done.stderr.strip().splitlines()[-1] == (
        "4 audited: 1 SUCCESS, 2 WARNING, 0 FAIL, 1 ERROR"
    )


@pytest.mark.parametrize(
    ("setup", "code"),
    [("fresh", 0), ("stale", 1), ("empty", 2), ("invalid", 3)],
)
def test_exit_status_by_outcome(
    site: Site, setup: str, code: int, request: pytest.FixtureRequest
) -> None:
    url = site.url("/")
    if setup == "fresh":
        site.route("/sitemap.xml", reply(urlset([days_ago(1)])))
    elif setup == "stale":
        site.route("/sitemap.xml", reply(urlset(["2001-01-01"])))
    elif setup == "invalid":
        url = "example.com"
    assert cli("--allow-private-networks", url).returncode == code


def test_urls_from_a_file_and_from_stdin(fresh: Site, tmp_path: Path) -> None:
    listing = tmp_path / "sites.txt"
    listing.write_text(f"# my sites\n\n{fresh.url('/')}\n{fresh.url('/other')}\n")
    done = cli("--json", "--allow-private-networks", "--input", str(listing))
    assert len(done.stdout.splitlines()) == 2
    done = cli("--json", "--allow-private-networks", "-", stdin=f"{fresh.url('/')}\n")
    assert json.loads(done.stdout)["status"] == "SUCCESS"
    # A list saved with a byte order mark, read from a file or piped in.
    listing.write_text(f"\ufeff{fresh.url('/')}\n", encoding="utf-8")
    done = cli("--json", "--allow-private-networks", "--input", str(listing))
    assert json.loads(done.stdout)["status"] == "SUCCESS"
    done = cli("--json", "--allow-private-networks", "-", stdin=f"\ufeff{fresh.url('/')}\n")
    assert json.loads(done.stdout)["status"] == "SUCCESS"


def test_max_age_days(stale: Site) -> None:
    done = cli("--json", "--allow-private-networks", "--max-age-days", "100000", stale.url("/"))
    result = json.loads(done.stdout)
    assert result["checks"][0]["data"]["maxAgeDays"] == 100000
    assert result["status"] == "SUCCESS"


def test_private_networks_are_refused_without_the_flag(fresh: Site) -> None:
    done = cli("--json", fresh.url("/"))
    result = json.loads(done.stdout)
    assert result["status"] == "FAIL"
    assert "blocked address 127.0.0.1" in result["checks"][0]["data"]["issues"][0]
    assert fresh.seen == []


def test_password_from_the_environment_is_sent_and_never_echoed(fresh: Site) -> None:
    done = cli(
        "--verbose",
        "--user",
        "editor",
        "--allow-private-networks",
        fresh.url("/"),
        SITEMAP_AUDITOR_PASSWORD=PASSWORD,
    )
    assert done.returncode == 0
    assert fresh.seen[0].headers["authorization"].startswith("Basic ")
    assert PASSWORD not in done.stdout + done.stderr
    assert '"message":"fetched"' in done.stderr  # --verbose logs go to stderr


@pytest.mark.parametrize("command", [(), ("deep",)], ids=["audit", "deep"])
def test_a_password_of_bytes_that_are_not_utf8_is_a_usage_error(
    fresh: Site, command: tuple[str, ...]
) -> None:
    # It named the URL as the culprit (deep), or was dropped silently and the site audited
    # without credentials: no Authorization header can carry such a password.
    done = cli(
        *command,
        "--user",
        "editor",
        "--allow-private-networks",
        fresh.url("/"),
        SITEMAP_AUDITOR_PASSWORD="p\udcffw",  # the byte 0xFF, as os.environ holds it
    )
    assert done.returncode == 64
    assert "SITEMAP_AUDITOR_PASSWORD holds bytes that are not UTF-8 text" in done.stderr
    assert fresh.seen == []


@pytest.mark.parametrize("command", [(), ("deep",)], ids=["audit", "deep"])
def test_user_with_the_sites_of_two_hosts_is_a_usage_error(
    fresh: Site, other_site: Site, tmp_path: Path, command: tuple[str, ...]
) -> None:
    # A list of URLs may name another owner's site beside yours: --user would send it the
    # password (each audit sends the credentials to its own site). Nothing is fetched.
    listed = tmp_path / "sites.txt"
    listed.write_text(
        f"{fresh.url('/')}\n{other_site.url('/').replace('127.0.0.1', '127.0.0.2')}\n"
    )
    done = cli(
        *command,
        "--user",
        "editor",
        "--allow-private-networks",
        "--input",
        str(listed),
        SITEMAP_AUDITOR_PASSWORD=PASSWORD,
    )
    assert done.returncode == 64, done.stderr
    assert "--user sends the password to every site audited" in done.stderr
    assert "2 hosts (127.0.0.1, 127.0.0.2)" in done.stderr
    assert fresh.seen == [] and other_site.seen == []
    # Two URLs of one host are one site's: audited with the credentials.
    two = cli("--user", "editor", "--allow-private-networks", fresh.url("/"), fresh.url("/x"),
              SITEMAP_AUDITOR_PASSWORD=PASSWORD)  # fmt: skip
    assert two.returncode != 64, two.stderr


def test_user_without_password_and_no_terminal_is_a_usage_error(fresh: Site) -> None:
    done = cli("--user", "editor", "--allow-private-networks", fresh.url("/"), stdin="")
    assert done.returncode == 64
    assert "SITEMAP_AUDITOR_PASSWORD" in done.stderr
    assert fresh.seen == []


def run_on_terminal(
    args: list[str], answer: str | None = None, timeout: float = 60, **extra: str
) -> str:
    """Run the script with a pseudo-terminal as stdin/stdout; type answer at the prompt."""
    assert SCRIPT is not None
    primary, secondary = pty.openpty()
    proc = subprocess.Popen(
        [SCRIPT, *args],
        stdin=secondary,
        stdout=secondary,
        stderr=secondary,
        env=env(**extra),
        start_new_session=True,
        cwd=ROOT,
    )
    os.close(secondary)
    output = b""
    typed = answer is None
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ready, _, _ = select.select([primary], [], [], 0.2)
        if ready:
            try:
                chunk = os.read(primary, 65536)
            except OSError:
                break
            if not chunk:
                break
            output += chunk
            if not typed and b"Password for" in output:
                os.write(primary, (answer or "").encode() + b"\n")
                typed = True
        elif proc.poll() is not None:
            break
    proc.wait(timeout=10)
    os.close(primary)
    return output.decode(errors="replace")


def test_password_prompt_on_a_terminal_is_not_echoed(fresh: Site) -> None:
    out = run_on_terminal(
        ["--user", "editor", "--allow-private-networks", fresh.url("/")], answer=PASSWORD
    )
    assert "Password for editor:" in out
    assert PASSWORD not in out
    assert fresh.seen[0].headers["authorization"].startswith("Basic ")


def test_colour_only_on_a_terminal_and_never_with_no_color(fresh: Site) -> None:
    coloured = run_on_terminal(["--allow-private-networks", fresh.url("/")])
    assert "\033[32mSUCCESS\033[0m" in coloured
    plain = run_on_terminal(["--allow-private-networks", fresh.url("/")], NO_COLOR="1")
    assert "SUCCESS" in plain and "\033[" not in plain
    # https://no-color.org: only a value that is not empty turns colour off.
    empty = run_on_terminal(["--allow-private-networks", fresh.url("/")], NO_COLOR="")
    assert "\033[32mSUCCESS\033[0m" in empty


def test_progress_bar_on_a_terminal_for_several_urls(fresh: Site) -> None:
    out = run_on_terminal(["--allow-private-networks", fresh.url("/"), fresh.url("/b")])
    # Drawn between the results, erased before each is printed and at the end.
    assert "] 1/2" in out
    assert out.rindex("] 1/2") < out.rindex("\r\033[K")
    assert "2 audited: 2 SUCCESS" in out


def test_demo() -> None:
    done = cli("demo")
    assert done.returncode == 0, done.stderr
    assert "SUCCESS" in done.stdout and "sitemap.xml.gz" in done.stdout
    as_json = cli("--demo", "--json")
    assert json.loads(as_json.stdout)["status"] == "SUCCESS"


def test_help_explains_every_option_with_examples() -> None:
    done = cli("--help")
    assert done.returncode == 0
    for option in (
        "--json",
        "--max-age-days",
        "--user",
        "--allow-private-networks",
        "--jobs",
        "--input",
        "--demo",
        "SITEMAP_AUDITOR_PASSWORD",
        "NO_COLOR",
        "exit status",
    ):
        assert option in done.stdout


@pytest.mark.parametrize(
    "args",
    [[], ["--jobs", "0", "https://x"], ["--max-age-days", "0", "https://x"], ["--bogus"]],
)
def test_usage_errors_exit_64(args: list[str]) -> None:
    done = cli(*args, stdin="")
    assert done.returncode == 64


def test_invalid_deployment_setting_is_reported(fresh: Site) -> None:
    done = cli(fresh.url("/"), SITEMAP_MAX_AGE_DAYS="7days")
    assert done.returncode == 64
    assert "SITEMAP_MAX_AGE_DAYS" in done.stderr


def test_a_batch_of_one_sites_pages_fetches_the_site_once(fresh: Site) -> None:
    pages = [fresh.url(f"/page/{i}") for i in range(12)]
    done = cli("--json", "--jobs", "4", "--allow-private-networks", *pages)
    assert done.returncode == 0, done.stderr
    results = [json.loads(line)["result"] for line in done.stdout.splitlines()]
    assert len(results) == 12 and {r["status"] for r in results} == {"SUCCESS"}
    assert fresh.paths().count("/robots.txt") == 1
    assert fresh.paths().count("/sitemap.xml") == 1


def test_no_share_fetches_every_url_afresh(fresh: Site) -> None:
    pages = [fresh.url(f"/page/{i}") for i in range(3)]
    done = cli("--json", "--no-share", "--allow-private-networks", *pages)
    assert done.returncode == 0, done.stderr
    assert fresh.paths().count("/robots.txt") == 3
    assert fresh.paths().count("/sitemap.xml") == 3


def test_urls_on_standard_input_that_are_not_utf8_are_read(fresh: Site) -> None:
    assert SCRIPT is not None
    done = subprocess.run(
        [SCRIPT, "--json", "--allow-private-networks", "-"],
        input=fresh.url("/caf\xe9").encode("latin-1") + b"\n",
        capture_output=True,
        env=env(),
        timeout=120,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.decode("utf-8"))
    assert result["status"] == "SUCCESS"


# --- rough edges a newcomer meets --------------------------------------------------------------


@pytest.mark.parametrize("what", ["directory", "missing"])
def test_an_unreadable_input_is_one_line_and_the_usage_status(what: str, tmp_path: Path) -> None:
    target = tmp_path if what == "directory" else tmp_path / "no-such-file.txt"
    done = cli("--input", str(target))
    assert done.returncode == 64
    assert "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines() == [
        f"sitemap-auditor: cannot read --input {target}: "
        + ("Is a directory" if what == "directory" else "No such file or directory")
    ]


def test_ctrl_c_in_a_batch_says_interrupted_and_exits_130(site: Site) -> None:
    import signal
    import threading
    import time as clock

    seen = threading.Event()

    def stall(h: Any) -> None:
        seen.set()
        clock.sleep(20)

    site.route("/robots.txt", stall)
    assert SCRIPT is not None
    proc = subprocess.Popen(
        [SCRIPT, "--allow-private-networks", site.url("/a"), site.url("/b")],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env(),
        cwd=ROOT,
    )
    assert seen.wait(30)
    started = clock.monotonic()
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130
    assert clock.monotonic() - started < 10  # the stalled audits do not hold the exit
    assert err.strip().splitlines() == ["interrupted"] and out == ""


def test_a_local_site_without_the_switch_names_the_cause_first(fresh: Site) -> None:
    done = cli(fresh.url("/"))
    assert done.returncode == 2
    lines = done.stdout.splitlines()
    assert lines[0].endswith("FAIL")
    assert "--allow-private-networks" in lines[1] and "cause" in lines[1]


def test_a_dns_failure_names_the_cause_first() -> None:
    done = cli("--allow-private-networks", "http://no-such-host.invalid/")
    assert done.returncode == 2
    assert "did not resolve" in done.stdout.splitlines()[1]


def test_a_report_says_one_entry_and_one_day(site: Site) -> None:
    site.route("/robots.txt", reply("Sitemap: /sitemap.xml\n", content_type="text/plain"))
    day = days_ago(0)[:10]
    site.route("/sitemap.xml", reply(urlset([day])))
    done = cli("--allow-private-networks", "--max-age-days", "1", site.url("/"))
    assert "<urlset>, 1 entry," in done.stdout
    assert "window      1 day" in done.stdout
    # The value as the file writes it, and the instant it counts as.
    assert f"latest <lastmod> {day} (counts as {day}T23:59:59Z, the end of that period)" in (
        done.stdout
    )


# --- what a command-line user still met (issue 22) ---------------------------------------------


Held = tuple[Site, threading.Event, threading.Event]


@pytest.fixture
def held(other_site: Site) -> Iterator[Held]:
    """A site whose robots.txt answers 404 only once the test lets it (or after 20 s): the site,
    an event set when robots.txt is asked for, and the event that lets it answer."""
    asked, release = threading.Event(), threading.Event()

    def hold(h: BaseHTTPRequestHandler) -> None:
        asked.set()
        release.wait(20)
        send(h, 404)

    other_site.route("/robots.txt", hold)
    yield other_site, asked, release
    release.set()


def _lines(stream: IO[str]) -> queue.Queue[str]:
    """The lines of stream as they come, read by a thread of their own."""
    lines: queue.Queue[str] = queue.Queue()

    def read() -> None:
        for line in stream:
            lines.put(line)

    threading.Thread(target=read, daemon=True).start()
    return lines


def test_a_batch_prints_each_result_as_its_audit_finishes(fresh: Site, held: Held) -> None:
    slow, asked, _ = held
    assert SCRIPT is not None
    urls = [slow.url("/"), fresh.url("/"), fresh.url("/b")]
    proc = subprocess.Popen(
        [SCRIPT, "--json", "--jobs", "3", "--allow-private-networks", *urls],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env(),
        cwd=ROOT,
    )
    try:
        assert asked.wait(30)
        # While the first URL's site is still held, the others' records are out, flushed.
        assert proc.stdout is not None
        lines = _lines(proc.stdout)
        got = [json.loads(lines.get(timeout=15)) for _ in range(2)]
        assert sorted(r["url"] for r in got) == [fresh.url("/"), fresh.url("/b")]
        assert proc.poll() is None
    finally:
        proc.kill()
        proc.wait(10)
        for pipe in (proc.stdout, proc.stderr):
            if pipe is not None:
                pipe.close()


def test_ctrl_c_keeps_the_results_already_printed(fresh: Site, held: Held, tmp_path: Path) -> None:
    """The results go to a file, as `> results.jsonl` sends them: what finished before Ctrl-C
    is in it, whole, and the exit status says interrupted."""
    slow, asked, _ = held
    assert SCRIPT is not None
    out = tmp_path / "results.jsonl"
    with out.open("w") as sink:
        proc = subprocess.Popen(
            [SCRIPT, "--json", "--allow-private-networks", fresh.url("/"), slow.url("/")],
            stdout=sink,
            stderr=subprocess.PIPE,
            text=True,
            env=env(),
            cwd=ROOT,
        )
        assert asked.wait(30)
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and not out.read_text().endswith("\n"):
            time.sleep(0.05)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130
    assert err.strip().splitlines() == ["interrupted"]
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["url"] for r in records] == [fresh.url("/")]
    assert records[0]["result"]["status"] == "SUCCESS"


def test_a_slow_single_audit_says_what_it_waits_for_on_a_terminal(
    held: Held,
) -> None:
    slow, _, release = held
    robots = slow.url("/robots.txt")
    threading.Timer(2.5, release.set).start()
    out = run_on_terminal(["--allow-private-networks", slow.url("/")], timeout=40)
    # After a second: what it waits for, on the line it then rewrites; cleared before the report.
    said = out.find(f"waiting for robots.txt: {robots}")
    assert said >= 0, out
    report = out.find(f"{slow.url('/')}  ", said)
    assert report > said
    assert "\r\033[K" in out[said:report]
    assert "waiting" not in out[report:]


def test_a_slow_single_audit_is_silent_on_standard_error_when_it_is_no_terminal(
    held: Held,
) -> None:
    slow, _, release = held
    threading.Timer(1.5, release.set).start()
    done = cli("--allow-private-networks", slow.url("/"))
    assert done.returncode == 2
    assert done.stderr == ""


def test_help_fits_80_columns_without_breaking_a_word() -> None:
    done = cli("--help", COLUMNS="80")
    assert done.returncode == 0
    lines = done.stdout.splitlines()
    assert [line for line in lines if len(line) > 80] == []
    # textwrap breaks at hyphens unless told not to: "--allow-private-" / "networks".
    assert [line for line in lines if re.search(r"\w-$", line)] == []
    words = done.stdout.split()
    for whole in ("--allow-private-networks", "$SITEMAP_AUDITOR_PASSWORD", "--max-age-days"):
        assert whole in words or any(w.startswith(whole) for w in words), whole
    # The --json example of several URLs says what they print: records naming their URL.
    assert '{"url": <the URL>, "result": <its result>}' in done.stdout
    assert "finishing" in done.stdout


@pytest.mark.parametrize("args", [["--demo", "https://example.com/"], ["demo", "https://x/"]])
def test_demo_with_a_url_is_a_usage_error(args: list[str]) -> None:
    done = cli(*args)
    assert done.returncode == 64
    assert "demo" in done.stderr and "takes no URL" in done.stderr


@pytest.mark.parametrize("value", ["1", "yes", " on ", "TRUE!"])
def test_an_allow_private_value_other_than_true_is_warned_about_once(
    fresh: Site, value: str
) -> None:
    done = cli("--json", fresh.url("/"), SITEMAP_ALLOW_PRIVATE_NETWORKS=value)
    assert json.loads(done.stdout)["status"] == "FAIL"  # still refused: a safety default
    assert done.stderr.splitlines() == [
        f"sitemap-auditor: warning: SITEMAP_ALLOW_PRIVATE_NETWORKS is {value.strip()!r}, "
        "taken as false: only 'true' allows loopback and private addresses"
    ]


@pytest.mark.parametrize("value", ["", "  ", "true", " True\n"])
def test_an_allow_private_value_of_true_or_nothing_is_not_warned_about(
    fresh: Site, value: str
) -> None:
    done = cli("--json", fresh.url("/"), SITEMAP_ALLOW_PRIVATE_NETWORKS=value)
    assert done.stderr == ""


def test_a_blocked_robots_txt_was_not_asked_rather_than_gave_no_answer(fresh: Site) -> None:
    done = cli(fresh.url("/"))
    robots = next(line for line in done.stdout.splitlines() if "robots.txt  " in line)
    assert "no answer" not in robots and "not asked" in robots


def test_every_candidate_missing_names_the_cause_first(site: Site) -> None:
    """Every candidate 404: the site's own files are the cause, and the report says so first."""
    done = cli("--allow-private-networks", site.url("/"))
    assert done.returncode == 2
    lines = done.stdout.splitlines()
    assert lines[0].endswith("FAIL")
    assert "cause" in lines[1] and "no sitemap at any of the 3 places" in lines[1]


def test_an_html_page_where_the_sitemap_should_be_names_the_cause_first(site: Site) -> None:
    page = b'<!DOCTYPE html>\n<html lang="en"><head><title>Not here</title></head></html>'
    site.route("/sitemap.xml", reply(page, content_type="text/html"))
    done = cli("--allow-private-networks", site.url("/"))
    assert done.returncode == 2
    lines = done.stdout.splitlines()
    assert "cause" in lines[1] and "web page (HTML)" in lines[1]
    assert site.url("/sitemap.xml") in lines[1]


def test_a_refused_connection_is_said_in_words(site: Site) -> None:
    url = site.url("/")
    site.stop()
    done = cli("--allow-private-networks", url)
    assert "fetch error (connect: the connection was refused)" in done.stdout
    assert "Error" not in done.stdout.replace("ERROR", "")


def test_a_slow_candidate_is_named_with_its_place_among_the_candidates(site: Site) -> None:
    release = threading.Event()

    def hold(h: BaseHTTPRequestHandler) -> None:
        release.wait(20)
        send(h, 404)

    site.route("/sitemap_index.xml", hold)
    threading.Timer(2.5, release.set).start()
    try:
        out = run_on_terminal(["--allow-private-networks", site.url("/")], timeout=40)
    finally:
        release.set()
    assert f"waiting for sitemap candidate 2 of 3: {site.url('/sitemap_index.xml')}" in out
    assert f"{site.url('/')}  " in out


def test_a_batch_whose_reader_goes_away_ends_quietly(site: Site, other_site: Site) -> None:
    # `sitemap-auditor --json A B | head -1`: the second record meets a closed pipe.
    import time as clock

    site.route("/robots.txt", reply("User-agent: *\n", content_type="text/plain"))

    def slow(h: Any) -> None:
        clock.sleep(1.5)  # ends after the reader has gone
        reply("User-agent: *\n", content_type="text/plain")(h)

    other_site.route("/robots.txt", slow)
    proc = started("--allow-private-networks", "--json", site.url("/"), other_site.url("/"))
    assert proc.stdout is not None and proc.stderr is not None
    first = proc.stdout.readline()
    assert json.loads(first)["url"] == site.url("/")
    proc.stdout.close()
    err = proc.stderr.read().decode()
    proc.stderr.close()
    assert proc.wait(timeout=60) == 2  # the worst outcome: no sitemap on either site
    assert "Traceback" not in err and "BrokenPipe" not in err


def test_a_deep_batch_whose_reader_goes_away_begins_no_other_site(
    fresh: Site, tmp_path: Path
) -> None:
    # `sitemap-auditor deep --input sites.txt --json | head -1`: the sites of one host run in
    # turn; the second's document meets a closed pipe, and the third is never asked.
    def late(h: Any) -> None:
        time.sleep(1.5)  # answers after the reader has gone
        send(h, 404, b"", {})

    slow, never = Site().start(), Site().start()
    slow.route("/robots.txt", late)
    try:
        listed = tmp_path / "sites.txt"
        listed.write_text("\n".join(s.url("/") for s in (fresh, slow, never)) + "\n")
        proc = started("deep", "--allow-private-networks", "--json", "--input", str(listed))
        assert proc.stdout is not None and proc.stderr is not None
        assert json.loads(proc.stdout.readline())["siteBase"] == fresh.url("/").rstrip("/")
        proc.stdout.close()
        err = proc.stderr.read().decode()
        proc.stderr.close()
        assert proc.wait(timeout=60) in (0, 1, 2), err
        assert "Traceback" not in err and "BrokenPipe" not in err
        assert slow.paths() and not never.paths()
    finally:
        slow.stop()
        never.stop()


def test_ctrl_c_at_any_moment_of_the_start_up_exits_130_without_a_traceback(site: Site) -> None:
    import time as clock

    def stall(h: Any) -> None:
        clock.sleep(20)

    site.route("/robots.txt", stall)
    assert SCRIPT is not None
    # From the moment this package's start-up runs (the interpreter's own first 10 to 20 ms
    # are Python's) through its imports, to the audit under way.
    for delay in (0.03, 0.06, 0.1, 0.15, 0.2, 0.3, 0.45, 0.7):
        for sig, status in ((signal.SIGINT, 130), (signal.SIGTERM, 143)):
            proc = started("--allow-private-networks", site.url("/"))
            clock.sleep(delay)
            proc.send_signal(sig)
            err = proc.communicate(timeout=30)[1].decode()
            assert "Traceback" not in err, (delay, sig, err)
            assert proc.returncode in (status, -sig), (delay, sig, proc.returncode, err)
            if sig == signal.SIGINT:
                assert proc.returncode == 130, (delay, err)


def test_a_summary_or_a_report_whose_reader_is_gone_ends_quietly(fresh: Site) -> None:
    # A batch's summary goes to standard error with --json: its reader gone, the records are
    # all out, and the status is the worst outcome's.
    proc = started("--allow-private-networks", "--json", fresh.url("/"), fresh.url("/x"))
    assert proc.stdout is not None and proc.stderr is not None
    proc.stderr.close()
    records = proc.stdout.read().decode().splitlines()
    proc.stdout.close()
    assert proc.wait(timeout=60) == 0 and len(records) == 2
    # The deep audit's report, its reader gone before it is written.
    proc = started("deep", "--allow-private-networks", fresh.url("/"))
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()
    err = proc.stderr.read().decode()
    proc.stderr.close()
    assert proc.wait(timeout=60) in (0, 1, 2), err
    assert "Traceback" not in err and "BrokenPipe" not in err
