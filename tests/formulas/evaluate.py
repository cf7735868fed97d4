"""Evaluate a parsed formula with the linear-algebra meaning a reader gives it.

Values: floats (scalars), 1-d arrays (columns), arrays of shape (1, n) (rows: what a transpose
makes of a column), 2-d arrays (matrices), ``Tup`` (a literal ``(1, 2, 3)``: a column, or the
row of an outer product right after a column) and ``Fn`` (a function). Juxtaposition goes by
the operands' kinds: a scalar scales, ``v v^\\top`` is an outer product, ``v^\\top v`` a number,
``P z`` a matrix-vector product, and a function followed by a parenthesis is applied to it.

Names are looked up in an ``Env``: values overriding them (a perturbed input, an argument), the
cell's bindings and definitions (latest first), then the symbol table (``symbols.py``), which
computes every symbol with lnbook from seeded inputs. Anything outside this subset raises an
``EvalError`` whose reason the reports show; nothing is skipped silently.
"""

from __future__ import annotations

import copy
import math
import zlib

import numpy as np
from lark import Token, Tree

from .latex import extension, factor_name, inner, is_name, tex, tokens

_GL = np.polynomial.legendre.leggauss(16)


class EvalError(Exception):
    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


class FreeIndexError(Exception):
    """An index letter with no value (``v_i``): the claim is meant for every i."""

    def __init__(self, letter: str):
        super().__init__(letter)
        self.letter = letter


class Track:
    """What an evaluation met: numerical derivatives or quadrature (the tolerance widens to
    1e-6), the largest term of a sum (cancellation scales the error), and an input at its
    seeded value (without one, every seed gives the same answer)."""

    numeric, scale, generic = False, 0.0, False

    def reset(self) -> tuple:
        state = self.numeric, self.scale, self.generic
        self.numeric, self.scale, self.generic = False, 0.0, False
        return state

    def merge(self, state: tuple):
        self.numeric, self.scale, self.generic = (self.numeric or state[0], max(
            self.scale, state[1]), self.generic or state[2])


TRACK = Track()


def track(x):
    a = x.a if isinstance(x, Tup) else x
    if isinstance(a, float | int | np.floating | np.ndarray) and np.size(a):
        m = float(np.max(np.abs(a)))
        if math.isfinite(m) and m > TRACK.scale:
            TRACK.scale = m
    return float(x) if isinstance(x, np.floating) else x


class Tup:
    """A tuple literal: a column, or a row right after a column (``(a_2, -a_1)^\\top (1, -1)``)."""

    def __init__(self, a):
        self.a = np.asarray(a, dtype=float)


class Fn:
    """A function. ``default``: its value where the text writes the bare name (``u_\\varepsilon``
    for ``u_\\varepsilon(z)``); ``prefix``: it takes the next factor without parentheses
    (``\\operatorname{tr} P``); ``family``: its member with another stabilizer (``u_0``)."""

    def __init__(self, call, default=None, prefix=False, family=None, derivative=None,
                 arity=1):
        self.call, self.default, self.prefix = call, default, prefix
        self.family, self.derivative, self.arity = family, derivative, arity

    def value(self):
        if self.default is None:
            raise EvalError("a function used without its argument")
        return self.default()


class UnitVectors:
    """``e``: indexed, the unit vectors of R^d."""

    def __init__(self, d):
        self.d = d


OPERATOR_D = object()  # the derivative operator D


def kind(x) -> str:
    if isinstance(x, Tup | Fn | UnitVectors):
        return {Tup: "tuple", Fn: "function", UnitVectors: "unit vectors"}[type(x)]
    if isinstance(x, np.ndarray):
        return "vector" if x.ndim == 1 else "row" if x.shape[0] == 1 else "matrix"
    return "scalar"


def array(x):
    x = x.value() if isinstance(x, Fn) else x
    return x.a if isinstance(x, Tup) else x


def vector(x) -> np.ndarray:
    x = array(x)
    if kind(x) not in ("vector", "row"):
        raise EvalError(f"a vector was expected, not a {kind(x)}")
    return np.ravel(x)


def _canonical(x):
    """A 1x1 array is a number, an (n, 1) array a column."""
    if isinstance(x, np.ndarray) and x.ndim == 2 and x.shape[1] == 1:
        return float(x[0, 0]) if x.shape[0] == 1 else x[:, 0]
    return x


def add(a, b, sign=1):
    a, b = track(array(a)), track(array(b))
    if kind(a) == kind(b) == "scalar":
        return float(a) + sign * float(b)
    if np.shape(a) != np.shape(b) or "scalar" in (kind(a), kind(b)):
        raise EvalError(f"a {kind(a)} {'+-'[sign < 0]} a {kind(b)}")
    return a + sign * b


def mul(a, b):
    ka, kb = kind(a), kind(b)
    if "scalar" in (ka, kb):
        t = Tup(a.a * b if ka == "tuple" else b.a * a) if "tuple" in (ka, kb) else None
        return t if t is not None else a * b
    if ka == "vector" and kb == "tuple":  # (a_2, -a_1)^T (1, -1): the tuple is a row
        return np.outer(a, b.a)
    a, b = array(a), array(b)
    ka, kb = kind(a), kind(b)
    if ka == "vector" and kb == "row":
        return np.outer(a, b[0])
    if ka in ("row", "matrix") and kb in ("vector", "matrix") and a.shape[1] == b.shape[0]:
        track(np.abs(a) @ np.abs(b))  # the terms of the sums of a product
        return float((a @ b)[0]) if ka == "row" and kb == "vector" else _canonical(a @ b)
    raise EvalError(f"no product of a {ka} {np.shape(a)} and a {kb} {np.shape(b)}")


def divide(a, b):
    if kind(b) != "scalar":
        raise EvalError(f"division by a {kind(b)}")
    if b == 0:
        raise EvalError("division by zero")
    return Tup(a.a / b) if isinstance(a, Tup) else array(a) / float(b)


def power(x, e):
    x = array(x)
    if kind(e) != "scalar":
        raise EvalError("a non-scalar exponent")
    if kind(x) == "matrix":
        if e != int(e) or x.shape[0] != x.shape[1]:
            raise EvalError("a non-integer power of a matrix")
        return np.linalg.matrix_power(x, int(e))
    if kind(x) not in ("scalar", "vector"):
        raise EvalError(f"a power of a {kind(x)}")
    if np.any(np.asarray(x) < 0) and e != int(e) or np.any(np.asarray(x) == 0) and e < 0:
        raise EvalError("a power outside its domain")
    try:
        return x ** float(e)
    except OverflowError:
        return math.inf


def transpose(x):
    if isinstance(x, Tup):
        return x.a.copy()
    x = array(x)
    return {"scalar": lambda: x, "vector": lambda: x.reshape(1, -1),
            "row": lambda: x[0].copy()}.get(kind(x), lambda: x.T.copy())()


def index(x, idx: list[int]):
    if isinstance(x, UnitVectors):
        if len(idx) != 1 or not 1 <= idx[0] <= x.d:
            raise EvalError(f"e_{idx} outside 1..{x.d}")
        return np.eye(x.d)[idx[0] - 1]
    x = array(x)
    x = x[0] if kind(x) == "row" else x
    if len(idx) != np.ndim(x) or not all(1 <= i <= n for i, n in zip(idx, np.shape(x))):
        raise EvalError(f"index {idx} on shape {np.shape(x)}")
    return float(x[tuple(i - 1 for i in idx)])


class Env:
    """Where names get their values at one seed: ``over`` (values that override everything: a
    perturbed input, a function's argument), ``defs`` (the cell's bindings, latest first; each
    is evaluated in the environment before it), the symbol table; ``scope`` holds bound
    variables (a summation index, a function's parameter)."""

    def __init__(self, table, seed, defs=(), over=None, fmt="float64"):
        self.table, self.seed, self.defs, self.over, self.fmt = table, seed, defs, over or {}, fmt
        self.scope, self.memo, self._before = {}, {}, {}

    def bind(self, name, node, params=None) -> Env:
        return Env(self.table, self.seed, self.defs + ((name, node, params),), self.over,
                   self.fmt)

    def override(self, **values) -> Env:
        return Env(self.table, self.seed, self.defs, {**self.over, **values}, self.fmt)

    def with_fmt(self, fmt) -> Env:
        return Env(self.table, self.seed, self.defs, self.over, fmt)

    def with_scope(self, **values) -> Env:
        env = copy.copy(self)
        env.scope = {**self.scope, **values}
        if any(name in self.table for name in values):  # it shadows an input: a memo of its own
            env.memo = {}
        return env

    def before(self, k) -> Env:
        if k not in self._before:
            self._before[k] = Env(self.table, self.seed, self.defs[:k], self.over, self.fmt)
        return self._before[k]

    def find(self, name) -> int | None:
        return next((k for k in range(len(self.defs) - 1, -1, -1) if self.defs[k][0] == name),
                    None)

    def bound(self, name) -> bool:
        return name in self.over or self.find(name) is not None

    def primed(self, name):
        """``z'``, ``a'``: another generic value of an input (drawn at another seed)."""
        base = name.rstrip("'")
        entry = self.table.get(base)
        return base if name != base and entry is not None and entry.role == "input" else None

    def knows(self, name) -> bool:
        return (name in self.scope or self.bound(name) or name in self.table or
                self.primed(name) is not None)

    def value(self, name):
        if name in self.scope:
            return self.scope[name]
        if name in self.over:
            return self.over[name]
        if name not in self.memo:  # what computing it met counts wherever it is used
            outer = TRACK.reset()
            try:
                value = self._compute(name)
                self.memo[name] = (value, TRACK.reset())
            finally:
                TRACK.merge(outer)
        value, state = self.memo[name]
        TRACK.merge(state)
        return value

    def _compute(self, name):
        k = self.find(name)
        if k is not None:
            _, node, params = self.defs[k]
            env = self.before(k)
            if params is not None:
                return Fn(lambda *a: Evaluator(env.with_scope(**dict(zip(params, a))))(node),
                          arity=len(params))
            value = Evaluator(env).value(node, keep_functions=True)
            entry = self.table.get(name)
            if entry is not None and entry.vector:  # \gamma = 0, \gamma = (1, 2): a vector
                value = array(value)
                value = np.full(env.d, float(value)) if kind(value) == "scalar" else value
            return value.a if isinstance(value, Tup) else value
        if name in self.table:
            TRACK.generic |= self.table[name].role == "input"
            return self.table[name].compute(self)
        base = self.primed(name)
        if base is None:
            raise EvalError(f"unknown symbol {name}")
        TRACK.generic = True
        other = Env(self.table, self.seed + 1000 * name.count("'"), over={"d": self.d})
        return self.table[base].compute(other)

    @property
    def d(self) -> int:
        return int(self.value("d"))

    def rng(self, name):
        return np.random.default_rng([self.seed, zlib.crc32(name.encode())])


class Evaluator:
    def __init__(self, env: Env):
        self.env = env

    def __call__(self, node):
        return self.value(node)

    def value(self, node, keep_functions=False):
        v = self.eval(node)
        if isinstance(v, Fn) and not keep_functions:
            v = v.value()
        if v is OPERATOR_D or isinstance(v, UnitVectors):
            raise EvalError("D or e used without an operand")
        return v

    def eval(self, node):
        if isinstance(node, Token):
            return self.token(node)
        method = getattr(self, "r_" + node.data, None)
        if method is None:
            raise EvalError(f"construct {node.data}")
        return method(*node.children)

    def token(self, tok):
        if tok.type in ("NUMBER", "DIGIT"):
            return float(tok)
        if tok.type == "INFTY":
            return math.inf
        if is_name(tok):
            return self.named(tex(tok), [], False)
        if tok.type == "LOG":
            return self.log(None)
        raise EvalError(f"{tok} here")

    # -- arithmetic ------------------------------------------------------------------------
    def r_add(self, a, _, b):
        return add(self(a), self(b))

    def r_subtract(self, a, _, b):
        return add(self(a), self(b), -1)

    def r_neg(self, _, a):
        a = self(a)
        return Tup(-a.a) if isinstance(a, Tup) else -a

    def r_signed(self, _, a):
        return self(a)

    def r_mul(self, a, _, b):
        return mul(self(a), self(b))

    def r_div(self, a, _, b):
        d = self.derivative_quotient(a, b)
        return d if d is not None else divide(self(a), self(b))

    def r_frac(self, _, a, b):
        return self.r_div(inner(a), None, inner(b))

    def r_hadamard(self, a, _, b):
        a, b = array(self(a)), array(self(b))
        if np.shape(a) != np.shape(b):
            raise EvalError(f"\\odot of shapes {np.shape(a)} and {np.shape(b)}")
        return a * b

    def r_group(self, _, x, __):
        return self.eval(x)

    def r_tuple(self, *kids):
        items = [self(c) for c in kids[1:-1:2]]
        if any(kind(x) != "scalar" for x in items):
            raise EvalError("a tuple of non-scalars")
        return Tup(items)

    def r_matrix(self, *kids):
        rows = [[self(c) for c in r.children if isinstance(c, Tree)] for r in kids
                if isinstance(r, Tree)]
        if any(kind(x) != "scalar" for r in rows for x in r) or len(set(map(len, rows))) > 1:
            raise EvalError("a matrix of non-scalars, or rows of different lengths")
        return _canonical(np.array(rows, dtype=float))

    def r_cases(self, *kids):
        for row in (r for r in kids if isinstance(r, Tree)):
            value, cond = [c for c in row.children if isinstance(c, Tree) or c.type == "TEXT"]
            if isinstance(cond, Token) or all(ok for ok, _ in compare(self, elements(cond))):
                return self.eval(value)
        raise EvalError("no case applies")

    def r_sqrt(self, _, x):
        x = self(inner(x))
        if kind(x) != "scalar" or x < 0:
            raise EvalError("\\sqrt of a non-scalar or a negative number")
        return math.sqrt(x)

    def r_norm(self, _, x, __, order=None):
        x = array(self(x))
        if kind(x) == "scalar":
            return abs(float(x))
        order = order or ("2" if kind(x) != "matrix" else None)
        if kind(x) == "matrix" and order == "2":
            return float(np.linalg.norm(x, 2))
        if order in ("2", "F"):
            return float(np.sqrt(np.sum(x**2)))
        if order == r"\infty":
            return float(np.max(np.abs(x)) if kind(x) != "matrix" else np.linalg.norm(x, np.inf))
        raise EvalError(f"the norm with subscript {order}")

    def r_abs(self, _, x, __):
        x = self(x)
        return Tup(np.abs(x.a)) if isinstance(x, Tup) else np.abs(x)

    def r_ceil(self, _, x, __):
        x = self(x)
        return float(math.ceil(x - 1e-12 * max(1.0, abs(x))))

    def r_inner(self, _, a, __, b, ___, weight=None):
        a, b = vector(self(a)), vector(self(b))
        if a.shape != b.shape:
            raise EvalError("\\langle\\rangle of vectors of different lengths")
        return float(a @ (np.eye(a.size) if weight is None else array(weight)) @ b)

    def r_accent(self, accent, arg):
        name = tex(accent) + "{" + tex(arg) + "}"
        if tex(accent) == r"\bar" and not self.env.knows(name):  # a bar is the mean
            return float(np.mean(vector(self(inner(arg)))))
        return self.named(name, [], False)

    def r_partial(self, *_):
        raise EvalError("\\partial outside a quotient of partials")

    def log(self, base):
        def call(x):
            if kind(x) != "scalar" or x <= 0:
                raise EvalError("log of a non-positive number")
            return math.log(x) / (math.log(base) if base else 1.0)

        return Fn(call, prefix=True)

    # -- factors: names, subscripts, powers, application --------------------------------------
    def r_factor(self, atom, *posts, applied=False):
        first = posts[0] if posts and isinstance(posts[0], Tree) and posts[0].data == "sub" \
            else None
        if is_name(atom) and (self.env.knows(tex(atom)) or tex(atom)[:4] != r"\bar"):
            return self.named(tex(atom), list(posts), applied)
        if first is not None and isinstance(atom, Tree) and atom.data in ("norm", "inner"):
            extra = tex(first.children[1]) if atom.data == "norm" else self(
                inner(first.children[1]))
            value = getattr(self, "r_" + atom.data)(*atom.children, extra)
            return self.postfix(value, posts[1:])
        if first is not None and isinstance(atom, Token) and atom.type == "LOG":
            return self.postfix(self.log(self(inner(first.children[1]))), posts[1:])
        return self.postfix(self.eval(atom), posts)

    def named(self, base, posts, applied):
        env = self.env
        name, names = base, []
        for p in posts:  # the longest run of postfixes that spells a known name
            ext = extension(p)
            if ext is None:
                break
            name += ext
            names.append(name)
        for used in range(len(names), 0, -1):
            if env.knows(names[used - 1]):
                value = self.symbol(names[used - 1], applied and used == len(posts))
                return self.postfix(value, posts[used:])
        primes = 0
        while primes < len(posts) and isinstance(posts[primes], Token):
            primes += 1
        rest = posts[primes:]
        family = self.family(base)
        if family is not None and rest and rest[0].data == "sub" and (
                applied or not env.knows(base) or self.indices(rest[0].children[1]) is None):
            items = sublist(rest[0].children[1])
            value = family(self(items[0]))
            if len(items) > 1:  # u_{\varepsilon,i}(z): the i-th entry of the value
                idx = self.indices(Tree("sublist", items[1:]), strict=True)
                f = value
                value = Fn(lambda x: index(f.call(x), idx), lambda: index(f.value(), idx))
            for p in posts[:primes]:
                value = self.differentiate(value, len(str(p)))
            return self.postfix(value, rest[1:])
        if not env.knows(base):
            implicit = base + r"_{\varepsilon}"  # \mathrm{LN}(z): the stabilizer left implicit
            if env.knows(implicit) and isinstance(env.value(implicit), Fn):
                return self.postfix(self.symbol(implicit, applied and not posts), posts)
            raise EvalError(f"unknown symbol {names[-1] if names else base}")
        return self.postfix(self.symbol(base, applied and not posts), posts)

    def symbol(self, name, applied):
        entry = self.table_entry(name)
        if applied and entry is not None and entry.applies_to:
            env, over = self.env, entry.applies_to  # \mu(z + c1), J(\alpha z): a function
            return Fn(lambda x: env.override(**{over: array(x)}).value(name),
                      lambda: env.value(name))
        return self.env.value(name)

    def table_entry(self, name):
        return None if self.env.bound(name) or name in self.env.scope else \
            self.env.table.get(name)

    def family(self, base):
        """``p -> X_p``: the symbol with the stabilizer set to p (``u_0``, ``J_0``), or None."""
        env, full = self.env, base + r"_{\varepsilon}"
        if env.knows(full):
            fn = env.value(full)
            return fn.family if isinstance(fn, Fn) else None
        entry = self.table_entry(base)
        if entry is None or entry.family is None:
            return None

        def family(p):
            inner_env = env.override(**{entry.family: p})
            return Fn(lambda x: inner_env.override(**{entry.applies_to: array(x)}).value(base),
                      lambda: inner_env.value(base), family=family)

        return family

    def postfix(self, value, posts):
        for p in posts:
            if isinstance(p, Token):  # primes: derivatives
                value = self.differentiate(value, len(str(p)))
            elif p.data == "sub":
                value = index(value, self.indices(p.children[1], strict=True))
            elif tex(p.children[1]) == r"\top":
                value = transpose(value)
            else:
                if isinstance(value, Fn) and value.prefix:
                    raise EvalError("a power of a function")
                value = power(array(value), self(inner(p.children[1])))
        return value

    def indices(self, arg, strict=False):
        """The indices a subscript names (``_i``, ``_{ij}``, ``_2``); None if it is not one
        (strict: an EvalError); FreeIndexError for a letter with no value."""
        out = []
        for item in sublist(arg):
            kids = item.children if isinstance(item, Tree) and item.data == "juxt" else [item]
            for k in kids:
                f = k.children if isinstance(k, Tree) and k.data == "factor" else [k]
                tok = f[0]
                if len(f) != 1 or not isinstance(tok, Token) or tok.type not in (
                        "NUMBER", "DIGIT", "LETTER"):
                    if strict:
                        raise EvalError(f"unknown symbol or index _{{{tex(arg)}}}")
                    return None
                if tok.type == "LETTER" and not self.env.knows(str(tok)):
                    if strict:
                        raise FreeIndexError(str(tok))
                    out.append(str(tok))
                    continue
                v = float(tok) if tok.type != "LETTER" else self.env.value(str(tok))
                if kind(v) != "scalar" or v != int(v):
                    if strict:
                        raise EvalError(f"the index {tok} is not an integer")
                    return None
                out.append(int(v))
        return out

    def r_juxt(self, *kids):
        values, k = [], 0
        while k < len(kids):
            f, nxt = kids[k], kids[k + 1] if k + 1 < len(kids) else None
            if self.is_operator_d(f):
                if nxt is None:
                    raise EvalError("D without an operand")
                f, k = self.derivative_of(nxt), k + 1
                nxt = kids[k + 1] if k + 1 < len(kids) else None
            else:
                f = self.r_factor(*f.children, applied=is_group(nxt)) \
                    if f.data == "factor" else self.eval(f)
            if isinstance(f, Fn) and nxt is not None and (is_group(nxt) or f.prefix):
                values.append(self.apply(f, nxt))
                k += 2
            else:
                values.append(f)
                k += 1
        if len(values) == 1:
            return values[0]
        result = values[0].value() if isinstance(values[0], Fn) else values[0]
        for v in values[1:]:
            v = v.value() if isinstance(v, Fn) else v
            result = mul(result, v)
        return result

    def apply(self, fn: Fn, arg):
        """``f(x)``: the parenthesis is the argument and the factor's postfixes act on the
        result (``\\operatorname{rms}(z)^2``); a prefix function takes the whole factor."""
        if fn.prefix or arg.data != "factor":
            return fn.call(self(arg))
        atom, posts = arg.children[0], arg.children[1:]
        if atom.data == "tuple" and fn.arity > 1:
            args = [self(c) for c in atom.children[1:-1:2]]
        else:
            args = [self(atom.children[1] if atom.data == "group" else atom)]
        return self.postfix(fn.call(*args), posts)

    # -- big operators and integrals -------------------------------------------------------
    def r_bigop(self, op, *kids):
        op, body = str(op)[1:], kids[-1]
        reduce = {"sum": sum, "prod": math.prod, "max": max, "min": min}[op]
        if len(kids) == 1:  # \max(a, b): over the entries
            return float(reduce(np.ravel(array(self(body)))))
        letters, lo = [], 1  # (letter, relation, other side): i; i = 1; k \ne i
        for item in sublist(kids[1]):
            if isinstance(item, Tree) and item.data == "chain":
                left, rel, right = elements(item)
                lo = int(self(right)) if rel == "=" else lo
                letters.append((factor_name(left), rel, right))
            elif all(t.type == "LETTER" for t in tokens(item)):
                letters += [(str(t), None, None) for t in tokens(item)]
            else:
                raise EvalError(f"the range of \\{op}_{{{tex(kids[1])}}}")
        hi = int(self(inner(kids[3]))) if len(kids) == 5 else self.env.d
        terms = []
        for values in np.ndindex(*(hi - lo + 1,) * len(letters)):
            scope = {name: lo + v for (name, _, _), v in zip(letters, values)}
            env = self.env.with_scope(**scope)
            if all(rel != r"\ne" or scope[name] != Evaluator(env)(right)
                   for name, rel, right in letters):
                terms.append(Evaluator(env)(body))
        if op in ("max", "min"):
            return float(reduce(float(t) for t in terms))
        total = terms[0]
        for t in terms[1:]:
            total = add(total, t) if op == "sum" else mul(total, t)
        return total

    def r_integral(self, _, __, lo, ___, hi, body):
        kids = body.children
        k = next((k for k in range(len(kids) - 1) if tex(kids[k]) == "d" and
                  factor_name(kids[k + 1])), None)
        if k is None:
            raise EvalError("\\int without d<variable>")
        var, integrand = factor_name(kids[k + 1]), Tree("juxt", kids[:k])
        lo, hi = self(inner(lo)), self(inner(hi))
        TRACK.numeric = True
        total = None
        for x, w in zip(*_GL):
            env = self.env.with_scope(**{var: lo + (hi - lo) * (x + 1) / 2})
            term = mul(w * (hi - lo) / 2, Evaluator(env)(integrand))
            total = term if total is None else add(total, term)
        rest = kids[k + 2:]
        return mul(total, self(Tree("juxt", rest))) if rest else total

    # -- derivatives -----------------------------------------------------------------------
    def is_operator_d(self, f):
        return tex(f) == "D" and not self.env.bound("D") and self.env.value("D") is OPERATOR_D

    def derivative_quotient(self, num, den):
        """``\\partial X/\\partial Y``: central differences in Y, every other input fixed."""
        num, den = partial_operand(num), partial_operand(den)
        if num is None or den is None:
            return None
        den = den.children
        name = tex(den[0])
        posts = list(den[1:])
        while posts and extension(posts[0]) and self.env.knows(name + extension(posts[0])):
            name += extension(posts.pop(0))
        if len(posts) > 1 or posts and posts[0].data != "sub":
            raise EvalError("the variable of a partial derivative")
        x0 = array(self.env.value(name))
        comps = [self.indices(posts[0].children[1], strict=True)[0] - 1] if posts else \
            range(np.size(x0))

        def at(c, sign):
            x = np.array(x0, dtype=float, ndmin=1)
            h = 1e-5 * max(1.0, abs(x[c]))
            x[c] += sign * h
            env = self.env.override(**{name: x if np.ndim(x0) else float(x[0])})
            return array(Evaluator(env.with_scope(**self.env.scope))(num)), h

        cols = []
        for c in comps:
            (hi, h), (lo, _) = at(c, 1), at(c, -1)
            cols.append((hi - lo) / (2 * h))
        TRACK.numeric = True
        if posts:
            return float(cols[0]) if np.ndim(cols[0]) == 0 else _canonical(cols[0])
        return _canonical(np.stack(cols, -1))

    def derivative_of(self, node):
        """``D f`` (a function: its Jacobian) or ``D q`` (a symbol of the record)."""
        if is_group(node) and len(node.children) == 1:  # D(z/r): a function of the record
            env, expr = self.env, node.children[0].children[1]
            f = Fn(lambda x: Evaluator(env.override(z=array(x)))(expr), lambda: self(expr))
        else:
            f = self.r_factor(*node.children, applied=True) if node.data == "factor" else \
                self.eval(node)
        if not isinstance(f, Fn):
            raise EvalError("D of a value that is not a function")
        return self.differentiate(f, 1)

    def differentiate(self, fn, order, step=1e-5):
        if not isinstance(fn, Fn):
            raise EvalError("a derivative of a value that is not a function")
        if order > 1:  # steps of 1e-4 keep the rounding of nested differences small
            return self.differentiate(self.differentiate(fn, order - 1, 1e-4), 1, 1e-4)
        if fn.derivative is not None:
            return fn.derivative

        def call(x):
            x0 = array(x)
            TRACK.numeric = True
            if kind(x0) == "scalar":
                h = step * max(1.0, abs(x0))
                return _canonical((array(fn.call(x0 + h)) - array(fn.call(x0 - h))) / (2 * h))
            cols = []
            for c in range(np.size(x0)):
                h, e = step * max(1.0, abs(x0[c])), np.eye(np.size(x0))[c]
                cols.append((array(fn.call(x0 + h * e)) - array(fn.call(x0 - h * e))) / (2 * h))
            out = np.stack(cols, -1)
            return out.reshape(1, -1) if out.ndim == 1 else out

        z = self.env.value("z")
        family = None if fn.family is None else (
            lambda p: self.differentiate(fn.family(p), 1))
        return Fn(call, lambda: call(z), family=family)


def sublist(arg):
    node = inner(arg)
    if isinstance(node, Tree) and node.data == "sublist":
        return [c for c in node.children if not isinstance(c, Token)]
    return [node]


def is_group(node):
    return isinstance(node, Tree) and node.data == "factor" and isinstance(
        node.children[0], Tree) and node.children[0].data in ("group", "tuple")


def partial_operand(node):
    """The operand of ``\\partial X`` (a lone factor), or None."""
    node = inner(node)
    while isinstance(node, Tree) and (node.data in ("juxt", "factor") and len(
            node.children) == 1 or node.data == "group"):
        node = node.children[0] if node.data != "group" else node.children[1]
    return node.children[1] if isinstance(node, Tree) and node.data == "partial" else None


# --------------------------------------------------------------------------------------------
# relations
# --------------------------------------------------------------------------------------------

RELATIONS = {r"\neq": r"\ne", r"\leq": r"\le", r"\geq": r"\ge"}


def elements(chain) -> list:
    """A chain's expressions and relations: [e0, r1, e1, r2, e2, ...]."""
    return [rel_of(c) if isinstance(c, Tree) and c.data == "rel" else c for c in chain.children]


def rel_of(node) -> str:
    r = str(next(t for t in node.children if t.type == "REL"))
    return RELATIONS.get(r, r)


def approx_tolerance(node, ev):
    """Half a unit of the last digit a literal shows (``0.074074``, ``1.2 \\times 10^{-4}``,
    ``(0.3651, 0.7303)``, ``0.5874\\,\\varepsilon``), or None if the node is not one."""
    kids = node.children if isinstance(node, Tree) and node.data == "juxt" else []
    if len(kids) > 1 and tex(kids[0]).replace(".", "").isdigit():  # 0.5874\,\varepsilon
        tol = approx_tolerance(kids[0], ev)
        return tol * np.abs(array(ev(Tree("juxt", kids[1:]))))
    tols = []
    for p in tex(node).replace(" ", "").strip("()").split(","):
        mant, _, exp = p.lstrip("-").partition(r"\times10^{")
        if not exp and mant.startswith("10^{"):
            mant, exp = "1", mant[4:]
        if not mant.replace(".", "", 1).isdigit() or exp and not exp.rstrip(
                "}").lstrip("-").isdigit():
            return None
        places = len(mant.split(".")[1]) if "." in mant else 0
        tols.append(0.5 * 10.0**-places * 10.0 ** float(exp.rstrip("}") or 0))
    return tols[0] if len(tols) == 1 else np.array(tols)


def compare(ev: Evaluator, elems) -> list[tuple[bool, str]]:
    """Each relation of a chain ``a R b R c``: (holds, what was compared)."""
    exprs, rels = elems[0::2], elems[1::2]
    values = [ev(e) for e in exprs]
    tols = [approx_tolerance(e, ev) if r"\approx" in rels else None for e in exprs]
    out = []
    for k, rel in enumerate(rels):
        tol = None
        if rel == r"\approx":  # the nearest literal of the chain sets the precision
            near = sorted(range(len(exprs)), key=lambda j: min(abs(j - k), abs(j - k - 1)))
            tol = next((tols[j] for j in near if tols[j] is not None), None)
            if tol is None:
                raise EvalError("\\approx between expressions: no digits give its tolerance")
        out.append(relation(values[k], rel, values[k + 1], tol))
    return out


def relation(a, rel, b, tol=None) -> tuple[bool, str]:
    a, b = array(a), array(b)
    if kind(a) != kind(b) and "scalar" not in (kind(a), kind(b)) or (
            "scalar" not in (kind(a), kind(b)) and np.shape(a) != np.shape(b)):
        raise EvalError(f"a {kind(a)} {np.shape(a)} {rel} a {kind(b)} {np.shape(b)}")
    A, B = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    scale = max(TRACK.scale, float(np.max(np.abs(A))), float(np.max(np.abs(B))))
    atol = (1e-6 if TRACK.numeric else 1e-9) * (scale if math.isfinite(scale) else 1.0) + 1e-300
    with np.errstate(invalid="ignore"):
        diff = np.abs(A - B)
        ok = {"=": lambda: np.all(diff <= atol) or np.all(A == B),
              r"\approx": lambda: np.all(diff <= np.asarray(tol) * (1 + 1e-9) + atol),
              r"\ne": lambda: np.any(diff > atol), "<": lambda: np.all(A < B),
              ">": lambda: np.all(A > B), r"\le": lambda: np.all(A <= B + atol),
              r"\ge": lambda: np.all(A >= B - atol)}[rel]()
    return bool(ok), f"{describe(a)} {rel} {describe(b)}"


def describe(x) -> str:
    x = np.asarray(array(x), dtype=float)
    if x.ndim == 0:
        return f"{float(x):.6g}"
    return "; ".join(" ".join(f"{v:.4g}" for v in row) for row in np.atleast_2d(x)).join("[]")
