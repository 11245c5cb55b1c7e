"""numpy's noise is bounded: the numbers of docs/limitations.rst, pinned.

numpy's ``Generator`` (numpy 1.25 to 2.4; ``distributions.c`` is unchanged over
these versions) builds every continuous variate from uniforms ``U = k * 2**-53``
with ``0 <= k < 2**53`` (PCG64: ``(raw >> 11) * 2**-53``). Each sampler below is
a monotone function of finitely many such uniforms, so its range is bounded:

* ``random_gumbel``: ``U = 1 - next_double`` (``U == 1`` rejected), ``-log(-log U)``
  -> ``[-log(53 ln 2), 53 ln 2] = [-3.6038, 36.7368]``;
* ``random_laplace``: ``-log(2 - U - U)`` for ``U >= 0.5``, ``log(U + U)`` for
  ``0 < U < 0.5`` -> ``[-52 ln 2, 53 ln 2] = [-36.0437, 36.7368]`` (``2 - U``
  rounds to 1 at ``U = 1 - 2**-53``);
* ``random_standard_exponential``: a ziggurat whose only unbounded branch is the
  tail ``r - log1p(-U)``, ``r = 7.69711747013105`` -> ``[0, r + 53 ln 2]``;
* ``random_standard_normal``: a ziggurat whose tail is ``r + xx`` with
  ``xx = -log1p(-U1) / r``, accepted iff ``2 yy > xx**2``, ``yy = -log1p(-U2)``,
  ``r = 3.65415288536101`` -> ``|Z| <= 12.2254``.

The draws are forced through the public ``Generator`` API by setting the state of
an MT19937 bit generator so that its next 32-bit outputs are chosen words: the
samplers and the package's mechanisms then run their own code on the extreme
uniforms.
"""

# SPDX-License-Identifier: BSD-3-Clause

import math
import re
from pathlib import Path

import numpy as np
import pytest

from sklearn_semiprivate import (
    PrivacyAccountant,
    PublicAssistedQueryRelease,
    PublicData,
    SemiPrivateClassifier,
)
from sklearn_semiprivate.hypotheses._base import _gumbel_max
from sklearn_semiprivate.mechanisms import (
    ExponentialMechanism,
    GaussianMechanism,
    LaplaceMechanism,
    PermuteAndFlip,
    ReportNoisyMax,
)
from sklearn_semiprivate.query_release import ThresholdQueries

LIMITATIONS = Path(__file__).resolve().parents[2] / "docs" / "limitations.rst"

K = 2**53  # number of 53-bit uniforms
LN2 = math.log(2.0)
ZIGGURAT_EXP_R = 7.6971174701310497140446280481  # ziggurat_constants.h
ZIGGURAT_NOR_R = 3.6541528853610087963519472518
ZIGGURAT_NOR_INV_R = 0.27366123732975827203338247596

GUMBEL_MIN = -math.log(53 * LN2)
GUMBEL_MAX = 53 * LN2
LAPLACE_MIN = -52 * LN2
LAPLACE_MAX = 53 * LN2
EXPONENTIAL_MAX = ZIGGURAT_EXP_R + 53 * LN2
# Tail step x = -log1p(-U1) / r at U1 = 1 - j 2**-53: j = 225 is the smallest j
# (largest x) the acceptance test can pass.
NORMAL_TAIL_J = 225
NORMAL_MAX = ZIGGURAT_NOR_R + -ZIGGURAT_NOR_INV_R * math.log1p(
    -(1 - NORMAL_TAIL_J * 2**-53)
)


# --- forcing the bit generator ------------------------------------------------


def _temper(y):
    y ^= y >> 11
    y ^= (y << 7) & 0x9D2C5680
    y ^= (y << 15) & 0xEFC60000
    y ^= y >> 18
    return y & 0xFFFFFFFF


def _untemper(y):
    y ^= y >> 18
    y ^= (y << 15) & 0xEFC60000
    t = y
    for _ in range(5):
        t = y ^ ((t << 7) & 0x9D2C5680)
    t &= 0xFFFFFFFF
    y = t
    for _ in range(3):
        t = y ^ (t >> 11)
    return t & 0xFFFFFFFF


def _forced(*words):
    """A Generator whose MT19937 emits ``words`` (32-bit) first."""
    key = [_untemper(w) for w in words]
    assert [_temper(k) for k in key] == list(words)
    bit_generator = np.random.MT19937(0)
    bit_generator.state = {
        "bit_generator": "MT19937",
        "state": {"key": np.array(key + [0] * (624 - len(key)), np.uint32), "pos": 0},
    }
    return np.random.Generator(bit_generator)


def _u(k):
    """Words making MT19937's ``next_double`` return ``k * 2**-53``."""
    # mt19937_next_double: ((w1 >> 5) * 2**26 + (w2 >> 6)) / 2**53
    return ((k >> 26) << 5, (k & (2**26 - 1)) << 6)


def _u64(word):
    # next_uint64 joins two 32-bit calls in an order C leaves unspecified:
    # equal words make it irrelevant.
    return (word, word)


# Raw 64-bit draws of the ziggurat tails (idx = 0 and past the first layer).
_EXP_TAIL = _u64(0xFFFFF807)  # (raw >> 3) & 0xFF == 0, raw >> 11 >= ke_double[0]
_NOR_TAIL = _u64(0xFFFFFF00)  # raw & 0xFF == 0, rabs >= ki_double[0]


def _laplace_noise(k):
    """numpy's random_laplace(0, 1) at U = k 2**-53, in Python floats."""
    u = k * 2.0**-53
    if u >= 0.5:
        return 0.0 - 1.0 * math.log(2.0 - u - u)
    return 0.0 + 1.0 * math.log(u + u)


# --- the uniforms -----------------------------------------------------------


@pytest.mark.parametrize("seed", [0, 1, 12345])
def test_pcg64_double_is_the_top_53_bits(seed):
    raw = int(np.random.PCG64(seed).random_raw())
    u = np.random.Generator(np.random.PCG64(seed)).random()
    assert u == (raw >> 11) * 2.0**-53


@pytest.mark.parametrize("k", [0, 1, 2**52, K - 1])
def test_forced_uniforms(k):
    assert _forced(*_u(k)).random() == k * 2.0**-53


# --- the ranges of numpy's samplers -------------------------------------------


def test_gumbel_range():
    assert -math.log(-math.log(1.0 - 2.0**-53)) == GUMBEL_MAX
    assert -math.log(-math.log(2.0**-53)) == GUMBEL_MIN
    # random_gumbel: U = 1 - next_double; k = 1 gives U = 1 - 2**-53.
    assert _forced(*_u(1)).gumbel() == GUMBEL_MAX
    assert _forced(*_u(K - 1)).gumbel() == GUMBEL_MIN
    # k = 0 (U = 1) is rejected and redrawn: the next uniform decides.
    assert _forced(*_u(0), *_u(K - 1)).gumbel() == GUMBEL_MIN
    assert round(GUMBEL_MAX - GUMBEL_MIN, 4) == 40.3406


def test_laplace_range():
    assert _forced(*_u(K - 1)).laplace() == LAPLACE_MAX
    assert _forced(*_u(1)).laplace() == LAPLACE_MIN
    # U = 0 is rejected; the largest U rounds 2 - U to 1, hence 53 ln 2, not 52.
    assert _forced(*_u(0), *_u(K - 1)).laplace() == LAPLACE_MAX
    assert _forced(*_u(K - 2)).laplace() == -math.log(2.0**-51)  # 51 ln 2
    for k in (1, 2, 3, K // 3, K // 2, K - 3, K - 2, K - 1):
        assert _forced(*_u(k)).laplace() == _laplace_noise(k)


def test_standard_exponential_range():
    assert _forced(0, 0).standard_exponential() == 0.0
    assert _forced(*_EXP_TAIL, *_u(K - 1)).standard_exponential() == EXPONENTIAL_MAX
    assert _forced(*_EXP_TAIL, *_u(K - 1)).exponential(2.5) == 2.5 * EXPONENTIAL_MAX


def test_standard_normal_range():
    yy_max = -math.log1p(-(1.0 - 2.0**-53))

    def xx(j):
        return -ZIGGURAT_NOR_INV_R * math.log1p(-(1.0 - j * 2.0**-53))

    # Acceptance yy + yy > xx * xx: j = 225 passes with the largest yy, 224 never.
    assert yy_max + yy_max > xx(NORMAL_TAIL_J) ** 2
    assert not yy_max + yy_max > xx(NORMAL_TAIL_J - 1) ** 2
    top = _forced(*_NOR_TAIL, *_u(K - NORMAL_TAIL_J), *_u(K - 1))
    assert abs(top.standard_normal()) == NORMAL_MAX
    # Step 224 is rejected even with the largest yy: the loop draws again.
    again = _forced(*_NOR_TAIL, *_u(K - 224), *_u(K - 1), *_u(K - 226), *_u(K - 1))
    assert abs(again.standard_normal()) == ZIGGURAT_NOR_R + xx(226) < NORMAL_MAX


def test_docs_state_these_numbers():
    text = LIMITATIONS.read_text(encoding="utf-8")
    numbers = set(re.findall(r"\d+\.\d+", text))
    for value in (
        GUMBEL_MAX,
        -GUMBEL_MIN,
        GUMBEL_MAX - GUMBEL_MIN,
        -LAPLACE_MIN,
        LAPLACE_MAX - LAPLACE_MIN,
        EXPONENTIAL_MAX,
        NORMAL_MAX,
    ):
        assert f"{value:.4f}" in numbers, value


# --- consequences for the package's mechanisms --------------------------------

# epsilon = 2, sensitivity 1: logits are the scores themselves (coefficient 1).


@pytest.mark.parametrize(
    ("gap", "winner"), [(40.34, 1), (40.35, 0)], ids=["inside", "beyond"]
)
def test_exponential_mechanism_cutoff(gap, winner):
    # Most favourable noise for the trailing member: the best gets the smallest
    # Gumbel variate, the trailing one the largest. Beyond 40.3406 it still loses,
    # so it loses for every noise: its probability is exactly 0.
    for sample in (
        lambda rng: ExponentialMechanism(2.0).sample([0.0, -gap], random_state=rng),
        lambda rng: ReportNoisyMax(2.0, noise="gumbel").sample(
            [0.0, -gap], random_state=rng
        ),
        lambda rng: int(_gumbel_max(np.array([[0.0, -gap]]), rng)[0]),
    ):
        assert sample(_forced(*_u(K - 1), *_u(1))) == winner
    assert np.exp(ExponentialMechanism(2.0).log_probabilities([0.0, -gap]))[1] > 0


@pytest.mark.parametrize(
    ("gap", "winner"), [(44.43, 1), (44.44, 0)], ids=["inside", "beyond"]
)
def test_permute_and_flip_cutoff(gap, winner):
    # The best gets exponential noise 0, the trailing one the largest value.
    rng = _forced(0, 0, *_EXP_TAIL, *_u(K - 1))
    assert PermuteAndFlip(2.0).sample([0.0, -gap], random_state=rng) == winner
    assert np.exp(PermuteAndFlip(2.0).log_probabilities([0.0, -gap]))[1] > 0


@pytest.mark.parametrize(
    ("gap", "winner"), [(72.78, 1), (72.79, 0)], ids=["inside", "beyond"]
)
def test_report_noisy_max_laplace_cutoff(gap, winner):
    rng = _forced(*_u(1), *_u(K - 1))
    mech = ReportNoisyMax(2.0, noise="laplace")
    assert mech.sample([0.0, -gap], random_state=rng) == winner


def test_additive_noise_is_bounded():
    mech = LaplaceMechanism(epsilon=0.5, sensitivity=1.0)  # scale 2
    assert mech.sample(0.0, random_state=_forced(*_u(K - 1))) == 2 * LAPLACE_MAX
    assert mech.sample(0.0, random_state=_forced(*_u(1))) == 2 * LAPLACE_MIN
    gauss = GaussianMechanism(epsilon=1.0, delta=1e-5)
    rng = _forced(*_NOR_TAIL, *_u(K - NORMAL_TAIL_J), *_u(K - 1))
    assert abs(gauss.sample(0.0, random_state=rng)) == gauss.sigma * NORMAL_MAX


def test_laplace_output_set_depends_on_the_value():
    """Mironov (2012): an output of ``1 + Lap(1)`` that ``0 + Lap(1)`` never gives.

    ``k -> 0.0 + noise(k)`` is non-decreasing (numpy's formula is monotone in U,
    given a monotone ``log``), so two consecutive uniforms whose outputs straddle
    ``y`` prove that no uniform gives ``y``: infinite privacy loss at ``y``.
    """
    mech = LaplaceMechanism(epsilon=1.0, sensitivity=1.0)

    def released(value, k):
        return mech.sample(value, random_state=_forced(*_u(k)))

    k1 = 3 * 2**51  # U = 0.75
    while True:
        y = 1.0 + _laplace_noise(k1)
        lo, hi = 1, K - 1  # smallest k with 0 + noise(k) >= y
        while lo < hi:
            mid = (lo + hi) // 2
            lo, hi = (lo, mid) if _laplace_noise(mid) >= y else (mid + 1, hi)
        if _laplace_noise(lo) != y:
            break
        k1 += 1
    assert k1 - 3 * 2**51 < 20  # most outputs near 1.7 are such outputs
    assert released(1.0, k1) == y
    assert released(0.0, lo - 1) < y < released(0.0, lo)


# --- add/remove at the boundary: no private row ---------------------------------


def test_zero_private_rows_raise_before_any_charge():
    rng = np.random.default_rng(0)
    X_pub = PublicData(rng.uniform(size=(20, 1)))
    one = rng.uniform(size=(1, 1))
    fits = [
        lambda X, acc: SemiPrivateClassifier(
            hypothesis_class="thresholds", classes=[0, 1], accountant=acc
        ).fit(X, np.zeros(X.shape[0], dtype=int), X_public=X_pub),
        lambda X, acc: PublicAssistedQueryRelease(
            ThresholdQueries(np.linspace(0, 1, 5)), accountant=acc
        ).fit(X, X_public=X_pub),
    ]
    for fit in fits:
        acc = PrivacyAccountant(epsilon=10.0)
        with pytest.raises(ValueError, match="0 sample"):
            fit(one[:0], acc)
        assert acc.spent().epsilon == 0.0
        fit(one, acc)
        assert acc.spent().epsilon > 0.0
