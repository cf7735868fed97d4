"""The symbol table: every symbol of book/notation.md, mapped to a computation.

Inputs (the record ``z``, ``d``, ``\\varepsilon``, the gain, ...) get seeded generic values, one
set per seed in ``SEEDS``, so that a formula is checked at records of three sizes and three
ratios of variance to epsilon. Everything else is computed from them, with lnbook where lnbook
computes it (``\\mu`` and ``q`` by ``lnbook.stats``, the core by ``lnbook.core``, ``J`` by
``lnbook.jacobian``, ``P`` by ``lnbook.centering_matrix``, ...) and with numpy where the
notation page defines a name lnbook has no function for (``\\sigma`` is ``np.std``, the unit
roundoff comes from ``np.finfo``). A prose binding (``z = (1, 2, 3)``) replaces an input, and
everything derived from it follows.

``tests/test_formulas.py`` checks that ``SYMBOLS`` holds exactly the symbols of the notation
page, so the page and this table cannot drift apart.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

import lnbook

from .evaluate import Fn, Operator, Tup, UnitVectors, UnsupportedError, as_array, kind

SEEDS = (0, 1, 2)
# three regimes: variance comparable to epsilon (d = 5), a near-constant record with epsilon
# above one (d = 2, the smallest d with a non-trivial layer), and a near-constant record with
# a small epsilon (d = 8), where the Jacobian's norm is close to its bound
_DIMS = {0: 5, 1: 2, 2: 8}
_EPS = {0: 0.37, 1: 2.9, 2: 0.013}
_SCALE = {0: 1.0, 1: 0.2, 2: 0.05}
_OFFSET = {0: 0.7, 1: -0.4, 2: 2.0}
_ALPHA = {0: 1.7, 1: 0.3, 2: 4.2}
_C = {0: -1.3, 1: 3.5, 2: 0.6}
_T = {0: 0.8, 1: -1.9, 2: 3.1}
_TAU = {0: 1e-3, 1: 0.02, 2: 0.3}
_ETA = {0: 0.1, 1: 0.03, 2: 0.5}

def regimes() -> list[dict]:
    """The size and the stabilizer of each seed's generic record (the testing page shows them)."""
    return [{"d": _DIMS[s], "eps": _EPS[s]} for s in SEEDS]


FORMATS = {"float64": np.float64, "float32": np.float32, "float16": np.float16}


@dataclass(frozen=True)
class Symbol:
    """One entry. ``role``: ``input`` (seeded; prose binds it to a literal), ``definable``
    (a generic name a chapter defines, such as the loss), ``derived`` (computed), ``function``,
    ``operator``. ``applies_to``: the input a use such as ``\\mu(x)`` replaces. ``swap``: the
    symbol of the same kind the mutation test puts in its place."""

    name: str
    role: str
    compute: Callable
    meaning: str
    applies_to: str | None = None
    swap: str | None = None
    family: str | None = None  # J_0(z): the parameter a subscript sets
    vector: bool = False  # an input of shape (d,): a scalar binding is that constant vector


_DRAWS: dict = {}


def _draw(env, name, make):
    """A seeded generic value, drawn once per (seed, name, d) and shared (read-only)."""
    key = (env.seed, name, env.d)
    value = _DRAWS.get(key)
    if value is None:
        value = make(env.rng(name))
        if isinstance(value, np.ndarray):
            value.flags.writeable = False
        _DRAWS[key] = value
    return value


def _vector(env, name, loc=0.0, scale=1.0):
    return _draw(env, name, lambda rng: rng.normal(loc, scale, env.d))


def _m(env) -> int:
    return env.d + 1  # the width of a linear layer's input (not d, to catch shape mistakes)


def _record(env):
    s = env.seed % 1000
    return _vector(env, "z", _OFFSET.get(s, 0.5), _SCALE.get(s, 1.0))


def _d(env):
    if "z" in env.overrides:
        return len(np.atleast_1d(env.overrides["z"]))
    if "d" in env.overrides:
        return env.overrides["d"]
    return _DIMS.get(env.seed, 4)


def _eps(env):
    return _EPS.get(env.seed, 0.1)


def _vec_input(name):
    def compute(env):
        return _vector(env, name)
    return compute


def _weights(env):
    return _draw(env, "a", lambda rng: rng.dirichlet(np.ones(env.d)))


def _g(env):
    if env.is_bound(r"\ell"):  # the loss of the text: its gradient in y
        from .evaluate import Evaluator, Token, Tree
        node = Tree("factor", [Token("GREEK", r"\ell")])
        target = Tree("factor", [Token("LETTER", "y")])
        return Evaluator(env).partial(node, target)
    return _vector(env, "g")


def _loss(env):
    # the default loss is linear in y, with gradient g: l = g^T y
    return float(np.sum(as_array(env.value("g")) * as_array(env.value("y"))))


def _placeholder(what):
    def compute(env):
        raise UnsupportedError(f"{what}: the text must say which (bind it)")
    return compute


def _vec(x):
    x = as_array(x)
    if kind(x) == "scalar":
        raise UnsupportedError("a scalar where a vector is expected")
    return np.asarray(x, dtype=float)


def _eps_of(env):
    return float(env.value(r"\varepsilon"))


def _stats(env):
    return lnbook.stats(_vec(env.value("z")))


def _family(env, name, default_param, make):
    """A function symbol with a subscripted parameter: ``u_\\varepsilon``, ``u_0``, ..."""

    def fn(param):
        def call(x):
            return make(env, _vec(x), param)
        return Fn(name, call, default=lambda: make(env, _vec(env.value("z")), param),
                  family=fn)

    return fn(default_param)


def _core(env, x, eps):
    return lnbook.core(x, eps=float(eps))


def _ln(env, x, eps):
    gamma, beta = _vec(env.value(r"\gamma")), _vec(env.value(r"\beta"))
    return lnbook.layer_norm(x, gamma, beta, eps=float(eps))


def _jac(env, x, eps):
    return lnbook.jacobian(x, eps=float(eps))


def _response_fn(env):
    def make(param):
        eps = float(param)

        def call(t):
            t = as_array(t)
            if kind(t) != "scalar":
                raise UnsupportedError("h takes a scalar")
            return float(lnbook.response(float(t), eps=eps).item())

        def slope(t):
            return float(lnbook.response_slope(float(as_array(t)), eps=eps).item())

        deriv = Fn(r"h'", slope, default=lambda: slope(env.value("t")))
        return Fn(r"h", call, default=lambda: call(env.value("t")), family=make,
                  derivative=deriv)

    return make(_eps_of(env))


def _rms(env):
    def call(x):
        x = _vec(x.a if isinstance(x, Tup) else x)
        # lnbook.rms_norm(x, eps=0) is x / rms(x): rms(x) is x_k over its k-th entry
        k = int(np.argmax(np.abs(x)))
        if x[k] == 0:
            return 0.0
        return float(x[k] / lnbook.rms_norm(x, eps=0.0)[k])
    return Fn(r"\mathrm{rms}", call)


def _ulp(env):
    dtype = FORMATS[env.fmt]

    def call(x):
        x = as_array(x)
        if kind(x) != "scalar":
            raise UnsupportedError("ulp of a non-scalar")
        return float(np.spacing(dtype(abs(float(x)))))
    return Fn(r"\mathrm{ulp}", call, prefix=False)


def _rho(env):
    return float(np.finfo(FORMATS[env.fmt]).eps) / 2


def _lambdas(env):
    return lnbook.jacobian_eigenvalues(_vec(env.value("z")), eps=_eps_of(env))


def _s(env):
    return float(np.sqrt(env.value("q") + _eps_of(env)))


def _y(env):
    return _ln(env, _vec(env.value("z")), _eps_of(env))


S = Symbol
SYMBOLS: dict[str, Symbol] = {s.name: s for s in [
    # records and statistics
    S("z", "input", _record, "a record", swap="z'", vector=True),
    S("d", "input", _d, "the number of features", swap="c"),
    S("B", "input", lambda env: {0: 2, 1: 4, 2: 3}.get(env.seed, 2), "batch size", swap="T"),
    S("T", "input", lambda env: {0: 3, 1: 2, 2: 5}.get(env.seed, 3), "sequence length",
      swap="B"),
    S(r"\mathbf 1", "derived", lambda env: np.ones(env.d), "the all-ones vector"),
    S("e_i", "derived", lambda env: UnitVectors(env.d), "the i-th unit vector"),
    S("I", "derived", lambda env: np.eye(env.d), "the identity matrix", swap="A"),
    S(r"\mu", "derived", lambda env: float(_stats(env)[0]), "the mean (lnbook.stats)",
      applies_to="z", swap="q"),
    S("v", "derived", lambda env: _vec(env.value("z")) - float(_stats(env)[0]),
      "the centered record", swap="y"),
    S("q", "derived", lambda env: float(_stats(env)[1]), "the variance (lnbook.stats)",
      applies_to="z", swap=r"\mu"),
    S(r"\sigma", "derived", lambda env: float(np.std(_vec(env.value("z")))),
      "the population standard deviation (np.std)", swap="s"),
    S("P", "derived", lambda env: lnbook.centering_matrix(env.d),
      "the centering matrix (lnbook.centering_matrix)", swap="A"),
    S("a", "input", _weights, "centering weights", swap=r"\delta", vector=True),
    S("P_a", "derived", lambda env: lnbook.weighted_centering_matrix(_vec(env.value("a"))),
      "weighted centering (lnbook.weighted_centering_matrix)", swap="A"),
    S("A", "derived", lambda env: np.diag(_vec(env.value("a"))), "diag(a)", swap="P_a"),
    # the layer
    S(r"\varepsilon", "input", _eps, "the stabilizer", swap="c"),
    S("s", "derived", _s, "the stabilized scale", swap=r"\sigma"),
    S("u", "derived", lambda env: _core(env, _vec(env.value("z")), _eps_of(env)),
      "the core (lnbook.core)", swap="y"),
    S(r"u_\varepsilon", "function",
      lambda env: _family(env, r"u_\varepsilon", _eps_of(env), _core), "the core as a function"),
    S(r"\gamma", "input", _vec_input(r"\gamma"), "the gain", swap=r"\beta", vector=True),
    S(r"\beta", "input", _vec_input(r"\beta"), "the bias", swap=r"\gamma", vector=True),
    S(r"\Gamma", "derived", lambda env: np.diag(_vec(env.value(r"\gamma"))),
      "the gain as a diagonal matrix", swap="P"),
    S("y", "derived", _y, "the output (lnbook.layer_norm)", swap="v"),
    S(r"\mathrm{LN}_\varepsilon", "function",
      lambda env: _family(env, r"\mathrm{LN}_\varepsilon", _eps_of(env), _ln),
      "the layer as a function"),
    S(r"\operatorname{rms}", "function", _rms, "the root mean square (lnbook.rms_norm)"),
    # derivatives and sensitivity
    S("D", "operator", lambda env: Operator("D"), "the derivative operator"),
    S("J", "derived", lambda env: _jac(env, _vec(env.value("z")), _eps_of(env)),
      "the Jacobian of the core (lnbook.jacobian)", applies_to="z", swap="A",
      family=r"\varepsilon"),
    S(r"\lambda", "definable", _placeholder("an eigenvalue"), "an eigenvalue"),
    S(r"\lambda_{\mathrm{rad}}", "derived", lambda env: float(_lambdas(env)[0]),
      "the radial eigenvalue (lnbook.jacobian_eigenvalues)", swap=r"\lambda_{\mathrm{tan}}"),
    S(r"\lambda_{\mathrm{tan}}", "derived", lambda env: float(_lambdas(env)[1]),
      "the tangential eigenvalue (lnbook.jacobian_eigenvalues)",
      swap=r"\lambda_{\mathrm{rad}}"),
    S(r"\lVert \cdot \rVert_2", "operator", _placeholder("the norm"), "the 2-norm"),
    S("L", "definable", _placeholder("a Lipschitz constant"), "a Lipschitz constant"),
    S(r"\ell", "definable", _loss, "a scalar loss (by default g^T y)"),
    S("g", "input", _g, "the upstream gradient", swap=r"\delta", vector=True),
    S(r"\delta", "input", _vec_input(r"\delta"), "a perturbation", swap="g", vector=True),
    S(r"\tau", "input", lambda env: _TAU.get(env.seed, 1e-3), "a finite-difference step",
      swap="c"),
    S("t", "input", lambda env: _T.get(env.seed, 0.5), "the family parameter", swap="c"),
    S(r"h_\varepsilon", "function", _response_fn, "the response (lnbook.response)"),
    # transformations and networks
    S(r"\alpha", "input", lambda env: _ALPHA.get(env.seed, 2.0), "a scale factor", swap="c"),
    S("c", "input", lambda env: _C.get(env.seed, 1.0), "a scalar shift", swap="t"),
    S("x", "input", lambda env: _draw(env, "x", lambda r: r.normal(0, 1, _m(env))),
      "a layer's input",
      swap=r"\omega"),
    S("W", "input", lambda env: _draw(env, "W", lambda r: r.normal(0, 1, (env.d, _m(env)))),
      "a weight matrix", swap="P"),
    S("b", "input", _vec_input("b"), "a layer's bias", swap=r"\delta", vector=True),
    S(r"\xi", "input", lambda env: _draw(env, "xi", lambda r: r.normal(0, 1, _m(env))),
      "a shift of a layer's input", swap="x"),
    S(r"\omega", "input", lambda env: _draw(env, "omega", lambda r: r.normal(0, 1, _m(env))),
      "a re-centering vector", swap="x"),
    S(r"\eta", "input", lambda env: _ETA.get(env.seed, 0.1), "a learning rate", swap="c"),
    # floating point
    S(r"\rho", "derived", _rho, "the unit roundoff (np.finfo)", swap=r"\mu"),
    S(r"\operatorname{ulp}", "function", _ulp, "unit in the last place (np.spacing)"),
]}


def _diag(x):
    x = as_array(x)
    if kind(x) == "vector":
        return np.diag(x)
    if kind(x) == "matrix":
        return np.diag(x).copy()
    raise UnsupportedError("diag of a scalar")


def _trace(x):
    x = as_array(x)
    if kind(x) != "matrix":
        raise UnsupportedError("the trace of a non-matrix")
    return float(np.trace(x))


def _sign(x):
    x = as_array(x)
    return np.sign(x) if isinstance(x, np.ndarray) else float(np.sign(x))


def _mean(x):
    x = as_array(x)
    if kind(x) != "vector":
        raise UnsupportedError("E[...] of a non-vector")
    return float(np.mean(x))


def _median(x):
    return float(np.median(_vec(x)))


def _relu(x):
    x = as_array(x)
    return np.maximum(x, 0) if isinstance(x, np.ndarray) else max(float(x), 0.0)


def _rmsnorm(env):
    return _family(env, r"\mathrm{RMSNorm}", _eps_of(env),
                   lambda env, x, eps: lnbook.rms_norm(x, eps=float(eps)))


def _builtin(name, fn, prefix=True):
    return Symbol(name, "builtin", lambda env: Fn(name, fn, prefix=prefix), name)


# operators the grammar reads as functions; not notation symbols (the page does not list them)
BUILTINS: dict[str, Symbol] = {s.name: s for s in [
    _builtin(r"\mathrm{diag}", _diag),
    _builtin(r"\mathrm{tr}", _trace),
    _builtin(r"\mathrm{sign}", _sign),
    _builtin(r"\mathrm{median}", _median),
    _builtin(r"\mathrm{relu}", _relu, prefix=False),
    _builtin("E", _mean, prefix=False),
    Symbol(r"\mathrm{RMSNorm}", "builtin", _rmsnorm, "RMSNorm (lnbook.rms_norm)"),
]}


def lookup_table() -> dict[str, Symbol]:
    """The names a formula can use, by canonical name (the parser's spelling)."""
    from .evaluate import canon
    from .parse import parse

    table = {}
    for key, sym in list(SYMBOLS.items()) + list(BUILTINS.items()):
        if key == r"\lVert \cdot \rVert_2":
            continue
        name = canonical_name(key, parse, canon)
        if key == "e_i":
            name = "e"
        table[name] = sym
    return table


def canonical_name(text, parse=None, canon=None):
    if parse is None:
        from .evaluate import canon
        from .parse import parse
    tree = parse(text)
    node = tree.children[0]
    while hasattr(node, "data") and node.data in ("item_list", "juxt", "start") and len(
            node.children) == 1:
        node = node.children[0]
    return canon(node)


def notation_symbols(text: str | None = None) -> set[str]:
    """The symbols book/notation.md defines, by canonical name: every formula of a table's
    first column (its left side up to the first relation other than ``=``, and each name of an
    ``=`` chain: ``u = u_\\varepsilon(z) = v / s`` gives ``u`` and ``u_\\varepsilon``), and the
    name on the left of every ``<name> = ...`` in the second column."""
    import re

    from .check import _function_definition, split
    from .evaluate import canon, factor_name
    from .pages import ROOT

    if text is None:
        text = (ROOT / "book" / "notation.md").read_text()
    names = set()

    def heads(formula: str, first_column: bool):
        formula = re.split(r"\\in(?![a-zA-Z])", formula)[0]
        for part in split(formula):
            if part.elems is None:
                if first_column and part.expr is not None:
                    fn = _function_definition(part.expr)
                    names.add(factor_name(part.expr) or (fn[0] if fn else canon(part.expr)))
                continue
            for k, e in enumerate(part.elems[0::2]):
                if k and part.elems[2 * k - 1] != "=":
                    break
                name = factor_name(e)
                if name is None:
                    fn = _function_definition(e)
                    name = fn[0] if fn else None
                if name is not None:
                    names.add(name)
                if not first_column:
                    break

    for line in text.splitlines():
        cols = [c.strip() for c in line.strip().strip("|").split("|")]
        if not line.startswith("|") or len(cols) < 2 or set(cols[0]) <= set("- "):
            continue
        for m in re.finditer(r"\$([^$]+)\$", cols[0]):
            heads(m.group(1), True)
        for m in re.finditer(r"\$([^$]+)\$", cols[1]):
            if "=" in m.group(1):
                heads(m.group(1), False)
    names.discard("symbol")
    return names
