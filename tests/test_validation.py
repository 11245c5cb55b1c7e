"""One integer check for every count parameter of the package."""

import numpy as np
import pytest

from sklearn_semiprivate.accounting import compose_advanced
from sklearn_semiprivate.audit import clopper_pearson, neighbouring_pairs
from sklearn_semiprivate.utils import check_integer


def test_check_integer():
    assert check_integer(np.int64(3), "n", 1) == 3
    assert type(check_integer(np.int32(0), "n", 0)) is int
    for bad in (True, np.bool_(True), 2.0, "2", None):
        with pytest.raises(TypeError, match="n must be an integer"):
            check_integer(bad, "n", 0)
    with pytest.raises(ValueError, match="n must be >= 1, got 0"):
        check_integer(0, "n", 1)


def test_count_parameters_agree_across_the_package():
    # numpy integers are accepted everywhere, bools refused everywhere
    assert len(neighbouring_pairs([0, 1], np.int64(1))) > 0
    assert compose_advanced((0.1, 0.0), np.int64(3), 1e-5).epsilon > 0
    with pytest.raises(TypeError):
        neighbouring_pairs([0, 1], True)
    with pytest.raises(TypeError):
        compose_advanced((0.1, 0.0), True, 1e-5)
    with pytest.raises(TypeError):
        clopper_pearson(True, 10)
