"""The movable figures' stored frames (lnbook.plotting.Movable, glued by the chapters) against
closed forms and lnbook: at the first, the opening and the last value of each slider, every
moving mark and every number of the readout. The browser test (tests/site/test_movable.py)
checks that the page draws exactly these frames."""

from __future__ import annotations

import json
import pathlib
import re

import numpy as np
import pytest

import lnbook
from lnbook import plotting

ROOT = pathlib.Path(__file__).resolve().parent.parent
NUMBER = re.compile(r"-?[0-9]+(?:\.[0-9]+)?(?:e-?[0-9]+)?")


def glued() -> dict[str, dict]:
    """Glue name -> the figure's JSON, from every chapter's stored outputs."""
    found = {}
    for path in sorted((ROOT / "book").glob("*.ipynb")):
        for cell in json.loads(path.read_text())["cells"]:
            for out in cell.get("outputs", []):
                html = out.get("data", {}).get("application/papermill.record/text/html", "")
                if 'class="lnbook-movable"' in html:
                    text = re.search(r">(.*)</script>", html, re.S)[1].replace("<\\/", "</")
                    found[out["metadata"]["scrapbook"]["name"]] = json.loads(text)
    return found


def epsilon(eps):
    t = np.linspace(-3, 3, 121)
    family = np.stack([-t, 0 * t, t], -1)  # the records (-t, 0, t); h is u_3
    h, p = lnbook.core(family, eps=eps)[:, 2], eps**-0.5
    return [[[-3, -3 * p], [3, 3 * p]], np.stack([t, h], -1)], [eps, 3, h[-1], 1, p]


def shift(c):
    z = np.array([2.0, 0.5]) + c
    Pz = np.array([0.75, -0.75])  # (2, 0.5) less its mean 1.25
    return [[z, Pz], [z], [Pz]], [c, *z, *Pz]


def weighted(a1):
    a, z = np.array([a1, 1 - a1]), np.array([4.0, 2.0])
    oblique, orthogonal = z - (a @ z), z - (a @ z) / (a @ a) * a
    w = np.array([a[1], -a[0]]) / np.hypot(*a)
    # the line s w from edge to edge of the view [-3.5, 5.75] x [-3.5, 2.5]
    ends = [sorted((lo / c, hi / c)) for c, (lo, hi) in zip(w, [(-3.5, 5.75), (-3.5, 2.5)]) if c]
    line = [max(e[0] for e in ends) * w, min(e[1] for e in ends) * w]
    marks = [line, [z, oblique], [z, orthogonal], [oblique], [orthogonal]]
    return marks, [*a, *oblique, *orthogonal]


def gain(g3):
    y = np.array([2.0, 0.0, g3]) * [0.5, 0.5, -1.0]  # gamma * u, u = (1, 1, -2) / sqrt(2 + 2)
    return [np.stack([np.arange(1, 4) + 0.17, y], -1)], [2, 0, g3, *y]


def jacobian(eps):
    q = np.logspace(-3, 2, 201)
    tangential, radial = (q + eps) ** -0.5, eps * (q + eps) ** -1.5
    b = np.log10(eps**-0.5)
    return ([[[-3, b], [2, b]], np.stack([np.log10(q), np.log10(tangential)], -1),
             np.stack([np.log10(q), np.log10(radial)], -1)],
            [eps, 0, 1, eps**-0.5, 1, tangential[120], radial[120]])


def geometry(eps):
    r = np.linspace(0, 6, 121)
    length = r / np.sqrt(r**2 / 3 + eps)  # ||u|| = ||v|| / sqrt(||v||^2 / d + eps), d = 3
    return ([[[0, 0], [6, 6 * eps**-0.5]], np.stack([r, length], -1), [[3, length[60]]]],
            [eps, 1, eps**-0.5, 3, length[60]])


FIGURE = dict(param="c", values=[0, 1], start=0, readouts=["c = 0", "c = 1"],
              marks=[{"kind": "dots", "style": "s0", "xy": [[[0, 0]], [[1, 1]]]}],
              box=((0, 1), (0, 1)), xticks=[], yticks=[], xlabel="x", ylabel="y", alt="A dot.")
EXPECTED = {"movable-epsilon-response": epsilon, "movable-shift": shift,
            "movable-weighted": weighted, "movable-gain": gain, "movable-jacobian": jacobian,
            "movable-geometry": geometry}


def test_every_chapter_figure_is_checked():
    """At least six chapters glue a movable figure, and each one is checked below."""
    assert set(glued()) == set(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_frames_are_what_lnbook_computes(name):
    spec = glued()[name]
    for k in sorted({0, spec["start"], len(spec["values"]) - 1}):
        marks, numbers = EXPECTED[name](spec["values"][k])
        moving = [np.asarray(m["xy"][k], float) for m in spec["marks"] if m["moves"]]
        assert len(moving) == len(marks), name
        for got, want in zip(moving, map(np.asarray, marks)):
            # four significant digits: a relative error of at most 5e-4
            assert got.shape == want.shape and np.allclose(got, want, rtol=6e-4, atol=1e-12), k
        said = [float(x) for x in NUMBER.findall(spec["readouts"][k].replace("−", "-"))]
        assert np.allclose(said, numbers, rtol=6e-4, atol=1e-12), (name, k, said, numbers)


@pytest.mark.parametrize("data, error", [
    ([], TypeError), ({"param": "c"}, ValueError),
    ({**FIGURE, "start": 2}, ValueError), ({**FIGURE, "readouts": ["c = 0"]}, ValueError),
    ({**FIGURE, "box": ((0, 0), (0, 1))}, ValueError),
    ({**FIGURE, "marks": [{"kind": "dots", "style": "s0", "xy": [[[0, np.nan]], [[1, 1]]]}]},
     ValueError),
    ({**FIGURE, "marks": [{"kind": "dots", "style": "s0", "xy": [[[0, 0]]] * 3}]}, ValueError),
    ({**FIGURE, "marks": [{"kind": "pie", "style": "s0", "xy": [[0, 0]]}]}, ValueError),
    ({**FIGURE, "marks": [{"xy": [[0, 0]]}]}, ValueError), ({**FIGURE, "start": 0.5}, ValueError),
    ({**FIGURE, "box": (0, 1, 2)}, ValueError), ({**FIGURE, "alt": None}, ValueError)])
def test_bad_frames_are_refused_naming_data(data, error):
    with pytest.raises(error, match=r"\bdata\b"):
        plotting.Movable(data)
