"""The documentation site builds with ``mkdocs build --strict`` (every warning an error: a broken link
or anchor, a missing reference, a page outside the navigation), holds a page per environment in
Gymnasium's sections and a reference entry for every public name, and shows its figures in a real
browser (headless Chromium, when installed)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from filelock import FileLock
from scripts_loader import script

for needed in ("mkdocs", "mkdocstrings_handlers.python", "mkdocs_gen_files", "material"):
    pytest.importorskip(needed, reason=f"the docs extra is not installed ({needed}): pip install '.[docs]'")

ROOT = Path(__file__).resolve().parents[1]
SECTIONS = ("Description", "Action Space", "Observation Space", "Rewards", "Starting State", "Episode End",
            "Arguments", "Version History")


@pytest.fixture(scope="session")
def site(tmp_path_factory, worker_id) -> Path:
    """The site, built once for the whole run (the xdist workers share the build)."""
    shared = tmp_path_factory.getbasetemp()
    shared = shared if worker_id == "master" else shared.parent
    out, done = shared / "site", shared / "site.json"
    with FileLock(str(shared / "site.lock")):
        if not done.is_file():
            built = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(out)],
                                   cwd=ROOT, capture_output=True, text=True, timeout=600,
                                   env={**os.environ, "NO_MKDOCS_2_WARNING": "1",
                                        "DISABLE_MKDOCS_2_WARNING": "true", "MPLBACKEND": "Agg"})
            done.write_text(json.dumps({"code": built.returncode, "log": built.stderr[-4000:]}))
    result = json.loads(done.read_text())
    assert result["code"] == 0, result["log"]
    return out


def test_every_page_of_the_navigation_is_built(site):
    import yaml

    def pages(entries):
        for entry in entries:
            value = next(iter(entry.values())) if isinstance(entry, dict) else entry
            yield from pages(value) if isinstance(value, list) else [value]

    navigation = yaml.safe_load((ROOT / "mkdocs.yml").read_text())["nav"]
    for page in pages(navigation):
        folder = page.removesuffix(".md").removesuffix("/index")
        built = site / ("index.html" if page == "index.md" else folder + "/index.html")
        assert built.is_file(), page


def test_environment_pages_have_gymnasiums_sections(site):
    for page in ("generation", "selection", "inbox"):
        text = (site / "environments" / page / "index.html").read_text()
        missing = [s for s in SECTIONS if f">{s}<" not in text and f"{s}</" not in text]
        assert missing == [], (page, missing)
        assert "Examples" in text and "Parameters" in text


def test_the_reference_has_every_public_name(site):
    public_api = script("public_api")
    import importlib

    for module_name in public_api.PUBLIC_MODULES:
        module = importlib.import_module(module_name)
        text = (site / "reference" / module_name / "index.html").read_text()
        for name in module.__all__:
            target = public_api.defined_at(module, name)
            assert f'id="{target}"' in text or f'href="../{target}/"' in text, (module_name, name)


def test_the_home_page_is_the_readme_and_the_model_draws_the_dbn(site):
    from pushgen.model.graph import NODES

    home = (site / "index.html").read_text()
    assert 'src="figures/report-context.png"' in home and (site / "figures" / "report-context.png").is_file()
    assert 'href="getting-started/"' in home
    figure = (site / "figures" / "dbn.svg").read_text()
    assert "<svg" in figure
    assert [node.name for node in NODES if f">{node.name}<" not in figure] == []
    assert 'src="../figures/dbn.svg"' in (site / "model" / "index.html").read_text()


def test_pages_in_a_real_browser(site, tmp_path):
    browse = script("browse_site")
    if browse.chromium() is None:
        pytest.skip("chromium is not installed (apt-get install chromium): the pages are not rendered")
    assert browse.check(site, tmp_path) == []
    assert sorted(p.name for p in tmp_path.glob("*.png")) == [
        "environments-generation.png", "home.png", "tutorials-explore-a-dataset.png"]


def test_browse_site_names_its_arguments_and_refuses_a_folder_that_is_not_a_site(tmp_path):
    """It read ``sys.argv[1]`` and ``[2]``: an IndexError traceback without them."""
    browse = ROOT / "scripts" / "browse_site.py"
    for argv, said in (([], "the following arguments are required: site, shots"),
                       ([str(tmp_path), str(tmp_path / "shots")], "is not a built site: no index.html")):
        done = subprocess.run([sys.executable, str(browse), *argv], capture_output=True, text=True,
                              timeout=60)
        assert done.returncode == 2 and said in done.stderr and "Traceback" not in done.stderr, done.stderr
    assert not (tmp_path / "shots").exists()


def test_the_dataset_page_lists_every_published_column(site):
    from pushgen import schemas

    text = (site / "dataset" / "index.html").read_text()
    columns = [name for entity in schemas.ENTITIES for name in schemas.entity_fields(entity)]
    assert len(columns) == 22  # 7 notification, 11 context, 4 engagement
    assert [name for name in columns if f"<td><code>{name}</code></td>" not in text] == []
