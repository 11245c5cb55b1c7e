"""The main job: what the library does, shown on real numbers."""

# SPDX-License-Identifier: BSD-3-Clause

import math

from . import __version__
from .accounting import PrivacyAccountant, amplify_by_subsampling, compose_advanced


def main(argv=None):
    """Print a short demonstration of the privacy accounting; return 0."""
    print(f"sklearn_semiprivate {__version__}")
    print("Privacy accounting of 100 adaptive releases at epsilon0 = 0.05 each:")
    acc = PrivacyAccountant(epsilon=10.0)
    for _ in range(100):
        acc.spend(0.05)
    adv = compose_advanced(0.05, k=100, delta_slack=1e-6)
    print(f"  basic composition:    epsilon = {acc.spent().epsilon:.3f}")
    print(f"  advanced composition: epsilon = {adv.epsilon:.3f}, delta = {adv.delta:g}")
    amp = amplify_by_subsampling(1.0, 0.01)
    print(
        "  a 1-DP release on a 1% Poisson subsample: "
        f"epsilon = {amp.epsilon:.4f} (= log(1 + 0.01 (e - 1)) = "
        f"{math.log1p(0.01 * math.expm1(1.0)):.4f})"
    )
    return 0
