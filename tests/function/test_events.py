"""The sample events of events/ (for `sam local invoke -e`) run through the handler.

Each event's site is stood in for by a local server: the URL's scheme and host are replaced by the
server's, everything else in the event (path, query, credentials, secret id, preferences) is kept.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlsplit

import pytest
from cfnlint.decode.decode import decode_str
from support.aws import basic, guarded, moto_server, point_at, secrets_client
from support.documents import urlset
from support.events import COVERED, EVENT_KEYS, EVENTS, ROOT, load, localise
from support.results import LOCAL, LogCapture, codes_of, data_of, days_ago

from harness.servers import Site, reply
from sitemap_auditor import handler
from sitemap_auditor.audit import secrets


def run(event: dict[str, Any]) -> dict[str, Any]:
    return handler.run(event, None, LOCAL)


def test_every_sample_event_is_exercised_here() -> None:
    assert {p.name for p in EVENTS.glob("*.json")} == COVERED


@pytest.mark.parametrize("name", sorted(COVERED))
def test_sample_events_are_platform_events(name: str) -> None:
    event = load(name)
    assert set(event) <= EVENT_KEYS
    assert isinstance(event["id"], str) and event["id"]
    assert isinstance(event["url"], str)
    assert "127.0.0.1" not in event["url"] and "localhost" not in event["url"]
    assert "example.com" in event["url"]


@pytest.mark.parametrize(
    ("served", "status", "codes"),
    [("listed", "SUCCESS", ["100", "200"]), ("fallback", "WARNING", ["100", "302", "200"])],
)
def test_plain_event(
    site: Site, logs: LogCapture, served: str, status: str, codes: list[str]
) -> None:
    event = localise(load("plain.json"), site)
    assert urlsplit(event["url"]).path != "/", "the sample audits a page, not the home page"
    if served == "listed":
        robots = f"User-agent: *\nSitemap: {site.url('/sitemap_index.xml')}\n"
        site.route("/robots.txt", reply(robots, content_type="text/plain"))
        site.route("/sitemap_index.xml", reply(urlset([days_ago(2), days_ago(1)])))
    else:
        site.route("/robots.txt", reply("User-agent: *\nDisallow:\n", content_type="text/plain"))
        site.route("/sitemap.xml", reply(urlset([days_ago(1)])))
    result = run(event)
    assert result["status"] == status
    assert codes_of(result) == codes
    assert data_of(result)["siteBase"] == site.base
    assert all("authorization" not in s.headers for s in site.seen)
    assert {line["run_id"] for line in logs.lines()} == {event["id"]}


def test_basic_auth_event(site: Site, logs: LogCapture) -> None:
    event = localise(load("basic-auth.json"), site)
    auth = event["basicAuth"]
    expected = basic(auth["username"], auth["password"])
    robots = f"User-agent: *\nSitemap: {site.url('/sitemap.xml')}\n"
    site.route("/robots.txt", guarded(expected, reply(robots, content_type="text/plain")))
    # 20 days old: fresh only because the event's preferences.maxAgeDays (30) is kept.
    site.route("/sitemap.xml", guarded(expected, reply(urlset([days_ago(20)]))))
    result = run(event)
    assert event["preferences"]["maxAgeDays"] == 30
    assert result["status"] == "SUCCESS", result["message"]
    assert data_of(result)["maxAgeDays"] == 30
    assert site.paths() == ["/robots.txt", "/sitemap.xml"]
    assert [s.headers.get("authorization") for s in site.seen] == [expected, expected]
    assert auth["password"] not in json.dumps(result) + logs.text()


def test_secret_event(site: Site, monkeypatch: pytest.MonkeyPatch) -> None:
    event = localise(load("secret.json"), site)
    secret_id = event["basicAuthSecretId"]
    template, errors = decode_str((ROOT / "template.yaml").read_text(encoding="utf-8"))
    assert not errors and template is not None
    prefix = template["Parameters"]["SecretPrefix"]["Default"]
    assert secret_id.startswith(prefix), "the sample's secret must be readable by default"
    expected = basic("auditor", "preprod-vault-p4ss")
    robots = f"User-agent: *\nSitemap: {site.url('/sitemap.xml')}\n"
    site.route("/robots.txt", guarded(expected, reply(robots, content_type="text/plain")))
    site.route("/sitemap.xml", guarded(expected, reply(urlset([days_ago(1)]))))
    with moto_server() as endpoint:
        client = secrets_client(endpoint)
        client.create_secret(
            Name=secret_id,
            SecretString=json.dumps({"username": "auditor", "password": "preprod-vault-p4ss"}),
        )
        point_at(endpoint, monkeypatch)
        secrets.clear_cache()
        try:
            result = run(event)
        finally:
            secrets.clear_cache()
    assert result["status"] == "SUCCESS", result["message"]
    assert [s.headers.get("authorization") for s in site.seen] == [expected, expected]


def test_invalid_url_event() -> None:
    event = load("invalid-url.json")
    # No scheme and so no host to replace: the event runs as it is.
    assert urlsplit(event["url"]).scheme == ""
    result = run(event)
    assert result["status"] == "ERROR"
    assert codes_of(result) == ["100", "501"]
    assert data_of(result)["siteBase"] is None
    assert event["url"] in result["checks"][1]["recommendation"]
