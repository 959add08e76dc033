"""HTTPS on 127.0.0.1 with a certificate authority of the test run's own (harness/tls.py): the
certificate is verified, and one deadline bounds the whole fetch over TLS as over plain HTTP (the
watchdog must cut the TLS socket, not the plain one it was made from), kept connections too."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from harness.servers import Site, drip, reply, slow_headers
from harness.tls import Certificates, make_certificates
from sitemap_auditor.core.errors import FetchError, FetchErrorKind
from sitemap_auditor.fetching.fetch import Fetcher, FetchPolicy


@pytest.fixture(scope="module")
def certificates(tmp_path_factory: pytest.TempPathFactory) -> Certificates:
    return make_certificates(tmp_path_factory.mktemp("tls"))


@pytest.fixture
def site(certificates: Certificates) -> Iterator[Site]:
    s = Site(tls=certificates).start()
    yield s
    s.stop()


def fetcher_for(
    site: Site, ca_file: str | None, deadline_s: float = 30.0, keep_alive: bool = False
) -> Fetcher:
    return Fetcher(
        FetchPolicy(
            origin=("https", "127.0.0.1", site.port),
            allow_private_networks=True,
            deadline_s=deadline_s,
            keep_alive=keep_alive,
            ca_file=ca_file,
        )
    )


def fetch(fetcher: Fetcher, url: str) -> tuple[int, bytes]:
    with fetcher.open(url) as answer:
        return answer.status, b"".join(answer.body())


@pytest.mark.parametrize("keep_alive", [False, True])
def test_a_certificate_of_a_trusted_authority_is_accepted(
    site: Site, certificates: Certificates, keep_alive: bool
) -> None:
    site.route("/a", reply(b"<urlset/>"))
    f = fetcher_for(site, certificates.ca_file, keep_alive=keep_alive)
    for _ in range(3):
        assert fetch(f, site.url("/a")) == (200, b"<urlset/>")
    assert site.connections == (1 if keep_alive else 3)
    f.close()


def test_an_unknown_authority_is_refused_in_words(site: Site) -> None:
    site.route("/a", reply(b"<urlset/>"))
    with pytest.raises(FetchError) as e:
        fetch(fetcher_for(site, None), site.url("/a"))
    assert e.value.kind is FetchErrorKind.TLS
    assert "certificate" in str(e.value), str(e.value)


@pytest.mark.parametrize("keep_alive", [False, True])
@pytest.mark.parametrize("where", ["headers", "body"])
def test_a_drip_over_tls_is_cut_at_the_whole_fetch_deadline(
    site: Site, certificates: Certificates, keep_alive: bool, where: str
) -> None:
    site.route("/fast", reply(b"<urlset/>"))
    if where == "headers":
        site.route("/drip", slow_headers(interval=0.1, total_seconds=20))
    else:
        site.route("/drip", drip(b"<urlset>", b" ", interval=0.1, total_seconds=20))
    f = fetcher_for(site, certificates.ca_file, deadline_s=1.5, keep_alive=keep_alive)
    if keep_alive:  # the drip then comes on a kept connection, adopted by the second fetch
        assert fetch(f, site.url("/fast"))[0] == 200
    started = time.monotonic()
    with pytest.raises(FetchError) as e:
        fetch(f, site.url("/drip"))
    took = time.monotonic() - started
    assert e.value.kind is FetchErrorKind.TIMEOUT
    assert took < 5.0, took  # not the drip's 20 s
    f.close()
