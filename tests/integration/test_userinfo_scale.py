"""Userinfo removal (core/urls.py strip_userinfo) at scale: megabytes of scheme-like text in
linear time (pure, but seconds: beside the tests/unit layer, which holds its cases and the runs
no colon ends)."""

from __future__ import annotations

from sitemap_auditor.core.urls import strip_userinfo


def test_strip_userinfo_is_linear_in_the_text() -> None:
    # Scheme-like runs without an authority's end: a quadratic search would take minutes.
    assert strip_userinfo("a:" * 1_000_000 + "@h") == "a:" * 1_000_000 + "@h"  # a path
    assert strip_userinfo("http:" * 500_000 + "@h") == "http:h"
    assert strip_userinfo("x:" * 1_000_000) == "x:" * 1_000_000
