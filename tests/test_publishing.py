"""What a published repository states once: its licences, its version, its address.

The licences are written in LICENSE and named in the website's footer (``_config.yml``); the
version in ``lnbook/__init__.py`` alone (``pyproject.toml`` reads it, ``CITATION.cff`` carries
none); the repository's address in ``_config.yml`` (``CITATION.cff`` must agree). The
workflows and CITATION.cff are checked against their schemas by the lint tier.
"""

from __future__ import annotations

import pathlib
import re
import tomllib

import yaml

import lnbook

ROOT = pathlib.Path(__file__).resolve().parent.parent
CONFIG = yaml.safe_load((ROOT / "_config.yml").read_text())


def test_licences_in_the_licence_file_pyproject_and_footer():
    """Code under MIT (as pyproject declares), text and figures under CC BY 4.0; the website's
    footer names both and links the file."""
    text = (ROOT / "LICENSE").read_text()
    assert "MIT License" in text and "Permission is hereby granted" in text
    assert "CC BY 4.0" in text and "creativecommons.org/licenses/by/4.0" in text
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["license"] == "MIT" and project["license-files"] == ["LICENSE"]
    footer = CONFIG["html"]["extra_footer"]
    assert "CC BY 4.0" in footer and "MIT" in footer and "LICENSE" in footer


def test_one_version():
    """pyproject.toml reads the version from lnbook.__version__ and writes none of its own."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "version" not in project["project"] and "version" in project["project"]["dynamic"]
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "lnbook.__version__"}
    assert re.fullmatch(r"\d+\.\d+\.\d+", lnbook.__version__), lnbook.__version__
    citation = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    assert "version" not in citation, "CITATION.cff would be a second copy of the version"
    assert f"## {lnbook.__version__}" in (ROOT / "CHANGELOG.md").read_text()


def test_citation_names_the_repository_of_the_config():
    """A fork changes repository.url in _config.yml; CITATION.cff must follow it."""
    citation = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    assert citation["repository-code"].rstrip("/") == CONFIG["repository"]["url"].rstrip("/")
