"""The symbol table: every symbol of book/notation.md, bound to a computation.

Inputs (the record ``z``, ``d``, ``\\varepsilon``, the gain, ...) take seeded generic values, in
three regimes (``REGIMES``): a variance comparable to epsilon, a near-constant record with
epsilon above one, and a near-constant record with a small epsilon, where the Jacobian's norm
comes close to its bound. Everything else is computed from them, with lnbook where lnbook
computes it (``\\mu`` and ``q`` by ``lnbook.stats``, the core by ``lnbook.core``, ``J`` by
``lnbook.jacobian``, ``P`` by ``lnbook.centering_matrix``, ...) and with numpy where the notation
page names what lnbook has no function for (``\\sigma`` is ``np.std``, ``\\rho`` comes from
``np.finfo``). A binding in the prose (``z = (1, 2, 3)``) replaces an input, and what depends on
it follows. Names are spelled as ``latex.tex`` spells them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

import lnbook

from .evaluate import OPERATOR_D, EvalError, Fn, UnitVectors, array, kind

SEEDS = (0, 1, 2)
# d, epsilon, the record's spread and offset; alpha, c, t, tau, eta
REGIMES = {0: (5, 0.37, 1.0, 0.7, 1.7, -1.3, 0.8, 1e-3, 0.1),
           1: (2, 2.9, 0.2, -0.4, 0.3, 3.5, -1.9, 0.02, 0.03),
           2: (8, 0.013, 0.05, 2.0, 4.2, 0.6, 3.1, 0.3, 0.5)}
FORMATS = {"float64": np.float64, "float32": np.float32, "float16": np.float16}


def regime(seed: int) -> tuple:
    """The regime of a seed: the three above, or (the sweep's evidence) a random one."""
    if seed % 1000 in REGIMES:
        return REGIMES[seed % 1000]
    r = np.random.default_rng(seed % 1000)
    return (int(r.integers(2, 9)), 10 ** r.uniform(-3, 0.5), 10 ** r.uniform(-1.5, 0.5),
            r.uniform(-2, 2), r.uniform(0.1, 3), r.uniform(-2, 2), r.uniform(-2, 4),
            10 ** r.uniform(-3, -0.5), r.uniform(0.01, 0.5))


@dataclass(frozen=True)
class Symbol:
    """``role``: ``input`` (seeded; prose binds it to a literal), ``definable`` (a chapter may
    define it: the loss, an eigenvalue), ``derived``, ``function``. ``applies_to``: the input
    that a use such as ``\\mu(x)`` replaces; ``family``: the parameter a subscript sets
    (``J_0``); ``swap``: the symbol of the same kind that the mutation sweep puts in its place;
    ``vector``: an input of shape (d,) (a scalar bound to it is that constant vector)."""

    role: str
    compute: Callable
    meaning: str
    swap: str | None = None
    applies_to: str | None = None
    family: str | None = None
    vector: bool = False


def _vec(x):
    x = array(x)
    if kind(x) not in ("vector", "tuple"):
        raise EvalError(f"a {kind(x)} where a vector is expected")
    return np.asarray(x, dtype=float)


def _z(env):
    d, _, spread, offset = regime(env.seed)[:4]
    return env.rng("z").normal(offset, spread, env.d)


def _d(env):
    return len(_vec(env.value("z"))) if env.bound("z") else regime(env.seed)[0]


def _eps(env):
    return float(env.value(r"\varepsilon"))


def _input(name, k=None, shape=None):
    if k is not None:
        return lambda env: regime(env.seed)[k]
    return lambda env: env.rng(name).normal(0, 1, shape(env) if shape else env.d)


def _family(fn):
    """A function of the record with a stabilizer: ``u_\\varepsilon``, ``u_0``, ..."""

    def make(env, eps):
        return Fn(lambda x: fn(env, _vec(x), float(eps)),
                  lambda: fn(env, _vec(env.value("z")), float(eps)),
                  family=lambda p: make(env, p))

    return lambda env: make(env, _eps(env))


def _ln(env, x, eps):
    return lnbook.layer_norm(x, _vec(env.value(r"\gamma")), _vec(env.value(r"\beta")), eps=eps)


def _response(env, eps=None):
    eps = _eps(env) if eps is None else float(eps)
    def f(name):
        return lambda t: np.asarray(getattr(lnbook, name)(float(t), eps=eps)).item()

    slope = Fn(f("response_slope"), lambda: f("response_slope")(env.value("t")))
    return Fn(f("response"), lambda: f("response")(env.value("t")),
              family=lambda p: _response(env, p), derivative=slope)


def _rms(x):
    x = _vec(x)  # lnbook.rms_norm(x, eps=0) is x / rms(x): rms(x) is x_k over its k-th entry
    k = int(np.argmax(np.abs(x)))
    return 0.0 if x[k] == 0 else float(x[k] / lnbook.rms_norm(x, eps=0.0)[k])


def _g(env):
    if not env.bound(r"\ell"):
        return env.rng("g").normal(0, 1, env.d)
    from .evaluate import Evaluator  # the gradient of the loss the text defines
    from .latex import parse
    return Evaluator(env)(parse(r"\partial\ell/\partial y").children[0].children[0])


def _scalar(f, prefix=False):
    return lambda env: Fn(lambda x: f(env, float(x)) if kind(x) == "scalar" else _not_scalar(),
                          prefix=prefix)


def _not_scalar():
    raise EvalError("a function of a number applied to an array")


def _diag(x):
    x = array(x)
    return np.diag(x) if kind(x) in ("vector", "matrix") else _vec(x)


def _builtin(f, prefix=True):
    return Symbol("builtin", lambda env: Fn(f, prefix=prefix), "")


S = Symbol
SYMBOLS: dict[str, Symbol] = {
    # records and statistics
    "z": S("input", _z, "a record", "z'", vector=True),
    "d": S("input", _d, "the number of features", "c"),
    "B": S("input", lambda env: (2, 4, 3)[env.seed % 3], "batch size", "T"),
    "T": S("input", lambda env: (3, 2, 5)[env.seed % 3], "sequence length", "B"),
    r"\mathbf 1": S("derived", lambda env: np.ones(env.d), "the all-ones vector"),
    "e": S("derived", lambda env: UnitVectors(env.d), "the i-th unit vector"),
    "I": S("derived", lambda env: np.eye(env.d), "the identity matrix", "A"),
    r"\mu": S("derived", lambda env: float(lnbook.stats(_vec(env.value("z")))[0]),
              "the mean (lnbook.stats)", "q", applies_to="z"),
    "v": S("derived", lambda env: _vec(env.value("z")) - env.value(r"\mu"),
           "the centered record", "y"),
    "q": S("derived", lambda env: float(lnbook.stats(_vec(env.value("z")))[1]),
           "the variance (lnbook.stats)", r"\mu", applies_to="z"),
    r"\sigma": S("derived", lambda env: float(np.std(_vec(env.value("z")))),
                 "the population standard deviation (np.std)", "s"),
    "P": S("derived", lambda env: lnbook.centering_matrix(env.d),
           "the centering matrix (lnbook.centering_matrix)", "A"),
    "a": S("input", lambda env: env.rng("a").dirichlet(np.ones(env.d)), "centering weights",
           r"\delta", vector=True),
    "P_{a}": S("derived", lambda env: lnbook.weighted_centering_matrix(_vec(env.value("a"))),
               "weighted centering (lnbook.weighted_centering_matrix)", "A"),
    "A": S("derived", lambda env: np.diag(_vec(env.value("a"))), "diag(a)", "P_{a}"),
    # the layer
    r"\varepsilon": S("input", _input("eps", 1), "the stabilizer", "c"),
    "s": S("derived", lambda env: float(np.sqrt(env.value("q") + _eps(env))),
           "the stabilized scale", r"\sigma"),
    "u": S("derived", lambda env: lnbook.core(_vec(env.value("z")), eps=_eps(env)),
           "the core (lnbook.core)", "y"),
    r"u_{\varepsilon}": S("function", _family(lambda env, x, e: lnbook.core(x, eps=e)),
                          "the core as a function"),
    r"\gamma": S("input", _input("gamma"), "the gain", r"\beta", vector=True),
    r"\beta": S("input", _input("beta"), "the bias", r"\gamma", vector=True),
    r"\Gamma": S("derived", lambda env: np.diag(_vec(env.value(r"\gamma"))),
                 "the gain as a diagonal matrix", "P"),
    "y": S("derived", lambda env: _ln(env, _vec(env.value("z")), _eps(env)),
           "the output (lnbook.layer_norm)", "v"),
    r"\mathrm{LN}_{\varepsilon}": S("function", _family(_ln), "the layer as a function"),
    r"\mathrm{rms}": S("function", lambda env: Fn(_rms), "the root mean square"),
    # derivatives and sensitivity
    "D": S("derived", lambda env: OPERATOR_D, "the derivative operator"),
    "J": S("derived", lambda env: lnbook.jacobian(_vec(env.value("z")), eps=_eps(env)),
           "the Jacobian of the core (lnbook.jacobian)", "A", applies_to="z",
           family=r"\varepsilon"),
    r"\lambda": S("definable", lambda env: _not_bound("an eigenvalue"), "an eigenvalue"),
    r"\lambda_{\mathrm{rad}}": S("derived", lambda env: float(lnbook.jacobian_eigenvalues(
        _vec(env.value("z")), eps=_eps(env))[0]), "the radial eigenvalue",
        r"\lambda_{\mathrm{tan}}"),
    r"\lambda_{\mathrm{tan}}": S("derived", lambda env: float(lnbook.jacobian_eigenvalues(
        _vec(env.value("z")), eps=_eps(env))[1]), "the tangential eigenvalue",
        r"\lambda_{\mathrm{rad}}"),
    r"\lVert\cdot\rVert_{2}": S("syntax", lambda env: _not_bound("the norm"), "the 2-norm"),
    "L": S("definable", lambda env: _not_bound("a Lipschitz constant"), "a Lipschitz constant"),
    r"\ell": S("definable", lambda env: float(_vec(env.value("g")) @ _vec(env.value("y"))),
               "a scalar loss (unless the text defines one, g^T y)"),
    "g": S("input", _g, "the upstream gradient", r"\delta", vector=True),
    r"\delta": S("input", _input("delta"), "a perturbation", "g", vector=True),
    r"\tau": S("input", _input("tau", 7), "a step", "c"),
    "t": S("input", _input("t", 6), "the family parameter", "c"),
    r"h_{\varepsilon}": S("function", _response, "the response (lnbook.response)"),
    # transformations and networks
    r"\alpha": S("input", _input("alpha", 4), "a scale factor", "c"),
    "c": S("input", _input("c", 5), "a scalar shift", "t"),
    "x": S("input", _input("x", shape=lambda env: env.d + 1), "a layer's input", r"\omega"),
    "W": S("input", lambda env: env.rng("W").normal(0, 1, (env.d, env.d + 1)),
           "a weight matrix", "P"),
    "b": S("input", _input("b"), "a layer's bias", r"\delta", vector=True),
    r"\xi": S("input", _input("xi", shape=lambda env: env.d + 1), "a shift of the input", "x"),
    r"\omega": S("input", _input("omega", shape=lambda env: env.d + 1),
                 "a re-centering vector", "x"),
    r"\eta": S("input", _input("eta", 8), "a learning rate", "c"),
    # floating point
    r"\rho": S("derived", lambda env: float(np.finfo(FORMATS[env.fmt]).eps) / 2,
               "the unit roundoff (np.finfo)", r"\mu"),
    r"\mathrm{ulp}": S("function", _scalar(lambda env, x: float(np.spacing(FORMATS[env.fmt](
        abs(x))))), "unit in the last place (np.spacing)"),
}


def _not_bound(what):
    raise EvalError(f"{what}: the text must say which (bind it)")


# functions the text uses that are not symbols of the notation page
BUILTINS: dict[str, Symbol] = {
    r"\mathrm{diag}": _builtin(_diag, prefix=False),
    r"\mathrm{tr}": _builtin(lambda x: float(np.trace(array(x)))),
    r"\mathrm{sign}": _builtin(lambda x: np.sign(array(x)), prefix=False),
    r"\mathrm{median}": _builtin(lambda x: float(np.median(_vec(x))), prefix=False),
    r"\mathrm{relu}": _builtin(lambda x: np.maximum(array(x), 0), prefix=False),
    "E": _builtin(lambda x: float(np.mean(_vec(x))), prefix=False),
    r"\mathrm{RMSNorm}": S("builtin", _family(lambda env, x, e: lnbook.rms_norm(x, eps=e)), ""),
}
TABLE = {**SYMBOLS, **BUILTINS}
