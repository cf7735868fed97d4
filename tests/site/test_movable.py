"""The movable figures as a reader uses them, in Chromium. Each opens at the frame the prose
discusses: the readout's numbers are in the page's text. The arrow keys, Home and End, and the
pointer move it, and after each move the SVG holds exactly the stored frame (its coordinates
read back, not its pixels) and the readout says the frame's text. No request leaves the site.
Without JavaScript, and printed, the static figure shows, and neither the slider nor its lead-in
(test_looks.py checks the same pages at every width and theme, with axe)."""

from __future__ import annotations

import re

import numpy as np
import pytest
from builtsite import HTML, NOTEBOOKS, guard
from test_looks import DESKTOP

PAGES = [f"{e}.html" for e in NOTEBOOKS
         if 'class="lnbook-movable"' in (HTML / f"{e}.html").read_text()]
NUMBER = re.compile(r"-?[0-9]+(?:\.[0-9]+)?")
# every figure on the page: its stored JSON, the slider's value, the readout, and the points
# of each mark's polylines as the SVG holds them
READ = """() => [...document.querySelectorAll("figure.lnb-movable")].map(f => ({
    spec: JSON.parse(f.previousElementSibling.textContent),
    value: +f.querySelector("input").value, readout: f.querySelector("output").textContent,
    marks: [...f.querySelectorAll("svg g[class^=lnb-]")].map(g => [...g.children].map(
        p => [...p.points].map(q => [q.x, q.y])))}))"""


def drawn(spec: dict, k: int) -> list:
    """The polylines of frame ``k`` as lnbook-movable.js draws them."""
    out = []
    for mark in spec["marks"]:
        xy = mark["xy"][k] if mark["moves"] else mark["xy"]
        out.append([xy] if mark["kind"] == "line" else
                   [[p, p] if mark["kind"] == "dots" else [[p[0], 0], p] for p in xy])
    return out


def check(figure: dict, k: int) -> None:
    """The figure shows frame ``k``: slider, readout and every polyline's points."""
    spec, marks = figure["spec"], figure["marks"]
    assert (figure["value"], figure["readout"]) == (k, spec["readouts"][k])
    want = drawn(spec, k)
    assert [[len(line) for line in m] for m in marks] == [[len(line) for line in m] for m in want]
    for got, line in zip(sum(marks, []), sum(want, [])):  # the SVG holds float32
        assert np.allclose(got, line, rtol=1e-6, atol=1e-6), (k, got, line)


@pytest.mark.parametrize("path", PAGES)
def test_a_reader_moves_the_figure(browser, server, path):
    context = browser.new_context(viewport=DESKTOP)
    problems = []
    page = guard(context.new_page(), server, problems)
    try:
        page.goto(server + path, wait_until="load")
        figures = page.evaluate(READ)
        prose = page.evaluate("""() => {
            const a = document.querySelector("article").cloneNode(true);
            a.querySelectorAll(".lnb-movable, script").forEach(e => e.remove());
            return a.textContent; }""").replace("−", "-")
        assert figures, "no movable figure drawn"
        for n, figure in enumerate(figures):
            spec, start = figure["spec"], figure["spec"]["start"]
            check(figure, start)
            said = set(NUMBER.findall(spec["readouts"][start].replace("−", "-")))
            assert said <= set(NUMBER.findall(prose)), (spec["readouts"][start], said)
            slider = page.locator("figure.lnb-movable input").nth(n)
            last = len(spec["values"]) - 1
            for key, k in (("End", last), ("Home", 0), ("ArrowRight", 1)):
                slider.press(key)
                check(page.evaluate(READ)[n], k)
            box = slider.bounding_box()
            slider.click(position={"x": box["width"] * 0.8, "y": box["height"] / 2})
            moved = page.evaluate(READ)[n]
            assert moved["value"] > 1, "the pointer did not move the slider"
            check(moved, moved["value"])
        page.emulate_media(media="print")  # printed, the static figure stands alone
        assert not page.locator(".lnb-movable-block").first.is_visible()
        assert not problems, problems
    finally:
        context.close()


def test_without_javascript_the_static_figure_shows(browser, server):
    context = browser.new_context(viewport=DESKTOP, java_script_enabled=False)
    try:
        page = context.new_page()
        page.goto(server + PAGES[0])
        assert page.locator("figure.lnb-movable").count() == 0
        assert not page.locator(".lnb-movable-block").first.is_visible()  # nor its lead-in
        assert page.locator("figure img").first.is_visible()
    finally:
        context.close()
