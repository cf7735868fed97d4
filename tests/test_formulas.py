"""Every formula a reader sees is checked against the code, or says beside it why it is not.

The checker (``tests/formulas/``) parses the LaTeX of every page of ``_toc.yml`` as written and
evaluates both sides of every relation with the book's symbols bound to lnbook's computations
at seeded generic records (the testing page, section *Formulas*, says how). These tests hold it
to that: the parser and the evaluator on small examples worked by hand; every formula of every
page checked, a definition a later formula uses, or marked ``% formula ... not checked: <why>``
beside it; the issue's three edits failing on a copy of their page; the notation page and the
symbol table naming the same symbols; ``book/_formulas.md`` counting today's formulas and
mutants. That every mutant of a checked formula fails is the sweep's report, run on demand:
``python -m tests.formulas.sweep`` (``tests/formulas/sweep.py``).
"""

from __future__ import annotations

import functools
import json
import pathlib
import re
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
from formulas import check, source, sweep  # noqa: E402
from formulas.latex import FormulaError, factor_name, parse, single_factor, tex  # noqa: E402
from formulas.symbols import SYMBOLS  # noqa: E402


def status(*formulas: str) -> list[str]:
    """The verdicts on formulas read one after the other in one cell (``% `` binds)."""
    envs, out = check.fresh_envs(), []
    for text in formulas:
        if text.startswith("% "):
            envs, problems = check.comment_bindings(text[2:], envs)
            assert not problems, problems
            continue
        verdict = check.classify(text, envs)
        envs = verdict.envs
        out.append(verdict.status)
    return out


def test_juxtaposition_follows_the_kinds():
    """v v^T is the outer product, v^T v the inner one, P z a matrix-vector product."""
    assert status("z = (1, 2, 3)", r"v v^\top = \begin{pmatrix}1&0&-1\\0&0&0\\-1&0&1"
                  r"\end{pmatrix}", r"v^\top v = 2", "Pz = (-1, 0, 1)",
                  r"\tfrac12(1, -1)^\top(1, -1) = \begin{pmatrix}0.5&-0.5\\-0.5&0.5\end{pmatrix}"
                  ) == ["definition"] + ["checked"] * 4
    assert status("z = (1, 2, 3)", r"v^\top v = 3") == ["definition", "false"]
    assert status(r"v v = 2") == ["unchecked"]  # a column times a column is no product


def test_numbers_roots_powers_and_signs():
    """\\frac12, \\tfrac1d, \\sqrt 2, ^{-1/2}, as TeX reads their arguments; a wrong sign fails."""
    assert status(r"\frac12 + \tfrac14 = 0.75", r"\sqrt 2 \sqrt 8 = 4", r"4^{-1/2} = \frac12",
                  r"4^{3/2} = 8", r"\frac1{24} = 1/24",
                  r"(\alpha + c)^2 = \alpha^2 + 2\alpha c + c^2") == ["checked"] * 6
    assert status(r"4^{1/2} = \frac{1}{2}", r"(\alpha + c)^2 = \alpha^2 - 2\alpha c + c^2",
                  r"\rho = 3^{-53}") == ["false"] * 3


def test_approx_takes_its_tolerance_from_the_digits():
    """Half a unit of the last digit shown: sqrt 2 is 1.4142 and 1.41, not 1.4143."""
    assert status(r"\sqrt 2 \approx 1.4142", r"\sqrt 2 \approx 1.41",
                  r"2^{-24} \approx 6 \times 10^{-8}", r"1/\rho \approx 10^{16}",
                  r"(\sqrt 2, \sqrt 3) \approx (1.414, 1.732)") == ["checked"] * 5
    assert status(r"\sqrt 2 \approx 1.4143", r"\sqrt 2 \approx \sqrt 3") == [
        "false", "unchecked"]  # no digits, no tolerance


def test_aligned_rows_continue_their_chains():
    """A row that starts with &= continues the last expression of the row before."""
    assert status(r"\begin{aligned} N &= 1 + 1 \\ &= 3 \end{aligned}") == ["false"]
    assert status(r"\begin{aligned} 3 &= 1 + 2 \\ &= 4 - 1 \end{aligned}",
                  r"\begin{aligned} &1 + 2 \\ &\le 4 \end{aligned}") == ["checked"] * 2
    assert status(r"\begin{aligned} &1 + 2 \\ &\le 2 \end{aligned}") == ["false"]


def test_sums_indices_and_maxima():
    """\\sum_i and \\sum_{i=1}^d run over the features; a free index holds for every i."""
    assert status(r"\mu = \frac1d \sum_{i=1}^d z_i", r"v_i = z_i - \mu",
                  r"\max_i \lvert v_i\rvert \le \lVert v\rVert_2",
                  r"v_i^2 \le (d-1)\sum_{k \ne i} v_k^2") == ["checked"] * 4
    assert status(r"v_i = z_i + \mu", r"v_1 = z_2 - \mu") == ["false"] * 2


def test_derivatives_integrals_and_functions():
    """Partial derivatives and D by central differences, integrals by Gauss-Legendre, a
    function's derivative, against lnbook's closed forms."""
    assert status(r"\frac{\partial q}{\partial z_j} = \frac{2v_j}{d}",
                  r"J = J(z) = Du_\varepsilon(z)", r"\int_0^1 \theta^2\,d\theta = \frac13",
                  r"h'_\varepsilon(0) = \varepsilon^{-1/2}", r"Dq = \frac2d v^\top",
                  r"J_0(\alpha z) = J_0(z)/\alpha") == ["checked"] * 6
    assert status(r"\frac{\partial q}{\partial z_j} = \frac{v_j}{d}",
                  r"J_0(\alpha z) = J_0(z)\alpha") == ["false"] * 2


def test_bindings_hold_for_the_rest_of_the_cell():
    """z = (1, 2, 3) binds the record and what depends on it follows; a comment line binds
    what the prose leaves implicit; an input bound to an expression is a claim."""
    assert status("z = (4, 4, 4)", "q = 0", "d = 3", r"\gamma = 3",
                  r"\gamma \odot \mathbf 1 = (3, 3, 3)", r"y = \beta") == [
        "definition", "checked", "definition", "definition", "checked", "checked"]
    assert status("z = (1, 2, 3)", r"\mu = 2", r"\mu = 3") == ["definition", "checked", "false"]
    assert status("% f = u_eps", r"f(z) = u_\varepsilon(z)") == ["checked"]
    assert status(r"\varepsilon = \frac1d\sum_i z_i") == ["false"]


def test_conditions_and_formats():
    """\\text{for } binds for one formula or filters indices; a format sets rho."""
    assert status(r"J = P/\sqrt\varepsilon \quad \text{for } z = (2, 2, 2)",
                  r"J_{ij} = -(s^2 + v_iv_j)/(d\,s^3) \quad\text{for } i \ne j",
                  r"\rho = 2^{-24}\text{ in float32}", r"\rho = 2^{-53}") == ["checked"] * 4
    assert status(r"J = P/\sqrt\varepsilon",
                  r"J_{ij} = -(s^2 + v_iv_j)/(d\,s^3) \quad\text{for } i = j") == ["false"] * 2


def test_what_is_outside_the_checker_says_why():
    with pytest.raises(FormulaError, match="mapsto"):
        parse(r"z \mapsto v")
    v = check.classify(r"\kappa = \zeta + 1", check.fresh_envs())
    assert v.status == "unchecked" and r"\zeta" in v.reason


def test_a_definition_must_be_used_and_a_comment_must_fit(tmp_path):
    """A name defined and never used, a 'not checked' comment on a formula that checks or on
    no formula: each fails the page."""
    page = tmp_path / "page.md"
    page.write_text("# A\n\n$M = \\operatorname{diag}(\\gamma)$ and $N = 2$, so $\\lVert M"
                    "\\rVert_2 = \\max_i|\\gamma_i|$.\n\n% formula $q = 1$ not checked: none\n"
                    "Then $q \\ge 0$ and $q = 0$.\n\n% formula not checked: a condition\n"
                    "$$q = 0$$\n")
    found = check.audit_page("page.md", page)
    assert [e.status for e in found.entries] == ["definition", "unchecked", "checked",
                                                 "checked", "false", "listed"]
    assert len(found.problems) == 1 and "names no formula" in found.problems[0]
    page.write_text("% formula $q \\ge 0$ not checked: why\n$q \\ge 0$\n")
    assert "but it checks" in check.audit_page("page.md", page).problems[0]


def test_mutants_edit_one_token():
    text = r"\lambda_{\mathrm{rad}} = \varepsilon/s^3 - x_i"
    assert {label for label, _, _ in sweep.mutants(text)} >= {
        "sign - -> +", "number 3 -> 4", "subscript i -> j",
        r"symbol \lambda_{\mathrm{rad}} -> \lambda_{\mathrm{tan}}", r"symbol \varepsilon -> c",
        r"symbol s -> \sigma"}
    for _, mutated, where in sweep.mutants(text):
        assert mutated[:where] == text[:where]
        parse(mutated)


# --------------------------------------------------------------------------------------------
# the pages
# --------------------------------------------------------------------------------------------


@functools.cache
def audit(page: str) -> check.PageAudit:
    return check.audit_page(page)


def audits() -> dict:
    return {page: audit(page) for page in source.toc_pages()}


def test_every_formula_is_checked_or_says_why_not():
    """Every display formula, and every inline one with a relation, on every page: checked,
    a definition a later checked formula uses, or marked 'not checked' with its reason; and
    book/_formulas.md counts them."""
    found = [f"{p}: {e.formula.key}\n    -> {e.status}: {e.reason}"
             for p, a in audits().items() for e in a.failures]
    problems = [p for a in audits().values() for p in a.problems]
    assert not found and not problems, "\n".join(problems + found)
    killed, gaps = sweep.sweeps_in(sweep.COUNTS.read_text())
    totals = {p: (killed.get(p, 0), sum(len(sweep.mutants(e.formula.text)) for _, e in
                                        sweep.checked_once(a))) for p, a in audits().items()}
    assert sweep.COUNTS.read_text() == sweep.render_counts(audits(), totals, gaps), (
        "book/_formulas.md does not count today's formulas and mutants: run "
        "python -m tests.formulas.sweep --write")


def test_notation_page_and_symbol_table_agree():
    """The symbols of book/notation.md (each name of its tables' first column, the name each
    formula of the second column defines) are exactly the symbol table's."""
    names = set()
    for line in (ROOT / "book" / "notation.md").read_text().splitlines():
        cols = line.strip().strip("|").split("|") if line.startswith("| $") else []
        for k, col in enumerate(cols[:2]):
            for m in re.finditer(r"\$([^$]+)\$", col):
                pieces = re.split(r"\\in\b|>", m.group(1))[0].split("=")
                for piece in pieces if k == 0 else pieces[:-1][:1]:
                    expr = parse(piece).children[0].children[0]
                    f, head = single_factor(expr), check.function_head(expr)
                    name = factor_name(f) or len(pieces) == 1 and tex(f) if f else \
                        head and head[0]  # a lone first-column formula: the norm
                    names |= {re.sub(r"_\{[ij]\}$", "", name)} if name else set()
    assert names == set(SYMBOLS), (sorted(names - set(SYMBOLS)), sorted(set(SYMBOLS) - names))


# --------------------------------------------------------------------------------------------
# the issue's three edits, each on a copy of its page
# --------------------------------------------------------------------------------------------


def edited_audit(tmp_path, page: str, old: str, new: str, nth: int = 0):
    """The audit of the one cell a replacement (its nth occurrence) edits, on a copy."""
    path, copy = ROOT / page, tmp_path / pathlib.Path(page).name
    if path.suffix != ".ipynb":
        text = path.read_text()
        assert text.count(old) > nth
        copy.write_text(text.replace(old, "\0", nth).replace(old, new, 1).replace("\0", old))
        return check.audit_page(page, copy)
    nb = json.loads(path.read_text())
    hits = [(k, j) for k, c in enumerate(nb["cells"]) if c["cell_type"] == "markdown"
            for j in range("".join(c["source"]).count(old))]
    k, j = hits[nth]
    text = "".join(nb["cells"][k]["source"])
    nb["cells"][k]["source"] = text.replace(old, "\0", j).replace(old, new, 1).replace(
        "\0", old)
    copy.write_text(json.dumps(nb))
    return check.audit_page(page, copy, cells={k})


def test_issue_edits_fail(tmp_path):
    """epsilon: f(z) - f(z') = \\int ... turned into f(z) + f(z') = \\int ...; every inline
    ^{-1/2} with a relation turned into ^{1/2}; notation: 2^{-53} turned into 2^{-52}."""
    edited = edited_audit(tmp_path, "book/epsilon.ipynb", "f(z) - f(z') = \\int",
                         "f(z) + f(z') = \\int")
    assert any("f(z) + f(z')" in e.formula.text and e.status == "false" for e in edited.failures)
    inline = [e for e in audit("book/epsilon.ipynb").entries if not e.formula.display and
              e.status == "checked" and "^{-1/2}" in e.formula.source]
    assert len(inline) >= 5
    seen: dict = {}
    for e in inline:
        nth = seen[e.formula.source] = seen.get(e.formula.source, -1) + 1
        edited = edited_audit(tmp_path, "book/epsilon.ipynb", "$" + e.formula.source + "$",
                             "$" + e.formula.source.replace("^{-1/2}", "^{1/2}", 1) + "$", nth)
        assert edited.failures, f"{e.formula.source} (cell {e.formula.cell}) passed with ^{{1/2}}"
    edited = edited_audit(tmp_path, "book/notation.md", "2^{-53}", "2^{-52}")
    assert [e.status for e in edited.failures] == ["false"]
