"""Classify every formula of a page: checked, a definition, not checked (a comment beside it
says why), or a finding (false, or outside the checker).

A formula is split into parts (``a = b = c, \\qquad d \\le e``, the rows of an ``aligned``
block, ``\\text{for } ...`` conditions). A part ``<input> = <literal>`` (``z = (1, 2, 3)``) binds
the input for the rest of the cell; ``<new name> = <expr>`` (or ``f(c) = <expr>``) defines a
name, which a later checked formula of the cell must use; every other relation is a claim,
evaluated at each seed of ``symbols.SEEDS`` and, for an index left free, at i = 1, 2 and d.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from lark import Token, Tree

from . import source
from .evaluate import (
    TRACK,
    Env,
    EvalError,
    Evaluator,
    FreeIndexError,
    array,
    compare,
    elements,
    is_group,
    kind,
    rel_of,
)
from .latex import (
    FormulaError,
    extension,
    factor_name,
    names_in,
    parse,
    single_factor,
    tex,
    tokens,
)
from .symbols import SEEDS, TABLE

CONDITION = re.compile(r"^\\(?:text|textrm|mbox)\s*\{\s*(for|if|when|at|with|where)\b", re.I)
ALIASES = {w: "\\" + w for w in ("gamma", "beta", "alpha", "delta", "tau", "mu", "sigma",
                                 "lambda", "ell", "theta", "omega", "eta", "rho", "kappa")}
ALIASES["eps"] = r"\varepsilon"
ERRORS = (EvalError, FreeIndexError, ArithmeticError, ValueError, TypeError, IndexError)


@dataclass
class Part:
    """A relation chain ``[e0, rel, e1, ...]``, a bare expression, or a text."""

    elems: list | None = None
    expr: object = None
    text: str | None = None
    condition: list | None = None


def split(tree) -> list[Part]:
    body, parts = tree.children[0], []
    for row in [body] if body.data == "items" else [r for r in body.children
                                                     if isinstance(r, Tree)]:
        kids = row.children
        if row.data == "continued":  # an aligned row "&= ..." continues the previous one
            prev = next((p for p in reversed(parts) if p.text is None), None)
            if prev is None:
                raise FormulaError("an aligned row continues nothing")
            elems = [prev.elems[-1]] if prev.elems else [prev.expr]
            if not prev.elems:  # the previous row was only the chain's left side
                parts.remove(prev)
            while kids and isinstance(kids[0], Tree) and kids[0].data == "rel":
                elems, kids = elems + [rel_of(kids[0]), kids[1]], kids[2:]
            parts.append(Part(elems))
        elif row.data == "row":
            kids = row.children[-1].children
        for c in kids:
            if isinstance(c, Token):
                parts += [Part(text=str(c))] if c.type == "TEXT" else []
            else:
                parts.append(Part(elements(c)) if c.data == "chain" else Part(expr=c))
    out, k = [], 0  # \text{for } <condition>: attached to the part before it
    while k < len(parts):
        if parts[k].text and CONDITION.match(parts[k].text) and k + 1 < len(parts) and \
                parts[k + 1].elems and out and out[-1].elems:
            out[-1].condition, k = parts[k + 1].elems, k + 2
        else:
            out, k = out + [parts[k]], k + 1
    return out


def function_head(node):
    """``f(c)``, ``J_{\\mathrm{rms}}(z)``: (name, parameters), or None."""
    if not (isinstance(node, Tree) and node.data == "juxt" and len(node.children) == 2):
        return None
    name, arg = factor_name(node.children[0]), node.children[1]
    if name is None or not is_group(arg) or len(arg.children) != 1:
        return None
    params = [factor_name(p) for p in arg.children[0].children[1:-1:2]]
    return None if None in params else (name, tuple(params))


LITERAL = {"NUMBER", "DIGIT", "MINUS", "PLUS", "SLASH", "CDOT", "TIMES", "LPAR", "RPAR", "COMMA",
           "FRAC", "SQRT", "LBRACE", "RBRACE", "SUP", "BEGIN_MATRIX", "END_MATRIX", "AMP",
           "ROWSEP", "ONE"}


def is_literal(node) -> bool:
    """Numbers, tuples and matrices of numbers, ``\\mathbf 1``: what prose binds an input to."""
    return all(t.type in LITERAL for t in tokens(node))


def is_new(node, env: Env) -> bool:
    """A name the cell has not met, nor an indexed use of a known vector (``v_i``)."""
    f = single_factor(node)
    name = tex(f.children[0])
    for p in f.children[1:]:
        if env.knows(name):
            if isinstance(p, Token) or p.data != "sub":
                return False
            try:
                return kind(array(env.value(name))) == "scalar" or Evaluator(env).indices(
                    p.children[1]) is None
            except ERRORS:
                return True
        if extension(p) is None:
            return False
        name += extension(p)
    return not env.knows(name)


def role(part: Part, env: Env):
    """``("binding" | "definition" | "claim", name, params)``."""
    first = part.elems[0]
    if part.elems[1] != "=":
        return "claim", None, None
    head = function_head(first)
    name, params = head if head else (factor_name(first), None)
    if name is None:
        return "claim", None, None
    entry = env.table.get(name)  # an input stays an input when the cell has bound it
    if entry is not None:
        if entry.role == "input" and not params and is_literal(part.elems[2]):
            return "binding", name, None
        return ("definition", name, params) if entry.role == "definable" else ("claim",) * 3
    if head and any(env.knows(n) for n in (name, name.replace("'", ""),
                                           name + r"_{\varepsilon}")):
        return "claim", None, None
    factor = first.children[0] if head else first
    if env.knows(name) and not head or is_new(factor, env):
        return "definition", name, params
    return "claim", None, None


def bind(envs: dict, name, node, params=None) -> dict:
    """A binding at every seed; a vector input bound to n numbers sets d = n (unless the cell
    has set d, which must then agree). Its value must be computable."""
    out = {}
    for seed, env in envs.items():
        entry = env.table.get(name)
        if params is None and entry is not None and entry.vector:
            value = array(Evaluator(env).value(node, keep_functions=True))
            if kind(value) == "vector" and len(value) != env.d:
                if env.bound("d"):
                    raise EvalError(f"{name} has {len(value)} entries but d = {env.d}")
                env = env.bind("d", Token("NUMBER", str(len(value))))
        out[seed] = env = env.bind(name, node, params)
        fn = env.value(name)
        if params:  # a function: called once at the values its parameters have, or 0.7
            fn.call(*(env.value(p) if env.knows(p) else 0.7 for p in params))
    return out


def holds(elems, env: Env, condition=None, scope=None) -> tuple[bool, str]:
    """Every relation of a chain holds at one seed, for every value of a free index."""
    scope = scope or {}
    e = env.with_scope(**scope) if scope else env
    if condition and len(condition) == 3 and condition[1] == "=" and is_literal(condition[2]):
        name = factor_name(condition[0])  # \text{for } z = (2, 2, 2): bound for this part
        if name in e.table and e.table[name].role == "input":
            e, condition = bind({0: e}, name, condition[2])[0].with_scope(**scope), None
    try:
        TRACK.numeric, TRACK.scale = False, 0.0
        results = compare(Evaluator(e), elems)
        if condition and not all(ok for ok, _ in compare(Evaluator(e), condition)):
            return True, ""  # \text{for } i \ne j: only where the condition holds
    except FreeIndexError as free:
        if free.letter in scope:
            raise EvalError(f"index {free.letter} used inconsistently") from None
        details = []
        for k in sorted({1, 2, env.d} & set(range(1, env.d + 1))):
            ok, detail = holds(elems, env, condition, {**scope, free.letter: k})
            details.append(f"{free.letter} = {k}: {detail}")
            if not ok:
                return False, details[-1]
        return True, "; ".join(details)
    return next(((False, d) for ok, d in results if not ok),
                (True, "; ".join(d for _, d in results)))


@dataclass
class Verdict:
    status: str  # checked | definition | false | unchecked
    reason: str = ""
    envs: dict | None = None  # the cell's environments after the formula
    defined: list = field(default_factory=list)  # the local names it defines
    evidence: list = field(default_factory=list)  # [(span of a claim, seed, what it compared)]


def fresh_envs(seeds=SEEDS) -> dict:
    return {seed: Env(TABLE, seed) for seed in seeds}


def classify(text: str, envs: dict) -> Verdict:
    """The verdict on one formula, given the cell's environments (one per seed)."""
    try:
        parts = split(parse(text))
    except FormulaError as error:
        return Verdict("unchecked", f"parse failure: {error.reason}", envs)
    fmt = re.search(r"\\text\s*\{\s*in\s+(float16|float32|float64)\s*\}", text)
    claims, defined, problems, bound = [], [], [], False
    use = {s: e.with_fmt(fmt.group(1)) for s, e in envs.items()} if fmt else envs
    for part in parts:  # bindings first, so that "..., where r = ..." holds for the formula
        if part.elems is None:
            continue
        try:
            what, name, params = role(part, next(iter(use.values())))
            if what != "claim":
                use, bound = bind(use, name, part.elems[2], params), True
                defined += [name] if what == "definition" else []
        except ERRORS as error:
            problems.append(f"the binding of {tex(part.elems[0])}: "
                            f"{getattr(error, 'reason', error)}")
            continue
        rest = part.elems[2:] if what != "claim" else part.elems
        if len(rest) >= 3:
            claims.append((rest, part.condition))
    evidence, failures = [], []
    for elems_, condition in claims:
        span = [t.start_pos for e in elems_ if not isinstance(e, str) for t in tokens(e)]
        for seed, env in use.items():
            TRACK.generic = False
            try:
                ok, detail = holds(elems_, env, condition)
            except ERRORS as error:
                problems.append(getattr(error, "reason", f"{type(error).__name__}: {error}"))
                break
            evidence.append(((min(span), max(span)), seed, detail))
            if not ok:
                failures.append(f"seed {seed}: {detail}")
            if not ok or not TRACK.generic:  # no seeded input: every seed gives this answer
                break
    if fmt:
        use = {s: e.with_fmt("float64") for s, e in use.items()}
    if failures:
        status, reason = "false", "false: " + failures[0]
    elif problems or any(p.expr is not None for p in parts):
        status, reason = "unchecked", problems[0] if problems else "a bare expression"
    else:
        status, reason = ("checked" if claims else "definition" if bound else "unchecked",
                          "" if claims or bound else "nothing to check")
    return Verdict(status, reason, use, defined, evidence)


def comment_bindings(text: str, envs: dict) -> tuple[dict, list[str]]:
    """A ``% formulas:`` line: every ``<symbol> = <expr>`` binds the symbol (any expression)."""
    for word, latex in ALIASES.items():
        text = re.sub(rf"(?<![\\A-Za-z]){word}(?![A-Za-z])", lambda _, x=latex: x, text)
    try:
        parts = split(parse(text))
    except FormulaError as error:
        return envs, [f"comment line: {error.reason}"]
    problems = []
    for part in parts:
        head = part.elems and function_head(part.elems[0])
        name, params = head if head else (part.elems and factor_name(part.elems[0]), None)
        if not part.elems or len(part.elems) != 3 or part.elems[1] != "=" or not name:
            problems.append(f"comment line: not a binding: {text}")
            continue
        try:
            envs = bind(envs, name, part.elems[2], params)
        except ERRORS as error:
            problems.append(f"comment line: {name}: {getattr(error, 'reason', error)}")
    return envs, problems


# --------------------------------------------------------------------------------------------
# a page
# --------------------------------------------------------------------------------------------


@dataclass
class Entry:
    formula: source.Formula
    status: str  # checked | definition | listed | false | unchecked
    reason: str
    envs: dict  # the cell's environments just before the formula (for the mutants)
    later: set = field(default_factory=set)  # names the cell's later checked formulas use
    verdict: Verdict | None = None


@dataclass
class PageAudit:
    page: str
    entries: list
    problems: list

    def count(self, status: str) -> int:
        return sum(e.status == status for e in self.entries)

    @property
    def failures(self) -> list:
        return [e for e in self.entries if e.status in ("false", "unchecked")]


def idle(verdict: Verdict, later: set, text: str) -> list:
    """The names a formula defines that neither a later checked formula of its cell nor the
    formula itself (``..., where r = ...``: the name occurs twice) uses."""
    own = names_in(parse(text)) if verdict.defined else {}
    return [n for n in verdict.defined if n not in later and own.get(n, 0) < 2]


def audit_page(page: str, path=None, seeds=SEEDS, cells=None) -> PageAudit:
    """Every formula of a page classified, cell by cell (``path``: an edited copy; ``cells``:
    only these cells, by index)."""
    entries, problems = [], []
    for cell in source.page_cells(page, path):
        if cells is not None and cell.index not in cells:
            continue
        envs, start, skips, skipped = fresh_envs(seeds), len(entries), [], {}
        where = f"{page} cell {cell.name or cell.index}"
        for item in cell.items:
            if isinstance(item, source.Comment) and item.kind == "bind":
                envs, found = comment_bindings(item.text, envs)
                problems += [f"{where}: {p}" for p in found]
            elif isinstance(item, source.Comment):
                skips.append(item)
            elif item.classified:
                verdict = classify(item.text, envs)
                entries.append(Entry(item, verdict.status, verdict.reason, envs, verdict=verdict))
                skip = next((c for c in skips if c.quote in (None, item.key)), None)
                if skip is not None:  # not checked: its bindings do not hold either
                    skips.remove(skip)
                    skipped[id(entries[-1])] = skip
                else:
                    envs = verdict.envs
        problems += [f"{where}: the comment 'formula {f'${c.quote}$ ' if c.quote else ''}not "
                     f"checked: {c.text}' names no formula after it" for c in skips]
        later: set = set()
        for e in reversed(entries[start:]):
            e.later = set(later)
            if e.status == "checked":
                later |= set(names_in(parse(e.formula.text)))
            if e.status in ("checked", "definition") and (names := idle(
                    e.verdict, e.later, e.formula.text)):
                e.status, e.reason = "unchecked", (
                    f"defines {names[0]}, which no later checked formula of the cell uses")
            if id(e) in skipped:
                if e.status == "checked":
                    problems.append(f"{where}: ${e.formula.key}$ is marked 'not checked' but "
                                    "it checks: remove the comment")
                e.status, e.reason = "listed", skipped[id(e)].text
    return PageAudit(page, entries, problems)


def counts(audits: dict) -> dict:
    """Per page: how many formulas are checked, definitions, listed (not checked, with the
    reason beside them), false and unchecked; the schema the verification page reads."""
    statuses = ("checked", "definition", "listed", "false", "unchecked")
    pages = {p: {"strict": True, **{s: a.count(s) for s in statuses}} for p, a in audits.items()}
    return {"schema": 1, "pages": pages,
            "totals": {s: sum(c[s] for c in pages.values()) for s in statuses}}

