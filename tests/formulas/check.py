"""Classify every formula of a page: checked, a definition, listed, or a finding.

For each markdown cell, in reading order, every formula is parsed and split into its parts
(``a = b = c, \\qquad d \\le e``, the rows of an ``aligned`` block, ``\\text{for } ...``
conditions). A part ``<input> = <literal>`` (``z = (1, 2, 3)``, ``\\varepsilon = 1/3``) binds the
input for the rest of the cell; ``<new symbol> = <expr>`` (or ``f(c) = <expr>``) is a local
definition; every other relation is a claim, evaluated at every seed of ``symbols.SEEDS`` under
the cell's bindings. A formula is *checked* when all its claims hold, a *definition* when it
only binds, *false* when a claim fails and *unchecked* (with the checker's reason) when it
cannot be evaluated. The policy file lists the formulas that stay unchecked, with a reason.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field

from lark import Token, Tree

from . import pages as pages_mod
from .evaluate import (
    Binding,
    Env,
    EvalError,
    Evaluator,
    FreeIndexError,
    ShapeError,
    UnsupportedError,
    _Measure,
    _rel,
    as_array,
    compare_chain,
    factor_name,
    generic_inputs,
    is_name_atom,
    kind,
    reset_generic_inputs,
)
from .parse import FormulaSyntaxError, parse
from .symbols import SEEDS, lookup_table

CONDITION_WORDS = re.compile(r"^\\(?:text|textrm|mbox)\s*\{\s*(for|if|when|at|with|where)\b",
                             re.I)
ALIASES = {"eps": r"\varepsilon", "gamma": r"\gamma", "beta": r"\beta", "alpha": r"\alpha",
           "delta": r"\delta", "tau": r"\tau", "mu": r"\mu", "sigma": r"\sigma",
           "lambda": r"\lambda", "ell": r"\ell", "theta": r"\theta", "omega": r"\omega",
           "eta": r"\eta", "rho": r"\rho", "nu": r"\nu", "kappa": r"\kappa"}


@functools.lru_cache(maxsize=1)
def table():
    return lookup_table()


# --------------------------------------------------------------------------------------------
# the parts of a formula
# --------------------------------------------------------------------------------------------


@dataclass
class Part:
    """One relation chain (``elems = [e0, rel, e1, ...]``), a bare expression, or a text."""

    elems: list | None = None
    expr: object = None
    text: str | None = None
    condition: list | None = None


def _chain_elems(node) -> list:
    out = []
    for c in node.children:
        if isinstance(c, Tree) and c.data == "rel":
            out.append(_rel(c))
        else:
            out.append(c)
    return out


def _items(item_list) -> list[Part]:
    parts = []
    for c in item_list.children:
        if isinstance(c, Tree) and c.data == "sep":
            continue
        if isinstance(c, Tree) and c.data == "gap":
            parts += [Part(text=str(t)) for t in c.children
                      if isinstance(t, Token) and t.type == "TEXT"]
            continue
        if isinstance(c, Token):
            if c.type == "TEXT":
                parts.append(Part(text=str(c)))
            continue  # PERIOD / COLON
        if c.data == "chain":
            parts.append(Part(elems=_chain_elems(c)))
        else:
            parts.append(Part(expr=c))
    return parts


def split(text: str) -> list[Part]:
    """The parts of a formula (raises FormulaSyntaxError)."""
    return split_tree(parse(text))


def split_tree(tree) -> list[Part]:
    body = tree.children[0]
    if body.data == "item_list":
        parts = _items(body)
    elif body.data == "env_aligned":
        parts = []
        for row in body.children:
            if not isinstance(row, Tree):
                continue
            if row.data == "arow_items":
                lst = [c for c in row.children if isinstance(c, Tree) and c.data == "item_list"]
                parts += _items(lst[0])
            elif row.data == "arow_continued":
                previous = next((p for p in reversed(parts)
                                 if p.elems or p.expr is not None), None)
                if previous is None:
                    raise FormulaSyntaxError("an aligned row continues nothing")
                if previous.elems:
                    elems = [previous.elems[-1]]
                else:  # a row that is only the chain's left side, broken before the relation
                    parts.remove(previous)
                    elems = [previous.expr]
                rest = []
                k = 0
                kids = row.children
                while k < len(kids):
                    c = kids[k]
                    if isinstance(c, Tree) and c.data == "rel":
                        elems += [_rel(c), kids[k + 1]]
                        k += 2
                        continue
                    rest.append(c)
                    k += 1
                parts.append(Part(elems=elems))
                parts += _items(Tree("item_list", rest))
    else:
        parts = [Part(expr=body)]
    # \text{for } <condition> attaches the condition to the part before it
    out = []
    k = 0
    while k < len(parts):
        p = parts[k]
        if p.text is not None and CONDITION_WORDS.match(p.text) and k + 1 < len(parts) and \
                parts[k + 1].elems and out and out[-1].elems:
            out[-1].condition = parts[k + 1].elems
            k += 2
            continue
        out.append(p)
        k += 1
    return out


# --------------------------------------------------------------------------------------------
# roles: binding, definition, claim
# --------------------------------------------------------------------------------------------

_LITERAL_TOKENS = {"NUMBER", "DIGIT", "MINUS", "PLUS", "SLASH", "CDOT", "TIMES", "LPAR", "RPAR",
                   "COMMA", "FRAC", "SQRT", "LBRACE", "RBRACE", "SUP", "BEGIN_MATRIX",
                   "END_MATRIX", "AMP", "ROWSEP", "ONE"}


def is_literal(node) -> bool:
    """Numbers, tuples and matrices of numbers, ``\\mathbf 1``: what prose binds an input to."""
    if isinstance(node, Token):
        return node.type in _LITERAL_TOKENS
    return all(is_literal(c) for c in node.children)


def _function_definition(node):
    """``f(c)`` / ``J_{\\mathrm{rms}}(z)``: (name, parameter names), or None."""
    if not (isinstance(node, Tree) and node.data == "juxt" and len(node.children) == 2):
        return None
    head, arg = node.children
    name = factor_name(head)
    if name is None or not (isinstance(arg, Tree) and arg.data == "factor" and
                            len(arg.children) == 1):
        return None
    group = arg.children[0]
    if not isinstance(group, Tree) or group.data not in ("group", "tuple"):
        return None
    params = []
    for p in group.children[1:-1:2] if group.data == "tuple" else [group.children[1]]:
        pn = factor_name(p)
        if pn is None:
            return None
        params.append(pn)
    return name, tuple(params)


def _is_new_name(name: str, node, env: Env) -> bool:
    """A name the cell has not met: neither in the table nor bound, and not an indexed use
    of a known vector (``v_i``)."""
    if env.knows(name):
        return False
    factor = node
    while isinstance(factor, Tree) and factor.data == "juxt" and len(factor.children) == 1:
        factor = factor.children[0]
    if not (isinstance(factor, Tree) and factor.data == "factor"):
        return True
    atom, posts = factor.children[0], factor.children[1:]
    if not is_name_atom(atom):
        return True
    ev = Evaluator(env)
    from .evaluate import atom_name, name_extension
    name = atom_name(atom)
    for p in posts:
        if env.knows(name):
            if p.data != "sub_script":
                return False
            try:
                value = ev.as_value(env.value(name))
            except EvalError:
                return True
            if kind(value) == "scalar":
                return True
            return ev.index_values(p.children[1]) is None
        ext = name_extension(p)
        if ext is None:
            return False
        name += ext
    return True


def role(part: Part, env: Env) -> tuple[str, str | None, tuple | None]:
    """``("binding" | "definition" | "claim", name, params)`` of a chain."""
    elems = part.elems
    if elems[1] != "=":
        return "claim", None, None
    first = elems[0]
    fundef = _function_definition(first)
    if fundef is not None:
        name, params = fundef
        entry = env.table.get(name)
        if entry is not None:
            return ("definition", name, params) if entry.role == "definable" else (
                "claim", None, None)
        if env.knows(name) or env.knows(name.replace("'", "")) or env.knows(
                name + r"_{\varepsilon}"):  # \mathrm{LN}(z): the stabilizer left implicit
            return "claim", None, None
        if _is_new_name(name, first.children[0], env):
            return "definition", name, params
        return "claim", None, None
    name = factor_name(first)
    if name is None:
        return "claim", None, None
    entry = env.table.get(name)  # an input stays an input when the cell has bound it before
    if entry is not None:
        if entry.role == "input" and is_literal(elems[2]):
            return "binding", name, None
        if entry.role == "definable":
            return "definition", name, None
        return "claim", None, None
    if env.knows(name):  # a local name again: a new definition
        return "definition", name, None
    if _is_new_name(name, first, env):
        return "definition", name, None
    return "claim", None, None


# --------------------------------------------------------------------------------------------
# evaluating claims
# --------------------------------------------------------------------------------------------


@dataclass
class Verdict:
    status: str  # checked | definition | false | unchecked
    reason: str = ""
    details: list = field(default_factory=list)
    bindings: list = field(default_factory=list)
    claims: int = 0
    envs: dict | None = None  # the cell's environments after the formula
    verified: set = field(default_factory=set)  # the claims that held (node identities)
    defined: list = field(default_factory=list)  # local names it defines (not input bindings)
    generic: frozenset = frozenset()  # the inputs it used at seeded generic values


def check_elems(elems, envs: dict, condition=None) -> tuple[bool, str]:
    """Every relation of a chain, at every seed, for every value of a free index."""
    for seed, env in envs.items():
        with _Measure() as ctx:
            ok, detail = _check_at(elems, env, condition, {})
        if not ok:
            return False, f"seed {seed}: {detail}"
        if not ctx.inputs:  # no seeded input involved: every seed gives the same answer
            break
    return True, ""


def _check_at(elems, env: Env, condition, scope) -> tuple[bool, str]:
    e = env.with_scope(**scope) if scope else env
    if condition is not None and condition[1] == "=" and len(condition) == 3:
        name = factor_name(condition[0])  # \text{for } z = (2, 2, 2): a binding for this part
        entry = e.table.get(name) if name else None
        if entry is not None and entry.role == "input" and is_literal(condition[2]):
            e = bind_env(e, Binding(name, condition[2]))
            condition = None
    try:
        results = compare_chain(Evaluator(e), None, elems)
    except FreeIndexError as free:
        if free.letter in scope:
            raise UnsupportedError(f"index {free.letter} used inconsistently") from None
        d = e.d
        for k in sorted({1, 2, d} & set(range(1, d + 1))):  # first, second, last
            ok, detail = _check_at(elems, env, condition, {**scope, free.letter: k})
            if not ok:
                return False, f"{free.letter} = {k}: {detail}"
        return True, ""
    if condition is not None:  # \text{for } i \ne j: only where the condition holds
        if not all(ok for ok, _ in compare_chain(Evaluator(e), None, condition)):
            return True, ""
    for ok, detail in results:
        if not ok:
            return False, detail
    return True, ""


def _format_of(text: str) -> str | None:
    m = re.search(r"\\text\s*\{\s*in\s+(float16|float32|float64)\s*\}", text)
    return m.group(1) if m else None


def _identity(elems, condition) -> tuple:
    return tuple(id(e) for e in elems) + tuple(id(e) for e in condition or ())


def classify(text: str, envs: dict, tree=None, known=None) -> Verdict:
    """The verdict on one formula given the cell's environments (one per seed), with the
    environments after it (its bindings applied) in ``verdict.envs``. For a mutant: ``tree`` is
    its parse, ``known`` the claims of the original that held; a claim the mutant left as it
    was is not evaluated again, and evaluation stops at the first claim that fails."""
    reset_generic_inputs()
    try:
        parts = split_tree(tree) if tree is not None else split(text)
    except FormulaSyntaxError as error:
        return Verdict("unchecked", f"parse failure: {error.reason}", envs=envs)
    fmt = _format_of(text)
    if fmt is not None:
        envs = {s: e.with_format(fmt) for s, e in envs.items()}
    claims = 0
    bindings = []
    failures = []
    problems = []
    bare = []
    pending = []
    defined = []
    # definitions first, so that "..., where r = ..." holds for the whole formula
    for part in parts:
        if part.text is not None:
            continue
        if part.elems is None:
            bare.append(part)
            continue
        env0 = envs[SEEDS[0]]
        try:
            what, name, params = role(part, env0)
        except (EvalError, FreeIndexError, ArithmeticError, ValueError, TypeError) as error:
            problems.append(getattr(error, "reason", str(error)))
            continue
        elems = part.elems
        if what in ("binding", "definition"):
            binding = Binding(name, elems[2], params, text)
            try:
                envs = _bind(envs, binding, what)
            except (EvalError, FreeIndexError, ArithmeticError, ValueError, TypeError,
                    IndexError) as error:
                reason = error.reason if isinstance(error, EvalError) else \
                    f"free index {error.letter}" if isinstance(error, FreeIndexError) else \
                    f"{type(error).__name__}: {error}"
                problems.append(f"the {what} of {name}: {reason}")
                continue
            bindings.append(binding)
            if what == "definition":
                defined.append(name)
            if known is not None and _identity(part.elems, part.condition) not in known:
                known = None  # a changed definition: every claim must be evaluated again
            elems = elems[2:]
            if len(elems) < 3:
                continue
        pending.append((elems, part.condition))
    verified = set()
    for elems, condition in pending:
        claims += 1
        key = _identity(elems, condition)
        if known is not None and key in known:
            verified.add(key)
            continue
        if known is not None and (failures or problems):
            break
        try:
            ok, detail = check_elems(elems, envs, condition)
        except EvalError as error:
            problems.append(error.reason)
            continue
        except FreeIndexError as error:
            problems.append(f"index {error.letter} used inconsistently")
            continue
        except (ArithmeticError, ValueError, TypeError, IndexError) as error:
            problems.append(f"evaluation error: {type(error).__name__}: {error}")
            continue
        if not ok:
            failures.append(detail)
        else:
            verified.add(key)
    if fmt is not None:  # a format named in the formula holds for this formula only
        envs = {s: e.with_format("float64") for s, e in envs.items()}
    if failures:
        verdict = Verdict("false", "false: " + failures[0], failures, bindings, claims)
    elif problems:
        verdict = Verdict("unchecked", problems[0], problems, bindings, claims)
    elif bare:
        reason = ("no relation: an expression, not a claim" if not claims else
                  "a bare expression beside the relations")
        verdict = Verdict("unchecked", reason, [], bindings, claims)
    elif claims:
        verdict = Verdict("checked", "", [], bindings, claims)
    elif bindings:
        verdict = Verdict("definition", "", [], bindings, 0)
    else:
        verdict = Verdict("unchecked", "nothing to check", [], bindings, 0)
    verdict.envs = envs
    verdict.verified = verified
    verdict.defined = defined
    verdict.generic = frozenset(generic_inputs())
    return verdict


def bind_env(env: Env, binding: Binding) -> Env:
    """One environment with a binding: a vector input bound to a vector of n entries sets d = n
    unless the cell has fixed d (and must agree with it then)."""
    entry = env.table.get(binding.name)
    if binding.params is None and entry is not None and entry.vector:
        value = _literal_value(binding.node) if is_literal(binding.node) else None
        if value is None:
            value = Evaluator(env).value(binding.node, keep_functions=True)
        arr = as_array(value) if not callable(getattr(value, "call", None)) else None
        if arr is not None and kind(arr) == "vector":
            n = len(arr)
            if env.is_bound("d"):
                if env.d != n:
                    raise ShapeError(f"{binding.name} has {n} entries but d = {env.d}")
            elif env.d != n:
                env = env.with_binding(Binding("d", Token("NUMBER", str(n)), None, f"d = {n}"))
    return env.with_binding(binding)


_LITERALS: dict = {}


def _literal_value(node):
    """The value of a literal (the same in every environment), computed once."""
    hit = _LITERALS.get(id(node))
    if hit is None or hit[0] is not node:
        try:
            hit = (node, Evaluator(_base_envs()[0][1]).value(node))
        except EvalError:
            return None
        _LITERALS[id(node)] = hit
    return hit[1]


def _bind(envs: dict, binding: Binding, what: str) -> dict:
    """Apply a binding at every seed, validating it (its value must be computable)."""
    out = {seed: bind_env(env, binding) for seed, env in envs.items()}
    if binding.params is None:
        # validate at every seed (a literal has no symbols: one seed is every seed)
        for env in (list(out.values())[:1] if is_literal(binding.node) else out.values()):
            env.value(binding.name)
    else:
        _validate_function(out[SEEDS[0]], binding)
    return out


def _validate_function(env: Env, binding: Binding):
    fn = env.value(binding.name)
    probe = {p: env.value(p) if env.knows(p) else 0.7 for p in binding.params}
    fn.call(*probe.values())


def comment_bindings(text: str, envs: dict) -> tuple[dict, list[str]]:
    """Apply a ``% formulas:`` line: every part ``<symbol> = <expr>`` binds the symbol
    (explicit, so any expression is allowed); returns the environments and any problems."""
    for word, latex in ALIASES.items():
        text = re.sub(rf"(?<![\\A-Za-z]){word}(?![A-Za-z])", lambda m, x=latex: x, text)
    problems = []
    try:
        parts = split(text)
    except FormulaSyntaxError as error:
        return envs, [f"comment line: {error.reason}"]
    for part in parts:
        if not part.elems or part.elems[1] != "=" or len(part.elems) != 3:
            problems.append(f"comment line: not a binding: {text}")
            continue
        fundef = _function_definition(part.elems[0])
        name, params = fundef if fundef else (factor_name(part.elems[0]), None)
        if name is None:
            problems.append("comment line: the left side is not a symbol")
            continue
        try:
            envs = _bind(envs, Binding(name, part.elems[2], params, text), "binding")
        except (EvalError, FreeIndexError) as error:
            reason = error.reason if isinstance(error, EvalError) else error.letter
            problems.append(f"comment line: {name}: {reason}")
    return envs, problems


@functools.cache
def _base_envs() -> tuple:
    t = table()
    return tuple((seed, Env(t, seed)) for seed in SEEDS)


def fresh_envs() -> dict:
    """The environments of a cell before any binding: the same objects for every cell, so
    that the symbols at the generic inputs are computed once (bindings make new ones)."""
    return dict(_base_envs())


# --------------------------------------------------------------------------------------------
# a page
# --------------------------------------------------------------------------------------------


@dataclass
class Occurrence:
    formula: pages_mod.Formula
    verdict: Verdict
    envs: dict  # the cell's environments just before this formula (for the mutants)
    later: set = field(default_factory=set)  # names the cell's later checked formulas use


@functools.cache
def names_in(text: str) -> frozenset:
    return frozenset(_name_counts(text))


@functools.cache
def _name_counts(text: str) -> dict:
    """Every name a formula could be using: each factor's symbol with and without its name
    subscripts and primes (``\\gamma_{\\max}``, ``\\gamma``, ``f'`` and ``f``)."""
    from .evaluate import atom_name, name_extension
    try:
        tree = parse(text)
    except FormulaSyntaxError:
        return {}
    out: dict = {}
    for sub in tree.iter_subtrees():
        if sub.data != "factor" or not is_name_atom(sub.children[0]):
            continue
        name = atom_name(sub.children[0])
        seen = {name}
        for p in sub.children[1:]:
            ext = name_extension(p)
            if ext is None:
                break
            name += ext
            seen |= {name, name.replace("'", "")}
        for n in seen:
            out[n] = out.get(n, 0) + 1
    return out


def unused(verdict, later, text) -> list:
    """The names a formula defines that neither a later checked formula of its cell nor the
    formula itself (``..., where r = ...``: the name occurs again) uses."""
    own = _name_counts(text)
    return [n for n in verdict.defined if n not in later and own.get(n, 0) < 2]


# --------------------------------------------------------------------------------------------
# audit: a page against the policy
# --------------------------------------------------------------------------------------------


@dataclass
class Entry:
    """One classified formula occurrence, as the results file and the reports show it."""

    formula: pages_mod.Formula
    status: str  # checked | definition | listed | false | unchecked
    reason: str
    occurrence: Occurrence


@dataclass
class PageAudit:
    page: str
    strict: bool
    entries: list
    problems: list
    stale: list  # listed formulas that no occurrence needs
    mutants: list | None = None  # [(entry, label, text, killed, why)]

    def count(self, status: str) -> int:
        return sum(1 for e in self.entries if e.status == status)

    @property
    def failures(self) -> list:
        return [e for e in self.entries if e.status in ("false", "unchecked")]


def audit_page(page: str, policy, path=None, cells=None) -> PageAudit:
    """Check a page against the policy (``path``: a copy to read instead of the page itself;
    ``cells``: only these cells, by index)."""
    listed = {pages_mod.normalize(k): v for k, v in policy.UNCHECKED.get(page, {}).items()}
    occurrences, problems = check_page(page, listed=listed, path=path, cells=cells)
    entries = []
    used = set()
    for occ in occurrences:
        v = occ.verdict
        key = occ.formula.key
        status, reason = v.status, v.reason
        idle = unused(v, occ.later, occ.formula.text)
        if status in ("checked", "definition") and idle:
            status = "unchecked"
            reason = f"defines {idle[0]}, which no later checked formula of the cell uses"
        if status == "checked" or status == "definition" and key not in listed:
            entries.append(Entry(occ.formula, status, reason, occ))
        elif key in listed:
            used.add(key)
            entries.append(Entry(occ.formula, "listed", listed[key], occ))
        else:
            entries.append(Entry(occ.formula, status, reason, occ))
    stale = sorted(k for k in listed if k not in used) if cells is None else []
    return PageAudit(page, page in policy.STRICT, entries, problems, stale)


def check_page(page: str, listed=None, path=None,
               cells=None) -> tuple[list[Occurrence], list[str]]:
    """Every classified formula of a page with its verdict; and the comment-line problems.
    A listed formula's bindings are not applied (the policy says it is not a binding)."""
    listed = listed or {}
    occurrences = []
    problems = []
    for cell in pages_mod.page_cells(page, path=path, only=cells):
        if cells is not None and cell.index not in cells:
            continue
        envs = fresh_envs()
        start = len(occurrences)
        for item in cell.items:
            if isinstance(item, pages_mod.Comment):
                envs, found = comment_bindings(item.text, envs)
                problems += [f"{page} cell {cell.index}: {p}" for p in found]
                continue
            if not item.classified:
                continue
            verdict = classify(item.text, envs)
            occurrences.append(Occurrence(item, verdict, envs))
            if not (item.key in listed and verdict.status != "checked"):
                envs = verdict.envs
        later: set = set()  # names the cell uses after each formula, in checked formulas
        for occ in reversed(occurrences[start:]):
            occ.later = set(later)
            if occ.verdict.status == "checked":
                later |= names_in(occ.formula.text)
    return occurrences, problems


def run_mutants(audit: PageAudit, policy) -> list:
    """Every mutant of every checked formula, classified in the formula's own cell context;
    killed unless it is checked (true) or a definition."""
    from .mutate import mutants

    equivalent = policy.EQUIVALENT.get(audit.page, {})
    equivalent = {pages_mod.normalize(k): v for k, v in equivalent.items()}
    out = []
    done = set()
    for entry in audit.entries:
        # one context per formula text: a formula repeated on the page is mutated once
        if entry.status != "checked" or entry.formula.text in done:
            continue
        done.add(entry.formula.text)
        text = entry.formula.text
        listed = equivalent.get(entry.formula.key, {})
        held = entry.occurrence.verdict.verified
        for label, mutant, tree in mutants(text):
            verdict = classify(mutant, entry.occurrence.envs, tree=tree, known=held)
            survived = verdict.status in ("checked", "definition") and not unused(
                verdict, entry.occurrence.later, mutant)
            out.append((entry, label, mutant, not survived, listed.get(label)))
    audit.mutants = out
    return out
