"""Fixtures shared by the classifiers' tests."""

import numpy as np
import pytest


@pytest.fixture
def record_normal_draws(monkeypatch):
    """``install(module)``: record every normal draw of ``module.noise_rng``.

    Replaces the module's fresh-entropy generator with one that delegates
    every draw and records each ``normal(loc, scale, size)`` call as
    ``(scale, size as a tuple or None)``, in order; returns that list, whose
    ``draws`` attribute holds the values each call returned. The
    privacy tests compare it with the stated scales: a check of the draws
    themselves, not of a copy of the calibration formula.
    """

    def install(module):
        calls = _Calls()
        real = module.noise_rng

        class Spy:
            def __init__(self, rng):
                self._rng = rng

            def normal(self, loc, scale, size=None):
                shape = None if size is None else tuple(np.atleast_1d(size))
                calls.append((scale, shape))
                calls.draws.append(self._rng.normal(loc, scale, size))
                return calls.draws[-1]

            def __getattr__(self, name):
                return getattr(self._rng, name)

        monkeypatch.setattr(module, "noise_rng", lambda rs: Spy(real(rs)))
        return calls

    return install


class _Calls(list):
    """The recorded ``(scale, size)`` calls, with the values drawn."""

    def __init__(self):
        super().__init__()
        self.draws = []
