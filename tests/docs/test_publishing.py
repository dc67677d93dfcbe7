"""Ready to publish: the install lines list every extra as it is, the README's links work wherever it
is read (on PyPI, on the code host: absolute, each to a page or file that exists), the package says
where it lives (Project-URLs), Read the Docs builds the site as ``make docs`` does, the first page
shows code before pictures, and the wheel's metadata renders (``twine check``)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import yaml

from battleship.extras import EXTRAS

ROOT = Path(__file__).resolve().parents[2]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
URLS = PROJECT["urls"]
README = (ROOT / "README.md").read_text(encoding="utf-8")
INSTALL_LINE = re.compile(r'^pip install "battleship\[(\w+)\]" +# (.+)$', re.M)
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)|<(https?://[^>]+)>")


def _listed(text: str) -> dict[str, str]:
    return {extra: said for extra, said in INSTALL_LINE.findall(text)}


def test_every_extra_is_listed_as_it_is():
    extras = set(PROJECT["optional-dependencies"])
    assert set(EXTRAS) == extras - {"all", "docs", "test"}  # each one the package asks for by name
    readme, install = _listed(README), _listed((ROOT / "docs" / "install.md").read_text(encoding="utf-8"))
    assert set(readme) == extras - {"docs", "test"} and set(install) == extras - {"test"}
    for said in (readme, install):
        assert "chart" not in said["arena"] and "rating" in said["arena"].lower()  # openskill only
        assert "--figures" in said["plot"] and "--png" in said["plot"]  # what asks for it
    assert PROJECT["optional-dependencies"]["arena"] == ["openskill>=6"]


def test_the_readme_links_work_on_pypi_and_on_a_code_host():
    docs, source = URLS["Documentation"], URLS["Source"]
    raw = source.replace("https://github.com/", "https://raw.githubusercontent.com/") + "/main/"
    links = [a or b for a, b in LINK.findall(README)]
    assert len(links) > 20
    for link in links:
        assert link.startswith(("https://", "http://")), f"{link} is relative: it breaks on PyPI"
        if link.startswith(docs) and link != docs:
            page = link.removeprefix(docs).split("#")[0].removesuffix(".html")
            assert (ROOT / "docs" / f"{page}.md").is_file(), f"{link}: no page docs/{page}.md"
        elif link.startswith(raw):
            assert (ROOT / link.removeprefix(raw)).is_file(), f"{link}: no such file"
    assert any(link.startswith(raw) and link.endswith(".png") for link in links)  # the screenshot


def test_the_package_says_where_it_lives():
    assert set(URLS) >= {"Homepage", "Documentation", "Source", "Issues", "Changelog"}
    assert all(url.startswith("https://") for url in URLS.values())
    assert URLS["Changelog"].startswith(URLS["Documentation"]) and (ROOT / "docs" / "changelog.md").is_file()


def test_read_the_docs_builds_the_site_as_make_docs_does():
    config = yaml.safe_load((ROOT / ".readthedocs.yaml").read_text(encoding="utf-8"))
    assert config["version"] == 2 and config["build"]["tools"]["python"] == PROJECT["requires-python"][2:]
    assert config["sphinx"] == {"configuration": "docs/conf.py", "fail_on_warning": True}  # -W
    (install,) = config["build"]["jobs"]["install"]
    assert '".[all,docs]"' in install  # what the reference imports, and Sphinx
    make = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert "sphinx-build -W --keep-going -q -b html docs" in make
    assert re.search(r"^nitpicky = True", (ROOT / "docs" / "conf.py").read_text(encoding="utf-8"), re.M)


def test_the_first_page_shows_how_to_install_and_code_before_any_picture():
    page = (ROOT / "docs" / "index.md").read_text(encoding="utf-8")
    first_picture = min(i for i in (page.find("```{image}"), page.find("![")) if i >= 0)
    assert page.find('pip install "battleship[all]"') < page.find("```python") < first_picture
