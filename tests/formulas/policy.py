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
    "book/jacobian.ipynb",
    "book/sensitivity.ipynb",
    "book/geometry.ipynb",
}

_BATCH_LOSS = ("a gradient of the chapter's loss of the weights W over a batch, which the "
               "checker cannot evaluate (it has no gradient in W); the adjacent cells compute "
               "it with grad_W and assert the identity")
_BATCH_RECORD = ("z_k, v_k are the k-th record of the batch here, not entries of one record; "
                 "the adjacent cell computes them")
_EQUILIBRIUM = ("the fixed point of the weight-decay recursion, with G defined by the gradient "
                "of the batch loss (no gradient in W in the checker); the cell asserts the "
                "recursion at every step and the equilibrium norm")
_CASE = "a condition: the case the sentence names"
_CONSTANT = ("holds at a constant record, the case the sentence names (checked where a cell "
             "binds one)")

UNCHECKED: dict[str, dict[str, str]] = {
    "book/geometry.ipynb": {
        r"\mathbf 1^\perp = \{v : \mathbf 1^\top v = 0\}": "a set",
        r"\varepsilon = 0": "a condition (the unstabilized formula the sentence names), not a "
                            "binding",
        r"J = D\phi(v)\,P": "phi is the radial map the sentence names in words; the checker "
                            "has no symbol for it (J itself is checked in the next cell)",
        r"q = 0": "a condition (where 1/s is largest), not a binding",
        r"\begin{aligned} \ell_\varepsilon(\alpha W) &= \ell_{\varepsilon/\alpha^2}(W),\\ "
        r"\nabla\ell_\varepsilon(\alpha W) &= \tfrac1\alpha\,\nabla\ell_{\varepsilon/\alpha^2}(W), "
        r"\end{aligned}":
            _BATCH_LOSS,
        r"\begin{aligned} &\alpha W - \eta\,\nabla\ell_\varepsilon(\alpha W)\\ &= \alpha\Big(W - "
        r"\frac{\eta}{\alpha^2}\,\nabla\ell_{\varepsilon/\alpha^2}(W)\Big), \end{aligned}":
            _BATCH_LOSS,
        r"\begin{aligned} &\mathrm{gap}(\alpha)\\ &= \frac{\lVert \alpha\,\nabla\ell_\varepsilon"
        r"(\alpha W) - \nabla\ell_\varepsilon(W)\rVert} {\lVert\nabla\ell_\varepsilon(W)\rVert}, "
        r"\end{aligned}": _BATCH_LOSS,
        r"\lVert M\rVert_F = \big(\sum_{ij} M_{ij}^2\big)^{1/2}":
            "the definition of the Frobenius norm of a matrix M: notation, not a claim",
        r"\ell = \sum_k C_k^\top u_\varepsilon(Wx_k)":
            "the loss of a batch of inputs x_k with the rows C_k of a matrix the cell draws "
            "(the text gives no value for them)",
        r"\langle\nabla\ell, W\rangle = 0": _BATCH_LOSS,
        r"\langle\nabla\ell, W\rangle = \sum_k \langle \partial\ell/\partial z_k, z_k\rangle "
        r"= \sum_k \langle J C_k, z_k\rangle = \sum_k \langle C_k, J v_k\rangle": _BATCH_LOSS,
        r"J = J(z_k)": _BATCH_RECORD,
        r"J z_k = J v_k": _BATCH_RECORD,
        r"\begin{aligned} \langle\nabla\ell_\varepsilon(W), W\rangle &= \sum_k "
        r"\lambda_{\mathrm{rad},k}\,\langle C_k, v_k\rangle ,\\ \lambda_{\mathrm{rad},k} &= "
        r"\varepsilon/s_k^3 : \end{aligned}": _BATCH_LOSS,
        r"\lVert W - \eta\nabla\ell\rVert^2 = \lVert W\rVert^2 + \eta^2\lVert\nabla\ell\rVert^2":
            _BATCH_LOSS,
        r"\kappa > 0": "a condition: the weight-decay coefficient is positive",
        r"G = \lVert W\rVert\,\lVert\nabla\ell(W)\rVert": _BATCH_LOSS,
        r"\lVert W\rVert^4 = \eta\,G^2/(\kappa(2 - \eta\kappa))": _EQUILIBRIUM,
        r"\lVert W\rVert^4 = \eta\,G^2/(\kappa(2-\eta\kappa))": _EQUILIBRIUM,
        r"\eta/\lVert W\rVert^2 = \sqrt{\eta\kappa(2-\eta\kappa)}\,/\,G": _EQUILIBRIUM,
        r"\kappa = 0.01": "the weight-decay coefficient of the cell, named for the reader; no "
                          "formula of the text uses its value (the cell does)",
        r"d \ge 3": _CASE,
        r"0 < \alpha < 1": "a condition: the shrinking the exercise asks about",
        r"\lVert W - \eta\nabla\ell(W)\rVert_F^2 = \lVert W\rVert_F^2 + "
        r"\eta^2\lVert\nabla\ell(W)\rVert_F^2": _BATCH_LOSS,
        r"\lVert W - \eta\nabla\ell\rVert^2 = \lVert W\rVert^2 - 2\eta\langle\nabla\ell, "
        r"W\rangle + \eta^2\lVert\nabla\ell\rVert^2": _BATCH_LOSS,
        r"\langle\nabla\ell, W\rangle = \sum_k \lambda_{\mathrm{rad},k}\langle C_k, v_k\rangle":
            _BATCH_LOSS,
    },
    "book/sensitivity.ipynb": {
        r"d\ge 3": _CASE,
        r"d\ge3": _CASE,
        r"d \ge 3": _CASE,
        r"d = 2, 3": "the two sizes the figure draws: a list, not a relation",
        r"0 \le \theta \le 1": "the range of the integration variable theta of the proof",
        r"q = 0": "a condition (where the norm of J reaches the bound), not a binding",
        r"P(z - z') = 0": "a condition: the case the sentence excludes",
        r"J = P/\sqrt\varepsilon": _CONSTANT,
        r"\lVert w\rVert_\infty = \max_i|w_i|":
            "the definition of the maximum norm of a vector w, notation rather than a claim "
            "(the cell computes the norm with np.abs(...).max())",
        r"\gamma_1^2 = \gamma_2^2": "a condition (the two gains agree in size)",
    },
    "book/jacobian.ipynb": {
        r"J_{ij}(z) = \partial u_{\varepsilon,i}/\partial z_j":
            "the entries of J by index, a partial derivative of one coordinate, which the "
            "checker has no form for (J itself is lnbook.jacobian, checked in later formulas)",
        r"u_\varepsilon(z + \tau e_j) \approx u_\varepsilon(z) + \tau\, J_{:,j}(z)":
            "a first-order approximation for a small step tau: a limit",
        r"Dv = P": "the derivative of v = Pz as a map of z; the checker differentiates "
                   "functions of the record only",
        r"i \ne j": "an index condition",
        r"t > 0": "a condition: the records t e_i the proposition names",
        r"k \ne i": "an index condition (the other coordinates)",
        r"\varepsilon = 0": "a condition (the case with epsilon = 0), not a binding",
        r"\Delta(\tau) = \frac38 \tau - \frac{9}{64}\tau^2 + O(\tau^3)":
            "a Taylor expansion with a remainder O(tau^3): a limit (the cell checks the "
            "error/tau^2 column against -9/64)",
        r"\ell(z) = \frac12\lVert \mathrm{LN}_\varepsilon(z) - y^\star\rVert_2^2":
            "y* is the random target the cell draws; the text gives no value for it",
        r"g = \mathrm{LN}_\varepsilon(z) - y^\star":
            "y* is the random target the cell draws; the text gives no value for it",
        r"v = 0": _CONSTANT,
        r"J = P/\sqrt\varepsilon": _CONSTANT,
        r"q = 0": "a condition: the left end of the figure's axis, where q = 0",
        r"v_iv_j = -s^2": "a condition on the entries (where an off-diagonal entry vanishes)",
    },
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
        r"\varepsilon = q\,(1-\nu)/\nu":
            "the solution for a target nu that the sentence names after it",
        r"\lvert\gamma_1\rvert = \lvert\gamma_2\rvert": "a condition (the two gains agree)",
        r"\nu = 0.9": "a target value the sentence then evaluates (q/9), typed in the prose",
        r"\nu = 0.99": "a target value the sentence then evaluates (q/99), typed in the prose",
    },
}

_SUM_ZERO = "equally true: the changed term is a multiple of sum_k v_k = 0"
_WEAKER = "a weaker bound, equally true"

_SEEDS_D = "the seeds draw d = 5, 2 and 8: neither d = 1 nor the boundary d = 3"
_LIPSCHITZ = {
    "symbol z -> z' at 19": "the left side becomes 0: a weaker statement",
    r"symbol \gamma -> \beta at 67": "another bound, true for the generic gains as well",
    "sign - -> + at 105": _WEAKER + " here (the generic z and z' point alike)",
    "symbol z -> z' at 107": "the right side becomes 0 as well: 0 <= 0",
}

_CORE_FAR = ("the seeded records are far from the extreme records t e_i, so a nearby bound "
             "holds at them too (the sharp case is checked at z = t e_1 by "
             "u_1^2 = (d-1) q/(q+eps), and by the cell)")
_OTHER_COORD = "the same bound for another coordinate: equally true"

_FARTHER = ("the seeded record z'' is farther from z than z' is: a weaker statement at the "
            "seeds")
_AT_CONSTANT = {
    "sign + -> - at 29": "equally true at the constant record z: u(z - delta) = -u(z + delta)",
    "sign - -> + at 38": "equally true at the constant record z, whose core u(z) is 0",
}

EQUIVALENT: dict[str, dict[str, dict[str, str]]] = {
    "book/geometry.ipynb": {
        r"f_1^\top \mathbf 1 = f_2^\top \mathbf 1 = 0": {
            "number 1 -> 2 at 2": "the same fact for the other basis vector: equally true",
        },
        r"\lambda_{\mathrm{rad}}/\lambda_{\mathrm{tan}} = \varepsilon/s^2 = "
        r"\varepsilon/(q+\varepsilon) < 1": {"number 1 -> 2 at 96": _WEAKER},
        r"\lVert J\rVert_2 = \max(\lambda_{\mathrm{tan}}, \lambda_{\mathrm{rad}}) = 1/s": {
            r"symbol \lambda_{\mathrm{rad}} -> \lambda_{\mathrm{tan}} at 48":
                "equally true: the tangential eigenvalue is the larger one",
        },
        r"v \ne 0": {
            "symbol v -> y at 0": "a hypothesis that any generic vector meets",
            "number 0 -> 1 at 6": "a hypothesis that any generic vector meets",
        },
        r"z_1 \neq z_2": {
            "symbol z -> z' at 0": "a hypothesis that any generic record meets",
            "symbol z -> z' at 9": "a hypothesis that any generic record meets",
        },
        r"q = \big(\tfrac{z_2-z_1}{2}\big)^2": {
            "number 2 -> 3 at 33": "equally true at the exercise's z = (1, 3), where the base "
                                   "(z_2 - z_1)/2 is 1",
        },
        r"u_0(z) = \mathrm{sign}(z_2 - z_1)\,(-1, 1)": {
            "sign - -> + at 27": "equally true at the exercise's z = (1, 3): both signs are +1",
            "symbol z -> z' at 29": "equally true at the seeds: sign(z'_2 - z_1) is +1 there "
                                    "as at z = (1, 3)",
        },
    },
    "book/sensitivity.ipynb": {
        r"\lVert Du_\varepsilon(z)\rVert_2 = \begin{cases} 0, & d = 1,\\[2pt] "
        r"\frac{\varepsilon}{(q+\varepsilon)^{3/2}}, & d = 2,\\[8pt] "
        r"\frac{1}{\sqrt{q+\varepsilon}}, & d \ge 3 . \end{cases}": {
            "number 0 -> 1 at 50": _SEEDS_D,
            "symbol d -> c at 55": _SEEDS_D,
            "number 3 -> 4 at 168": _SEEDS_D,
        },
        r"\lVert Du_\varepsilon(z)\rVert_2 \le \varepsilon^{-1/2}": {
            "symbol z -> z' at 22": "the same bound at another record: equally true",
        },
        r"\lVert u_\varepsilon(z) - u_\varepsilon(z')\rVert_2 \le \varepsilon^{-1/2}"
        r"\lVert z - z'\rVert_2": {
            "symbol z -> z' at 22": "the left side becomes 0: a weaker statement",
            "sign - -> + at 84": _WEAKER + " here (the generic z and z' point alike)",
        },
        r"\lVert \mathrm{LN}(z) - \mathrm{LN}(z')\rVert_2 \le L\lVert z - z'\rVert_2 .": {
            "symbol z -> z' at 20": "the left side becomes 0: a weaker statement",
            "sign - -> + at 63": _WEAKER + " here (the generic z and z' point alike)",
            "symbol z -> z' at 65": _FARTHER,
        },
        r"\frac{\lVert u_\varepsilon(z+\delta) - u_\varepsilon(z)\rVert_2}{\lVert \delta"
        r"\rVert_2} = \frac{1}{\sqrt{\tau^2 + \varepsilon}} .": _AT_CONSTANT,
        r"\gamma \ne 0": {
            r"symbol \gamma -> \beta at 0": "a hypothesis that any generic vector meets",
            "number 0 -> 1 at 11": "a hypothesis that any generic vector meets",
        },
        r"z \ne z'": {
            "symbol z -> z' at 6": "a hypothesis that any two generic records meet",
        },
        r"\lVert u_\varepsilon(z) - u_\varepsilon(z')\rVert_2 \le \int_0^1 \lVert "
        r"J\big(z' + \theta(z - z')\big) \rVert_2\,d\theta\;\lVert z - z'\rVert_2 \le "
        r"\varepsilon^{-1/2}\lVert z - z'\rVert_2": {
            "symbol z -> z' at 21": "the left side becomes 0: a weaker statement",
            "symbol z -> z' at 90": "the norm of J at z' instead of along the segment, still at "
                                    "most the bound: equally true",
            "sign - -> + at 175": _WEAKER + " here (the generic z and z' point alike)",
        },
        r"v \ne 0": {
            "symbol v -> y at 0": "a hypothesis that any generic vector meets",
            "number 0 -> 1 at 6": "a hypothesis that any generic vector meets",
        },
        r"\lVert \begin{pmatrix}0&0\\-3/8&3/8\end{pmatrix}\rVert_2 = \frac{3\sqrt2}{8}": {
            "sign - dropped at 27": "equally true: a matrix with one nonzero row has the norm of "
                                    "that row, whatever its signs",
        },
        r"\lVert\operatorname{diag}(\gamma)J\rVert_2 \le \lVert\operatorname{diag}(\gamma)P"
        r"\rVert_2 \lVert J\rVert_2": {
            r"symbol \gamma -> \beta at 26": "at the constant record the comment binds both sides "
                                             "are norms of diag(.) P / sqrt(eps), and the generic "
                                             "biases are smaller than the gains (3, 1, 1): a "
                                             "weaker statement here",
            "symbol J -> A at 33": "A = diag(a) has norm below 1, and ||diag(3, 1, 1) A|| stays "
                                   "below ||diag(3, 1, 1) P|| / sqrt(eps) at the seeds: a weaker "
                                   "statement here",
        },
        r"\begin{aligned} R &= \lVert u_\varepsilon(z+\delta) - u_\varepsilon(z)\rVert_\infty/"
        r"\lVert \delta\rVert_\infty\\ &= \frac{3/2}{\sqrt{\tfrac34\tau^2 + \varepsilon}} , "
        r"\end{aligned}": {
            "sign + -> - at 44": _AT_CONSTANT["sign + -> - at 29"],
            "sign - -> + at 53": _AT_CONSTANT["sign - -> + at 38"],
        },
        r"R > \varepsilon^{-1/2}": {
            "number 2 -> 3 at 20": "a weaker bound at the seeded stabilizers, which the ratio "
                                   "of the constant record meets as well",
        },
        r"\lVert\operatorname{diag}(\gamma)P\rVert_2/\sqrt\varepsilon \le \max_i\lvert\gamma_i"
        r"\rvert/\sqrt\varepsilon": {
            "symbol P -> A at 33": "equally true: A = diag(a) has norm below 1, so "
                                   "||diag(gamma) A|| <= max |gamma_i|",
        },
        r"d \ge 3": {
            "number 3 -> 4 at 6": "the record the solution's comment binds has d = 4, which "
                                  "meets d >= 4 as well",
        },
    },
    "book/jacobian.ipynb": {
        r"\lvert u_i\rvert < \sqrt{d-1}": {
            "symbol u -> y at 7": _CORE_FAR,
            "subscript i -> j at 9": _OTHER_COORD,
            "sign - -> + at 26": _WEAKER,
        },
        r"\lvert u_i\rvert \le \sqrt{d-1}": {
            "symbol u -> y at 7": _CORE_FAR,
            "subscript i -> j at 9": _OTHER_COORD,
            "sign - -> + at 28": _WEAKER,
        },
        r"v_i^2 \le (d-1)\,q": {
            "subscript i -> j at 2": _OTHER_COORD,
            "sign - -> + at 12": _WEAKER,
        },
        r"u_i^2 = v_i^2/(q + \varepsilon) \le (d-1)\,q/(q+\varepsilon)": {
            "sign - -> + at 38": _WEAKER,
        },
        r"v \ne 0": {
            "symbol v -> y at 0": "a hypothesis that any generic vector meets",
            "number 0 -> 1 at 6": "a hypothesis that any generic vector meets",
        },
        r"\varepsilon/s^3 = \frac{\varepsilon}{q+\varepsilon} \cdot\frac1s \le \frac1s": {
            "number 1 -> 2 at 74": _WEAKER,
        },
    },
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
    "book/epsilon.ipynb": {
        r"\lVert f(z) - f(z')\rVert_2 \le L\,\lVert z - z'\rVert_2": {
            "symbol z -> z' at 9": "the left side becomes 0: a weaker statement",
            "sign - -> + at 44": _WEAKER + " here (the generic z and z' point alike)",
        },
        r"\begin{aligned} \frac{\partial\mu}{\partial z_j} &= \frac1d, \qquad "
        r"\frac{\partial v_i}{\partial z_j} = I_{ij} - \frac1d = P_{ij},\\ "
        r"\frac{\partial q}{\partial z_j} &= \frac2d\sum_k v_k\Big(I_{kj} - \frac1d\Big) "
        r"= \frac2d\Big(v_j - \frac1d\sum_k v_k\Big) = \frac{2v_j}{d},\\ "
        r"\frac{\partial s}{\partial z_j} &= \frac{1}{2s}\,\frac{\partial q}{\partial z_j} "
        r"= \frac{v_j}{d\,s},\\ \frac{\partial u_i}{\partial z_j} &= \frac{1}{s^2}"
        r"\Big(\frac{\partial v_i}{\partial z_j}\,s - v_i\,\frac{\partial s}{\partial z_j}"
        r"\Big) = \frac{P_{ij}}{s} - \frac{v_i v_j}{d\,s^3}. \end{aligned}": {
            "subscript j -> i at 47": "the mean depends on every input alike",
            "sign - -> + at 198": _SUM_ZERO,
            "number 1 -> 2 at 205": _SUM_ZERO,
            "sign - -> + at 233": _SUM_ZERO,
            "number 1 -> 2 at 240": _SUM_ZERO,
        },
        r"v \ne 0": {
            "symbol v -> y at 0": "a hypothesis that any generic vector meets",
            "number 0 -> 1 at 6": "a hypothesis that any generic vector meets",
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
