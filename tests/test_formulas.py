"""Every formula a reader sees is checked against the code, or listed with the reason it is not.

The checker (``tests/formulas/``) parses the LaTeX of every page of ``_toc.yml`` as written and
evaluates both sides of every relation with the book's symbols bound to lnbook's computations
at seeded generic records (see the testing page, section *Formulas*). These tests hold it to
that: the parser and the evaluator on small examples worked by hand; every formula of a strict
page checked, a definition that later formulas use, or listed in ``tests/formulas/policy.py``;
every mutant of a checked formula (a sign, an exponent, a factor, a subscript, a symbol changed)
failing; the issue's three edits failing on a copy of the page; the notation page and the
symbol table naming the same symbols.

Run ``python tests/test_formulas.py [PAGE ...]`` to list what a page leaves unchecked,
``--report DIR`` to write one report per page, ``--write-counts`` to regenerate the counts the
testing page shows (``book/_formulas.md``).
"""

from __future__ import annotations

import functools
import json
import pathlib
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
from formulas import check, mutate, pages, policy, report  # noqa: E402
from formulas.evaluate import Env, Evaluator  # noqa: E402
from formulas.parse import FormulaSyntaxError, parse  # noqa: E402
from formulas.symbols import SYMBOLS, canonical_name, lookup_table, notation_symbols  # noqa: E402

RESULTS = ROOT / "_build" / "formulas.json"
COUNTS = ROOT / "book" / "_formulas.md"


# --------------------------------------------------------------------------------------------
# the parser and the evaluator, on examples worked by hand
# --------------------------------------------------------------------------------------------


def cell(*formulas: str) -> list[check.Verdict]:
    """Classify formulas one after the other, as in one markdown cell."""
    envs = check.fresh_envs()
    out = []
    for text in formulas:
        if text.startswith("% "):
            envs, problems = check.comment_bindings(text[2:], envs)
            assert not problems, problems
            continue
        verdict = check.classify(text, envs)
        envs = verdict.envs
        out.append(verdict)
    return out


def status(*formulas: str) -> list[str]:
    return [v.status for v in cell(*formulas)]


def test_juxtaposition_follows_the_kinds():
    """v v^T is the outer product, v^T v the inner one, P z a matrix-vector product."""
    assert status("z = (1, 2, 3)", r"v v^\top = \begin{pmatrix}1&0&-1\\0&0&0\\-1&0&1"
                  r"\end{pmatrix}", r"v^\top v = 2", "Pz = (-1, 0, 1)") == [
        "definition", "checked", "checked", "checked"]
    assert status("z = (1, 2, 3)", r"v^\top v = 3") == ["definition", "false"]
    # a column times a column is no product at all
    assert status(r"v v = 2")[0] == "unchecked"


def test_fractions_roots_and_powers():
    """\\frac12, \\tfrac1d, \\sqrt 2, ^{-1/2} and ^{3/2}, as TeX reads their arguments."""
    assert status(r"\frac12 + \tfrac14 = 0.75", r"\sqrt 2 \sqrt 8 = 4",
                  r"4^{-1/2} = \frac{1}{2}", r"4^{3/2} = 8", r"\frac1{24} = 1/24") == [
        "checked"] * 5
    assert status(r"4^{1/2} = \frac{1}{2}") == ["false"]


def test_a_wrong_sign_fails():
    """(a + b)^2 = a^2 + 2ab + b^2 holds at the seeded values; with -2ab it does not."""
    assert status(r"(\alpha + c)^2 = \alpha^2 + 2\alpha c + c^2") == ["checked"]
    assert status(r"(\alpha + c)^2 = \alpha^2 - 2\alpha c + c^2") == ["false"]


def test_approx_takes_its_tolerance_from_the_digits():
    """Half a unit of the last digit shown: sqrt 2 is 1.4142 and 1.41, not 1.4143."""
    assert status(r"\sqrt 2 \approx 1.4142", r"\sqrt 2 \approx 1.41",
                  r"2^{-24} \approx 6 \times 10^{-8}",
                  r"(\sqrt 2, \sqrt 3) \approx (1.414, 1.732)") == ["checked"] * 4
    assert status(r"\sqrt 2 \approx 1.4143") == ["false"]
    assert status(r"\sqrt 2 \approx \sqrt 3")[0] == "unchecked"  # no digits, no tolerance


def test_aligned_chains_continue_their_rows():
    """An aligned row that starts with &= continues the previous row's last expression."""
    # N := 1 + 1, then the continued row claims 1 + 1 = 3
    assert status(r"\begin{aligned} N &= 1 + 1 \\ &= 3 \end{aligned}", "N = 2")[0] == "false"
    assert status(r"\begin{aligned} 3 &= 1 + 2 \\ &= 4 - 1 \end{aligned}") == ["checked"]
    assert status(r"\begin{aligned} 3 &= 1 + 2 \\ &= 4 + 1 \end{aligned}") == ["false"]
    # a chain broken before its first relation: the first row is only the left side
    assert status(r"\begin{aligned} &1 + 2 \\ &\le 4 \end{aligned}") == ["checked"]
    assert status(r"\begin{aligned} &1 + 2 \\ &\le 2 \end{aligned}") == ["false"]


def test_sums_indices_and_maxima():
    """\\sum_i and \\sum_{i=1}^d run over the features; a free index holds for every i."""
    assert status(r"\mu = \frac1d \sum_{i=1}^d z_i", r"v_i = z_i - \mu",
                  r"\max_i \lvert v_i\rvert \le \lVert v\rVert_2") == ["checked"] * 3
    assert status(r"v_i = z_i + \mu") == ["false"]


def test_derivatives_integrals_and_functions():
    """Partial derivatives by central differences, integrals by Gauss-Legendre, D of a
    function, against lnbook's closed forms."""
    assert status(r"\frac{\partial q}{\partial z_j} = \frac{2v_j}{d}",
                  r"J = J(z) = Du_\varepsilon(z)", r"\int_0^1 \theta^2\,d\theta = \frac13",
                  r"h'_\varepsilon(0) = \varepsilon^{-1/2}") == ["checked"] * 4
    assert status(r"\frac{\partial q}{\partial z_j} = \frac{v_j}{d}") == ["false"]


def test_prose_bindings_hold_for_the_rest_of_the_cell():
    """z = (1, 2, 3) binds the record; the mean is then 2, and a later 3 is false."""
    assert status("z = (1, 2, 3)", r"\mu = 2", r"\mu = 3") == ["definition", "checked",
                                                                 "false"]
    # a comment line binds what the prose does not state; an input bound to an expression
    # in the prose is a claim, not a binding
    assert status("% f = u_\\varepsilon", r"f(z) = u_\varepsilon(z)") == ["checked"]
    assert status(r"\varepsilon = \frac1d\sum_i z_i") == ["false"]


def test_conditions_in_text():
    """\\text{for } ...: an input bound for this formula only, or indices filtered."""
    assert status(r"J = P/\sqrt\varepsilon \quad \text{for } z = (2, 2, 2)",
                  r"J_{ij} = -(s^2 + v_iv_j)/(d\,s^3) \quad\text{for } i \ne j") == [
        "checked", "checked"]
    assert status(r"J = P/\sqrt\varepsilon") == ["false"]  # the condition did not leak
    assert status(r"J_{ij} = -(s^2 + v_iv_j)/(d\,s^3) \quad\text{for } i = j") == ["false"]


def test_local_definitions_must_be_used():
    """M = (2 1; 1 2) then ||M||_2 = 3; a definition no later formula uses is reported."""
    assert status(r"M = \begin{pmatrix}2&1\\1&2\end{pmatrix}", r"\lVert M\rVert_2 = 3") == [
        "definition", "checked"]
    occurrences = []
    envs = check.fresh_envs()
    verdict = check.classify(r"N = 4", envs)
    assert verdict.defined == ["N"] and check.unused(verdict, set(), "N = 4") == ["N"]
    assert occurrences == []


def test_formats_and_unit_roundoff():
    """rho comes from numpy's finfo, in the format the formula names."""
    assert status(r"\rho = 2^{-53}", r"\rho = 2^{-24}\text{ in float32}",
                  r"\operatorname{ulp}(1) = 2\rho") == ["checked"] * 3
    assert status(r"\rho = 2^{-52}") == ["false"]


def test_reasons_name_what_is_missing():
    """An unknown symbol and a construct outside the subset are named in the reason."""
    v = cell(r"\kappa = \zeta + 1")[0]
    assert v.status == "definition" or "\\zeta" in v.reason
    v = cell(r"q \gg \varepsilon")[0]
    assert v.status == "unchecked" and "\\gg" in v.reason
    with pytest.raises(FormulaSyntaxError, match="mapsto"):
        parse(r"z \mapsto v")


def test_mutants_change_one_token_and_their_trees_are_parses():
    """Each mutant edits one token (sign, number, index, symbol), and the tree it carries is
    exactly the parse of its text (so the mutant test needs no second parse)."""
    text = r"\lambda_{\mathrm{rad}} = \varepsilon/s^3 - x_i"
    labels = {label.rsplit(" at ", 1)[0] for label, _, _ in mutate.mutants(text)}
    assert {"sign - -> +", "number 3 -> 4", "subscript i -> j",
            r"symbol \lambda_{\mathrm{rad}} -> \lambda_{\mathrm{tan}}",
            r"symbol \varepsilon -> c", "symbol s -> \\sigma"} <= labels
    for _, mutated, tree in mutate.mutants(text):
        assert tree == parse(mutated), mutated


def _expr(text: str):
    return parse(text).children[0].children[0]


def test_binding_an_input_recomputes_what_depends_on_it():
    """Binding z fixes d and the statistics; a scalar bound to a vector input is constant."""
    env = Env(lookup_table(), 0)
    assert Evaluator(env).value(_expr("q")) > 0
    assert status("z = (4, 4, 4)", "q = 0", "d = 3", r"\gamma = 3",
                  r"\gamma \odot \mathbf 1 = (3, 3, 3)", r"y = \beta") == [
        "definition", "checked", "definition", "definition", "checked", "checked"]


# --------------------------------------------------------------------------------------------
# the pages
# --------------------------------------------------------------------------------------------

TOC = pages.toc_pages()
STRICT = sorted(policy.STRICT)


@functools.cache
def audit_of(page: str) -> check.PageAudit:
    """A page's formulas checked, and a strict page's mutants; once per test process."""
    audit = check.audit_page(page, policy)
    if audit.strict:
        check.run_mutants(audit, policy)
    return audit


def _show(entries) -> str:
    return "\n".join(f"  cell {e.formula.cell}: {e.formula.key}\n    -> {e.status}: {e.reason}"
                     for e in entries)


def test_policy_names_pages_of_the_book():
    """The policy speaks only of pages in _toc.yml."""
    assert set(policy.STRICT) <= set(TOC)
    assert set(policy.UNCHECKED) <= set(TOC)
    assert set(policy.EQUIVALENT) <= set(TOC)


@pytest.mark.parametrize("name", STRICT)
def test_strict_page_is_checked(name):
    """Every display formula and every inline formula with a relation is checked, a definition
    that a later checked formula uses, or listed with its reason."""
    page = name
    audit = audit_of(page)
    assert not audit.problems, audit.problems
    failures = audit.failures
    assert not failures, (f"{page}: formulas neither checked nor listed in "
                          f"tests/formulas/policy.py:\n{_show(failures)}")
    assert not audit.stale, f"{page}: listed but checked, or gone: {audit.stale}"


@pytest.mark.parametrize("name", STRICT)
def test_mutants_of_checked_formulas_fail(name):
    """Changing a sign, an exponent, a factor, a subscript or a symbol of a checked formula
    makes it fail, unless the policy lists that mutant as equally true."""
    page = name
    audit = audit_of(page)
    survivors = [(e.formula.key, label, text) for e, label, text, killed, listed in
                 audit.mutants if not killed and not listed]
    assert not survivors, "mutants that still pass:\n" + "\n".join(
        f"  {key}\n    {label}: {text!r}" for key, label, text in survivors)
    listed = {(pages.normalize(k), label) for k, labels in policy.EQUIVALENT.get(
        page, {}).items() for label in labels}
    needed = {(e.formula.key, label) for e, label, _, killed, eq in audit.mutants
              if not killed and eq}
    assert listed == needed, f"equivalent mutants listed but failing or gone: {listed - needed}"


def test_notation_page_and_symbol_table_agree():
    """The symbols of book/notation.md are exactly the symbol table's (one list)."""
    table = {canonical_name(k) for k in SYMBOLS}
    page = notation_symbols()
    assert page == table, (f"on the page only: {sorted(page - table)}; "
                           f"in the table only: {sorted(table - page)}")


def test_results_file_and_generated_counts():
    """The results file is written for the verification page, and book/_formulas.md (which
    testing.md includes) is what the results make of it."""
    data = report.results({page: audit_of(page) for page in TOC})
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(report.dumps(data))
    assert set(data["pages"]) == set(TOC)
    assert COUNTS.read_text() == report.render_counts(data), (
        "book/_formulas.md is stale: run python tests/test_formulas.py --write-counts")


# --------------------------------------------------------------------------------------------
# the issue's three edits, each on a copy of its page
# --------------------------------------------------------------------------------------------


def _edited(tmp_path, page: str, old: str, new: str, nth: int = 0):
    """A copy of the page with one edit, and the index of the edited cell (notebooks)."""
    path = ROOT / page
    copy = tmp_path / path.name
    if path.suffix == ".ipynb":
        nb = json.loads(path.read_text())
        hits = [k for k, c in enumerate(nb["cells"]) if c["cell_type"] == "markdown" and
                old in "".join(c["source"])]
        assert len(hits) > nth, f"{old!r} not in {page}"
        cell = nb["cells"][hits[nth]]
        cell["source"] = "".join(cell["source"]).replace(old, new, 1)
        copy.write_text(json.dumps(nb))
        return copy, hits[nth]
    text = path.read_text()
    assert old in text
    copy.write_text(text.replace(old, new, 1))
    return copy, None


def _fails(page: str, copy: pathlib.Path, cell: int | None = None) -> list:
    """The formulas of the copy (of one cell of it: an edit changes only its own cell) that
    are neither checked nor listed."""
    audit = check.audit_page(page, policy, path=copy, cells=None if cell is None else {cell})
    return audit.failures


def test_issue_edit_mean_value_identity(tmp_path):
    """epsilon: f(z) - f(z') = \\int ... becoming f(z) + f(z') = \\int ... fails."""
    copy, index = _edited(tmp_path, "book/epsilon.ipynb", "f(z) - f(z') = \\int",
                          "f(z) + f(z') = \\int")
    failed = _fails("book/epsilon.ipynb", copy, index)
    assert any("f(z) + f(z')" in e.formula.text and e.status == "false" for e in failed)


def test_issue_edit_inline_inverse_square_root(tmp_path):
    """epsilon: each ^{-1/2} of an inline formula with a relation turned into ^{1/2}, one at a
    time, fails. (A bare value such as "exactly $\\varepsilon^{-1/2}$" is outside the checker:
    the prose, not the formula, says what it is the value of.)"""
    page = "book/epsilon.ipynb"
    targets = [(f.cell, f.source) for c in pages.page_cells(page) for f in c.items
               if isinstance(f, pages.Formula) and not f.display and f.classified and
               "^{-1/2}" in f.source]
    assert len(targets) >= 5
    nb = json.loads((ROOT / page).read_text())
    for k, (index, source) in enumerate(targets):
        seen = targets[:k].count((index, source))  # the same formula earlier in the cell
        text = "".join(nb["cells"][index]["source"])
        parts = text.split("$" + source + "$")
        edited = source.replace("^{-1/2}", "^{1/2}", 1)
        copy_nb = json.loads(json.dumps(nb))
        copy_nb["cells"][index]["source"] = (
            ("$" + source + "$").join(parts[:seen + 1]) + "$" + edited + "$" +
            ("$" + source + "$").join(parts[seen + 1:]))
        copy = tmp_path / f"epsilon-{k}.ipynb"
        copy.write_text(json.dumps(copy_nb))
        assert _fails(page, copy, index), f"{edited!r} (cell {index}) passed"


def test_issue_edit_unit_roundoff(tmp_path):
    """notation: 2^{-53} becoming 2^{-52} fails (rho is numpy's finfo)."""
    copy, _ = _edited(tmp_path, "book/notation.md", "2^{-53}", "2^{-52}")
    assert any(e.status == "false" for e in _fails("book/notation.md", copy))


# --------------------------------------------------------------------------------------------
# the command line: reports for authors
# --------------------------------------------------------------------------------------------


def main(argv: list[str]) -> int:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pages", nargs="*", help="pages (default: every page of _toc.yml)")
    parser.add_argument("--report", metavar="DIR", help="write DIR/formulas-<page>.md")
    parser.add_argument("--write-counts", action="store_true",
                        help="rewrite book/_formulas.md and _build/formulas.json")
    parser.add_argument("--mutants", action="store_true", help="list surviving mutants")
    args = parser.parse_args(argv)
    chosen = args.pages or TOC
    if args.write_counts:
        chosen = TOC
    audits_ = {}
    for page in chosen:
        page = page.removeprefix(str(ROOT) + "/")
        audit = check.audit_page(page, policy)
        if audit.strict or args.mutants:
            check.run_mutants(audit, policy)
        audits_[page] = audit
        c = report.page_counts(audit)
        print(f"{page}{' (strict)' if audit.strict else ''}: checked {c['checked']}, "
              f"definitions {c['definition']}, listed {c['listed']}, false {c['false']}, "
              f"not checked {c['unchecked']}")
        if args.report:
            out = pathlib.Path(args.report) / f"formulas-{pathlib.Path(page).stem}.md"
            out.write_text(report.page_report(audit))
            print(f"  wrote {out}")
        elif not args.write_counts:
            for e in audit.entries:
                if e.status in ("false", "unchecked"):
                    print(f"  cell {e.formula.cell}: {e.status}: {e.formula.key}\n"
                          f"      {e.reason}")
        if args.mutants and audit.mutants:
            for e, label, text, killed, listed in audit.mutants:
                if not killed and not listed:
                    print(f"  survives: {e.formula.key}\n      {label}: {text!r}")
    if args.write_counts:
        # the testing page includes the counts, so its own count depends on them: rewrite
        # until the table describes the page that shows it
        for _ in range(3):
            data = report.results(audits_)
            text = report.render_counts(data)
            if COUNTS.exists() and COUNTS.read_text() == text:
                break
            COUNTS.write_text(text)
            for page in audits_:
                if COUNTS.name in (ROOT / page).read_text():
                    audits_[page] = check.audit_page(page, policy)
                    if audits_[page].strict:
                        check.run_mutants(audits_[page], policy)
        RESULTS.parent.mkdir(exist_ok=True)
        RESULTS.write_text(report.dumps(data))
        print(f"wrote {COUNTS.relative_to(ROOT)} and {RESULTS.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
