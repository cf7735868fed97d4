"""nbval's check of every code cell, and the guards nbval lacks: chapters stored executed, in
order, cleanly, with prose tied to code.

Each chapter is executed once in a fresh kernel (``chapters.py``, with ``tools/execute.py``) and
``test_cell_reproduces`` compares each code cell's new outputs with the stored ones with
nbval's comparison, one test per cell as nbval's plugin reports them. nbval alone passes a cell
never run, ignores output metadata (where myst-nb keeps a glued value's NAME), honours
skip/ignore markers and never reads the prose; so the guards below check execution counts
1..n, no stored error or stderr, every chapter in the toc, the prose audit (every number a
markdown cell states is computed by the code cell right above or below it: ``python
tests/book/test_notebooks.py book/x.ipynb`` lists a chapter's unmatched ones), the glued
(name, value) sequence against the fresh run, and no nbval markers. Exemptions live only in
``notebook_policy.py``, each with its reason.
"""

from __future__ import annotations

import functools
import io
import itertools
import math
import pathlib
import re
import sys
import tokenize
from dataclasses import dataclass

import chapters
import nbformat
import notebook_policy as policy
import pytest
from chapters import CHAPTERS, ROOT, cell_difference, stored_code_cells

sys.path.insert(0, str(ROOT / "tools"))
from colab_cell import MARK as INSTALL_CELL_MARK  # noqa: E402

GLUE_PREFIX = "application/papermill.record/"


def code_cells(nb):
    return [c for c in nb.cells if c.cell_type == "code" and c.source.strip()]


def toc_files() -> list[str]:
    """The files _toc.yml names (its root and every ``file:`` entry)."""
    return re.findall(r"^\s*(?:root|-?\s*file):\s*(\S+)", (ROOT / "_toc.yml").read_text(), re.M)


# --------------------------------------------------------------------------------------------
# The prose audit
# --------------------------------------------------------------------------------------------

# roles whose argument is a name, a label or a glued value, not prose ({math} stays)
ROLE = re.compile(
    r"\{(?:ref|numref|prf:ref|eq|doc|func|class|meth|mod|attr|obj|data|exc|term|download"
    r"|cite(?::\w+)?|glue(?::\w+)?|py:\w+|external(?::[\w:-]+)?)\}`[^`]*`"
)
STRIP = [
    (re.compile(r"<!--.*?-->", re.S), "HTML comment (not rendered)"),
    (ROLE, "MyST role naming a label, a citation, an API object or a glued value"),
    (re.compile(r"^\s*\([\w:.-]+\)=\s*$", re.M), "target label line (x)="),
    (re.compile(r"^\s*(?:```+|:::+)\{[^}]*\}.*$", re.M), "directive line (its argument is a name)"),
    (re.compile(r"^\s*(?:```+|:::+)\s*$", re.M), "closing fence"),
    # a figure's alt text is prose a reader meets: only its option name goes
    (re.compile(r"^\s*:alt:", re.M), "the alt option's name (its text is audited)"),
    (re.compile(r"^\s*:[\w-]+:.*$", re.M), "directive option line (:name:, :width:, ...)"),
    (re.compile(r"^\s*\d+\.(?=\s)", re.M), "the number of an item of an ordered list"),
    (re.compile(r"\]\([^)]*\)"), "link target"),
    (re.compile(r"<?https?://[^\s>)]+>?"), "URL"),
    (re.compile(r"\[\^[^\]]*\]"), "footnote label"),
    (re.compile(r"\\(?:label|tag|ref|eqref)\{[^}]*\}"), "equation label"),
    (re.compile(r"arXiv:\s*[\d.]+(?:v\d+)?", re.I), "arXiv identifier"),
    (re.compile(r"§\s*[\d.]*\d"), "section number of a cited source"),
    (re.compile(r"\bv?\d+\.\d+\.\d+(?:[.\w+-]*\w)?"), "version string"),
] + [(re.compile(pattern), reason) for pattern, reason in policy.EXEMPT_PROSE]

SUPERSCRIPTS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺", "0123456789-+")
SUBSCRIPTS = "₀₁₂₃₄₅₆₇₈₉"
NUMBER = r"\d+(?:\.\d+)?"
EXPONENT = r"\s*(?:\^|\*\*)\s*(?:\{\s*([-+]?\d+)\s*\}|\(\s*([-+]?\d+)\s*\)|([-+]?\d+))(?![\d.])"
MANTISSA_POWER = re.compile(rf"(?<![\w.])({NUMBER})\s*(?:\\times|\\cdot|×|·|\*)\s*10{EXPONENT}")
POWER = re.compile(rf"(?<![\w.])({NUMBER}){EXPONENT}")
SCIENTIFIC = re.compile(rf"(?<![\w.])({NUMBER})[eE]([-+]?\d+)(?![\w.])")
SUBSCRIPT = re.compile(r"_(?:\{(?:[^{}]|\{[^{}]*\})*\}|\\[A-Za-z]+|\w)")
STRUCTURAL_EXPONENT = re.compile(r"\^\s*(?:\{\s*-?[0-3](?:\s*/\s*2)?\s*\}|-?[0-3](?![\d./]))")
FRACTION = re.compile(
    r"\\[dt]?frac\s*(?:\{\s*(\d+)\s*\}|(\d))\s*(?:\{\s*(\d+)\s*\}|(\d))"
    r"|(?<![\w.])(\d+)\s*/\s*(\d+)(?![\w]|[.,]\d)"
)
THOUSANDS = re.compile(r"(?<![\d.,])(\d{1,3}(?:(?:,|\\,|\{,\})\d{3})+)(?![\d]|[.,]\d)")
PLAIN = re.compile(r"(?<![\w.\\])(\d+(?:\.\d+)?)(?![\w]|[.,]\d)")
PERCENT = re.compile(r"\s*(?:\\?%|percent\b)")

UNITS = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen twenty".split())}
TENS = {w: 10 * i for i, w in enumerate(
    "twenty thirty forty fifty sixty seventy eighty ninety".split(), start=2)}
SCALES = {"hundred": 100, "thousand": 1000, "million": 10**6, "billion": 10**9}
_UNIT_WORDS = "|".join(sorted(UNITS, key=len, reverse=True))
WORDS = re.compile(
    rf"\b(?:(?P<tens>{'|'.join(TENS)})(?:[- ](?P<unit>{'|'.join(list(UNITS)[1:10])}))?"
    rf"|(?P<small>{_UNIT_WORDS})|(?P<a>an?))"
    rf"(?:[- ](?P<scale>{'|'.join(SCALES)}))?\b(?!-fold)|\b(?P<bare>{'|'.join(SCALES)})\b",
    re.I,
)

# fractions in words: "one half", "two thirds", "one and a half", "a tenth of a percent";
# "a third" only before "of" or punctuation ("a third record" is an ordinal)
DENOMINATORS = {"half": 2, "halves": 2, "third": 3, "thirds": 3, "quarter": 4, "quarters": 4,
                "fifth": 5, "fifths": 5, "eighth": 8, "eighths": 8, "tenth": 10, "tenths": 10}
FRACTION_WORDS = re.compile(
    rf"\b(?:(?P<whole>{_UNIT_WORDS}) and )?(?P<num>{_UNIT_WORDS}|a)[- ]"
    rf"(?P<den>{'|'.join(DENOMINATORS)})\b(?P<percent>\s+of\s+a\s+percent)?", re.I)


@dataclass(frozen=True)
class Token:
    """One number the prose states: its text and the values (with tolerance) that witness it."""

    text: str
    candidates: tuple[tuple[float, float], ...]
    parts: tuple[float, ...] | None = None  # a fraction a/b is also witnessed by a and b
    word: str | None = None  # a number word must also be written out in the witness cell

    def matches(self, numbers: list[float], source: str = "") -> bool:
        if self.word is not None and not re.search(rf"\b{re.escape(self.word)}\b", source,
                                                   re.I):
            return False
        if any(abs(x - v) <= tol + 1e-9 * abs(v) for v, tol in self.candidates for x in numbers):
            return True
        return self.parts is not None and all(
            p <= 2 or any(abs(x - p) <= 1e-9 * p for x in numbers) for p in self.parts
        )


def _decimals(text: str) -> int:
    return len(text.split(".")[1]) if "." in text else 0


def _value_token(text: str, mantissa: str, scale: float, percent: bool) -> Token:
    value = abs(float(mantissa)) * scale
    places = _decimals(mantissa)
    tol = 0.5 * 10.0**-places * scale if places else 0.0
    candidates = [(value, tol)]
    if percent:
        candidates.append((value / 100, tol / 100))
    return Token(text, tuple(candidates))


def _exponent(match, first: int) -> int:
    return int(next(g for g in match.groups()[first:first + 3] if g is not None))


def clean_prose(source: str) -> str:
    """The markdown with names, labels, links and versions removed (see ``STRIP``)."""
    # a name in code ("decoupled_weight_decay") holds no number word ("eight")
    text = re.sub(r"`[^`\n]*`", lambda m: re.sub(r"\w*_\w*", " ", m.group(0)), source)
    for pattern, _reason in STRIP:
        text = pattern.sub(" ", text)
    text = text.translate(str.maketrans({c: "_" for c in SUBSCRIPTS}))  # ₂ -> _ (a subscript)
    text = re.sub(r"([⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺]+)", lambda m: "^{" + m.group(1).translate(SUPERSCRIPTS) + "}",
                  text)
    return text.replace("−", "-").replace("\u2009", " ").replace("\u202f", " ")


def prose_tokens(source: str) -> list[Token]:
    """Every numeric token of a markdown cell that must be witnessed by an adjacent code cell."""
    text = clean_prose(source)
    tokens: list[Token] = []

    def take(pattern, make):
        nonlocal text

        def replace(m):
            token = make(m)
            if token is not None:
                tokens.append(token)
            return " "

        text = pattern.sub(replace, text)

    def percent_after(m) -> bool:
        return PERCENT.match(text, m.end()) is not None

    take(THOUSANDS, lambda m: _value_token(m.group(0), re.sub(r"\D", "", m.group(1)), 1.0,
                                            percent_after(m)))
    # 1.2 \times 10^{-3}: one token, 1.2e-3 at the mantissa's displayed precision
    take(MANTISSA_POWER, lambda m: _value_token(m.group(0), m.group(1), 10.0 ** _exponent(m, 1),
                                                percent_after(m)))
    # 10^{-3}, 2^{53}: exact powers (base 0, 1 or 2 with a structural exponent is left below)
    def power(m):
        base, k = float(m.group(1)), _exponent(m, 1)
        if base < 3 and abs(k) <= 3 and "." not in m.group(1):
            return None
        try:
            return Token(m.group(0), ((abs(base) ** k, 0.0),))
        except OverflowError:
            return Token(m.group(0), ())

    take(POWER, power)
    take(SCIENTIFIC, lambda m: _value_token(m.group(0), m.group(1), 10.0 ** int(m.group(2)),
                                            percent_after(m)))
    text = SUBSCRIPT.sub(" ", text)
    text = STRUCTURAL_EXPONENT.sub(" ", text)

    def fraction(m):
        a, b = (int(g) for g in m.groups() if g is not None)
        if a <= 2 and b <= 2:  # 1/2, \tfrac12: structural
            return None
        # the value, printed to six decimals at least, or numerator and denominator separately
        value = a / b if b else math.inf
        return Token(m.group(0), ((value, 5.01e-7),), parts=(float(a), float(b)))

    take(FRACTION, fraction)

    def plain(m):
        number = m.group(1)
        if "." not in number and int(number) <= 2:
            return None
        return _value_token(number, number, 1.0, percent_after(m))

    take(PLAIN, plain)

    def word(m):
        if m.group("bare"):
            value = SCALES[m.group("bare").lower()]
        else:
            if m.group("tens"):
                unit = UNITS.get((m.group("unit") or "").lower(), 0)
                value = TENS[m.group("tens").lower()] + unit
            elif m.group("small"):
                value = UNITS[m.group("small").lower()]
            else:  # "a"/"an" counts only before a scale word: "a million"
                value = 1 if m.group("scale") else 0
            if m.group("scale"):
                value *= SCALES[m.group("scale").lower()]
        if value <= 2:
            return None
        return Token(m.group(0), ((float(value), 0.0),), word=m.group(0).lower())

    def fraction_word(m):
        num, den = m.group("num").lower(), m.group("den").lower()
        if num == "a" and den not in ("half", "quarter") and not re.match(
                r"\s+of\b|\s*[.,;:)]", text[m.end():]):
            return None  # an ordinal
        value = UNITS.get(num, 1) / DENOMINATORS[den] + UNITS.get(
            (m.group("whole") or "zero").lower(), 0)
        if m.group("percent"):
            value /= 100
        # printed to three significant digits at least
        return None if value == 1 else Token(m.group(0), ((value, 5e-4 * value),))

    take(FRACTION_WORDS, fraction_word)
    take(WORDS, word)
    return tokens


# A symbol set equal to a number in the prose ("$\\tau = 10^{-3}$") is checked against the
# value the adjacent cell binds to the same name (``tau = 1e-3``, ``eps=1e-4``), when it binds
# one: a wrong number that happens to appear elsewhere in the cell does not pass.
SYMBOL_NAMES = {
    "varepsilon": ("eps",), "epsilon": ("eps",), "tau": ("tau",), "alpha": ("alpha",),
    "gamma": ("gamma",), "beta": ("beta",), "eta": ("eta", "lr"), "sigma": ("sigma",),
    "mu": ("mu",), "lambda": ("lam",), "d": ("d",), "t": ("t",), "q": ("q",), "L": ("L",),
}
PROSE_BINDING = re.compile(
    r"(?<![\\\w/])\\?(?P<name>" + "|".join(sorted(SYMBOL_NAMES, key=len, reverse=True)) + r")"
    r"\s*=\s*(?P<value>-?\d+(?:\.\d+)?(?:\s*(?:\\times|\\cdot)\s*10\^\{?-?\d+\}?)?"
    r"|10\^\{?-?\d+\}?)(?![\w.^/])"
)


def prose_bindings(source: str) -> list[tuple[str, str, float]]:
    """(symbol, text, value) for each "symbol = number" the prose states."""
    found = []
    for m in PROSE_BINDING.finditer(clean_prose(source)):
        text = m.group("value").replace("\\times", "*").replace("\\cdot", "*")
        power = re.search(r"10\^\{?(-?\d+)\}?", text)
        mantissa = re.match(r"-?\d+(?:\.\d+)?", text)
        value = 1.0 if mantissa is None or text.startswith("10^") else float(mantissa.group(0))
        if power:
            value *= 10.0 ** int(power.group(1))
        found.append((m.group("name"), m.group(0), abs(value)))
    return found


FRACTION_CALL = re.compile(r"Fraction\(\s*(\d+)\s*,\s*(\d+(?:\s*\*\*\s*\d+)?)\s*\)")


def code_bindings(source: str, names: tuple[str, ...]) -> list[float]:
    """The literal values a cell's source binds to ``names`` (assignments and keywords):
    numbers, arithmetic of numbers (``1 / 3``, ``10**-3``) and ``Fraction(1, 1000)``."""
    values: list[float] = []
    for name in names:
        for m in re.finditer(rf"(?<![\w.]){name}\s*=(?!=)\s*(Fraction\([^)]*\)|[^,)\n#;]+)",
                             source):
            rhs = m.group(1).strip()
            fraction = FRACTION_CALL.fullmatch(rhs)
            if fraction:
                values.append(int(fraction.group(1)) / eval(fraction.group(2)))  # noqa: S307
                continue
            numbers = evidence_numbers(rhs)
            if numbers and re.fullmatch(r"[\s\d.eE+\-*()/]+", rhs):
                values.append(numbers[0] if len(numbers) == 1 else abs(eval(rhs)))  # noqa: S307
    return values


# A record written out in the prose ("$z = (7, 7)$") is checked against the vector the adjacent
# cell binds to the same name (``z = np.array([7.0, 7.0])``), when it binds one.
PROSE_VECTOR = re.compile(
    r"(?<![\\\w])(?P<name>[a-z])\s*=\s*\((?P<items>\s*-?\d+(?:\.\d+)?(?:\s*,\s*-?\d+(?:\.\d+)?)+\s*)\)"
)
CODE_VECTOR = r"(?<![\w.])(?<!, ){name}\s*=\s*(?:np\.array\(\s*)?[\[(]([-\d.,\s]+)[\])]"


def vector_mismatches(prose: str, source: str) -> list[str]:
    """The prose's written-out records whose name the cell binds to other numbers."""
    wrong = []
    for m in PROSE_VECTOR.finditer(clean_prose(prose)):
        said = [float(x) for x in m.group("items").split(",")]
        bound = [[float(x) for x in v.split(",") if x.strip()]
                 for v in re.findall(CODE_VECTOR.format(name=m.group("name")), source)]
        if bound and said not in bound:
            wrong.append(m.group(0))
    return wrong


CODE_POWER = re.compile(
    r"(?<![\w.])(\d+(?:\.\d*)?)\s*\*\*\s*\(?\s*([-+]?\s*\d+(?:\.\d+)?)\s*\)?"
    r"|\b(?:np\.|math\.)?pow(?:er)?\(\s*(\d+(?:\.\d*)?)\s*,\s*([-+]?\d+(?:\.\d+)?)\s*\)"
)
GLUE_NAME = re.compile(r"glue\(\s*(?:\"[^\"]*\"|'[^']*')")
CODE_NUMBER = re.compile(r"(?<![\w.])(\d+\.?\d*(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?)")


def evidence_numbers(text: str) -> list[float]:
    """The numbers a code cell's source or output shows: literals, ``1e-5``, ``10**-3``, ``2**53``.

    ``1/3`` gives 1 and 3; numpy array prints, reprs and f-string output are plain literals.
    """
    text = re.sub(r"(?<=\d)_(?=\d)", "", text)
    text = GLUE_NAME.sub(" ", text)  # a glued value's name is not a number it computes
    numbers: list[float] = []
    for m in CODE_POWER.finditer(text):
        base, k = (m.group(1), m.group(2)) if m.group(1) is not None else (m.group(3), m.group(4))
        try:
            numbers.append(abs(float(base) ** float(k.replace(" ", ""))))
        except (OverflowError, ZeroDivisionError):
            pass
    for m in CODE_NUMBER.finditer(text):
        try:
            numbers.append(abs(float(m.group(1))))
        except ValueError:
            pass
    return [x for x in numbers if math.isfinite(x)]


def without_comments(source: str) -> str:
    """A cell's source with its comments removed: a number written only in a comment is what
    someone typed, not what the cell computes, so it witnesses nothing. (A number word's
    spelling may still be read from a comment, as long as its value is in the code or the
    outputs: ``assert n == 50  # fifty``.)"""
    lines = source.splitlines()
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, SyntaxError):  # not Python (a magic): drop whole-line comments
        return "\n".join("" if line.lstrip().startswith("#") else line for line in lines)
    for tok in reversed(tokens):
        if tok.type == tokenize.COMMENT:
            row, col = tok.start
            lines[row - 1] = lines[row - 1][:col]
    return "\n".join(lines)


def cell_evidence(cell) -> list[float]:
    """Numbers in a code cell's source (its comments left out) and stored text outputs (stream,
    text/plain, text/markdown, glue)."""
    texts = [without_comments(cell.source)]
    for out in cell.get("outputs", []):
        if out.get("output_type") == "stream":
            texts.append(out.get("text", ""))
        for key, value in out.get("data", {}).items():
            if key.endswith("text/plain") or key.endswith("text/markdown"):
                texts.append(value if isinstance(value, str) else "".join(value))
    return evidence_numbers("\n".join(texts))


def beside(shown, check) -> bool:
    """``check`` is the folded check of the computation ``shown``, the cell before it."""
    def folded(cell):
        return "hide-input" in cell.get("metadata", {}).get("tags", [])
    return folded(check) and not folded(shown)


def prose_audit(nb, chapter: str = "") -> list[tuple[int, str]]:
    """(markdown cell index, token) for each prose number no adjacent code cell witnesses.

    A markdown cell's witnesses are the nearest non-empty code cell above it and the nearest
    below it (the Colab install cell does not count), each with the folded check beside it (a
    code cell tagged hide-input right after a computation): the same value must appear in
    their source or stored outputs (decimals at the precision the prose displays, signs
    ignored).
    """
    cells = nb.cells
    # the Colab install cell (tools/colab_cell.py) is plumbing, not part of the story
    code_at = [i for i, c in enumerate(cells) if c.cell_type == "code" and c.source.strip()
               and not c.source.startswith(INSTALL_CELL_MARK)]
    evidence = {i: cell_evidence(cells[i]) for i in code_at}
    missing = []
    for i, cell in enumerate(cells):
        if cell.cell_type != "markdown":
            continue
        above = [j for j in code_at if j < i][-1:]
        below = [j for j in code_at if j > i][:1]
        # with the folded check beside a computation: the cell after it, tagged hide-input
        if above and above[0] - 1 in evidence and beside(cells[above[0] - 1], cells[above[0]]):
            above.insert(0, above[0] - 1)
        if below and below[0] + 1 in evidence and beside(cells[below[0]], cells[below[0] + 1]):
            below.append(below[0] + 1)
        numbers = [x for j in above + below for x in evidence[j]]
        source = "\n".join(cells[j].source for j in above + below)
        exempt = policy.EXEMPT_TOKENS.get((chapter, cell.get("id", "")), {})
        for token in prose_tokens(cell.source):
            if token.text not in exempt and not token.matches(numbers, source):
                missing.append((i, token.text))
        for name, text, value in prose_bindings(cell.source):
            bound = code_bindings(source, SYMBOL_NAMES[name])
            if bound and text not in exempt and not any(
                    abs(b - value) <= 1e-9 * max(value, 1e-300) for b in bound):
                missing.append((i, text))
        missing += [(i, text) for text in vector_mismatches(cell.source, source)
                    if text not in exempt]
    return missing


# --------------------------------------------------------------------------------------------
# The guards, on the stored chapters and on the default run (tests/book/conftest.py)


@pytest.fixture(params=CHAPTERS, ids=[p.stem for p in CHAPTERS])
def chapter_path(request):
    return request.param


@functools.cache
def read(path: pathlib.Path):
    return nbformat.read(path, as_version=4)


@pytest.fixture
def chapter(chapter_path):
    """The stored chapter (read once; do not modify it)."""
    return read(chapter_path)


def test_every_chapter_is_in_the_toc():
    """Every notebook under book/ is a chapter of the book, and every toc entry exists."""
    listed = set(toc_files())
    assert {f"book/{p.stem}" for p in CHAPTERS} <= listed
    for entry in listed:
        assert any((ROOT / f"{entry}{ext}").exists() for ext in (".ipynb", ".md")), entry


def test_cells_executed_in_order(chapter):
    """Every code cell was run, once, top to bottom in a fresh kernel: counts are 1..n."""
    counts = [c.execution_count for c in code_cells(chapter)]
    assert counts, "a chapter without code computes nothing"
    assert None not in counts, f"{counts.count(None)} code cells were never executed"
    assert counts == list(range(1, len(counts) + 1)), f"execution counts {counts}"


def test_no_stored_errors_or_warnings(chapter):
    """No stored output is an error or a stderr stream (warnings carry temporary paths)."""
    for cell in code_cells(chapter):
        for out in cell.outputs:
            assert out.output_type != "error", f"{out.ename}: {out.evalue}"
            assert out.get("name") != "stderr", out.text


def test_python_kernel(chapter):
    """Chapters run on the python3 kernel that Jupyter and Binder start."""
    assert chapter.metadata["kernelspec"]["name"] == "python3"


NBVAL_COMMENT = re.compile(r"#\s*(NBVAL_\w+)", re.I)
REFUSED_TAG = re.compile(r"^(nbval-[\w-]+|raises-exception)$")


def nbval_markers(nb) -> list[tuple[str, str]]:
    """(cell id, marker) for every nbval comment or tag in a notebook."""
    found = []
    for cell in nb.cells:
        if cell.cell_type == "code":
            found += [(cell.get("id", ""), m.upper()) for m in NBVAL_COMMENT.findall(cell.source)]
        found += [(cell.get("id", ""), t) for t in cell.metadata.get("tags", [])
                  if REFUSED_TAG.match(t)]
    return found


def test_no_nbval_markers(chapter, chapter_path):
    """nbval compares every cell: no skip/ignore/raises markers unless the policy lists them."""
    unlisted = [(cid, marker) for cid, marker in nbval_markers(chapter)
                if (chapter_path.stem, cid, marker) not in policy.ALLOWED_NBVAL_MARKERS]
    assert not unlisted, f"nbval markers not in notebook_policy.py (cell id, marker): {unlisted}"


def test_prose_numbers_are_computed_beside_them(chapter, chapter_path):
    """Every number a markdown cell states is computed by the code cell above or below it:
    decimals (at the precision shown), integers above 2, powers of ten and number words must
    appear in that cell's source or stored output; names, labels, citations and versions do
    not count."""
    missing = prose_audit(chapter, chapter_path.stem)
    assert not missing, (f"{len(missing)} prose numbers that neither adjacent code cell "
                         f"computes (markdown cell index, token): {missing}")


def glue_records(nb) -> list[tuple[str, str | None]]:
    """(name, text/plain) of every glued value in order; figures by name only (value None)."""
    records = []
    for cell in code_cells(nb):
        for out in cell.get("outputs", []):
            name = out.get("metadata", {}).get("scrapbook", {}).get("name")
            if name is not None:
                data = out.get("data", {})
                image = any(k.startswith(GLUE_PREFIX + "image/") for k in data)
                records.append((name, None if image else data.get(GLUE_PREFIX + "text/plain")))
    return records


def test_glued_names_are_defined(chapter):
    """Every {glue} reference in the prose names a value a code cell glues."""
    glued = {name for name, _ in glue_records(chapter)}
    glued |= {n for c in code_cells(chapter)
              for n in re.findall(r"glue\(\s*[\"']([^\"']+)[\"']", c.source)}
    used = set()
    for cell in chapter.cells:
        if cell.cell_type == "markdown":
            used |= set(re.findall(r"\{glue(?::\w+)?\}`([^`:]+)", cell.source))
            used |= set(re.findall(r"```\{glue(?::\w+)?\}\s+(\S+)", cell.source))
    assert used <= glued, f"glue names used but never glued: {sorted(used - glued)}"


def test_glued_numbers_are_rounded(chapter):
    """A glued number is stored rounded (``round(x, 4)``): the last digits of a float64 may
    differ on another CPU or BLAS kernel, and nbval compares them exactly."""
    full = [(name, text) for name, text in glue_records(chapter)
            if text is not None and re.search(r"\d(?:\.?\d){14}", text)]
    assert not full, f"glued with 15 or more digits: {full}"


def test_glue_names_are_unique(chapter):
    """One name, one value per chapter: the prose cannot be told which of two it shows."""
    names = [name for name, _ in glue_records(chapter)]
    assert len(names) == len(set(names)), sorted({n for n in names if names.count(n) > 1})


# every code cell of every chapter, as nbval numbers them (Cell 0, 1, ... per chapter)
CELLS = [(path, i) for path in CHAPTERS for i in range(len(stored_code_cells(path)))]


@pytest.mark.parametrize(("cell_path", "index"), CELLS,
                         ids=[f"{path.stem}-cell-{i}" for path, i in CELLS])
def test_cell_reproduces(cell_path, index, default_run, pytestconfig):
    """nbval's check: the code cell, re-executed top to bottom with its chapter in a fresh
    kernel, produces its stored outputs (text, HTML, LaTeX; not images or metadata) and raises
    no exception."""
    stored = stored_code_cells(cell_path)[index]
    executed = chapters.code_cells(default_run.notebook(cell_path))
    assert len(executed) > index, f"{cell_path.name}: the executed copy has fewer code cells"
    difference = cell_difference(stored, executed[index], pytestconfig)
    assert difference is None, f"{cell_path.name}, Cell {index}: {difference}\n\nInput:\n" \
                               f"{stored.source}"


def test_executed_in_a_fresh_kernel(chapter_path, default_run, request):
    """The chapter ran in a fresh kernel of the default configuration; the kernel's time goes
    to the verification page (a user property, as record_property keeps it)."""
    executed = default_run.notebook(chapter_path)
    request.node.user_properties.append(("kernel seconds", executed.metadata["lnbook"]["seconds"]))


def test_glued_values_match_a_fresh_run(chapter, chapter_path, default_run):
    """Re-executed in a fresh kernel, the chapter glues the same names with the same values:
    nbval ignores output metadata, where the name lives, so two swapped names would put each
    number in the other's sentence. Figures are compared by name only."""
    stored, fresh = glue_records(chapter), glue_records(default_run.notebook(chapter_path))
    assert fresh == stored, "glue (name, value) sequence differs from a fresh run:\n" + "\n".join(
        f"  stored {s!r:70}  fresh {f!r}" for s, f in itertools.zip_longest(stored, fresh)
        if s != f)


if __name__ == "__main__":  # list each chapter's unmatched prose numbers
    for path in [pathlib.Path(p) for p in sys.argv[1:]] or CHAPTERS:
        missing = prose_audit(read(path), path.stem)
        print(f"{path.stem}: {len(missing)} unmatched")
        for index, token in missing:
            print(f"  cell {index:3d}: {token}")


# --------------------------------------------------------------------------------------------
# The guards themselves: each would catch the tampering it exists for


def _notebook(*cells):
    """A notebook from ("md", text) and ("code", source, stdout) tuples."""
    nb = nbformat.v4.new_notebook()
    for kind, text, *out in cells:
        if kind == "md":
            nb.cells.append(nbformat.v4.new_markdown_cell(text))
        else:
            cell = nbformat.v4.new_code_cell(text)
            if out:
                cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=out[0])]
            nb.cells.append(cell)
    return nb


@pytest.mark.parametrize(
    ("prose", "tokens"),
    [
        ("The ratio is 0.123.", ["0.123"]),  # a decimal at the end of a sentence
        ("sizes 1 to 9, fifty times, $10^{-3}$, 1e-3, 2E3",
         ["9", "fifty", "10^{-3}", "1e-3", "2E3"]),
        ("twenty-five records, a million of them, three hundred", ["twenty-five", "a million",
                                                                   "three hundred"]),
        ("$(q+\\varepsilon)^{3/2}$, $s^3$, $v^{-1/2}$, $x_{12}$, $z_i$, $\\tfrac12$, $e_3$", []),
        ("$q^{5}$ and $\\tfrac34$ and $\\frac{3}{16}$ and $2^{53}$", ["5", "\\tfrac34",
                                                                     "\\frac{3}{16}", "2^{53}"]),
        ("$1.2 \\times 10^{-3}$ and 18.5 %", ["1.2 \\times 10^{-3}", "18.5"]),
        ("{ref}`ch-3` {numref}`fig-4` {cite:p}`ba2016` {glue:text}`x-5:.4f` (their §5.1)", []),
        ("(eq-7)=\n```{math}\n:label: eq-7\n:name: fig-8\n```\n"
         "PyTorch 2.13.0, torch 2.13, IEEE 754", []),
        ("see https://example.org/a/35 and arXiv:1607.06450; numpy 2.4", []),
        ("0, 1 and 2 are structural; twice is not a token", []),
        ("`decoupled_weight_decay`, `eps=1e-3`", ["1e-3"]),
        ("3. An item.\n4. Another, of 3.5 and 7 records.", ["3.5", "7"]),
        ("one half, two thirds, a third of it, a third record, a quarter, one and a half, "
         "a tenth of a percent, two halves", ["one half", "two thirds", "a third",
                                             "a quarter", "one and a half",
                                             "a tenth of a percent"]),
    ],
)
def test_prose_tokens(prose, tokens):
    """The audit finds every number a sentence states and nothing in names, labels and links."""
    assert sorted(t.text for t in prose_tokens(prose)) == sorted(tokens)


@pytest.mark.parametrize(
    ("prose", "code", "stdout", "tied"),
    [
        ("It is 0.1342.", "x = 0.13416407", "", True),  # the displayed precision
        ("It is 0.1343.", "x = 0.13416407", "", False),
        ("It is $10^{-3}$.", "eps = 1e-3", "", True),
        ("It is $10^{-3}$.", "eps = 0.001", "", True),
        ("It is $10^{-3}$.", "eps = 10**-3", "", True),
        ("It is $10^{-3}$.", "eps = 10.0 ** -3", "", True),
        ("It is $10^{-2}$.", "eps = 10.0 ** -3", "", False),
        ("It is $2^{53}$.", "assert n == 2**53", "", True),
        ("one third is $1/3$", "print(1 / 3)", "0.3333333333333333\n", True),
        ("one third is $1/3$", "x = 1 / 3", "", False),  # a fraction word needs its value
        ("It is 99.5037.", "print(r)", "[ 99.503719  9.9995 ]\n", True),
        ("It is 99.5037.", "print(r)", "[ 99.50372  9.9995 ]\n", True),
        ("sizes 1 to 9", "for d in range(1, 10): pass", "", False),
        ("fifty times", "assert ratio == 50  # fifty times", "", True),  # 50 computed, named
        ("fifty times", "ratio = f()  # fifty times, 50", "", False),  # a comment: no witness
        ("It is 0.1342.", "x = f()  # 0.13416407", "", False),
        ("It is 0.1342.", "x = f()\n# x is 0.13416407", "", False),
        ("It is 0.1342.", 'print("# 0.13416407")', "", True),  # a string is not a comment
        ("fifty times", "assert ratio == 50", "", False),  # the word must be written out too
        ("five times", "assert ratio == 50", "", False),
        ("It is 18.5 %.", "print(err)", "0.185\n", True),
        ("It is 9.", 'glue("lip-9", x)', "", False),  # a glue name is not a computed 9
        (":alt: Seven curves.", "n = 7  # seven", "", True),  # alt text is prose
        (":alt: Seven curves.", "n = 8", "", False),
        (":alt: Each passes through one half.", "assert y == 0.5", "", True),
        (":alt: Each passes through one third.", "assert y == 0.5", "", False),
        ("two thirds of it", "print(r)", "0.667\n", True),
        ("a tenth of a percent", "print(r)", "0.001\n", True),
    ],
)
def test_prose_audit_matches_values_not_strings(prose, code, stdout, tied):
    """A prose number is tied by the same value in the cell beside it, at displayed precision."""
    nb = _notebook(("md", prose), ("code", code, stdout))
    assert (prose_audit(nb) == []) is tied


def test_prose_audit_is_local_not_chapter_wide():
    """A number computed two cells away does not tie the prose: only the adjacent cells count."""
    nb = _notebook(("code", "x = 0.171499"), ("md", "intro"), ("code", "y = 3.5"),
                   ("md", "The value is 0.171499."), ("code", "z = 4.5"))
    assert prose_audit(nb) == [(3, "0.171499")]
    nb.cells[2].source = "y = 0.171499"
    assert prose_audit(nb) == []
    # a computation and the folded check beside it witness together; not across prose
    nb = _notebook(("md", "The value is 0.171499."), ("code", "y = f()"),
                   ("code", "assert y == 0.171499"), ("md", "more"), ("code", "x = 0.25"))
    assert prose_audit(nb) == [(0, "0.171499")]
    nb.cells[2].metadata["tags"] = ["hide-input"]
    assert prose_audit(nb) == []
    nb.cells[0].source = "The value is 0.25."
    assert prose_audit(nb) == [(0, "0.25")]


def test_nbval_markers_are_found():
    """Comments and tags that make nbval skip or ignore a cell are all reported."""
    nb = _notebook(("code", "# NBVAL_IGNORE_OUTPUT\nx = 1"), ("code", "#nbval_skip\ny = 2"))
    nb.cells[1].metadata["tags"] = ["nbval-skip", "hide-input", "raises-exception"]
    assert [m for _, m in nbval_markers(nb)] == ["NBVAL_IGNORE_OUTPUT", "NBVAL_SKIP",
                                                  "nbval-skip", "raises-exception"]


def test_cell_difference_sees_what_nbval_sees(pytestconfig):
    """The per-cell comparison fails a changed number and an exception, and passes a stream
    split in two and a changed image or execution count (as nbval does)."""
    def cell(*outputs, count=1):
        c = nbformat.v4.new_code_cell("x", execution_count=count)
        c.outputs = [nbformat.v4.new_output("stream", name="stdout", text=t) if isinstance(t, str)
                     else t for t in outputs]
        return c

    def result(png):
        return nbformat.v4.new_output("execute_result", execution_count=1,
                                      data={"text/plain": "2.5", "image/png": png})

    stored = cell("0.1342\n", result("AAAA"))
    assert cell_difference(stored, cell("0.13", "42\n", result("BBBB"), count=7),
                           pytestconfig) is None
    assert "differ" in cell_difference(stored, cell("0.1343\n", result("AAAA")), pytestconfig)
    error = nbformat.v4.new_output("error", ename="ValueError", evalue="eps", traceback=["eps"])
    assert "exception" in cell_difference(stored, cell("0.1342\n", result("AAAA"), error),
                                          pytestconfig)
