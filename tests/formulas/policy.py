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
    "book/records.ipynb",
    "book/shift.ipynb",
    "book/weighted.ipynb",
    "book/transformer.ipynb",
    "book/exercises.ipynb",
    "book/gain.ipynb",
    "book/bias.ipynb",
    "book/jacobian.ipynb",
    "book/sensitivity.ipynb",
    "book/geometry.ipynb",
    "book/floating_point.ipynb",
    "book/frameworks.ipynb",
}

_BATCH = ("a sum over the records z_k of a batch (the checker's sums run over the features of "
          "one record); the cells beside it check it against a loop and central differences")

_BATCH_LOSS = ("a gradient of the chapter's loss of the weights W over a batch, which the "
               "checker cannot evaluate (it has no gradient in W); the adjacent cells compute "
               "it with grad_W and assert the identity")
_BATCH_RECORD = ("z_b, v_b are the b-th record of the batch here, not entries of one record; "
                 "the adjacent cell computes them")
_EQUILIBRIUM = ("the fixed point of the weight-decay recursion, with G defined by the gradient "
                "of the batch loss (no gradient in W in the checker); the cell asserts the "
                "recursion at every step and the equilibrium norm")
_CASE = "a condition: the case the sentence names"
_CONSTANT = ("holds at a constant record, the case the sentence names (checked where a cell "
             "binds one)")

_HYP = ("a step of the proof under its hypothesis, equal cores of z and z + delta, which no "
        "seeded delta meets")

UNCHECKED: dict[str, dict[str, str]] = {
    "book/records.ipynb": {
        r"q = 0": "a condition: the constant record the sentence names",
        r"1 - \sqrt{q/(q+\varepsilon)} \approx \varepsilon/(2q)":
            "a first-order approximation for q much larger than epsilon; the cell beside it "
            "asserts it at the worked record (rtol 1e-4)",
    },
    "book/shift.ipynb": {
        r"d \le 2": ("a condition: the case the sentence names (one or two features); the "
                     "cell beside it checks that the median is then the mean"),
        r"\varepsilon = 0": ("a condition: the unstabilized formula the sentence names, not a "
                             "binding"),
        r"\{w : \mathbf 1^\top w = 0\}": "a set: the hyperplane of mean-zero records",
        r"d_{\mathrm{in}} \ge d": "a condition: the case the sentence names (d_in, the input "
                                  "width, is defined there)",
        r"W\xi = \mathbf 1": "the equation the sentence solves for xi; the cell below solves it "
                              "and checks the outputs",
        r"u_\varepsilon(z + \delta) = u_\varepsilon(z)":
            "the condition that defines the set of delta the exercise asks for",
        r"\delta = c\mathbf 1": "the exercise's answer, a set (every c); the solution proves it",
        r"v' = v + P\delta": _HYP,
        r"s' = \sqrt{q(z+\delta) + \varepsilon}": _HYP,
        r"v' = (s'/s)\,v": _HYP,
        r"P\delta = \kappa v": _HYP,
        r"\kappa = s'/s - 1 > -1": _HYP,
        r"q(z+\delta) = (1+\kappa)^2 q": _HYP,
        r"s'^2 = (1+\kappa)^2 s^2": _HYP,
        r"(1+\kappa)^2 q + \varepsilon = (1+\kappa)^2 (q + \varepsilon)": _HYP,
        r"\varepsilon\,\big((1+\kappa)^2 - 1\big) = 0": _HYP,
        r"P\delta = 0": _HYP,
        r"\delta = c\mathbf 1 + \kappa v":
            "the set of solutions at epsilon = 0 (every c and every kappa > -1)",
        r"\tilde v = z - \operatorname{median}(z)\mathbf 1":
            "the definition the exercise asks about; the solution's cell checks its values",
        r"z' = (0, 3, 0)": "names the exercise's second record; the solution binds it and "
                           "checks z + z'",
        r"\operatorname{loc}(z + c\mathbf 1) = \operatorname{loc}(z) + c":
            "the property that defines a location statistic (a class of functions), not one "
            "function",
    },
    "book/weighted.ipynb": {
        r"\ker a^\top = \{w : a^\top w = 0\}": "a set: the hyperplane of zero weighted mean",
        r"a = \mathbf 1/d": "a condition: the uniform weights the sentence names",
        r"P_a z = 0": "a condition: the hypothesis of the proof's step (z in the kernel)",
        r"z = (a^\top z)\mathbf 1": "holds under the proof's hypothesis P_a z = 0",
        r"P_a w = w": "for every w in ker a^T, a set; the cell below checks it on a basis of "
                      "ker a^T",
        r"\mathbf 1 a^\top = a \mathbf 1^\top": "a condition: the equation the proof solves "
                                                "(it holds only for uniform weights)",
        r"a^\top w = 0": "a condition: what zero weighted mean means, restated",
        r"a_i = 0": "a condition: the zero weight the section is about",
        r"\langle e_i, e_i\rangle_A = 0": "holds for a coordinate i with a_i = 0, the case the "
                                         "sentence names; the cell below checks it",
        r"P_a\mathbf 1 = 0.25\cdot\mathbf 1": "weights that do not sum to one, which the "
                                             "checker's P_a (lnbook) refuses; the cell below "
                                             "checks it with the formula",
        r"a' = (1/2, 1/2)": "names the exercise's second weights; the solution binds them and "
                            "checks both products",
    },
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
        r"\ell = \sum_b C_b^\top u_\varepsilon(z_b)":
            "the loss of a batch of records z_b = W x_b with the rows C_b of a matrix the cell "
            "draws "
            "(the text gives no value for them)",
        r"\langle\nabla\ell, W\rangle = 0": _BATCH_LOSS,
        r"\langle\nabla\ell, W\rangle = \sum_b \langle \partial\ell/\partial z_b, z_b\rangle "
        r"= \sum_b \langle J C_b, z_b\rangle = \sum_b \langle C_b, J v_b\rangle": _BATCH_LOSS,
        r"J = J(z_b)": _BATCH_RECORD,
        r"J z_b = J v_b": _BATCH_RECORD,
        r"z_b = Wx_b": _BATCH_RECORD,
        r"v_b = Pz_b": _BATCH_RECORD,
        r"b = 1, \dots, 16": "the range of the batch index (the cell asserts sixteen inputs)",
        r"\begin{aligned} \langle\nabla\ell_\varepsilon(W), W\rangle &= \sum_b "
        r"\lambda_{\mathrm{rad},b}\,\langle C_b, v_b\rangle ,\\ \lambda_{\mathrm{rad},b} &= "
        r"\varepsilon/s_b^3 : \end{aligned}": _BATCH_LOSS,
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
        r"\langle\nabla\ell, W\rangle = \sum_b \lambda_{\mathrm{rad},b}\langle C_b, v_b\rangle":
            _BATCH_LOSS,
    },
    "book/sensitivity.ipynb": {
        r"d\ge 3": _CASE,
        r"d\ge3": _CASE,
        r"d \ge 3": _CASE,
        r"d = 2, 3": "the two sizes the figure draws: a list, not a relation",
        r"q = 0": "a condition (where the norm of J reaches the bound), not a binding",
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
        r"\begin{aligned} \frac{\partial \ell}{\partial \gamma_i} &= \sum_{\text{records}} "
        r"g_i u_i, \\ \frac{\partial \ell}{\partial \beta_i} &= \sum_{\text{records}} g_i "
        r"\end{aligned}":
            "a sum over the records of a batch",
        r"\begin{aligned} \mu_k &= \mu_{k-1} + \frac{z_k - \mu_{k-1}}{k}, \\ M_k &= M_{k-1} "
        r"\\ &\quad + (z_k - \mu_{k-1})(z_k - \mu_k), \end{aligned}":
            "a recurrence over the first k entries (Welford's), not symbols of the table",
        r"q = M_d/d": "the last term of that recurrence",
        r"\delta = \mu_b - \mu_a": "the statistics of two parts a and b of a record",
        r"n = n_a + n_b": "the statistics of two parts a and b of a record",
        r"\begin{aligned} \mu &= \mu_a + \delta \frac{n_b}{n}, \\ n q &= n_a q_a + n_b q_b + "
        r"\delta^2 \frac{n_a n_b}{n} . \end{aligned}":
            "the statistics of two parts a and b of a record",
        r"|\delta| \le \rho": "a rounding error here (the notation's delta is a perturbation)",
        r"d < 8": "a condition (the case the sentence treats)",
        r"8 \le d \le 128": "a condition (the case the sentence treats)",
        r"m = d - (d \bmod 8)": "\bmod is not in the checker's subset",
        r"k(d) = (m/8 - 1) + 3 + (d \bmod 8)": "\bmod is not in the checker's subset",
        r"k(d) = 1 + \max(k(d_1), k(d - d_1))": "a recursive definition",
        r"\begin{aligned} |\hat S - S| &\le \gamma_{k(d)} \sum_i |x_i|, \\ \gamma_k &= "
        r"\frac{k\rho}{1 - k\rho}, \end{aligned}":
            "a rounding-error bound for a computed sum S-hat (gamma_k is Higham's constant "
            "here, not the gain)",
        r"\rho = 2^{-8}": "the unit roundoff of bfloat16, a format numpy does not have",
        r"\begin{aligned} y_{bj} &= \frac{z_{bj} - \mu_j}{\sqrt{q_j + \varepsilon}}, \\ "
        r"\mu_j &= \frac1B \sum_b z_{bj}, \\ q_j &= \frac1B \sum_b (z_{bj} - \mu_j)^2 "
        r"\end{aligned}":
            "statistics over the batch axis b (BatchNorm), not over a record",
        r"s^2 = \frac{1}{d - \mathrm{ddof}}\lVert v \rVert^2": "ddof is the function's option",
        r"\begin{aligned} y &= \gamma \odot \frac{v}{\sqrt{s^2 + \varepsilon}} + \beta "
        r"\quad\text{or} \\ y &= \gamma \odot \frac{v}{s + \varepsilon} + \beta , \end{aligned}":
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
        r"\varepsilon = 0": "a condition the row names (the unstabilized formula), not a binding",
    },
    "book/exercises.ipynb": {
        r"q = 0": "a condition: the constant record the sentence names",
        r"\frac{\partial q}{\partial z} = \frac2d v = 0": _CONSTANT,
        r"\infty\cdot 0 =": "no relation: the product the sentence names, whose value, NaN, "
                            "is a word",
        r"z = Wx": "names how the linear layer makes the record; a relation between names",
        r"\varepsilon > 0": "a condition the sentence names (after a case with epsilon = 0)",
        r"j \ne i": "an index condition",
    },
    "book/transformer.ipynb": {
        r"\begin{aligned} &\text{Post-LN:}\\ x_{l} &= \mathrm{LN}\big(x_{l-1} + "
        r"F_l(x_{l-1})\big),\\ &\text{Pre-LN:}\\ x_{l} &= x_{l-1} + "
        r"F_l\big(\mathrm{LN}(x_{l-1})\big). \end{aligned}":
            "a recurrence over the blocks l of a stack, with sublayers F_l of their own",
        r"F(a) = W_2\,\mathrm{relu}(W_1 a + b_1) + b_2":
            "defines the sublayer, with weights W_1 (2d x d) and W_2 (d x 2d) of its own",
        r"\ell = \sum_{j} C_j^\top y_j": "a sum over the T token records j of the stack's output",
        r"L = 2, 4, 8, 16, 32": "the list of depths of the experiment",
        r"L = 2": "a depth the sentence names (the experiment's smallest)",
        r"L = 32": "a depth the sentence names (the experiment's largest)",
        r"x_L = x_0 + \sum_l F_l": "a sum of the sublayers' outputs over the blocks of a stack",
        r"J(z) = J_{\mathrm{rms}}(Pz)\,P":
            "J_rms taken at another record, Pz, whose scale r is not the r of z",
        r"z = Wx": "names how the linear layer makes the record; a relation between names",
        r"z_i = w_i^\top x/\lVert w_i\rVert_2":
            "defines weight normalization's output through the rows w_i of W",
        r"d_h = 8": "the head dimension of the example the cell below computes",
        r"\varepsilon > 0": "a condition the sentence names (after a case with epsilon = 0)",
        r"q = (a-b)^2/4": "the variance of two values a, b of one feature, not of a record",
        r"W_2 = 0": "a condition (the sublayers switched off)",
        r"b_2 = 0": "a condition (the sublayers switched off)",
        r"F = 0": "a condition (the sublayers switched off)",
        r"q_l = q_{l-1}/(q_{l-1} + \varepsilon)": "a recursion over the blocks l",
        r"q = q/(q+\varepsilon)": "the fixed-point equation the sentence solves, a condition",
        r"q^\ast = 1 - \varepsilon": "the fixed point of the recursion over the blocks, a limit",
        r"q_0 = 1.25": "the start of the recursion, the variance of the exercise's (1, 2, 3, 4)",
        r"q_0 > 0": "a condition: the non-constant record the sentence supposes",
        r"q_8 \approx 0.9000": "the eighth term of the recursion over the blocks",
        r"q^\ast = 0.9": "the fixed point of the recursion at epsilon = 0.1, a limit",
        r"W\xi = \mathbf 1": "a condition that chooses the data shift xi",
        r"\omega^\top x = 0": "a condition on the re-centering vector (the exercise's answer)",
    },
    "book/epsilon.ipynb": {
        r"q = \varepsilon": "a condition the sentence names (where the mean square is one half)",
        r"q = 10^{6}\varepsilon": "a condition: the record the sentence supposes",
        r"f(z + \delta) = f(z) + Df(z)\,\delta + o(\lVert\delta\rVert_2)":
            "a limit (little o): no finite evaluation decides it",
        r"\lVert M\rVert_2 = \max_{\delta \ne 0} \frac{\lVert M\delta\rVert_2}"
        r"{\lVert\delta\rVert_2},":
            "the definition of the operator norm, a maximum over every nonzero vector",
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
    "book/frameworks.ipynb": {
        r"\gamma = \sqrt{(d-1)/d}\,\gamma_A":
            "gamma_A is the gain of another convention (the d - 1 divisor), not a symbol of "
            "the table; the cell beside ports a gain and checks the output",
        r"\gamma_A = \sqrt{d/(d-1)}\,\gamma":
            "the same port, solved for gamma_A",
        r"\hat\sigma = \sqrt{20/3}":
            "the unbiased standard deviation of (2,4,6,8), a statistic the table does not "
            "hold (the cell beside asserts sigma_hat^2 = 20/3)",
        r"\sigma^2/(\sigma^2 + \varepsilon) = 1/4":
            "the equation whose solution sigma_{1/2} the sentence gives: a condition",
        r"\sigma_{1/2} = \sqrt{\varepsilon/3}":
            "names the solution; the cell beside checks the half-size point of every "
            "convention",
        r"\sigma/(\sigma\sqrt{d/(d-1)} + \varepsilon) = 1/2":
            "the equation for the half-size point outside the root: a condition",
        r"\sigma_{1/2} = \varepsilon/(2 - \sqrt{d/(d-1)})":
            "names the solution; the cell beside checks the half-size point of every "
            "convention",
        r"P\delta/(\lVert P\delta\rVert/\sqrt{d-1} + \varepsilon) \approx P\delta/\varepsilon":
            "a first-order approximation for a small perturbation (a limit)",
        r"\begin{aligned} \mathrm{RMSNorm}_\varepsilon(z) &= \frac{z}{\sqrt{\tfrac1d \lVert "
        r"z\rVert^2 + \varepsilon}},\\ \tfrac1d \lVert z\rVert^2 &= q + \mu^2 . \end{aligned}":
            "defines RMSNorm, which no later formula of the cell uses (the cell beside "
            "checks lnbook.rms_norm and the identity mean square = q + mu^2 at (2,4,6,8))",
        r"\mu = 0":
            "a condition: the records on which the two layers coincide",
        r"z = v":
            "a condition: a centered record",
        r"|\mu|/\sigma = 10^4":
            "a condition: the offset of the records the tables measure",
        r"q + 10^{-5} = 0.9801\,(q + 10^{-3})":
            "the equation the exercise solves for the variance q: a condition",
        r"q = (0.9801 \cdot 10^{-3} - 10^{-5})/0.0199 \approx":
            "its solution, the variance of the record the exercise then builds (the cell "
            "beside checks the ratio 0.99 on that record)",
        r"\sigma_{1/2} = \sqrt{\varepsilon/3} = \sqrt{10^{-5}/3} \approx":
            "the half-size point inside the root at PyTorch's epsilon; the next formula "
            "redefines sigma_{1/2} for the placement outside (the cell beside checks both)",
        r"\varepsilon = \sigma_{1/2}\,(2 - \sqrt{4/3}) \approx":
            "solves for the epsilon outside the root, another value than the epsilon bound "
            "for the inside placement (the cell beside checks the half size)",
    },
    "book/floating_point.ipynb": {
        r"q \approx \sigma^2":
            "an order of magnitude: the records are sigma (chi 1 + psi) with psi standard normal "
            "(the cell beside asserts the variances at sigma = sqrt(eps) within a factor 3 of eps)",
        r"\sigma = 10^{-6}": "a condition: one of the spreads the cell passes to offset_errors",
        r"\sigma = \sqrt\varepsilon":
            "a condition: one of the spreads the cell passes to offset_errors",
        r"\sigma = 1": "a condition: one of the spreads the cell passes to offset_errors",
        r"n < 2^p":
            "a condition: the integers n of a format with p bits",
        r"\rho = 2^{-p}":
            "defines the unit roundoff of a format with p bits (the cell beside checks p and "
            "rho for three formats)",
        r"\begin{aligned} \operatorname{fl}(x \circ y) &= (x \circ y)(1 + \theta),\\ |\theta| "
        r"&\le \rho . \end{aligned}":
            "the rounding model: circ is any of the four operations and fl a rounding, "
            "outside the checker's subset",
        r"z = (2,4,6,8)":
            "a record of d = 4 features while the sentence's other case binds d = 3; the "
            "cell beside checks its core with 60-digit decimals",
        r"\operatorname{err}(\hat u) = \frac{\max_i |\hat u_i - "
        r"u_i|}{\operatorname{ulp}\big(\max_i |u_i|\big)} .":
            "the definition of the error of a computed core u-hat, which no formula binds "
            "(lnbook.ulp_error computes it; the cell beside tests it)",
        r"E[z^2] \approx 4 \times 10^6":
            "a value of another record: the float32 record of the cell beside, which prints "
            "it",
        r"E[z^2] \approx 10^4":
            "a value of another record: the float32 record of the cell beside, which prints "
            "it",
        r"\frac{|\hat q - q|}{q} \approx \rho\Big(1 + \frac{\mu^2}{q}\Big),":
            "an error estimate for a computed variance q-hat (the cell beside compares it "
            "with the measured error)",
        r"|\mu|/\sigma \approx 10^k":
            "a condition: the offset of the records the sentence measures (the cell beside "
            "computes them)",
        r"|\mu|/\sigma = 10^8":
            "a condition: the offset of the records the sentence measures (the cell beside "
            "computes them)",
        r"E[z^2] \approx 10^{16}":
            "a value of another record: the float64 record at offset 1e8 of the cell beside, "
            "which asserts it",
        r"\Delta_\varepsilon/(2(q+\varepsilon)) \le \Delta_\varepsilon/(2\varepsilon)":
            "Delta_eps is a change of epsilon, not a symbol of the table (the cell beside "
            "checks the bound)",
        r"q = \varepsilon":
            "a condition: the record the sentence supposes",
        r"\theta_0 = \mu_0 - \mu":
            "the rounding error of a computed mean mu_0, a rounded value the checker does "
            "not model",
        r"y/2 \le x \le 2y":
            "a condition of Sterbenz's lemma on two floating-point numbers x and y (the cell "
            "beside checks it on 2,000 pairs)",
        r"\hat v = \operatorname{fl}(z - \mu_0)":
            "a rounded operation fl(.), which the checker does not model (the cells beside "
            "measure it)",
        r"\hat v = v - \theta_0\mathbf 1":
            "holds for the computed v-hat and the rounding error theta_0 (the cell beside "
            "checks it exactly at offset 1e9)",
        r"w = z - \mu_0":
            "w here is computed from the rounded mean mu_0, which the checker does not model",
        r"\mu - \mu_0 = -\theta_0":
            "the rounding error of a computed mean mu_0, a rounded value the checker does "
            "not model",
        r"\begin{aligned} \mu_0 &= \operatorname{fl}\Big(\frac1d\sum_i z_i\Big),\\ w &= "
        r"\operatorname{fl}(z - \mu_0),\\ \Delta &= \operatorname{fl}\Big(\frac1d\sum_i "
        r"w_i\Big),\\ v &= \operatorname{fl}(w - \Delta),\\ \mu &= \operatorname{fl}(\mu_0 + "
        r"\Delta). \end{aligned}":
            "a rounded operation fl(.), which the checker does not model (the cells beside "
            "measure it)",
        r"|\mu|/\sigma = 10^9":
            "a condition: the offset of the records the sentence measures (the cell beside "
            "computes them)",
        r"z = \sigma(\chi\mathbf 1 + \psi)":
            "the records lnbook.fp.offset_errors draws: chi is its offset, psi its fixed "
            "standard normal draw",
        r"\chi = |\mu|/\sigma":
            "names the offset ratio that offset_errors takes as a parameter",
        r"|\mu|/\sigma = 10^{12}":
            "a condition: the offset of the records the sentence measures (the cell beside "
            "computes them)",
        r"\rho\,|\mu|/\sigma \approx":
            "evaluated at the offset 1e12 that the sentence names (a value of other records; "
            "glued from the cell beside)",
        r"\begin{aligned} \mu_k &= \mu_{k-1} + \frac{z_k - \mu_{k-1}}{k},\\ M_k &= M_{k-1}\\ "
        r"&\quad + (z_k - \mu_{k-1})(z_k - \mu_k),\\ q &= \frac{M_d}{d} . \end{aligned}":
            "a recurrence over the first k features (Welford's), not symbols of the table; "
            "the cell beside runs it by hand",
        r"\mu_1 = 1":
            "a step of Welford's recurrence worked by hand (running statistics of the first "
            "k features, not symbols of the table); the cell beside asserts every step",
        r"M_1 = 0":
            "a step of Welford's recurrence worked by hand (running statistics of the first "
            "k features, not symbols of the table); the cell beside asserts every step",
        r"\mu_2 = 1.5":
            "a step of Welford's recurrence worked by hand (running statistics of the first "
            "k features, not symbols of the table); the cell beside asserts every step",
        r"M_2 = 0 + 1 \cdot 0.5 = 0.5":
            "a step of Welford's recurrence worked by hand (running statistics of the first "
            "k features, not symbols of the table); the cell beside asserts every step",
        r"\mu_3 = 2":
            "a step of Welford's recurrence worked by hand (running statistics of the first "
            "k features, not symbols of the table); the cell beside asserts every step",
        r"M_3 = 0.5 + 1.5 \cdot 1 = 2":
            "a step of Welford's recurrence worked by hand (running statistics of the first "
            "k features, not symbols of the table); the cell beside asserts every step",
        r"\mu_4 = 2.5":
            "a step of Welford's recurrence worked by hand (running statistics of the first "
            "k features, not symbols of the table); the cell beside asserts every step",
        r"M_4 = 2 + 2 \cdot 1.5 = 5":
            "a step of Welford's recurrence worked by hand (running statistics of the first "
            "k features, not symbols of the table); the cell beside asserts every step",
        r"d = d_A + d_B":
            "the statistics of two parts A and B of a record, not symbols of the table (the "
            "cell beside checks the merge in fractions)",
        r"\begin{aligned} \mu &= \mu_A + (\mu_B - \mu_A)\,\frac{d_B}{d},\\ d\,q &= d_A q_A + "
        r"d_B q_B\\ &\quad + (\mu_B - \mu_A)^2\,\frac{d_A d_B}{d} . \end{aligned}":
            "the statistics of two parts A and B of a record, not symbols of the table (the "
            "cell beside checks the merge in fractions)",
        r"m = \mu":
            "a choice of the point m in the proposition, inside the proof (m = mu)",
        r"\mu_A - \mu = -(\mu_B - \mu_A)\,d_B/d":
            "the statistics of two parts A and B of a record, not symbols of the table (the "
            "cell beside checks the merge in fractions)",
        r"\mu_B - \mu = (\mu_B - \mu_A)\,d_A/d":
            "the statistics of two parts A and B of a record, not symbols of the table (the "
            "cell beside checks the merge in fractions)",
        r"(\mu_B - \mu_A)^2\,(d_A d_B^2 + d_B d_A^2)/d^2 = (\mu_B - \mu_A)^2\, d_A d_B/d":
            "the statistics of two parts A and B of a record, not symbols of the table (the "
            "cell beside checks the merge in fractions)",
        r"d_B = 1":
            "the statistics of two parts A and B of a record, not symbols of the table (the "
            "cell beside checks the merge in fractions)",
        r"q_B = 0":
            "the statistics of two parts A and B of a record, not symbols of the table (the "
            "cell beside checks the merge in fractions)",
        r"(d, \mu, q) = (2, 1.5, 0.25)":
            "the statistics of the part (1, 2), not of the record (1, 2, 3, 4) the cell binds",
        r"|\mu|/\sigma = 10^4":
            "a condition: the offset of the records the sentence measures (the cell beside "
            "computes them)",
        r"\varphi_k = k\rho/(1 - k\rho)":
            "Higham's constant gamma_k (renamed varphi_k), a function of the count k outside "
            "the table",
        r"|\theta| \le \rho":
            "the rounding model's bound on the relative error theta of one operation",
        r"\begin{aligned} |\hat S - S| &\le \varphi_{k(d)} \sum_i |x_i|,\\ S &= \sum_i x_i . "
        r"\end{aligned}":
            "a rounding-error bound for a computed sum S-hat of numbers x_i (the cells "
            "beside test it)",
        r"k = 17":
            "numpy's rounding depth k(d), a function the checker does not have (the cell "
            "beside computes it with lnbook.fp.pairwise_depth)",
        r"k = 23":
            "numpy's rounding depth k(d), a function the checker does not have (the cell "
            "beside computes it with lnbook.fp.pairwise_depth)",
        r"k(4096) = 23":
            "numpy's rounding depth k(d), a function the checker does not have (the cell "
            "beside computes it with lnbook.fp.pairwise_depth)",
        r"p = 11":
            "the significand bits of float16, a format the sentence names",
        r"p = 8":
            "the significand bits of bfloat16, a format the sentence names",
        r"z = c\mathbf 1 + \psi":
            "the records the cell beside draws: psi is a standard normal draw (xi is a data "
            "shift in the notation)",
        r"\rho|z_i| \approx \rho c":
            "an order of magnitude for records at offset c (the cell beside measures the "
            "error)",
        r"\rho = 2^{-11}":
            "float16's unit roundoff; the table's rho is float64's",
        r"k(768) = 17":
            "numpy's rounding depth k(d), a function the checker does not have (the cell "
            "beside computes it with lnbook.fp.pairwise_depth)",
        r"k(d) \le 24":
            "numpy's rounding depth k(d) for d up to 128, a function the checker does not "
            "have (the summary's cell asserts it with lnbook.fp.pairwise_depth)",
        r"k(d) = \log_2(d/128) + 18":
            "holds for d = 128 times a power of two, the case the sentence names (the cell "
            "beside checks ten of them)",
        r"k = 1, \dots, 4":
            "an index range",
        r"M_2 = 0 + (4 - 2)(4 - 3) = 2":
            "a step of Welford's recurrence worked by hand (running statistics of the first "
            "k features, not symbols of the table); the cell beside asserts every step",
        r"M_3 = 2 + (6 - 3)(6 - 4) = 8":
            "a step of Welford's recurrence worked by hand (running statistics of the first "
            "k features, not symbols of the table); the cell beside asserts every step",
        r"M_4 = 8 + (8 - 4)(8 - 5) = 20":
            "a step of Welford's recurrence worked by hand (running statistics of the first "
            "k features, not symbols of the table); the cell beside asserts every step",
        r"(\mu_B - \mu_A)^2 d_A d_B/d = 16":
            "the statistics of two parts A and B of a record, not symbols of the table (the "
            "cell beside checks the merge in fractions)",
        r"\sum_i |x_i| = S":
            "holds for positive terms x_i, the case the sentence names",
        r"\varphi_{17} = 17\rho/(1 - 17\rho) \approx":
            "evaluated with float32's rho = 2^-24, which the sentence names (the table's rho "
            "is float64's; glued from the cell beside)",
        r"\rho = 2^{-24}":
            "float32's unit roundoff; the table's rho is float64's",
        r"c \ge 0":
            "a condition: the integers c the exercise asks about",
    },
}

_SUM_ZERO = "equally true: the changed term is a multiple of sum_k v_k = 0"
_WEAKER = "a weaker bound, equally true"
_TIMES_ZERO = "equally true: the changed factor multiplies 0"

_FIVE = "equally true here: the record (2, 4, 6, 8) has mean and variance both 5"
_SUM_ZERO_Z = "equally true: the changed factor multiplies sum_i (z_i - mu) = 0"
_ZERO = "equally true: zero divided by any positive number is zero"
_AT_MOST = ("equally true: every u_j^2 is at most d - 1, so (d - 1)(d - u_j^2) is at least "
            "d - 1, at least every u_i^2")
_SEEDS_D = "the seeds draw d = 5, 2 and 8: neither d = 1 nor the boundary d = 3"
_LIPSCHITZ = {
    "symbol z -> z' at 36": "the left side becomes 0: a weaker statement",
    r"symbol \gamma -> \beta at 88": "another bound, true for the generic gains as well",
    "sign - -> + at 126": _WEAKER + " here (the generic z and z' point alike)",
    "symbol z -> z' at 128": "the right side becomes 0 as well: 0 <= 0",
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

_SHIFTED = "equally true: a shift by -c (or by another scalar t) is a common shift as well"

EQUIVALENT: dict[str, dict[str, dict[str, str]]] = {
    "book/records.ipynb": {
        r"P^2 = P": {"number 2 -> 3 at 2": "P^3 = P as well: P is idempotent"},
        r"T \ge 2": {"symbol T -> B at 0": "a condition the seeded sizes meet (B as well)"},
    },
    "book/shift.ipynb": {
        r"\begin{aligned} \mu(z + c\mathbf 1) &= \mu(z) + c,\\ q(z + c\mathbf 1) &= q(z),\\ "
        r"\mathrm{LN}_\varepsilon(z + c\mathbf 1) &= \mathrm{LN}_\varepsilon(z). \end{aligned}": {
            "sign + -> - at 58": _SHIFTED,
            "symbol c -> t at 60": _SHIFTED,
            "sign + -> - at 109": _SHIFTED,
            "symbol c -> t at 111": _SHIFTED,
        },
        r"\alpha \ne 1": {
            r"symbol \alpha -> c at 0": "a condition (the rescalings the sentence names) that "
                                         "the seeded shifts meet as well",
            "number 1 -> 2 at 11": "a condition (the rescalings the sentence names) that the "
                                   "seeded scale factors meet as well",
        },
        r"\kappa > -1": {
            "number 1 -> 2 at 10": "a condition (the range of kappa the sentence names), "
                                   "weaker",
        },
        r"P(z + c\mathbf 1) = Pz": {"sign + -> - at 4": _SHIFTED, "symbol c -> t at 6": _SHIFTED},
        r"\mathrm{LN}_\varepsilon(z + c\mathbf 1) = \mathrm{LN}_\varepsilon(z)": {
            "sign + -> - at 26": _SHIFTED,
            "symbol c -> t at 28": _SHIFTED,
        },
    },
    "book/weighted.ipynb": {
        r"a_i \ge 0": {"subscript i -> j at 2": "the same claim, for every index"},
        r"\begin{aligned} a^\top P_a z &= a^\top z - (a^\top\mathbf 1)(a^\top z)\\ &= 0, "
        r"\end{aligned}": {
            "symbol z -> z' at 28": "equally true: every record's weighted centering has "
                                    "weighted mean zero",
        },
        r"P_a^2 = P_a": {"number 2 -> 3 at 4": "P_a^3 = P_a as well: P_a is idempotent"},
        r"\begin{aligned} P_a^2 &= I - 2\,\mathbf 1 a^\top + \mathbf 1 (a^\top\mathbf 1) "
        r"a^\top\\ &= I - \mathbf 1 a^\top = P_a , \end{aligned}": {
            "number 2 -> 3 at 21": "P_a^3 = P_a as well: P_a is idempotent",
        },
        r"a \ne 0": {
            r"symbol a -> \delta at 0": "a hypothesis that any generic vector meets",
            "number 0 -> 1 at 6": "a hypothesis that any generic vector meets",
        },
        r"f''(c) = 2 > 0": {
            "symbol c -> t at 4": "equally true: f'' is the constant 2",
            "number 0 -> 1 at 13": _WEAKER,
        },
        r"P_a(z + c\mathbf 1) = P_a z": {
            "sign + -> - at 6": _SHIFTED,
            "symbol c -> t at 8": _SHIFTED,
        },
        r"q_a = \sum_i a_i (z_i - a^\top z)^2 = \tfrac14\cdot 2.25 + \tfrac34\cdot 0.25 = 0.75": {
            "number 2 -> 3 at 34": "equally true at the example: 1/4 1.5^3 + 3/4 (-0.5)^3 = 0.75 "
                                   "as well (the exponent is checked at generic records in "
                                   "the sentence before)",
        },
        r"\lVert (a_2, -a_1)\rVert_2\,\lVert(1,-1)\rVert_2 = \sqrt2\,\lVert a\rVert_2": {
            "sign - dropped at 13": "equally true: a sign does not change a Euclidean length",
            "sign - dropped at 37": "equally true: a sign does not change a Euclidean length",
        },
        r"1 = a^\top\mathbf 1 \le \sqrt2\,\lVert a\rVert_2": {
            "number 2 -> 3 at 29": _WEAKER,
            r"symbol a -> \delta at 39": "a bound the seeded perturbation meets as well (its "
                                         "length exceeds 1/sqrt 2)",
        },
        r"\begin{aligned} P_a P_{a'} &= (I - \mathbf 1 a^\top)(I - \mathbf 1 a'^\top)\\ &= P_a - "
        r"\mathbf 1 (1 - a^\top\mathbf 1)\, a'^\top\\ &= P_a . \end{aligned}": {
            "sign - -> + at 56": "equally true: P_a sends every multiple of 1 to zero, whatever "
                                 "its sign or direction",
            r"symbol a -> \delta at 68": "equally true: P_a sends every multiple of 1 to zero, "
                                         "whatever its sign or direction",
            "sign - -> + at 86": "equally true: the term is a multiple of 1 - a^T 1 = 0",
            r"symbol a -> \delta at 122": "equally true: the term is a multiple of 1 - a^T 1 = 0",
        },
    },
    "book/exercises.ipynb": {
        r"\mu = 20/4 = 5": {r"symbol \mu -> q at 0": _FIVE},
        r"z - \mu\mathbf 1 = (-3, -1, 1, 3)": {r"symbol \mu -> q at 4": _FIVE},
        r"q = 20/4 = 5": {r"symbol q -> \mu at 0": _FIVE},
        r"\alpha^2 q = 5\cdot 10^{-4}": {r"symbol q -> \mu at 9": _FIVE},
        r"z_i = \mu + \sqrt q\,u_i": {r"symbol \mu -> q at 6": _FIVE},
        r"\beta = \mu = 5": {r"symbol \mu -> q at 8": _FIVE},
        r"q = 5": {r"symbol q -> \mu at 0": _FIVE},
        r"z_1 - \mu = -3": {r"symbol \mu -> q at 6": _FIVE},
        r"0/\sqrt{10^{-5}} = 0": {
            "number 10 -> 11 at 8": _ZERO,
            "sign - dropped at 12": _ZERO,
            "number 5 -> 6 at 13": _ZERO,
        },
        r"u_0(\alpha z + c\mathbf 1) = u_0(z)": {
            "sign + -> - at 13": "equally true: the core ignores every shift, -c as well",
            "symbol c -> t at 15": "equally true: the core ignores every shift, t as well",
        },
        r"u_i^2 \le (d-1)(d - u_i^2),": {
            "subscript i -> j at 3": _AT_MOST,
            "number 2 -> 3 at 5": "true at the seeded records as well; not in general",
            "sign - -> + at 13": _WEAKER,
            "sign - -> + at 19": _WEAKER,
            "subscript i -> j at 23": _AT_MOST,
            "number 2 -> 3 at 25": "true at the seeded records as well; not in general",
        },
        r"|u_i| \le \sqrt{d-1}": {
            "subscript i -> j at 3": "equally true: the bound holds for every entry, u_j too",
            "sign - -> + at 17": _WEAKER,
        },
        r"d\,u_i^2 \le d(d-1)": {
            "subscript i -> j at 5": "equally true: the bound holds for every entry, u_j too",
            "number 2 -> 3 at 7": "true at the seeded records as well (no entry above "
                                  "(d-1)^(1/3) there); not in general",
            "sign - -> + at 16": _WEAKER,
        },
    },
    "book/transformer.ipynb": {
        r"P(W\xi) \ne 0": {
            "symbol P -> A at 0": "a hypothesis that generic vectors meet: A(W xi) is nonzero too",
            r"symbol \xi -> x at 3": "generic vectors meet it: P(W x) is nonzero too",
            "number 0 -> 1 at 12": "generic vectors meet it: P(W xi) is not 1 either",
        },
        r"\max(1/r, \varepsilon/r^3) = 1/r": {
            "number 3 -> 4 at 24": "true at the seeded records as well (epsilon <= r^3 there); "
                                   "not in general",
        },
        r"\varepsilon \le r^2": {
            "number 2 -> 3 at 18": "true at the seeded records as well (their mean square keeps "
                                   "r^3 above epsilon); not in general",
        },
        r"\lVert J_{\mathrm{rms}}(z)\rVert_2 \le \varepsilon^{-1/2}": {
            "symbol z -> z' at 24": "the bound holds at every record, z' as well",
            "number 2 -> 3 at 55": "the seeded records lie far from z = 0, where the bound is "
                                   "reached; the equality there is checked in the same sentence",
        },
        r"T \ge 2": {
            "symbol T -> B at 0": "equally true: every seeded batch size is at least 2 as well",
        },
        r"u_0(u_0(z)) = u_0(z)/\sqrt{1} = u_0(z)": {
            "number 0 -> 1 at 6": "equally true: u_0 ignores the scale u_1 changes, "
                                  "u_0(u_1(z)) = u_0(z)",
        },
    },
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
        r"v \ne 0": {
            "symbol v -> y at 0": "a hypothesis that any generic vector meets",
            "number 0 -> 1 at 6": "a hypothesis that any generic vector meets",
        },
        r"\lVert \begin{pmatrix}0&0\\-3/8&3/8\end{pmatrix}\rVert_2 = \frac{3\sqrt2}{8}": {
            "sign - dropped at 27": "equally true: a matrix with one nonzero row has the norm of "
                                    "that row, whatever its signs",
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
    "book/floating_point.ipynb": {
        r"u_\varepsilon(z + c\mathbf 1) = u_\varepsilon(z)": {
            "sign + -> - at 16": "equally true: the core is invariant under every common shift",
            "symbol c -> t at 18": "equally true: the core is invariant under every common shift",
        },
        r"\frac2d(\mu - m)\sum_i (z_i - \mu) = 0": {
            "number 2 -> 3 at 5": _SUM_ZERO_Z,
            r"symbol \mu -> q at 8": _SUM_ZERO_Z,
            "sign - -> + at 12": _SUM_ZERO_Z,
        },
        r"q = 20/4 = 5": {r"symbol q -> \mu at 0": _FIVE},
        r"\mu = 3 + 4 \cdot 2/4 = 5": {r"symbol \mu -> q at 0": _FIVE},
        r"4q = 2 \cdot 1 + 2 \cdot 1 + 4^2 \cdot 2 \cdot 2/4 = 2 + 2 + 16 = 20": {
            r"symbol q -> \mu at 1": _FIVE,
        },
        r"q = 5": {r"symbol q -> \mu at 0": _FIVE},
        r"\lceil\log_2 768\rceil = 10": {
            "number 768 -> 769 at 13": "equally true: 769 lies between 2^9 and 2^10 as well",
        },
        r"\sqrt{65504} \approx 256": {
            "number 65504 -> 65505 at 6": "equally true at the precision shown (255.9...)",
        },
    },
    "book/api.md": {
        r"\lVert J \rVert_2 = \begin{cases} 0 & d = 1,\\ \varepsilon/(q+\varepsilon)^{3/2} & "
        r"d = 2,\\ (q+\varepsilon)^{-1/2} & d \ge 3, \end{cases}": {
            "number 0 -> 1 at 34": _SEEDS_D,
            "symbol d -> c at 38": _SEEDS_D,
            "number 3 -> 4 at 123": _SEEDS_D,
        },
        r"\begin{aligned} &\lVert \mathrm{LN}(z) - \mathrm{LN}(z') \rVert_2 \\ &\le "
        r"\frac{\max_i |\gamma_i|}{\sqrt\varepsilon} \lVert z - z' \rVert_2 \end{aligned}":
            _LIPSCHITZ,
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
            "symbol J -> A at 52": (_WEAKER + " (diag(a) has entries below one: a smaller left "
                                    "side)"),
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
        r"d \ge 2": {
            "number 2 -> 3 at 6": "a condition its record (1, 1, -2) meets: d = 3",
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
            r"symbol \Gamma -> P at 0": "a nonzero matrix: P P = P is one as well",
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
