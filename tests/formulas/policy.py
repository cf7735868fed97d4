"""What the formula checker does not check, and why: the one place that lists it.

``STRICT``: the pages on which every display formula and every inline formula with a relation
must be checked, a definition, or listed here; the other pages are reported
(``python tests/test_formulas.py --report``) until their authors make them strict.

``UNCHECKED``: per page, the text of a formula as written (whitespace collapsed) and the reason
it is not checked: a condition the sentence names, a set, a limit, a shape. A listed formula
binds nothing. Editing it un-lists it, and the test fails until it is checked or listed again.

``EQUIVALENT``: per page and checked formula, the mutants (labelled as ``mutate.py`` labels
them) that cannot fail because the mutated formula is true as well, with the reason.
"""

STRICT = {
    "book/intro.md",
    "book/notation.md",
    "book/testing.md",
    "book/api.md",
    "book/benchmarks.md",
    "book/epsilon.ipynb",
    "book/gain.ipynb",
    "book/bias.ipynb",
}

_BATCH = ("a sum over the records z_k of a batch (the checker's sums run over the features of "
          "one record); the cells beside it check it against a loop and central differences")
_CONSTANT = ("holds at a constant record, the case the sentence names (checked where a cell "
             "binds one)")

UNCHECKED: dict[str, dict[str, str]] = {
    # the docstrings the API page shows (lnbook/*.py); keyed by the formula as written there
    "book/api.md": {
        r"P = \hat v \hat v^\top": "holds for d = 2, the case the sentence names",
        r"J = (\varepsilon/s^3) P": "holds for d = 2, the case the sentence names",
        r"\frac{\partial \ell}{\partial \gamma_i} = \sum_{\text{records}} g_i u_i, \qquad "
        r"\frac{\partial \ell}{\partial \beta_i} = \sum_{\text{records}} g_i":
            "a sum over the records of a batch",
        r"h_\varepsilon(t) = \frac{t}{\sqrt{2t^2/3 + \varepsilon}} \to \pm\sqrt{3/2} \quad "
        r"(t \to \pm\infty).": "a limit",
        r"\mu_k = \mu_{k-1} + \frac{z_k - \mu_{k-1}}{k}, \qquad "
        r"M_k = M_{k-1} + (z_k - \mu_{k-1})(z_k - \mu_k),":
            "a recurrence over the first k entries (Welford's), not symbols of the table",
        r"q = M_d/d": "the last term of that recurrence",
        r"\delta = \mu_b - \mu_a": "the statistics of two parts a and b of a record",
        r"n = n_a + n_b": "the statistics of two parts a and b of a record",
        r"\mu = \mu_a + \delta \frac{n_b}{n}, \qquad "
        r"n q = n_a q_a + n_b q_b + \delta^2 \frac{n_a n_b}{n} .":
            "the statistics of two parts a and b of a record",
        r"|\delta| \le \rho": "a rounding error here (the notation's delta is a perturbation)",
        r"d < 8": "a condition (the case the sentence treats)",
        r"8 \le d \le 128": "a condition (the case the sentence treats)",
        r"m = d - (d \bmod 8)": "\bmod is not in the checker's subset",
        r"k(d) = (m/8 - 1) + 3 + (d \bmod 8)": "\bmod is not in the checker's subset",
        r"k(d) = 1 + \max(k(d_1), k(d - d_1))": "a recursive definition",
        r"|\hat S - S| \le \gamma_{k(d)} \sum_i |x_i|, \qquad "
        r"\gamma_k = \frac{k\rho}{1 - k\rho},":
            "a rounding-error bound for a computed sum S-hat (gamma_k is Higham's constant "
            "here, not the gain)",
        r"\rho = 2^{-8}": "the unit roundoff of bfloat16, a format numpy does not have",
        r"y_{bj} = \frac{z_{bj} - \mu_j}{\sqrt{q_j + \varepsilon}}, \qquad "
        r"\mu_j = \frac1B \sum_b z_{bj}, \quad q_j = \frac1B \sum_b (z_{bj} - \mu_j)^2":
            "statistics over the batch axis b (BatchNorm), not over a record",
        r"s^2 = \frac{1}{d - \mathrm{ddof}}\lVert v \rVert^2": "ddof is the function's option",
        r"y = \gamma \odot \frac{v}{\sqrt{s^2 + \varepsilon}} + \beta \quad\text{or}\quad "
        r"y = \gamma \odot \frac{v}{s + \varepsilon} + \beta ,":
            "two alternatives, one per option of the function",
        r"v = z": "the option without centering",
        r"\mathrm{err} = \frac{\max_i \lvert \hat u_i - u_i \rvert} "
        r"{\operatorname{ulp}(\max_i \lvert u_i \rvert)}":
            "the error of a computed core u-hat, which the text does not bind",
        r"z = \sigma\,(r \mathbf 1 + x)": "r and x are the function's parameters",
        r"k(d) = d - 1": "one case of a recursive definition (the others are listed too)",
        r"\bar z = \frac{z}{\sqrt{\tfrac1d \lVert z \rVert^2 + \varepsilon}}":
            "names RMSNorm's output for the reader; no other formula of the docstring uses it",
    },
    "book/notation.md": {
        r"z = Wx + b": "names how a linear layer makes the record; a relation between names",
    },
    "book/epsilon.ipynb": {
        r"q = \varepsilon": "a condition the sentence names (where the mean square is one half)",
        r"q = 10^{6}\varepsilon": "a condition: the record the sentence supposes",
        r"f(z + \delta) = f(z) + Df(z)\,\delta + o(\lVert\delta\rVert_2)":
            "a limit (little o): no finite evaluation decides it",
        r"\lVert M\rVert_2 = \max_{\delta \ne 0} \frac{\lVert M\delta\rVert_2}"
        r"{\lVert\delta\rVert_2},":
            "the definition of the operator norm, a maximum over every nonzero vector",
        r"z' = z + \tau\delta": "a substitution the sentence makes (putting z' = ...)",
        r"i = j": "an index condition inside the definition of I_{ij}",
        r"J = P/\sqrt\varepsilon": _CONSTANT,
        r"v = 0": _CONSTANT,
        r"q = 0": _CONSTANT,
        r"s = \sqrt\varepsilon": _CONSTANT,
        r"\lVert J\rVert_2 = \varepsilon^{-1/2}": _CONSTANT,
        r"\Gamma J = \Gamma P/\sqrt\varepsilon": _CONSTANT,
        r"\gamma = 0": "a condition (or gamma = 0), not a binding",
        r"\varepsilon = 0": "a condition (with epsilon = 0 the core is undefined), not a binding",
        r"K = \{i : \lvert\gamma_i\rvert = \gamma_{\max}\}": "a set",
        r"K = \{k\}": "a set",
        r"k \ne l": "an index condition",
        r"l \ne k": "an index condition",
        r"\varepsilon = q\,(1-\nu)/\nu":
            "the solution for a target nu that the sentence names after it",
        r"\lvert\gamma_1\rvert = \lvert\gamma_2\rvert": "a condition (the two gains agree)",
        r"\nu = 0.9": "a target value the sentence then evaluates (q/9), typed in the prose",
        r"\nu = 0.99": "a target value the sentence then evaluates (q/99), typed in the prose",
    },
    "book/bias.ipynb": {
        r"y_k = \gamma \odot u_\varepsilon(z_k) + \beta": "the output of record k of a batch",
        r"\begin{aligned} \frac{\partial \ell}{\partial \beta} &= \sum_k g_k,\\ "
        r"\frac{\partial \ell}{\partial \gamma} &= \sum_k g_k \odot u_\varepsilon(z_k). "
        r"\end{aligned}": _BATCH,
        r"\ell = \frac12\sum_k\lVert y_k\rVert_2^2": _BATCH,
        r"\ell = \frac12\sum_k\lVert y_k - y^\star_k\rVert^2":
            "a loss over N records and their targets y*_k, which the table does not have",
        r"N = 6": "the number of records the exercise asks for (its cell uses N = 6)",
        r"y_k = \beta": "the output of record k of a batch of constant records",
        r"g_k = \beta - y^\star_k": "the gradient of record k against its target y*_k",
        r"\sum_k g_k = N\beta - \sum_k y^\star_k": _BATCH,
        r"\beta = \frac1N\sum_k y^\star_k": "the mean of the N targets (the cell checks it)",
    },
    "book/gain.ipynb": {
        r"J = P/\sqrt\varepsilon": _CONSTANT,
        r"\gamma_i = 0": "a condition (a zero gain entry), the case the sentence names",
        r"y_i = \beta_i": "holds where gamma_i = 0, the condition the sentence names (the cell "
                          "beside the worked example checks it at gamma_2 = 0)",
        r"\beta_i = 0": "a condition (a zero bias entry), the case the sentence names",
        r"\beta_2 = 0.3": "a condition: the nonzero bias entry the sentence supposes",
        r"\gamma_1 = 2": "an entry the exercise fixes; its solution binds the whole gain",
        r"\gamma_3 = -1": "an entry the exercise fixes; its solution binds the whole gain",
        r"\lambda > 0": "the exercise's hypothesis on an eigenvalue it leaves general",
        r"\kappa \ne 0": "the first case the exercise treats (a condition)",
        r"\sum_i 1/(\gamma_i^2 - \lambda) = 0":
            "the equation the exercise asks for, for a general eigenvalue (its solution checks "
            "it for gamma = (2, 0, -1) and (3, 1, 1))",
        r"\kappa = 0": "the second case (a condition), not a definition",
        r"\gamma_i^2 = \lambda": "a condition: the indices on which the eigenvector lives",
        r"\gamma_2 = -4": "the root of the equation for the entry the exercise leaves open; "
                          "the gain it gives is bound next, and the output checked",
    },
}

_SUM_ZERO = "equally true: the changed term is a multiple of sum_k v_k = 0"
_WEAKER = "a weaker bound, equally true"
_TIMES_ZERO = "equally true: the changed factor multiplies 0"

_SEEDS_D = "the seeds draw d = 5, 2 and 8: neither d = 1 nor the boundary d = 3"
_LIPSCHITZ = {
    "symbol z -> z' at 19": "the left side becomes 0: a weaker statement",
    r"symbol \gamma -> \beta at 67": "another bound, true for the generic gains as well",
    "sign - -> + at 105": _WEAKER + " here (the generic z and z' point alike)",
    "symbol z -> z' at 107": "the right side becomes 0 as well: 0 <= 0",
}

EQUIVALENT: dict[str, dict[str, dict[str, str]]] = {
    "book/api.md": {
        r"\lVert J \rVert_2 = \begin{cases} 0 & d = 1,\\ \varepsilon/(q+\varepsilon)^{3/2} & "
        r"d = 2,\\ (q+\varepsilon)^{-1/2} & d \ge 3, \end{cases}": {
            "number 0 -> 1 at 34": _SEEDS_D,
            "symbol d -> c at 38": _SEEDS_D,
            "number 3 -> 4 at 123": _SEEDS_D,
        },
        r"\lVert \mathrm{LN}(z) - \mathrm{LN}(z') \rVert_2 \le \frac{\max_i |\gamma_i|}"
        r"{\sqrt\varepsilon} \lVert z - z' \rVert_2": _LIPSCHITZ,
        r"\sigma > 0": {r"symbol \sigma -> s at 0": "s > 0 holds as well"},
    },
    "book/bias.ipynb": {
        r"g \odot u = 0": {
            r"symbol g -> \delta at 0": "the core is 0 at this constant record: any vector times "
                                        "it is 0",
        },
        r"\mathrm{LN}_\varepsilon(z + c\mathbf 1) = \mathrm{LN}_\varepsilon(z)": {
            "sign + -> - at 26": "equally true: the layer removes every common shift, -c too",
            "symbol c -> t at 28": "equally true: the layer removes every common shift, t too",
        },
    },
    "book/gain.ipynb": {
        r"\begin{aligned} y &= \gamma \odot u\\ &= \left(2 \cdot \tfrac12,\; 0 \cdot "
        r"\tfrac12,\; (-1)(-1)\right)\\ &= (1, 0, 1). \end{aligned}": {
            "number 1 -> 2 at 84": _TIMES_ZERO,
            "number 2 -> 3 at 85": _TIMES_ZERO,
        },
        r"\begin{aligned} g \odot u &= (1 \cdot \tfrac12,\; 0 \cdot \tfrac12,\; 1 "
        r"\cdot (-1))\\ &= \left(\tfrac12, 0, -1\right). \end{aligned}": {
            "number 1 -> 2 at 65": _TIMES_ZERO,
            "number 2 -> 3 at 66": _TIMES_ZERO,
        },
        r"\begin{aligned} \lVert \operatorname{diag}(\gamma) J(z) \rVert_2 &\le L,\\ "
        r"\lVert \mathrm{LN}(z) - \mathrm{LN}(z') \rVert_2 &\le L\, \lVert z - z' "
        r"\rVert_2,\\ L &= \frac{\max_i \lvert \gamma_i \rvert}{\sqrt\varepsilon} . "
        r"\end{aligned}": {
            "symbol J -> A at 52": _WEAKER + " (diag(a) has entries below one: a smaller left side)",
            "symbol z -> z' at 54": "the bound holds at every record, z' as well",
            "symbol z -> z' at 95": "the left side becomes 0: a weaker statement",
            "sign - -> + at 143": _WEAKER + " here (the generic z and z' point alike)",
            "symbol z -> z' at 145": "the right side becomes 0 as well: 0 <= 0",
        },
        r"\lVert\operatorname{diag}(\gamma)P\rVert_2/\sqrt\varepsilon \le "
        r"\max_i\lvert\gamma_i\rvert/\sqrt\varepsilon": {
            r"symbol \gamma -> \beta at 26": "the cell's bias is 0: the left side becomes 0",
            "symbol P -> A at 33": _WEAKER + " (diag(a) has entries below one)",
        },
        r"\frac13(\gamma_1u_1 + \gamma_2u_2 + \gamma_3u_3) = \frac13(1 + \tfrac12\gamma_2 + 1)": {
            "number 1 -> 2 at 18": "u_1 = u_2 = 1/2 at this record",
        },
        r"\gamma^\top u = 0": {
            r"symbol \gamma -> \beta at 0": "the solution's bias is 0: beta^T u = 0 as well",
        },
    },
    "book/epsilon.ipynb": {
        r"\lVert f(z) - f(z')\rVert_2 \le L\,\lVert z - z'\rVert_2": {
            "symbol z -> z' at 9": "the left side becomes 0: a weaker statement",
            "sign - -> + at 44": _WEAKER + " here (the generic z and z' point alike)",
        },
        r"\begin{aligned} \frac{\partial\mu}{\partial z_j} &= \frac1d,\\ "
        r"\frac{\partial v_i}{\partial z_j} &= I_{ij} - \frac1d = P_{ij},\\ "
        r"\frac{\partial q}{\partial z_j} &= \frac2d\sum_k v_k\Big(I_{kj} - "
        r"\frac1d\Big)\\ &= \frac2d\Big(v_j - \frac1d\sum_k v_k\Big) = "
        r"\frac{2v_j}{d},\\ \frac{\partial s}{\partial z_j} &= "
        r"\frac{1}{2s}\,\frac{\partial q}{\partial z_j} = \frac{v_j}{d\,s},\\ "
        r"\frac{\partial u_i}{\partial z_j} &= \frac{1}{s^2}\Big(\frac{\partial "
        r"v_i}{\partial z_j}\,s - v_i\,\frac{\partial s}{\partial z_j}\Big)\\ &= "
        r"\frac{P_{ij}}{s} - \frac{v_i v_j}{d\,s^3}. \end{aligned}": {
            "subscript j -> i at 47": "the mean depends on every input alike",
            "sign - -> + at 194": _SUM_ZERO,
            "number 1 -> 2 at 201": _SUM_ZERO,
            "sign - -> + at 232": _SUM_ZERO,
            "number 1 -> 2 at 239": _SUM_ZERO,
        },
        r"v \ne 0": {
            "symbol v -> y at 0": "a hypothesis that any generic vector meets",
            "number 0 -> 1 at 6": "a hypothesis that any generic vector meets",
        },
        r"\gamma \ne 0": {
            r"symbol \gamma -> \beta at 0": "a hypothesis that any generic gain meets",
            "number 0 -> 1 at 11": "a hypothesis that any generic gain meets",
        },
        r"z \ne z'": {
            "symbol z -> z' at 6": "a hypothesis (two distinct records) that generic ones meet",
        },
        r"\Gamma P \ne 0": {
            "symbol P -> A at 7": "a nonzero matrix: any generic product is one",
            "number 0 -> 1 at 13": "a nonzero matrix: any generic product is one",
        },
        r"\lambda_{\mathrm{rad}} = \frac{\varepsilon}{s^2}\cdot\frac1s \le \frac1s": {
            "number 1 -> 2 at 70": _WEAKER,
        },
        r"\lambda_{\mathrm{tan}} = \frac1s \le \frac{1}{\sqrt\varepsilon}": {
            "number 1 -> 2 at 43": _WEAKER,
        },
        r"\gamma_{\max} = \max_i\lvert\gamma_i\rvert > 0": {
            r"symbol \gamma -> \beta at 28": "any nonzero gain has a positive largest entry",
        },
        r"\lVert\Gamma w\rVert_2^2 = \sum_i\gamma_i^2w_i^2 \le \gamma_{\max}^2": {
            "number 2 -> 3 at 67": _WEAKER + " for the generic gains (largest entry above 1)",
        },
    },
}
