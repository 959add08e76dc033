"""Events bounded (docs/contract.md §§1, 4, 6): hosts DNS cannot carry, huge ids and urls.

A host over 253 characters, or with a label over 63, is no host: the audit is a 501 and a
`Sitemap:` value with such a host is skipped. A result stays small whatever the event, and the
event's id is cut to 256 characters on log lines and the EMF document.
"""

from __future__ import annotations

import json

import pytest
from support.documents import urlset
from support.results import LOCAL, AuditFn, LogCapture, codes_of, data_of, days_ago

from harness.servers import Site, reply, robots_with
from sitemap_auditor import handler
from sitemap_auditor.core import site as sites
from sitemap_auditor.core import urls
from sitemap_auditor.core.issues import cut_value
from sitemap_auditor.core.robots import sitemap_urls

LABEL_63 = "a" * 63


def host_of(total: int) -> str:
    """A host name of exactly `total` characters, in labels of at most 63."""
    labels: list[str] = []
    length = 0
    while True:
        left = total - length - (1 if labels else 0)
        if left <= 63:
            labels.append("b" * left)
            break
        labels.append("b" * 63)
        length = len(".".join(labels))
    host = ".".join(labels)
    assert len(host) == total and all(labels)
    return host


@pytest.mark.parametrize("total", [1, 63, 200, 253])
def test_a_host_dns_can_carry_is_a_host(total: int) -> None:
    host = host_of(total)
    assert urls.ascii_host(host) == host
    assert urls.ascii_host(host + ".") == host + "."  # the root's trailing dot aside


@pytest.mark.parametrize(
    "host",
    [
        host_of(254),
        "a" * 64,
        f"{LABEL_63}.{'c' * 64}.com",
        "x" * 400_000,
        # IDNA makes it longer than DNS takes: 60 "ü" are a 67-character A-label.
        "ü" * 60 + ".com",
    ],
)
def test_a_host_dns_cannot_carry_is_no_host(host: str) -> None:
    assert urls.ascii_host(host) is None
    assert sites.resolve(f"https://{host}/page") is None


def test_the_reason_is_said_apart_from_an_empty_label() -> None:
    assert urls.host_or_reason("a" * 64) == (None, urls.TOO_LONG_FOR_DNS)
    assert urls.host_or_reason("a..b") == (None, urls.NO_IDNA_FORM)


def test_a_sitemap_value_with_a_host_dns_cannot_carry_is_skipped() -> None:
    robots = "https://ex.com/robots.txt"
    host = "d" * 64 + ".com"
    value = f"http://{host}/s.xml"
    found = sitemap_urls(f"Sitemap: {value}\nSitemap: /ok.xml\n".encode(), robots, robots)
    assert found.urls == ("https://ex.com/ok.xml",)
    assert found.issues == (
        f"{robots}: skipped Sitemap: value {cut_value(value)!r} "
        f"(host {cut_value(host)!r} is too long for DNS (over 253 characters, or a label over 63))",
    )


def test_a_huge_host_is_a_501_with_a_small_result(audit: AuditFn) -> None:
    url = "https://" + "x" * 400_000 + "/page"
    result = audit(url)
    assert codes_of(result) == ["100", "501"]
    size = len(json.dumps(result, ensure_ascii=False).encode("utf-8"))
    assert size < 20_000
    assert data_of(result)["siteBase"] is None


def test_a_huge_url_gives_a_small_result(audit: AuditFn) -> None:
    result = audit("no scheme " + "y" * 5_000_000)
    assert codes_of(result) == ["100", "501"]
    assert len(json.dumps(result, ensure_ascii=False).encode("utf-8")) < 20_000


def test_a_huge_id_is_cut_on_every_log_line_and_to_256_on_the_emf_document(
    site: Site, logs: LogCapture, capsys: pytest.CaptureFixture[str]
) -> None:
    site.route("/robots.txt", robots_with(f"Sitemap: {site.url('/s.xml')}"))
    site.route("/s.xml", reply(urlset([days_ago(1)])))
    run_id = "r" * 5_000_000
    result = handler.run({"id": run_id, "url": site.url("/")}, None, LOCAL)
    assert codes_of(result) == ["100", "200"]
    lines = logs.lines()
    # Whole on the log lines up to 2,048 characters: a 300-character id was cut to 256 there.
    assert lines and all(x["run_id"] == "r" * 2048 for x in lines if "_aws" not in x)
    assert max(len(line) for line in logs.text().splitlines()) < 10_000
    printed = [json.loads(x) for x in capsys.readouterr().out.splitlines() if x.startswith("{")]
    emf = [x for x in printed if "_aws" in x]
    assert emf and emf[-1]["run_id"] == "r" * 256
