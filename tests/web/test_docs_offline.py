"""``/docs`` and ``/redoc`` with no network: local assets, our language and contrast fixes.

The browser test (``test_site_browser``) runs axe over both pages in Chromium;
this one checks, without a browser, what our pages around the bundles add.
"""

from __future__ import annotations

import re

from fastapi import FastAPI
from fastapi.testclient import TestClient

from tradeleague.web.docs import install_offline_docs


def _client() -> TestClient:
    app = FastAPI(title="tradeleague", docs_url=None, redoc_url=None)
    install_offline_docs(app)
    return TestClient(app)


def test_docs_pages_say_their_language_and_load_only_local_assets() -> None:
    client = _client()
    for path in ("/docs", "/redoc"):
        page = client.get(path)
        assert page.status_code == 200, path
        text = page.text
        assert '<html lang="en">' in text, path
        assert "<title>tradeleague: API</title>" in text, path
        assert '<link rel="stylesheet" href="/docs-assets/tradeleague-docs.css">' in text, path
        for url in re.findall(r'(?:src|href)="([^"]+)"', text):
            assert url.startswith("/"), (path, url)  # no CDN, no remote font or favicon
            assert client.get(url).status_code == 200, (path, url)
    assert "'deepLinking': false" in client.get("/docs").text.replace('"', "'")
    assert '<redoc id="api" spec-url="/openapi.json">' in client.get("/redoc").text


def test_docs_stylesheet_is_served_as_css() -> None:
    sheet = _client().get("/docs-assets/tradeleague-docs.css")
    assert sheet.status_code == 200
    assert sheet.headers["content-type"].startswith("text/css")
    assert ".opblock-summary-method" in sheet.text
    assert "#api h5" in sheet.text
