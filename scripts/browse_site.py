"""Open pages of the built documentation site in headless Chromium: each page's figures must load
and its links must lead to files of the site; a screenshot of each is kept.

    mkdocs build --strict && python scripts/browse_site.py site shots/

Chromium runs with a fresh profile and no network of its own (the site needs none: no web fonts,
no scripts from elsewhere). ``tests/test_docs_site.py`` runs the same check on the site it builds.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

# each page and the figures it shows: the home page's report figure, the tutorial's two pictures
PAGES = {"index.html": 1, "environments/generation/index.html": 0,
         "tutorials/explore-a-dataset/index.html": 2}
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run")
# appended to a copy of the page: after loading, it writes what it saw into the DOM that Chromium dumps
PROBE = """<script>window.addEventListener("load", () => {
  const images = [...document.images];
  const broken = images.filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.getAttribute("src"));
  const out = document.createElement("pre");
  out.id = "site-probe";
  out.textContent = JSON.stringify({images: images.length, broken: broken});
  document.body.appendChild(out);
});</script>"""
RESULT = re.compile(r'<pre id="site-probe">(.*?)</pre>', re.DOTALL)


def chromium() -> str | None:
    return next((path for name in ("chromium", "chromium-browser", "google-chrome")
                 if (path := shutil.which(name))), None)


class Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.targets: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        wanted = {"a": "href", "img": "src", "link": "href", "script": "src"}.get(tag)
        self.targets += [value for key, value in attrs if key == wanted and value]


def broken_links(page: Path, site: Path) -> list[str]:
    """The page's links to the site (not to other hosts) that lead to no file."""
    parser = Links()
    parser.feed(page.read_text())
    broken = []
    for target in parser.targets:
        parts = urlsplit(target)
        if parts.scheme or parts.netloc or not parts.path:
            continue
        path = (page.parent / unquote(parts.path)).resolve()
        if path.is_dir():
            path = path / "index.html"
        if not path.is_file() or site.resolve() not in path.parents:
            broken.append(target)
    return broken


def render(browser: str, page: Path, screenshot: Path) -> dict:
    """Load ``page`` in Chromium: the images it shows and those that did not load; save a screenshot."""
    import json

    probed = page.with_name(f".probe-{page.name}")
    probed.write_text(page.read_text().replace("</body>", PROBE + "</body>"))
    try:
        with tempfile.TemporaryDirectory() as profile:
            common = [browser, *FLAGS, f"--user-data-dir={profile}", "--virtual-time-budget=10000",
                      "--window-size=1280,2600"]
            dom = subprocess.run([*common, "--dump-dom", probed.as_uri()], capture_output=True, text=True,
                                 timeout=120, check=True).stdout
            subprocess.run([*common, f"--screenshot={screenshot}", page.as_uri()], capture_output=True,
                           timeout=120, check=True)
    finally:
        probed.unlink()
    found = RESULT.search(dom)
    if found is None:
        raise RuntimeError(f"the page did not finish loading in Chromium: {page}")
    seen = json.loads(found.group(1).replace("&quot;", '"'))
    seen["text"] = re.sub(r"<[^>]+>", " ", dom)
    return seen


def check(site: Path, shots: Path) -> list[str]:
    """Every problem found on the pages of ``PAGES`` (an empty list when there is none)."""
    browser = chromium()
    if browser is None:
        raise RuntimeError("no chromium found (apt-get install chromium)")
    shots.mkdir(parents=True, exist_ok=True)
    problems = []
    for name, figures in PAGES.items():
        page = site / name
        shot = "home" if name == "index.html" else name.removesuffix("/index.html").replace("/", "-")
        seen = render(browser, page, shots / f"{shot}.png")
        if seen["images"] != figures:
            problems.append(f"{name}: shows {seen['images']} figures, not {figures}")
        problems += [f"{name}: figure {src} did not load" for src in seen["broken"]]
        problems += [f"{name}: broken link {target}" for target in broken_links(page, site)]
        problems += [f"{name}: unresolved reference {ref}" for ref in re.findall(r"\[[\w.`]+\]\[[\w.]*\]",
                                                                                  seen["text"])]
    return problems


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("site", type=Path, help="the folder mkdocs build wrote")
    parser.add_argument("shots", type=Path, help="the folder for the screenshots")
    arguments = parser.parse_args()
    site, shots = arguments.site, arguments.shots
    if not (site / "index.html").is_file():
        parser.error(f"{site} is not a built site: no index.html (mkdocs build --strict writes one)")
    problems = check(site, shots)
    print("\n".join(problems) or f"{len(PAGES)} pages: figures loaded, links found; screenshots in {shots}")
    sys.exit(1 if problems else 0)
