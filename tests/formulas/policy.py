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
    "book/floating_point.ipynb",
    "book/frameworks.ipynb",
}

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
        r"\varepsilon = q\,(1-\nu)/\nu":
            "the solution for a target nu that the sentence names after it",
        r"\lvert\gamma_1\rvert = \lvert\gamma_2\rvert": "a condition (the two gains agree)",
        r"\nu = 0.9": "a target value the sentence then evaluates (q/9), typed in the prose",
        r"\nu = 0.99": "a target value the sentence then evaluates (q/99), typed in the prose",
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
        r"m < 2^p":
            "a condition: the integers m of a format with p bits",
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
        r"z = \sigma(r\mathbf 1 + \xi)":
            "the records lnbook.fp.offset_errors draws: r and xi are its parameters",
        r"r = |\mu|/\sigma":
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
        r"\Gamma_k = k\rho/(1 - k\rho)":
            "Higham's constant gamma_k (renamed Gamma_k), a function of the count k outside "
            "the table",
        r"|\theta| \le \rho":
            "the rounding model's bound on the relative error theta of one operation",
        r"\begin{aligned} |\hat S - S| &\le \Gamma_{k(d)} \sum_i |x_i|,\\ S &= \sum_i x_i . "
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
        r"z = c\mathbf 1 + \xi":
            "the records the cell beside draws: xi is a standard normal draw",
        r"\rho|z_i| \approx \rho c":
            "an order of magnitude for records at offset c (the cell beside measures the "
            "error)",
        r"\rho = 2^{-11}":
            "float16's unit roundoff; the table's rho is float64's",
        r"k(768) = 17":
            "numpy's rounding depth k(d), a function the checker does not have (the cell "
            "beside computes it with lnbook.fp.pairwise_depth)",
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
        r"\Gamma_{17} = 17\rho/(1 - 17\rho) \approx":
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

_SUM_ZERO_Z = "equally true: the changed factor multiplies sum_i (z_i - mu) = 0"
_FIVE = "equally true: the record (2, 4, 6, 8) has mean 5 and variance 5"
_SEEDS_D = "the seeds draw d = 5, 2 and 8: neither d = 1 nor the boundary d = 3"
_LIPSCHITZ = {
    "symbol z -> z' at 19": "the left side becomes 0: a weaker statement",
    r"symbol \gamma -> \beta at 67": "another bound, true for the generic gains as well",
    "sign - -> + at 105": _WEAKER + " here (the generic z and z' point alike)",
    "symbol z -> z' at 107": "the right side becomes 0 as well: 0 <= 0",
}

EQUIVALENT: dict[str, dict[str, dict[str, str]]] = {
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
