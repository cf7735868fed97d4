"""The framework peers: PyTorch (float64 wherever possible), Flax and Keras against lnbook.

Checked against torch 2.13.0, flax 0.12.8 (jax 0.10.2) and keras 3.15.1, the versions of the
`frameworks` extra. Keras picks its backend once per process (``KERAS_BACKEND``), so each Keras
backend runs in its own subprocess. The claims are the ones the chapters make about these
libraries:

- PyTorch: ``F.layer_norm``, its autograd Jacobian and backward, ``BatchNorm1d`` in training
  mode, ``RMSNorm`` (eps None: machine epsilon), the bfloat16 cast, the CPU kernel's
  Welford-and-merge statistics;
- Flax: epsilon 1e-6, statistics in at least float32, the variance by default as
  E[z^2] - E[z]^2 (``use_fast_variance=True``) clipped at 0;
- Keras: epsilon 1e-3; on the JAX backend the variance is ``jnp.var`` (two passes); on the NumPy
  backend it is E[z^2] - E[z]^2, unclipped; on the PyTorch backend the layer calls
  ``torch.nn.functional.layer_norm``.

TensorFlow is not part of the test environment: the Keras TensorFlow-backend cases and the TF1
recipe of BERT skip, saying so.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import lnbook
from lnbook.frameworks import CONVENTIONS, convention_layer_norm
from lnbook.transformer import init_blocks, residual_backward, rms_jacobian

RNG_SEED = 20240611


def records(shape=(4, 32), offset=0.0, scale=1.0, seed=RNG_SEED):
    return offset + scale * np.random.default_rng(seed).normal(size=shape)


def ulps(computed, exact):
    return float(lnbook.ulp_error(computed, exact).max())


# --- PyTorch ------------------------------------------------------------------------------


def test_layer_norm_and_its_options(torch):
    """F.layer_norm and nn.LayerNorm in float64 (default, bias=False, elementwise_affine=False:
    parameter counts and outputs) agree with lnbook.layer_norm and the 'pytorch' convention."""
    rng = np.random.default_rng(1)
    for shape, eps in [((7,), 1e-5), ((3, 4, 16), 1e-3), ((2, 5), 0.7), ((4, 3), 0.0)]:
        z = rng.normal(size=shape) * 3 + 1
        gamma, beta = rng.normal(size=shape[-1]), rng.normal(size=shape[-1])
        theirs = torch.nn.functional.layer_norm(torch.tensor(z), shape[-1:], torch.tensor(gamma),
                                                torch.tensor(beta), eps=eps).numpy()
        assert np.allclose(lnbook.layer_norm(z, gamma, beta, eps=eps), theirs, rtol=1e-12,
                           atol=1e-12)
    d, z = 16, records(shape=(3, 16))
    full, no_bias, plain = (torch.nn.LayerNorm(d, dtype=torch.float64, **o) for o in (
        {}, {"bias": False}, {"elementwise_affine": False}))
    assert [sum(p.numel() for p in m.parameters()) for m in (full, no_bias, plain)] == [2 * d, d, 0]
    assert full.eps == CONVENTIONS["pytorch"].eps == lnbook.EPS
    gamma = np.random.default_rng(6).normal(size=d)
    with torch.no_grad():
        no_bias.weight.copy_(torch.from_numpy(gamma))
        np.testing.assert_allclose(convention_layer_norm(z, gamma, convention="pytorch"),
                                   no_bias(torch.from_numpy(z)).numpy(), rtol=1e-13, atol=1e-13)
        np.testing.assert_allclose(convention_layer_norm(z, convention="pytorch"),
                                   plain(torch.from_numpy(z)).numpy(), rtol=1e-13, atol=1e-13)


def test_jacobian_and_backward(torch):
    """lnbook.jacobian equals torch.autograd.functional.jacobian of F.layer_norm; input_grad
    and param_grads equal PyTorch's backward for input, weight and bias (float64)."""
    rng = np.random.default_rng(7)
    for d, eps in [(2, 3.0), (5, 1e-5), (8, 0.3)]:
        z, gamma = rng.normal(size=d) * 2, rng.normal(size=d)
        theirs = torch.autograd.functional.jacobian(lambda x, d=d, g=gamma, e=eps: (
            torch.nn.functional.layer_norm(x, (d,), torch.tensor(g), None, eps=e)),
            torch.tensor(z)).numpy()
        assert np.allclose(lnbook.jacobian(z, gamma, eps=eps), theirs, rtol=1e-12, atol=1e-12)
    z, g = rng.normal(size=(3, 4, 6)) + 2, rng.normal(size=(3, 4, 6))
    gamma, beta = rng.normal(size=6), rng.normal(size=6)
    tz, tgamma, tbeta = (torch.tensor(x, requires_grad=True) for x in (z, gamma, beta))
    torch.nn.functional.layer_norm(tz, (6,), tgamma, tbeta, eps=1e-3).backward(torch.tensor(g))
    dgamma, dbeta = lnbook.param_grads(z, g, eps=1e-3)
    assert np.allclose(lnbook.input_grad(z, g, gamma, eps=1e-3), tz.grad.numpy(), rtol=1e-11,
                       atol=1e-12)
    assert np.allclose(dgamma, tgamma.grad.numpy(), rtol=1e-12, atol=1e-12)
    assert np.allclose(dbeta, tbeta.grad.numpy(), rtol=1e-12, atol=1e-12)


def test_batch_norm_in_training_mode(torch):
    """batch_norm equals BatchNorm1d(affine=False) in training mode (float64). The last column
    has offset / spread 1e7: there torch is about 1e6 ulps off the exact result, lnbook within
    4 (each column against exact_core of that column)."""
    z = np.random.default_rng(9).normal(size=(32, 6)) * [1, 2, 3, 4, 5, 1e-3] + [0, 1, 2, 3, 4,
                                                                                 1e4]
    for eps in (1e-5, 0.1):
        layer = torch.nn.BatchNorm1d(6, eps=eps, affine=False, dtype=torch.float64)
        theirs = layer.train()(torch.from_numpy(z)).detach().numpy()
        ours = lnbook.batch_norm(z, eps=eps)
        assert np.allclose(ours[:, :5], theirs[:, :5], rtol=1e-12, atol=1e-12)
        assert np.allclose(ours[:, 5], theirs[:, 5], rtol=1e-8, atol=1e-8)
        assert ulps(ours.T, lnbook.exact_core(z.T.copy(), eps=eps)) <= 4


def test_rms_norm(torch):
    """F.rms_norm and nn.RMSNorm (eps None: the machine epsilon of the input's type) agree
    with the 'rmsnorm' convention; on a record whose mean square is comparable to that
    epsilon the output is z / sqrt(mean(z^2) + finfo.eps), not z / rms(z)."""
    z = records(shape=(5, 24), offset=0.5)
    gamma = np.random.default_rng(7).normal(size=24)
    theirs = torch.nn.functional.rms_norm(torch.from_numpy(z), (24,), torch.from_numpy(gamma))
    np.testing.assert_allclose(convention_layer_norm(z, gamma, convention="rmsnorm"),
                               theirs.numpy(), rtol=1e-13, atol=1e-13)
    layer = torch.nn.RMSNorm(4, dtype=torch.float64)
    assert layer.eps is None and CONVENTIONS["rmsnorm"].eps == np.finfo(np.float64).eps
    z = np.array([1.0, -2.0, 3.0, -4.0]) * 1e-8  # mean square 7.5e-16, machine eps 2.2e-16
    with torch.no_grad():
        theirs = layer(torch.from_numpy(z)).numpy()
    np.testing.assert_allclose(theirs, convention_layer_norm(z, convention="rmsnorm"), rtol=1e-14)
    assert not np.allclose(theirs, lnbook.rms_norm(z, eps=0), rtol=1e-3)


def test_the_annotated_transformer_and_the_one_pass_variance(torch):
    """a_2 (x - mean) / (x.std(-1) + eps) + b_2 written in torch is the 'annotated'
    convention; Flax's one-pass formula written in torch float64 gives the same numbers near
    mean 0, and collapses as lnbook's does at offset 1e7."""
    z = records(shape=(6, 10), scale=1e-3)
    rng = np.random.default_rng(8)
    a_2, b_2 = rng.normal(size=10), rng.normal(size=10)
    x = torch.from_numpy(z)
    theirs = torch.from_numpy(a_2) * (x - x.mean(-1, keepdim=True)) / (
        x.std(-1, keepdim=True) + 1e-6) + torch.from_numpy(b_2)
    np.testing.assert_allclose(convention_layer_norm(z, a_2, b_2, convention="annotated"),
                               theirs.numpy(), rtol=1e-12, atol=1e-13)
    for offset in (0.0, 1e7):
        z = records(shape=(8, 16), offset=offset)
        x = torch.from_numpy(z)
        mu = x.mean(-1, keepdim=True)
        var = torch.clamp((x * x).mean(-1, keepdim=True) - mu * mu, min=0.0)
        theirs = ((x - mu) * torch.rsqrt(var + 1e-6)).numpy()
        ours = convention_layer_norm(z, convention="flax")
        if offset == 0:
            np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-12)
        else:  # both far from the two-pass answer (and from each other)
            exact = lnbook.core(z, eps=1e-6)
            assert np.abs(ours - exact).max() > 1e-3 and np.abs(theirs - exact).max() > 1e-3


def test_residual_stacks_and_the_rms_jacobian(torch):
    """Both placements' gradients (every parameter and dl/dx) and RMSNorm's Jacobian equal
    PyTorch autograd's (float64, F.layer_norm)."""
    F = torch.nn.functional
    rng = np.random.default_rng(8)
    blocks = init_blocks(3, 5, m=7, seed=4)
    for p in blocks:
        p.update(b1=0.3 * rng.normal(size=7), b2=0.3 * rng.normal(size=5),
                 gamma=1 + 0.3 * rng.normal(size=5), beta=0.3 * rng.normal(size=5))
    x, C, eps = rng.normal(size=(3, 5)), rng.normal(size=(3, 5)), 1e-3
    for placement in ("pre", "post"):
        params = [{k: torch.tensor(v, requires_grad=True) for k, v in p.items()} for p in blocks]
        xt = torch.tensor(x, requires_grad=True)
        h = xt
        for p in params:
            def mlp(a, p=p):
                return torch.relu(a @ p["W1"].T + p["b1"]) @ p["W2"].T + p["b2"]
            if placement == "pre":
                h = h + mlp(F.layer_norm(h, (5,), p["gamma"], p["beta"], eps))
            else:
                h = F.layer_norm(h + mlp(h), (5,), p["gamma"], p["beta"], eps)
        if placement == "pre":
            h = F.layer_norm(h, (5,), eps=eps)
        (h * torch.tensor(C)).sum().backward()
        dx, grads = residual_backward(x, C, blocks, placement=placement, eps=eps)
        np.testing.assert_allclose(dx, xt.grad.numpy(), rtol=1e-10, atol=1e-12)
        for gk, p in zip(grads, params):
            for key in p:
                np.testing.assert_allclose(gk[key], p[key].grad.numpy(), rtol=1e-10,
                                           atol=1e-12, err_msg=f"{placement} {key}")
    z = torch.tensor(rng.normal(size=6))
    peer = torch.autograd.functional.jacobian(
        lambda t: t / torch.sqrt((t**2).mean() + 0.2), z).numpy()
    np.testing.assert_allclose(rms_jacobian(z.numpy(), eps=0.2), peer, rtol=1e-12, atol=1e-15)


def test_round_bfloat16(torch):
    """torch's float32 -> bfloat16 cast rounds as lnbook.fp.round_bfloat16, bit for bit."""
    rng = np.random.default_rng(11)
    x = (rng.standard_normal(20000) * 10.0 ** rng.integers(-20, 20, 20000)).astype(np.float32)
    x[:4] = [1 + 2**-8, 1 + 3 * 2**-8, -(1 + 2**-8), 2**-130]  # ties and a subnormal
    theirs = torch.from_numpy(x).to(torch.bfloat16).to(torch.float32).numpy()
    assert np.array_equal(lnbook.fp.round_bfloat16(x), theirs)


# (1,2,3,4) + 1e4 in float32: its one-pass variance is -8 (true value 1.25)
OFFSET_RECORD = (np.array([1.0, 2.0, 3.0, 4.0]) + 1e4).astype(np.float32)


def test_offset_record_defeats_the_float32_one_pass_formula():
    """The witness record itself: its float32 one-pass variance is -8, its true variance 1.25
    (E[z^2] = 1.0005e8 where float32's spacing is 8)."""
    _, q = lnbook.fp.one_pass_stats(OFFSET_RECORD, dtype=np.float32)
    assert np.spacing(np.float32(1.0005e8)) == 8
    assert float(q) == -8.0 and float(lnbook.stats(OFFSET_RECORD)[1]) == 1.25


# --- Flax ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def flax_nn():
    pytest.importorskip("jax", reason="JAX is not installed here; Flax peer tests skipped")
    return pytest.importorskip("flax.linen", reason="Flax is not installed; peer tests skipped")


def flax_apply(nn, z, **options):
    import jax

    layer = nn.LayerNorm(**options)
    variables = layer.init(jax.random.PRNGKey(0), z)
    return layer, np.asarray(layer.apply(variables, z), dtype=np.float64)


def test_flax_defaults_match_the_convention(flax_nn):
    """flax.linen.LayerNorm(): epsilon 1e-6 and use_fast_variance=True, as CONVENTIONS['flax']."""
    layer = flax_nn.LayerNorm()
    flax = CONVENTIONS["flax"]
    assert layer.epsilon == flax.eps == 1e-6
    assert layer.use_fast_variance is True and flax.fast_variance


def test_flax_agrees_in_float32(flax_nn):
    """On unit-scale float32 records Flax and lnbook's 'flax' convention agree to float32."""
    z = records().astype(np.float32)
    _, theirs = flax_apply(flax_nn, z)
    np.testing.assert_allclose(convention_layer_norm(z, convention="flax"), theirs, rtol=1e-5,
                               atol=1e-5)


def test_flax_fast_variance_collapses_on_offset_data(flax_nn):
    """Default Flax on (1,2,3,4)+1e4 in float32: the one-pass variance -8 is clipped to 0, so the
    output is v/sqrt(1e-6), about 894 times the standardized record; use_fast_variance=False
    gives the two-pass answer."""
    z = OFFSET_RECORD
    _, fast = flax_apply(flax_nn, z)
    _, slow = flax_apply(flax_nn, z, use_fast_variance=False)
    v = np.array([-1.5, -0.5, 0.5, 1.5])
    np.testing.assert_allclose(fast, v / np.sqrt(1e-6), rtol=1e-6)
    np.testing.assert_allclose(slow, lnbook.core(z, eps=1e-6), rtol=1e-6)
    assert np.abs(fast).max() / np.abs(slow).max() > 800


def test_flax_reduces_half_precision_in_float32(flax_nn):
    """float16 input: Flax computes mean and variance in float32 (force_float32_reductions), so
    the output is the float64 core of the float16 record, rounded to float16."""
    z = (records(shape=(8, 64)) * 3 + 1).astype(np.float16)
    _, theirs = flax_apply(flax_nn, z)
    ours = lnbook.core(z.astype(np.float64), eps=1e-6).astype(np.float16).astype(np.float64)
    spacing = np.spacing(np.abs(ours).astype(np.float16)).astype(np.float64)
    assert (np.abs(theirs - ours) <= 2 * spacing).all()


# --- Keras, one subprocess per backend ------------------------------------------------------

KERAS_SCRIPT = textwrap.dedent(
    """
    import json, sys
    import numpy as np
    import keras
    inputs = json.loads(sys.stdin.read())
    out = {"backend": keras.backend.backend(), "version": keras.__version__,
           "epsilon": keras.layers.LayerNormalization().epsilon, "y": {},
           "torch_functional": {}}
    for name, values in inputs.items():
        z = np.array(values, dtype=np.float32)
        layer = keras.layers.LayerNormalization()
        y = keras.ops.convert_to_numpy(layer(z))
        out["y"][name] = y.astype(float).tolist()
        if out["backend"] == "torch":
            import torch
            ref = torch.nn.functional.layer_norm(torch.from_numpy(z), (z.shape[-1],), eps=1e-3)
            out["torch_functional"][name] = ref.numpy().astype(float).tolist()
    print(json.dumps(out))
    """
)

# every input the Keras tests need, run once per backend (importing Keras takes seconds)
KERAS_INPUTS = {
    "unit": records().astype(np.float32),
    "offset": OFFSET_RECORD,
    "mixed": np.concatenate([records().astype(np.float32), np.tile(OFFSET_RECORD, (4, 8))]),
}
_KERAS_RUNS: dict = {}


def run_keras(backend):
    """LayerNormalization()(z) for every KERAS_INPUTS entry under KERAS_BACKEND=backend."""
    env = {k: v for k, v in os.environ.items() if k != "KERAS_BACKEND"}
    env["KERAS_BACKEND"] = backend
    payload = {k: np.asarray(v, dtype=np.float64).tolist() for k, v in KERAS_INPUTS.items()}
    proc = subprocess.run(
        [sys.executable, "-c", KERAS_SCRIPT], input=json.dumps(payload),
        capture_output=True, text=True, env=env, timeout=300,
    )
    if proc.returncode != 0:
        return None, proc.stderr.strip().splitlines()[-1] if proc.stderr else "no output"
    return json.loads(proc.stdout.strip().splitlines()[-1]), None


def keras_or_skip(backend):
    if importlib.util.find_spec("keras") is None:
        pytest.skip("Keras is not installed; Keras peer tests skipped")
    needs = {"jax": "jax", "numpy": "numpy", "torch": "torch", "tensorflow": "tensorflow"}[backend]
    if importlib.util.find_spec(needs) is None:
        pytest.skip(f"the Keras {backend} backend needs {needs}, which is not installed here "
                    f"(requirements.txt and tools/test do not install it)")
    if backend not in _KERAS_RUNS:
        _KERAS_RUNS[backend] = run_keras(backend)
    out, err = _KERAS_RUNS[backend]
    if out is None:
        pytest.fail(f"Keras on the {backend} backend failed to run: {err}")
    assert out["backend"] == backend
    return out


@pytest.mark.parametrize("backend", ["jax", "numpy", "torch", "tensorflow"])
def test_keras_agrees_in_float32(backend):
    """LayerNormalization(): epsilon 1e-3, and the 'keras' convention to float32 accuracy."""
    z = KERAS_INPUTS["unit"]
    out = keras_or_skip(backend)
    assert out["epsilon"] == CONVENTIONS["keras"].eps == 1e-3
    np.testing.assert_allclose(convention_layer_norm(z, convention="keras"),
                               np.array(out["y"]["unit"]),
                               rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("backend", ["jax", "numpy", "torch", "tensorflow"])
def test_keras_variance_algorithm_per_backend(backend):
    """On (1,2,3,4)+1e4 in float32, whose one-pass variance is -8: the NumPy backend returns
    NaN (the one-pass formula, unclipped: rsqrt(-8 + 1e-3)); the JAX and PyTorch backends stay
    near the core (jnp.var, two passes; torch's own kernel)."""
    z = OFFSET_RECORD
    out = keras_or_skip(backend)
    y = np.array(out["y"]["offset"])
    right = lnbook.core(z, eps=1e-3)
    if backend == "numpy":
        assert np.isnan(y).all()
    else:
        # float32 arithmetic at |mu|/sigma ~ 9e3: errors of order 1e-3, not a collapse
        assert np.abs(y - right).max() < 1e-2


def test_keras_torch_backend_calls_torch_layer_norm():
    """On the PyTorch backend LayerNormalization returns torch.nn.functional.layer_norm's
    float32 result bit for bit (keras/src/ops/nn.py, keras 3.15.1)."""
    out = keras_or_skip("torch")
    for name in KERAS_INPUTS:
        assert np.array_equal(np.array(out["y"][name]), np.array(out["torch_functional"][name]))


# --- PyTorch's CPU kernel ------------------------------------------------------------------


def test_torch_cpu_kernel_is_not_the_one_pass_formula(torch):
    """torch.nn.functional.layer_norm in float32 on (1,2,3,4)+1e4: its Welford-and-merge
    statistics (ATen RowwiseMoments) keep the variance; the one-pass formula returns 0."""
    z = OFFSET_RECORD
    out, mean, rstd = torch.native_layer_norm(torch.from_numpy(z), (4,), None, None, 1e-5)
    q = 1 / float(rstd) ** 2 - 1e-5
    assert abs(q - 1.25) < 1e-3 and float(mean) == 10002.5
    assert np.abs(out.numpy() - lnbook.core(z)).max() < 1e-2


def test_torch_batchnorm_batch_of_one_training_and_inference(torch):
    """BatchNorm1d refuses to train on a batch of one; in eval mode it normalizes a batch of one
    with its running statistics (momentum 0.1, unbiased batch variances), as the exercises
    chapter computes with numpy."""
    bn = torch.nn.BatchNorm1d(4, affine=False, dtype=torch.float64)
    one = torch.tensor([[2.0, 4.0, 6.0, 8.0]], dtype=torch.float64)
    with pytest.raises(ValueError, match="Expected more than 1 value per channel"):
        bn(one)
    rng = np.random.default_rng(21)
    running_mean, running_var = np.zeros(4), np.ones(4)
    for _ in range(200):
        train = rng.normal(loc=5.0, scale=2.0, size=(32, 4))
        bn(torch.from_numpy(train))
        running_mean = 0.9 * running_mean + 0.1 * train.mean(axis=0)
        running_var = 0.9 * running_var + 0.1 * train.var(axis=0, ddof=1)
    bn.eval()
    with torch.no_grad():
        theirs = bn(one).numpy()
    ours = (one.numpy() - running_mean) / np.sqrt(running_var + 1e-5)
    np.testing.assert_allclose(theirs, ours, rtol=1e-12)
    assert np.abs(theirs).min() > 0.1


def test_tensorflow_moments_recipe_of_bert():
    """BERT's TF1 layer: tf.nn.moments (two passes) and eps 1e-12 inside the root, as the 'bert'
    convention computes; tf.contrib.layers.layer_norm itself exists only in TensorFlow 1.x."""
    if importlib.util.find_spec("tensorflow") is None:
        pytest.skip("TensorFlow is not installed here (requirements.txt and tools/test do not "
                    "install it), and BERT's tf.contrib.layers.layer_norm needs TensorFlow 1.x, "
                    "which has no wheel for Python 3.11: the 'bert' convention rests on the cited "
                    "source of tf.nn.moments (book/references.bib, chc_tf_moments)")
    import tensorflow as tf

    z = records()
    mean, variance = tf.nn.moments(tf.constant(z), axes=[-1], keepdims=True)
    theirs = ((z - mean.numpy()) / np.sqrt(variance.numpy() + 1e-12))
    np.testing.assert_allclose(convention_layer_norm(z, convention="bert"), theirs, rtol=1e-12,
                               atol=1e-12)
    _, v32 = tf.nn.moments(tf.constant(OFFSET_RECORD), axes=[-1])
    assert abs(float(v32) - 1.25) < 1e-2  # two passes: no collapse where one pass gives -8
