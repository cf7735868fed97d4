"""Evaluate a parsed formula numerically, with the linear-algebra meaning a reader gives it.

Values are Python floats (scalars), 1-d arrays (column vectors), 2-d arrays of one row (row
vectors, what a transpose makes of a column), 2-d arrays (matrices), ``Tup`` (a tuple literal
``(1, 2, 3)``, a column unless it follows a column in a product, where it is the row of an outer
product), and ``Fn`` (a function: ``u_\\varepsilon``, ``\\mathrm{LN}_\\varepsilon``, ``J``,
``\\operatorname{diag}``...). Juxtaposition is decided by the kinds of its operands: a scalar
scales, ``v v^\\top`` is an outer product, ``v^\\top v`` an inner product, ``P z`` a matrix-vector
product, and a function followed by a parenthesized argument is applied to it.

Symbols are looked up in an ``Env``: the bindings of the markdown cell (prose values such as
``z = (1, 2, 3)`` and local definitions), then the symbol table of the notation page
(``symbols.py``), computed with lnbook from seeded generic inputs. Anything outside the book's
subset raises an ``EvalError`` whose ``reason`` the report shows; it is never skipped silently.
"""

from __future__ import annotations

import math
import re
import zlib
from dataclasses import dataclass

import numpy as np
from lark import Token, Tree

# --------------------------------------------------------------------------------------------
# errors
# --------------------------------------------------------------------------------------------


class EvalError(Exception):
    """A formula that cannot be evaluated; ``reason`` says why (shown in the reports)."""

    kind = "unsupported"

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


class UnknownSymbolError(EvalError):
    kind = "unknown symbol"


class UnsupportedError(EvalError):
    kind = "unsupported"


class ShapeError(EvalError):
    kind = "shapes"


class FreeIndexError(Exception):
    """An index letter (``z_i`` with no sum over i): the claim is meant for every i."""

    def __init__(self, letter: str):
        super().__init__(letter)
        self.letter = letter


# --------------------------------------------------------------------------------------------
# values
# --------------------------------------------------------------------------------------------


class Tup:
    """A tuple literal ``(a, b, c)``: a column vector, or a row right after a column."""

    __slots__ = ("a",)

    def __init__(self, a: np.ndarray):
        self.a = a


class Fn:
    """A function value. ``default`` gives its value where the text uses the bare symbol
    (``u_\\varepsilon`` for ``u_\\varepsilon(z)``); ``prefix`` functions take the next factor
    without parentheses (``\\operatorname{tr} P``, ``\\log_2 768``); ``family`` makes a
    subscripted version (``u_0``, ``J_{\\varepsilon/\\alpha^2}``)."""

    def __init__(self, name, call, default=None, prefix=False, family=None, derivative=None,
                 arity=1):
        self.arity = arity  # a tuple argument is one vector unless the function takes several
        self.name = name
        self.call = call
        self.default = default
        self.prefix = prefix
        self.family = family
        self.derivative = derivative

    def value(self):
        if self.default is None:
            raise UnsupportedError(f"{self.name} is a function here, used without an argument")
        return self.default()


class Operator:
    """A symbol that acts on the next factor: the derivative ``D``."""

    def __init__(self, name: str):
        self.name = name


class UnitVectors:
    """``e``: indexed, ``e_i`` is the i-th unit vector of R^d."""

    def __init__(self, d: int):
        self.d = d

    def index(self, i: int) -> np.ndarray:
        e = np.zeros(self.d)
        e[i - 1] = 1.0
        return e


def kind(x) -> str:
    if isinstance(x, Fn):
        return "function"
    if isinstance(x, Tup):
        return "tuple"
    if isinstance(x, np.ndarray):
        if x.ndim == 1:
            return "vector"
        if x.ndim == 2 and x.shape[0] == 1:
            return "row"
        return "matrix"
    return "scalar"


def _canonical(x):
    """Squeeze 1x1 to a scalar and (n, 1) to a column."""
    if isinstance(x, np.ndarray):
        if x.ndim == 0 or x.size == 1 and x.ndim <= 2 and not (x.ndim == 1):
            return float(x.reshape(()))
        if x.ndim == 2 and x.shape[1] == 1 and x.shape[0] > 1:
            return x[:, 0]
    return x


def describe(x) -> str:
    k = kind(x)
    if k == "scalar":
        return f"{float(x):.6g}"
    if k in ("vector", "tuple"):
        a = x.a if isinstance(x, Tup) else x
        return "(" + ", ".join(f"{v:.6g}" for v in a) + ")"
    if k in ("row", "matrix"):
        return "[" + "; ".join(" ".join(f"{v:.4g}" for v in r) for r in x) + "]"
    return k


# --------------------------------------------------------------------------------------------
# the environment
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Binding:
    """``name := node``, from prose (``z = (1, 2, 3)``), a local definition or a comment line.
    ``params`` makes it a function (``f(c) = ...``)."""

    name: str
    node: Tree
    params: tuple[str, ...] | None = None
    text: str = ""


def generic_inputs() -> set:
    """The inputs the evaluation took at seeded generic values (see check.classify)."""
    return _CONTEXTS[0].inputs


def reset_generic_inputs():
    del _CONTEXTS[1:]
    _CONTEXTS[0] = Context()


class Env:
    """Where symbols get their values: overrides (a perturbed input, a function's argument),
    the cell's bindings (latest first), the symbol table; ``scope`` holds bound variables
    (summation indices, an integration variable, a function's parameters)."""

    def __init__(self, table, seed: int, bindings=(), overrides=None, scope=None,
                 fmt: str = "float64", _shared=None):
        self.table = table
        self.seed = seed
        self.bindings = tuple(bindings)
        self.overrides = overrides or {}
        self.scope = scope or {}
        self.fmt = fmt
        # what scope variants of one environment share: computed values, the environments
        # of earlier bindings, perturbed copies (for derivatives), symbols being computed
        self._shared = _shared if _shared is not None else ({}, {}, {}, set(), {})
        self._memo, self._upto, self._perturbed, self._active, self._nodes = self._shared
        # the bound variables, as a cache key; None (no caching) when one is an array
        self._scope_key = tuple(sorted(self.scope.items())) if self.scope else ()
        if any(not isinstance(v, (int, float, np.integer, np.floating))
               for v in self.scope.values()):
            self._scope_key = None

    # -- derived environments ------------------------------------------------------------
    def with_scope(self, **variables) -> Env:
        scope = dict(self.scope)
        scope.update(variables)
        return Env(self.table, self.seed, self.bindings, self.overrides, scope, self.fmt,
                   _shared=self._shared)

    def with_overrides(self, overrides: dict) -> Env:
        merged = dict(self.overrides)
        merged.update(overrides)
        return Env(self.table, self.seed, self.bindings, merged, self.scope, self.fmt)

    def perturbed(self, name: str, component: int, sign: int, value) -> Env:
        """``name`` replaced by ``value`` (its component moved by a step): cached, so that the
        columns of one derivative and every index of a claim reuse the same computations."""
        key = (name, component, sign)
        env = self._perturbed.get(key)
        if env is None:
            merged = dict(self.overrides)
            merged[name] = value
            env = Env(self.table, self.seed, self.bindings, merged, {}, self.fmt)
            self._perturbed[key] = env
        return env.with_scope(**self.scope) if self.scope else env

    def with_binding(self, binding: Binding) -> Env:
        return Env(self.table, self.seed, self.bindings + (binding,), self.overrides,
                   self.scope, self.fmt)

    def with_format(self, fmt: str) -> Env:
        return Env(self.table, self.seed, self.bindings, self.overrides, self.scope, fmt)

    def upto(self, k: int) -> Env:
        env = self._upto.get(k)
        if env is None:
            env = Env(self.table, self.seed, self.bindings[:k], self.overrides, {}, self.fmt)
            self._upto[k] = env
        return env.with_scope(**self.scope) if self.scope else env

    def rng(self, name: str) -> np.random.Generator:
        return np.random.default_rng([self.seed, zlib.crc32(name.encode())])

    # -- lookups ---------------------------------------------------------------------------
    def _binding(self, name: str, functions: bool = False) -> int | None:
        for k in range(len(self.bindings) - 1, -1, -1):
            b = self.bindings[k]
            if b.name == name and (b.params is not None) == functions:
                return k
        return None

    def is_bound(self, name: str) -> bool:
        return name in self.overrides or self._binding(name) is not None

    def knows(self, name: str) -> bool:
        return (name in self.scope or name in self.overrides or name in self.table
                or self._binding(name) is not None or self._binding(name, True) is not None
                or self._primed(name) is not None)

    def _primed(self, name: str):
        """``z'``, ``a'``: a prime on an input is another generic value of the same kind."""
        if not name.endswith("'"):
            return None
        base = name.rstrip("'")
        entry = self.table.get(base)
        if entry is None or entry.role != "input":
            return None
        return base

    def value(self, name: str):
        if name in self.scope:
            return self.scope[name]
        if name in self.overrides:
            return self.overrides[name]
        k = self._binding(name)
        if k is None and (name in self.table and self.table[name].role == "input" or
                          self._primed(name) is not None):
            _CONTEXTS[-1].inputs.add(name)  # a seeded generic value, not one the text gave
        # a table symbol does not depend on the bound variables; a binding may (w_i = ...)
        key = (name, self._scope_key if self.scope and (
            k is not None or self._binding(name, True) is not None) else ())
        if key[1] is not None and key in self._memo:
            value, numeric, deps = self._memo[key]
            ctx = _CONTEXTS[-1]
            ctx.inputs.update(deps)
            if numeric:
                ctx.numeric = True
            return value
        if name in self._active:
            raise UnknownSymbolError(f"{name} is defined in terms of itself")
        self._active.add(name)
        inner = Context()
        _CONTEXTS.append(inner)
        try:
            if k is not None:
                value = Evaluator(self.upto(k)).value(self.bindings[k].node, keep_functions=True)
                if isinstance(value, Tup):  # a bound symbol is a column vector
                    value = value.a
                entry = self.table.get(name)
                if entry is not None and entry.vector:
                    value = as_array(value)
                    if kind(value) == "scalar":  # \gamma = 0: the constant vector
                        value = np.full(self.d, float(value))
            else:
                k = self._binding(name, True)
                if k is not None:
                    value = self._function(self.bindings[k], k)
                elif name in self.table:
                    value = self.table[name].compute(self)
                elif self._primed(name) is not None:
                    # drawn at another seed, with this environment's d
                    other = Env(self.table, self.seed + 1000 * name.count("'"),
                                overrides={"d": self.d})
                    value = self.table[self._primed(name)].compute(other)
                else:
                    raise UnknownSymbolError(f"unknown symbol {name}")
        finally:
            self._active.discard(name)
            _CONTEXTS.pop()
            outer = _CONTEXTS[-1]
            outer.inputs.update(inner.inputs)
            if inner.numeric:
                outer.numeric = True
        if key[1] is not None:
            self._memo[key] = (value, inner.numeric, frozenset(inner.inputs))
        return value

    def _function(self, binding: Binding, k: int) -> Fn:
        env = self.upto(k)

        def call(*args):
            if len(args) != len(binding.params):
                raise ShapeError(f"{binding.name} takes {len(binding.params)} argument(s)")
            inner = env.with_scope(**dict(zip(binding.params, args)))
            return Evaluator(inner).value(binding.node)

        return Fn(binding.name, call, arity=len(binding.params))

    @property
    def d(self) -> int:
        return int(self.value("d"))

    def entry(self, name: str):
        if self._binding(name) is not None or self._binding(name, True) is not None:
            return None
        return self.table.get(name)


# --------------------------------------------------------------------------------------------
# names
# --------------------------------------------------------------------------------------------

GREEK_ALIASES = {r"\epsilon": r"\varepsilon", r"\vartheta": r"\theta", r"\varphi": r"\phi"}
ACCENT_ALIASES = {r"\widehat": r"\hat", r"\widetilde": r"\tilde", r"\overline": r"\bar"}


def token_text(tok: Token) -> str:
    t = tok.type
    v = str(tok)
    if t == "GREEK":
        return GREEK_ALIASES.get(v, v)
    if t == "ONE":
        return r"\mathbf 1"
    if t == "NAMEOP":
        inner = v[v.index("{") + 1:-1]
        return r"\mathrm{" + inner + "}"
    if t == "SUPOP":
        return r"\star" if v == r"\ast" else v
    if t in ("LPAR", "RPAR"):
        return v[-1]
    return v.strip()


_CANON: dict = {}


def canon(node) -> str:
    """A formula's text, normalized (spacing, size commands, \\tfrac/\\frac, aliases); cached
    per node (parse trees live as long as the parse cache)."""
    hit = _CANON.get(id(node))
    if hit is not None and hit[0] is node:
        return hit[1]
    out = _canon(node)
    _CANON[id(node)] = (node, out)
    return out


def _canon(node) -> str:
    if isinstance(node, Token):
        if node.type in ("FRAC",):
            return r"\frac"
        if node.type == "ACCENT":
            return ACCENT_ALIASES.get(str(node), str(node))
        return token_text(node)
    if node.data == "sub_script":
        return "_{" + canon(node.children[1]) + "}"
    if node.data == "sup_script":
        return "^{" + canon(node.children[1]) + "}"
    if node.data in ("subarg", "suparg", "fracarg", "numerator") and len(node.children) == 3 \
            and isinstance(node.children[0], Token) and node.children[0].type == "LBRACE":
        return canon(node.children[1])
    if node.data == "accent":
        return canon(node.children[0]) + "{" + canon(node.children[1]) + "}"
    out = ""
    for p in (canon(c) for c in node.children):
        if out and p[:1].isalpha() and re.search(r"\\[A-Za-z]+$", out):
            out += " "
        out += p
    return out


NAME_TOKENS = {"LETTER", "GREEK", "ONE", "NAMEOP"}


def is_name_atom(atom) -> bool:
    if isinstance(atom, Token):
        return atom.type in NAME_TOKENS
    return isinstance(atom, Tree) and atom.data == "accent"


def atom_name(atom) -> str:
    if isinstance(atom, Token):
        return token_text(atom)
    return canon(atom)


def name_extension(post) -> str | None:
    """The part of a name a postfix adds (``'``, ``_{rad}``, ``^{\\star}``), or None for a
    power or a transpose."""
    if post.data == "prime":
        return str(post.children[0])
    if post.data == "sub_script":
        return "_{" + canon(post.children[1]) + "}"
    if post.data == "sup_script":
        arg = post.children[1]
        tok = arg.children[0] if len(arg.children) == 1 else arg.children[1]
        if isinstance(tok, Token) and tok.type == "SUPOP" and token_text(tok) == r"\star":
            return r"^{\star}"
    return None


def factor_name(node) -> str | None:
    """The full symbol name of a factor (``\\gamma_{\\max}``, ``P_{a}``, ``z'``), or None."""
    if not (isinstance(node, Tree) and node.data == "factor"):
        node = _single_factor(node)
        if node is None:
            return None
    atom, posts = node.children[0], node.children[1:]
    if not is_name_atom(atom):
        return None
    name = atom_name(atom)
    for p in posts:
        ext = name_extension(p)
        if ext is None:
            return None
        name += ext
    return name


def _single_factor(node):
    """The factor a node consists of, if it is one (through juxt/brace wrappers)."""
    while isinstance(node, Tree):
        if node.data == "factor":
            return node
        if node.data in ("juxt",) and len(node.children) == 1:
            node = node.children[0]
            continue
        if node.data in ("brace", "fracarg", "numerator", "subarg", "suparg") and \
                len(node.children) == 3:
            node = node.children[1]
            continue
        if node.data in ("fracarg", "numerator", "subarg", "suparg") and len(node.children) == 1:
            node = node.children[0]
            continue
        if node.data == "sublist" and len(node.children) == 1:
            node = node.children[0]
            continue
        return None
    if isinstance(node, Token) and node.type in NAME_TOKENS | {"NUMBER", "DIGIT"}:
        return Tree("factor", [node])
    return None


def inner_expr(node):
    """The expression inside a {...} argument (or the single token)."""
    if isinstance(node, Tree) and node.data in ("fracarg", "numerator", "subarg", "suparg"):
        if len(node.children) == 3:
            return node.children[1]
        return node.children[0]
    return node


# --------------------------------------------------------------------------------------------
# the evaluator
# --------------------------------------------------------------------------------------------

_GL_NODES, _GL_WEIGHTS = np.polynomial.legendre.leggauss(24)
MAX_NUMERIC_SIZE = 64  # central differences in more variables would take too long
INDEX_LETTERS = set("ijklmn")


class Context:
    """What one evaluation learned: whether numerical differentiation or quadrature was used
    (the equality tolerance widens to 1e-6) and the largest magnitude met (the scale of the
    absolute tolerance)."""

    __slots__ = ("numeric", "magnitude", "inputs")

    def __init__(self):
        self.numeric = False
        self.magnitude = 0.0
        self.inputs = set()

    def track(self, x):
        try:
            if isinstance(x, np.ndarray):
                if x.size:
                    m = float(np.max(np.abs(x)))
                else:
                    return x
            elif isinstance(x, (float, int, np.floating)):
                m = abs(float(x))
            else:
                return x
        except (TypeError, ValueError):
            return x
        if m > self.magnitude and math.isfinite(m):
            self.magnitude = m
        return x


# the context of the evaluation under way (one at a time): a function value computed earlier
# and called later reports to the evaluation that calls it
_CONTEXTS = [Context()]


def current_context() -> Context:
    return _CONTEXTS[-1]


class _Measure:
    """``with _Measure() as ctx``: evaluate under a fresh context, merged into the outer one."""

    def __enter__(self) -> Context:
        self.ctx = Context()
        _CONTEXTS.append(self.ctx)
        return self.ctx

    def __exit__(self, *exc):
        _CONTEXTS.pop()
        outer = _CONTEXTS[-1]
        outer.numeric = outer.numeric or self.ctx.numeric
        outer.magnitude = max(outer.magnitude, self.ctx.magnitude)
        outer.inputs.update(self.ctx.inputs)
        return False


class Evaluator:
    def __init__(self, env: Env, ctx=None):
        self.env = env

    @property
    def ctx(self) -> Context:
        return _CONTEXTS[-1]

    def sub(self, env: Env) -> Evaluator:
        return Evaluator(env)

    # -- entry points ----------------------------------------------------------------------
    def value(self, node, keep_functions: bool = False):
        v = self.eval(node)
        if isinstance(v, Fn) and not keep_functions:
            v = v.value()
        return v

    def need(self, node):
        v = self.eval(node)
        return self.as_value(v)

    def as_value(self, v):
        if isinstance(v, Fn):
            v = v.value()
        if isinstance(v, Operator):
            raise UnsupportedError(f"{v.name} used without an operand")
        if isinstance(v, UnitVectors):
            raise UnsupportedError("e used without an index")
        return v

    # -- dispatch --------------------------------------------------------------------------
    def eval(self, node):
        if isinstance(node, Token):
            return self.token(node)
        method = _DISPATCH.get(node.data)
        if method is None:
            raise UnsupportedError(f"construct {node.data}")
        return self._cached(node, None, method, self, node)

    def _cached(self, node, flag, method, *args):
        """The value of a node in this environment, computed once: a mutant shares every
        unchanged subtree with its original, so only the path to its edit is evaluated again.
        The entry keeps the node alive (its id cannot be reused) and replays what the
        evaluation taught the context (numerical methods used, largest magnitude)."""
        env = self.env
        if env._scope_key is None:
            return method(*args)
        key = (id(node), flag, env._scope_key)
        hit = env._nodes.get(key)
        if hit is not None and hit[0] is node:
            ctx = _CONTEXTS[-1]
            if hit[2]:
                ctx.numeric = True
            if hit[3] > ctx.magnitude:
                ctx.magnitude = hit[3]
            if hit[4]:
                ctx.inputs.update(hit[4])
            return hit[1]
        inner = Context()
        _CONTEXTS.append(inner)
        try:
            value = method(*args)
        finally:
            _CONTEXTS.pop()
            ctx = _CONTEXTS[-1]
            if inner.numeric:
                ctx.numeric = True
            if inner.magnitude > ctx.magnitude:
                ctx.magnitude = inner.magnitude
            ctx.inputs.update(inner.inputs)
        env._nodes[key] = (node, value, inner.numeric, inner.magnitude, frozenset(inner.inputs))
        return value

    def token(self, tok: Token):
        t = tok.type
        if t in ("NUMBER", "DIGIT"):
            return float(tok)
        if t in NAME_TOKENS:
            return self.named(token_text(tok), [], applied=False)
        if t == "INFTY":
            return math.inf
        if t == "DOTS":
            raise UnsupportedError("an ellipsis (\\dots)")
        if t == "NABLA":
            raise UnsupportedError("a gradient \\nabla")
        if t == "TEXT":
            raise UnsupportedError(f"text {tok}")
        if t == "LOG":
            return self.log(None)
        raise UnsupportedError(f"token {tok}")

    # -- arithmetic ------------------------------------------------------------------------
    def r_add(self, node):
        return self.ctx.track(add(self.need(node.children[0]), self.need(node.children[2]), 1))

    def r_sub(self, node):
        return self.ctx.track(add(self.need(node.children[0]), self.need(node.children[2]), -1))

    def r_neg(self, node):
        return negate(self.need(node.children[1]))

    def r_pos(self, node):
        return self.need(node.children[1])

    def r_pm(self, node):
        raise UnsupportedError("\\pm (two values)")

    def r_div(self, node):
        left, right = node.children[0], node.children[2]
        d = self.derivative_quotient(left, right)
        if d is not None:
            return d
        return self.ctx.track(divide(self.need(left), self.need(right)))

    def r_dot(self, node):
        return self.ctx.track(multiply(self.need(node.children[0]), self.need(node.children[2])))

    r_times = r_dot

    def r_hadamard(self, node):
        a, b = (as_array(self.need(node.children[0])), as_array(self.need(node.children[2])))
        if np.shape(a) != np.shape(b):
            raise ShapeError(f"\\odot of shapes {np.shape(a)} and {np.shape(b)}")
        return self.ctx.track(a * b)

    def r_group(self, node):
        return self.eval(node.children[1])

    def r_brace(self, node):
        return self.eval(node.children[1])

    def r_tuple(self, node):
        items = [self.need(c) for c in node.children[1:-1:2]]
        if not all(kind(x) == "scalar" for x in items):
            raise UnsupportedError("a tuple of non-scalars")
        return Tup(np.array([float(x) for x in items]))

    def r_matrix(self, node):
        rows = [c for c in node.children if isinstance(c, Tree) and c.data == "mrow"]
        data = []
        for r in rows:
            cells = [self.need(c) for c in r.children if not isinstance(c, Token)]
            if not all(kind(x) == "scalar" for x in cells):
                raise UnsupportedError("a matrix with non-scalar entries")
            data.append([float(x) for x in cells])
        if len({len(r) for r in data}) != 1:
            raise ShapeError("matrix rows of different lengths")
        return _canonical(np.array(data))

    def r_cases(self, node):
        for row in (c for c in node.children if isinstance(c, Tree) and c.data == "crow"):
            parts = [c for c in row.children if not isinstance(c, Token) or c.type == "TEXT"]
            value_node, cond = parts[0], parts[1]
            if isinstance(cond, Token):  # \text{otherwise}
                return self.eval(value_node)
            if all(ok for ok, _ in compare_chain(self, cond)):
                return self.eval(value_node)
        raise UnsupportedError("no case applies")

    def r_frac(self, node):
        num, den = node.children[1], node.children[2]
        d = self.derivative_quotient(inner_expr(num), inner_expr(den))
        if d is not None:
            return d
        return self.ctx.track(divide(self.need(inner_expr(num)), self.need(inner_expr(den))))

    def r_sqrt(self, node):
        x = self.need(inner_expr(node.children[1]))
        if kind(x) != "scalar":
            raise ShapeError("\\sqrt of a non-scalar")
        if x < 0:
            raise UnsupportedError(f"\\sqrt of a negative number {x:.6g}")
        return math.sqrt(x)

    def r_norm(self, node, order=None):
        x = self.need(node.children[1])
        if isinstance(x, Tup):
            x = x.a
        k = kind(x)
        if k == "scalar":
            return abs(float(x))
        if order is None:
            if k in ("vector", "row"):
                order = "2"
            else:
                raise UnsupportedError("the norm of a matrix without a subscript (2 or F)")
        if order == "2":
            if k in ("vector", "row"):
                return float(np.sqrt(np.sum(np.asarray(x, dtype=float) ** 2)))
            return float(np.linalg.norm(x, 2))
        if order == r"\infty":
            if k in ("vector", "row"):
                return float(np.max(np.abs(x)))
            return float(np.linalg.norm(x, np.inf))
        if order == "F":
            return float(np.sqrt(np.sum(np.asarray(x) ** 2)))
        raise UnsupportedError(f"the norm with subscript {order}")

    def r_abs(self, node):
        x = self.need(node.children[1])
        return Tup(np.abs(x.a)) if isinstance(x, Tup) else np.abs(x) if isinstance(
            x, np.ndarray) else abs(float(x))

    def r_ceil(self, node):
        x = self.need(node.children[1])
        if kind(x) != "scalar":
            raise ShapeError("\\lceil of a non-scalar")
        return float(math.ceil(x - 1e-12 * max(1.0, abs(x))))

    def r_inner(self, node, weight=None):
        a = as_vector(self.need(node.children[1]))
        b = as_vector(self.need(node.children[3]))
        if a.shape != b.shape:
            raise ShapeError(f"\\langle\\rangle of lengths {a.size} and {b.size}")
        if weight is None:
            return float(np.sum(a * b))
        return float(a @ weight @ b)

    def r_accent(self, node):
        name = canon(node)
        accent = ACCENT_ALIASES.get(str(node.children[0]), str(node.children[0]))
        if accent == r"\bar" and not self.env.knows(name):  # a bar is the mean over features
            x = as_array(self.need(inner_expr(node.children[1])))
            if kind(x) != "vector":
                raise UnsupportedError("a bar over a non-vector")
            return float(np.mean(x))
        return self.named(name, [], applied=False)

    def r_log(self, node):
        return self.log(None)

    def r_partial(self, node):
        raise UnsupportedError("\\partial outside a quotient of partials")

    def r_placeholder(self, node):
        raise UnsupportedError("\\cdot as a placeholder")

    def r_chain(self, node):
        raise UnsupportedError("a relation inside an expression")

    def log(self, base):
        def call(x):
            x = self.as_value(x)
            if kind(x) != "scalar" or x <= 0:
                raise UnsupportedError("log of a non-positive number")
            return math.log(x) / (math.log(base) if base else 1.0)

        return Fn("log", call, prefix=True)

    # -- factors: names, subscripts, powers ------------------------------------------------
    def r_factor(self, node, applied=False):
        atom, posts = node.children[0], list(node.children[1:])
        if isinstance(atom, Tree) and atom.data == "norm" and posts and \
                posts[0].data == "sub_script":
            order = canon(posts[0].children[1])
            return self.postfixes(self.r_norm(atom, order), posts[1:])
        if isinstance(atom, Tree) and atom.data == "inner" and posts and \
                posts[0].data == "sub_script":
            weight = self.need(inner_expr(posts[0].children[1]))
            return self.postfixes(self.r_inner(atom, weight), posts[1:])
        if isinstance(atom, Tree) and atom.data == "log":
            atom = atom.children[0]
        if isinstance(atom, Token) and atom.type == "LOG":
            base = None
            if posts and posts[0].data == "sub_script":
                base = self.need(inner_expr(posts[0].children[1]))
                posts = posts[1:]
            return self.postfixes(self.log(base), posts)
        if is_name_atom(atom):
            if isinstance(atom, Tree) and not self.env.knows(atom_name(atom)) and \
                    ACCENT_ALIASES.get(str(atom.children[0]), str(atom.children[0])) == r"\bar":
                return self.postfixes(self.r_accent(atom), posts)
            return self.named(atom_name(atom), posts, applied)
        return self.postfixes(self.eval(atom), posts)

    def named(self, base: str, posts, applied: bool):
        env = self.env
        # the longest run of postfixes that spells a known name
        candidates = []
        name = base
        for j, p in enumerate(posts):
            ext = name_extension(p)
            if ext is None:
                break
            name += ext
            candidates.append((j + 1, name))
        for used, cand in reversed(candidates):
            if env.knows(cand):
                return self.postfixes(self.symbol(cand, applied and used == len(posts)),
                                      posts[used:])
        # a family member: u_0(z), J_{\varepsilon/\alpha^2}(z), \mathrm{LN}_0, h'_\varepsilon
        primes = 0
        while primes < len(posts) and posts[primes].data == "prime":
            primes += 1
        if primes < len(posts) and posts[primes].data == "sub_script":
            arg = posts[primes].children[1]
            family = self.family_of(base)
            if family is not None and (not env.knows(base) or applied or
                                       self.index_values(arg) is None):
                value = self.family(family, arg)
                for _ in range(primes):
                    value = self.differentiate_fn(value, 1)
                return self.postfixes(value, posts[primes + 1:])
        if not env.knows(base):
            implicit = base + r"_{\varepsilon}"  # \mathrm{LN}(z): the stabilizer left implicit
            if env.knows(implicit) and isinstance(env.value(implicit), Fn):
                return self.postfixes(self.symbol(implicit, applied and not posts), posts)
            full = candidates[-1][1] if candidates else base
            raise UnknownSymbolError(f"unknown symbol {full}")
        return self.postfixes(self.symbol(base, applied and not posts), posts, name=base)

    def family_of(self, base: str):
        """``p -> X_p``: the symbol with the stabilizer set to p (``u_0``, ``J_0``)."""
        env = self.env
        fname = base + r"_{\varepsilon}"
        entry = env.table.get(base)
        if fname not in env.table and (entry is None or entry.family is None) and \
                env._binding(fname, True) is None and env._binding(fname) is None:
            return None
        if env.knows(fname):
            fn = env.value(fname)
            if isinstance(fn, Fn) and fn.family is not None:
                return fn.family
        entry = env.entry(base)
        if entry is not None and entry.family is not None:
            over = entry.applies_to

            def family(p):
                inner = env.with_overrides({entry.family: p})

                def call(x):
                    x = self.as_value(x)
                    if isinstance(x, Tup):
                        x = x.a
                    return inner.with_overrides({over: x}).value(base)

                return Fn(base, call, default=lambda: inner.value(base), family=family)

            return family
        return None

    def symbol(self, name: str, applied: bool):
        env = self.env
        entry = env.entry(name)
        if applied and entry is not None and entry.applies_to:
            return self.applicable(name, entry)
        value = env.value(name)
        self.ctx.track(as_array(value) if isinstance(value, Tup) else value)
        return value

    def applicable(self, name, entry):
        """The symbol as a function of its input (``\\mu(z)``, ``q(z + \\delta)``, ``J(z)``)."""
        env = self.env
        over = entry.applies_to

        def call(x):
            x = self.as_value(x)
            if isinstance(x, Tup):
                x = x.a
            return env.with_overrides({over: x}).value(name)

        return Fn(name, call, default=lambda: env.value(name))

    def postfixes(self, value, posts, name=None):
        for p in posts:
            if p.data == "prime":
                value = self.differentiate_fn(value, len(str(p.children[0])))
            elif p.data == "sub_script":
                value = self.subscript(value, p.children[1], name)
            else:
                value = self.superscript(value, p.children[1])
            name = None
        return value

    def index_values(self, arg) -> list | None:
        """The indices a subscript names (``_i``, ``_{ij}``, ``_2``), or None if it is not
        index-like. An unbound letter stays a str (the caller raises FreeIndexError)."""
        node = inner_expr(arg)
        if isinstance(node, Tree) and node.data == "sublist":
            items = [c for c in node.children if not isinstance(c, Token) or c.type != "COMMA"]
        else:
            items = [node]
        parts = []
        for item in items:
            if isinstance(item, Tree) and item.data == "juxt" and all(
                    isinstance(c, Tree) and c.data == "factor" and len(c.children) == 1
                    for c in item.children):
                toks = [c.children[0] for c in item.children]
            elif isinstance(item, Tree) and item.data == "factor" and len(item.children) == 1:
                toks = [item.children[0]]
            elif isinstance(item, Token):
                toks = [item]
            else:
                return None
            for tok in toks:
                if not isinstance(tok, Token):
                    return None
                if tok.type in ("NUMBER", "DIGIT"):
                    v = float(tok)
                    if v != int(v):
                        return None
                    parts.append(int(v))
                elif tok.type == "LETTER":
                    letter = str(tok)
                    if letter in self.env.scope:
                        v = self.env.scope[letter]
                        if v != int(v):
                            return None
                        parts.append(int(v))
                    elif self.env.knows(letter):
                        v = self.env.value(letter)
                        if kind(v) != "scalar" or v != int(v):
                            return None
                        parts.append(int(v))
                    else:
                        parts.append(letter)
                else:
                    return None
        return parts

    def subscript(self, value, arg, name=None):
        idx = self.index_values(arg)
        if idx is None:
            what = name or kind(value)
            raise UnknownSymbolError(f"unknown symbol {what}_{{{canon(arg)}}}")
        for i in idx:
            if isinstance(i, str):
                raise FreeIndexError(i)
        return index(value, idx, self.env)

    def family(self, family, arg):
        node = inner_expr(arg)
        if isinstance(node, Tree) and node.data == "sublist":
            items = [c for c in node.children if not isinstance(c, Token) or c.type != "COMMA"]
        else:
            items = [node]
        result = family(self.need(items[0]))
        if len(items) > 1:
            rest = Tree("subarg", [Token("LBRACE", "{"), Tree("sublist", items[1:]),
                                   Token("RBRACE", "}")])
            idx = self.index_values(rest)
            if idx is None:
                raise UnsupportedError(f"the subscript {canon(arg)}")
            for i in idx:
                if isinstance(i, str):
                    raise FreeIndexError(i)
            inner = result
            env = self.env
            result = Fn(inner.name, lambda *a: index(inner.call(*a), idx, env),
                        default=lambda: index(inner.value(), idx, env))
        return result

    def superscript(self, value, arg):
        node = inner_expr(arg)
        if isinstance(node, Token) and node.type == "SUPOP":
            op = token_text(node)
            if op == r"\top":
                return transpose(self.as_value(value))
            raise UnsupportedError(f"superscript {op}")
        if isinstance(value, Fn) and value.prefix:
            raise UnsupportedError("a power of a function")
        exponent = self.need(node)
        if kind(exponent) != "scalar":
            raise ShapeError("a non-scalar exponent")
        return self.ctx.track(power(self.as_value(value), float(exponent)))

    # -- juxtaposition ---------------------------------------------------------------------
    def r_juxt(self, node):
        children = list(node.children)
        tail = None
        if children and isinstance(children[-1], Tree) and children[-1].data in ("bigop",
                                                                                 "integral"):
            tail = children.pop()
        values = self.factors(children)
        if tail is not None:
            values.append(self.eval(tail))
        if not values:
            raise UnsupportedError("an empty product")
        result = values[0]
        for v in values[1:]:
            v = self.as_value(v)
            self.ctx.track(as_array(v))
            result = self.ctx.track(multiply(self.as_value(result), v))
        return result

    def factors(self, children):
        values = []
        k = 0
        n = len(children)
        while k < n:
            f = children[k]
            nxt = children[k + 1] if k + 1 < n else None
            follows_group = nxt is not None and _is_group_factor(nxt)
            if _is_operator_d(f, self.env):
                if nxt is None:
                    raise UnsupportedError("D without an operand")
                after = children[k + 2] if k + 2 < n else None
                fn = self.derivative_of(nxt, after is not None and _is_group_factor(after))
                k += 2
                if isinstance(fn, Fn) and after is not None and _is_group_factor(after):
                    values.append(self.apply(fn, after))
                    k += 1
                else:
                    values.append(fn)
                continue
            v = self._cached(f, follows_group, Evaluator.r_factor, self, f, follows_group) \
                if isinstance(f, Tree) and f.data == "factor" else self.eval(f)
            if isinstance(v, Fn) and nxt is not None and (follows_group or v.prefix):
                values.append(self.apply(v, nxt))
                k += 2
                continue
            values.append(v)
            k += 1
        return values

    def apply(self, fn: Fn, arg_factor):
        """``f(x)``: the argument is the next factor's atom; its postfixes act on the result
        (``\\mathrm{rms}(z)^2``), except for a prefix function, whose argument is the whole
        next factor (``\\operatorname{tr} J``)."""
        if fn.prefix or not (isinstance(arg_factor, Tree) and arg_factor.data == "factor"):
            return fn.call(self.eval(arg_factor))
        atom, posts = arg_factor.children[0], arg_factor.children[1:]
        if isinstance(atom, Tree) and atom.data == "tuple" and fn.arity > 1:
            args = [self.need(c) for c in atom.children[1:-1:2]]
        else:
            args = [self.eval(atom.children[1] if atom.data == "group" else atom)]
        result = fn.call(*args)
        return self.postfixes(result, posts)

    # -- big operators and integrals -------------------------------------------------------
    def r_bigop(self, node):
        op = str(node.children[0])[1:]
        limits = node.children[1] if len(node.children) == 3 else None
        body = node.children[-1]
        if limits is None:
            v = self.need(body)
            arr = v.a if isinstance(v, Tup) else as_array(v)
            if np.ndim(arr) == 0:
                raise UnsupportedError(f"\\{op} of a single scalar")
            return float({"sum": np.sum, "max": np.max, "min": np.min, "prod": np.prod}[op](arr))
        variables, ranges = self.index_ranges(limits)
        results = []
        for assignment in _assignments(variables, ranges):
            results.append(self.sub(self.env.with_scope(**assignment)).need(body))
        if not results:
            raise UnsupportedError(f"an empty \\{op}")
        if op == "sum":
            total = results[0]
            for r in results[1:]:
                total = add(total, r, 1)
            return self.ctx.track(total)
        if op == "prod":
            total = results[0]
            for r in results[1:]:
                total = multiply(total, r)
            return total
        if not all(kind(r) == "scalar" for r in results):
            raise UnsupportedError(f"\\{op} of non-scalars")
        return float(max(results) if op == "max" else min(results))

    def index_ranges(self, limits):
        if limits.data == "limits_swapped":
            sup, sub = limits.children[1], limits.children[3]
        else:
            sub = limits.children[1]
            sup = limits.children[3] if len(limits.children) > 2 else None
        upper = self.need(inner_expr(sup)) if sup is not None else self.env.d
        node = inner_expr(sub)
        # \sum_i, \sum_{ij}, \sum_{i=1}, \sum_{j \ne i}
        if isinstance(node, Tree) and node.data == "sublist" and len(node.children) == 1:
            node = node.children[0]
        if isinstance(node, Tree) and node.data == "chain":
            var = _letters(node.children[0])
            if var is None or len(var) != 1:
                raise UnsupportedError(f"the range {canon(node)}")
            rel = str(node.children[1].children[-1] if node.children[1].children[-1].type ==
                      "REL" else node.children[1].children[0])
            bound = self.need(node.children[2])
            if rel == "=":
                lo = int(bound)
                return var, [range(lo, int(upper) + 1)]
            if rel in (r"\ne", r"\neq"):
                return var, [[k for k in range(1, int(upper) + 1) if k != int(bound)]]
            raise UnsupportedError(f"the range {canon(node)}")
        var = _letters(node)
        if var is None or any(self.env.knows(v) and v not in self.env.scope for v in var):
            raise UnsupportedError(f"a sum or maximum over {canon(node)}")
        return var, [range(1, int(upper) + 1)] * len(var)

    def r_integral(self, node):
        limits, body = node.children[1], node.children[2]
        if limits.data == "limits_swapped":
            raise UnsupportedError("\\int with limits in the other order")
        lo = self.need(inner_expr(limits.children[1]))
        hi = self.need(inner_expr(limits.children[3])) if len(limits.children) > 2 else None
        if hi is None:
            raise UnsupportedError("\\int without an upper limit")
        factors = list(body.children)
        split = None
        for k in range(len(factors) - 1):
            f, g = factors[k], factors[k + 1]
            if isinstance(f, Tree) and f.data == "factor" and len(f.children) == 1 and \
                    isinstance(f.children[0], Token) and str(f.children[0]) == "d":
                var = factor_name(g)
                if var is not None:
                    split = (k, var)
                    break
        if split is None:
            raise UnsupportedError("\\int without d<variable>")
        k, var = split
        inner, outer = factors[:k], factors[k + 2:]
        self.ctx.numeric = True
        half = (hi - lo) / 2.0
        total = None
        for x, w in zip(_GL_NODES, _GL_WEIGHTS):
            t = lo + half * (x + 1.0)
            vals = self.sub(self.env.with_scope(**{var: t})).factors(inner)
            v = vals[0]
            for u in vals[1:]:
                v = multiply(self.as_value(v), self.as_value(u))
            v = self.as_value(v)
            term = multiply(w * half, v)
            total = term if total is None else add(total, term, 1)
        result = total
        for v in self.factors(outer):
            result = multiply(result, self.as_value(v))
        return self.ctx.track(result)

    # -- derivatives -----------------------------------------------------------------------
    def derivative_quotient(self, num, den):
        """``\\partial X / \\partial Y`` and ``\\frac{\\partial X}{\\partial Y}``, by central
        differences in Y with every other input fixed; None when it is not such a quotient."""
        a, b = _partial_operand(num), _partial_operand(den)
        if a is None or b is None:
            return None
        return self.partial(a, b)

    def target(self, factor):
        """The variable of a partial derivative: a symbol, maybe indexed (``z_j``)."""
        atom, posts = factor.children[0], list(factor.children[1:])
        if not is_name_atom(atom):
            raise UnsupportedError("a partial derivative with respect to an expression")
        name = atom_name(atom)
        extra = []
        for j, p in enumerate(posts):
            ext = name_extension(p)
            if ext is None:
                raise UnsupportedError("a power in the variable of a partial derivative")
            if self.env.knows(name + ext):
                name += ext
            else:
                extra = posts[j:]
                break
        if not self.env.knows(name):
            raise UnknownSymbolError(f"unknown symbol {name}")
        idx = None
        if extra:
            if len(extra) != 1 or extra[0].data != "sub_script":
                raise UnsupportedError("the variable of a partial derivative")
            idx = self.index_values(extra[0].children[1])
            if idx is None:
                raise UnsupportedError("the index of a partial derivative")
            for i in idx:
                if isinstance(i, str):
                    raise FreeIndexError(i)
        return name, idx

    def partial(self, num, var_factor):
        name, idx = self.target(var_factor)
        x0 = self.as_value(self.env.value(name))
        if isinstance(x0, Tup):
            x0 = x0.a
        if kind(x0) not in ("scalar", "vector"):
            raise UnsupportedError("a derivative with respect to a matrix")
        self.ctx.numeric = True
        scalar = kind(x0) == "scalar"
        x0 = np.atleast_1d(np.asarray(x0, dtype=float))
        components = [i - 1 for i in idx] if idx is not None else range(x0.size)
        if idx is not None and len(idx) != 1:
            raise UnsupportedError("a second index on the variable")
        if len(components) > MAX_NUMERIC_SIZE:
            raise UnsupportedError(f"a numerical derivative in {len(components)} variables")
        columns = []
        for c in components:
            if not 0 <= c < x0.size:
                raise ShapeError(f"index {c + 1} out of range 1..{x0.size}")
            h = 1e-5 * max(1.0, abs(x0[c]))
            vals = []
            for sign in (1, -1):
                x = x0.copy()
                x[c] += sign * h
                xv = float(x[0]) if scalar else x
                env = self.env.perturbed(name, c, sign, xv)
                vals.append(as_array(self.sub(env).need(num)))
            columns.append((vals[0] - vals[1]) / (2 * h))
        if idx is not None:
            return _canonical(np.asarray(columns[0])) if np.ndim(columns[0]) else float(
                columns[0])
        stacked = np.stack(columns, axis=-1)
        if stacked.ndim == 1:  # scalar numerator: the gradient, a column
            return stacked
        return _canonical(stacked)

    def derivative_of(self, factor, applied):
        """``D f`` (a function: its Jacobian, by central differences) or ``D v`` (a symbol that
        depends on the record: its Jacobian in z)."""
        v = self.r_factor(factor, applied=True) if isinstance(factor, Tree) and \
            factor.data == "factor" else self.eval(factor)
        if isinstance(v, Fn):
            return self.differentiate_fn(v, 1, jacobian=True)
        name = factor_name(factor)
        if isinstance(factor, Tree) and factor.data == "factor" and isinstance(
                factor.children[0], Tree) and factor.children[0].data == "group" and \
                len(factor.children) == 1:
            expr = factor.children[0].children[1]  # D(z/r): the expression as a function of z
            env = self.env

            def call(x):
                x = self.as_value(x)
                return self.sub(env.with_overrides({"z": x.a if isinstance(x, Tup) else x})
                                ).need(expr)

            fn = Fn("D(...)", call, default=lambda: self.need(expr))
            return self.differentiate_fn(fn, 1, jacobian=True).value()
        if name is None or not self.env.knows(name):
            raise UnsupportedError("D of an expression")
        entry = self.env.entry(name)
        if entry is None or entry.applies_to is None:
            raise UnsupportedError(f"D of {name}, which is not a function of the record")
        return self.differentiate_fn(self.applicable(name, entry), 1, jacobian=True).value()

    def differentiate_fn(self, fn, order: int, jacobian: bool = False):
        if not isinstance(fn, Fn):
            raise UnsupportedError("a prime on a value that is not a function")
        if order != 1:
            inner = self.differentiate_fn(fn, order - 1, jacobian)
            return self.differentiate_fn(inner, 1, jacobian)
        if fn.derivative is not None:
            return fn.derivative
        env = self.env

        def call(*args):
            if len(args) != 1:
                raise UnsupportedError("the derivative of a function of several arguments")
            x0 = self.as_value(args[0])
            if isinstance(x0, Tup):
                x0 = x0.a
            current_context().numeric = True
            if kind(x0) == "scalar":
                h = 1e-5 * max(1.0, abs(x0))
                hi, lo = self.as_value(fn.call(x0 + h)), self.as_value(fn.call(x0 - h))
                return _canonical((as_array(hi) - as_array(lo)) / (2 * h))
            x0 = np.asarray(x0, dtype=float)
            if x0.size > MAX_NUMERIC_SIZE:
                raise UnsupportedError(f"a numerical derivative in {x0.size} variables")
            cols = []
            for c in range(x0.size):
                h = 1e-5 * max(1.0, abs(x0[c]))
                xp, xm = x0.copy(), x0.copy()
                xp[c] += h
                xm[c] -= h
                hi, lo = self.as_value(fn.call(xp)), self.as_value(fn.call(xm))
                cols.append((as_array(hi) - as_array(lo)) / (2 * h))
            out = np.stack(cols, axis=-1)
            return out.reshape(1, -1) if out.ndim == 1 else out

        default = None
        if fn.default is not None:
            z = env.value("z") if env.knows("z") else None

            def default():
                return call(z)

        family = None
        if fn.family is not None:
            def family(p):
                return self.differentiate_fn(fn.family(p), 1, jacobian)
        return Fn(fn.name + "'", call, default=default, family=family)


_DISPATCH = {name[2:]: getattr(Evaluator, name) for name in dir(Evaluator)
             if name.startswith("r_")}


# --------------------------------------------------------------------------------------------
# helpers on values
# --------------------------------------------------------------------------------------------


def _is_group_factor(f) -> bool:
    return isinstance(f, Tree) and f.data == "factor" and isinstance(f.children[0], Tree) and \
        f.children[0].data in ("group", "tuple")


def _is_operator_d(f, env) -> bool:
    if not (isinstance(f, Tree) and f.data == "factor" and len(f.children) == 1):
        return False
    tok = f.children[0]
    if not (isinstance(tok, Token) and tok.type == "LETTER" and str(tok) == "D"):
        return False
    if env._binding("D") is not None or "D" in env.scope:
        return False
    return isinstance(env.table.get("D") and env.value("D"), Operator)


def _partial_operand(node):
    """The operand of a single ``\\partial X`` factor, or None."""
    node = inner_expr(node)
    while isinstance(node, Tree) and node.data in ("juxt", "brace") and len(node.children) in (
            1, 3):
        node = node.children[0] if node.data == "juxt" else node.children[1]
    if isinstance(node, Tree) and node.data == "factor" and len(node.children) == 1:
        node = node.children[0]
    if isinstance(node, Tree) and node.data == "partial":
        operand = node.children[1]
        return operand
    return None


def _letters(node):
    if isinstance(node, Token):
        return [str(node)] if node.type == "LETTER" else None
    if isinstance(node, Tree) and node.data == "factor" and len(node.children) == 1:
        return _letters(node.children[0])
    if isinstance(node, Tree) and node.data == "juxt":
        out = []
        for c in node.children:
            got = _letters(c)
            if got is None:
                return None
            out += got
        return out
    if isinstance(node, Tree) and node.data == "sublist" and len(node.children) == 1:
        return _letters(node.children[0])
    return None


def _assignments(variables, ranges):
    if not variables:
        yield {}
        return
    for k in ranges[0]:
        for rest in _assignments(variables[1:], ranges[1:]):
            out = {variables[0]: k}
            out.update(rest)
            yield out


def as_array(x):
    if isinstance(x, Tup):
        return x.a
    if isinstance(x, Fn):
        return as_array(x.value())
    return x


def as_vector(x):
    if isinstance(x, Tup):
        return x.a
    if kind(x) == "row":
        return x[0]
    if kind(x) != "vector":
        raise ShapeError(f"a vector was expected, not a {kind(x)}")
    return x


def add(a, b, sign):
    a, b = as_array(a), as_array(b)
    ka, kb = kind(a), kind(b)
    if ka == "scalar" and kb == "scalar":
        return float(a) + sign * float(b)
    if ka == "scalar" or kb == "scalar":
        other = kb if ka == "scalar" else ka
        raise ShapeError(f"{'+' if sign > 0 else '-'} between a scalar and a {other}")
    if np.shape(a) != np.shape(b):
        raise ShapeError(f"{'+' if sign > 0 else '-'} of shapes {np.shape(a)} and {np.shape(b)}")
    return a + sign * b


def negate(a):
    if isinstance(a, Tup):
        return Tup(-a.a)
    if isinstance(a, Fn):
        a = a.value()
    return -a


def divide(a, b):
    if isinstance(b, Tup):
        raise ShapeError("division by a tuple")
    if kind(b) != "scalar":
        raise ShapeError(f"division by a {kind(b)}")
    if isinstance(a, Tup):
        return Tup(a.a / float(b))
    if float(b) == 0.0:
        raise UnsupportedError("division by zero")
    return a / float(b) if isinstance(a, np.ndarray) else float(a) / float(b)


def multiply(a, b):
    ka, kb = kind(a), kind(b)
    if ka == "scalar":
        return Tup(float(a) * b.a) if kb == "tuple" else float(a) * b
    if kb == "scalar":
        return Tup(a.a * float(b)) if ka == "tuple" else a * float(b)
    if ka == "vector" and kb == "tuple":  # (a_2, -a_1)^T (1, -1): the tuple is a row
        return np.outer(a, b.a)
    a, b = as_array(a), as_array(b)
    ka, kb = kind(a), kind(b)
    if ka == "vector" and kb == "row":
        return np.outer(a, b[0])
    if ka == "row" and kb == "vector":
        if a.shape[1] != b.shape[0]:
            raise ShapeError(f"row of length {a.shape[1]} times a column of length {b.shape[0]}")
        return float(np.sum(a[0] * b))
    if ka in ("matrix", "row") and kb in ("vector", "matrix"):
        if a.shape[1] != b.shape[0]:
            raise ShapeError(f"product of shapes {a.shape} and {b.shape}")
        return _canonical(a @ b)
    if ka == "matrix" and kb == "row" or ka == "row" and kb == "row":
        raise ShapeError(f"product of a {ka} and a {kb}")
    raise ShapeError(f"juxtaposition of a {ka} and a {kb}")


def transpose(x):
    if isinstance(x, Tup):
        return x.a.copy()
    k = kind(x)
    if k == "scalar":
        return x
    if k == "vector":
        return x.reshape(1, -1)
    if k == "row":
        return x[0].copy()
    return x.T.copy()


def power(x, e: float):
    x = as_array(x)
    k = kind(x)
    if k == "scalar":
        x = float(x)
        if x < 0 and e != int(e):
            raise UnsupportedError(f"a fractional power of a negative number {x:.6g}")
        if x == 0 and e < 0:
            raise UnsupportedError("a negative power of zero")
        try:
            return x**e
        except OverflowError:
            return math.inf
    if k == "matrix":
        if e != int(e) or x.shape[0] != x.shape[1]:
            raise UnsupportedError("a non-integer power of a matrix")
        return np.linalg.matrix_power(x, int(e))
    if k == "vector":  # \gamma^2: coordinatewise
        return x**e
    raise ShapeError(f"a power of a {k}")


def index(value, idx, env):
    if isinstance(value, UnitVectors):
        if len(idx) != 1:
            raise ShapeError("e takes one index")
        if not 1 <= idx[0] <= value.d:
            raise ShapeError(f"e_{idx[0]} outside 1..{value.d}")
        return value.index(idx[0])
    if isinstance(value, Fn):
        value = value.value()
    arr = as_array(value)
    if kind(arr) == "scalar":
        raise UnknownSymbolError("a subscript on a scalar")
    if kind(arr) == "row":
        arr = arr[0]
    if len(idx) != np.ndim(arr):
        raise ShapeError(f"{len(idx)} index(es) on an array of {np.ndim(arr)} axes")
    for i, n in zip(idx, np.shape(arr)):
        if not 1 <= i <= n:
            raise ShapeError(f"index {i} outside 1..{n}")
    return float(arr[tuple(i - 1 for i in idx)])


# --------------------------------------------------------------------------------------------
# relations
# --------------------------------------------------------------------------------------------

RTOL = 1e-9
RTOL_NUMERIC = 1e-6


def _rel(node) -> str:
    toks = [c for c in node.children if isinstance(c, Token) and c.type == "REL"]
    r = str(toks[0])
    return {r"\neq": r"\ne", r"\leq": r"\le", r"\geq": r"\ge"}.get(r, r)


def approx_tolerance(node, value, ev):
    """Half a unit of the last digit a literal shows (``0.074074``, ``1.2 \\times 10^{-4}``,
    ``(0.3651, 0.7303)``, ``0.5874\\,\\varepsilon``), or None if the node is not one."""
    node = _strip(node)
    if isinstance(node, Token) and node.type in ("NUMBER", "DIGIT"):
        text = str(node)
        places = len(text.split(".")[1]) if "." in text else 0
        return 0.5 * 10.0**-places
    if isinstance(node, Tree):
        if node.data == "neg":
            return approx_tolerance(node.children[1], value, ev)
        if node.data in ("times", "dot"):
            a, b = _strip(node.children[0]), _strip(node.children[2])
            ta = approx_tolerance(a, None, ev)
            p = _power_of_ten(b)
            if ta is not None and p is not None:
                return ta * 10.0**p
            return None
        if node.data == "factor":
            p = _power_of_ten(node)
            if p is not None:
                return 0.5 * 10.0**p
            return None
        if node.data == "tuple":
            tols = [approx_tolerance(c, None, ev) for c in node.children[1:-1:2]]
            if any(t is None for t in tols):
                return None
            return np.array(tols)
        if node.data == "juxt" and len(node.children) >= 2:
            first = _strip(node.children[0])
            t = approx_tolerance(first, None, ev)
            if t is not None and isinstance(first, Token):
                rest = Tree("juxt", node.children[1:])
                return t * np.abs(as_array(ev.need(rest)))
    return None


def _strip(node):
    while isinstance(node, Tree) and (node.data == "juxt" and len(node.children) == 1 or
                                      node.data == "factor" and len(node.children) == 1 or
                                      node.data in ("group", "brace")):
        node = node.children[0] if node.data in ("juxt", "factor") else node.children[1]
    return node


def _power_of_ten(node):
    node = _strip(node)
    if isinstance(node, Tree) and node.data == "factor" and len(node.children) == 2:
        base, post = node.children
        if isinstance(base, Token) and str(base) == "10" and post.data == "sup_script":
            return _number(inner_expr(post.children[1]))
    return None


def _number(node):
    """The value of a node made of numbers only (an exponent such as ``-5`` or ``1/2``)."""
    node = _strip(node)
    if isinstance(node, Token):
        return float(node) if node.type in ("NUMBER", "DIGIT") else None
    parts = [c for c in node.children if not isinstance(c, Token)]
    vals = [_number(c) for c in parts]
    if any(v is None for v in vals):
        return None
    if node.data == "neg":
        return -vals[0]
    if node.data == "pos":
        return vals[0]
    if node.data in ("add", "sub", "div") and len(vals) == 2:
        a, b = vals
        return a + b if node.data == "add" else a - b if node.data == "sub" else (
            a / b if b else None)
    return None


def elements(chain_node):
    """The expressions and relations of a chain: [e0, r1, e1, r2, e2, ...]."""
    out = []
    for c in chain_node.children:
        if isinstance(c, Tree) and c.data == "rel":
            out.append(_rel(c))
        else:
            out.append(c)
    return out


def compare_chain(ev: Evaluator, chain_node, elems=None):
    """Evaluate a chain ``a R b R c ...``; returns [(ok, detail)] per relation."""
    elems = elems if elems is not None else elements(chain_node)
    with _Measure() as ctx:
        return _compare(ev, elems, ctx)


def _compare(ev, elems, ctx):
    exprs = elems[0::2]
    rels = elems[1::2]
    values = [ev.as_value(ev.eval(e)) for e in exprs]
    literal_tols = [None] * len(exprs)
    if r"\approx" in rels:
        for k, e in enumerate(exprs):
            literal_tols[k] = approx_tolerance(e, values[k], ev)
    results = []
    for k, rel in enumerate(rels):
        a, b = values[k], values[k + 1]
        tol = None
        if rel == r"\approx":
            tol = literal_tols[k + 1] if literal_tols[k + 1] is not None else literal_tols[k]
            if tol is None:  # the nearest literal of the chain sets the precision
                order = sorted(range(len(exprs)), key=lambda j: min(abs(j - k), abs(j - k - 1)))
                for j in order:
                    if literal_tols[j] is not None:
                        tol = literal_tols[j]
                        break
            if tol is None:
                raise UnsupportedError("\\approx between expressions: no digits give its tolerance")
        results.append(relation(a, rel, b, ctx, tol))
    return results


def relation(a, rel, b, ctx: Context, tol=None):
    a, b = as_array(a), as_array(b)
    ka, kb = kind(a), kind(b)
    if ka != kb and "scalar" not in (ka, kb):
        raise ShapeError(f"{ka} {rel} {kb}")
    if ka != "scalar" and kb != "scalar" and np.shape(a) != np.shape(b):
        raise ShapeError(f"shapes {np.shape(a)} {rel} {np.shape(b)}")
    A, B = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    rtol = RTOL_NUMERIC if ctx.numeric else RTOL
    scale = max(ctx.magnitude, float(np.max(np.abs(A))) if A.size else 0.0,
                float(np.max(np.abs(B))) if B.size else 0.0)
    if not math.isfinite(scale):
        scale = 1.0
    atol = rtol * scale + 1e-300
    with np.errstate(invalid="ignore"):
        diff = np.abs(A - B)
        if rel == "=":
            ok = bool(np.all(diff <= atol)) or bool(np.all(A == B))
        elif rel == r"\approx":
            ok = bool(np.all(diff <= np.asarray(tol) * (1 + 1e-9) + atol))
        elif rel == r"\ne":
            ok = bool(np.any(diff > atol))
        elif rel == "<":
            ok = bool(np.all(A < B))
        elif rel == ">":
            ok = bool(np.all(A > B))
        elif rel == r"\le":
            ok = bool(np.all(A <= B + atol))
        elif rel == r"\ge":
            ok = bool(np.all(A >= B - atol))
        else:
            raise UnsupportedError(f"relation {rel}")
    return ok, f"{describe(a)} {rel} {describe(b)}"
