"""``verbose``: progress lines of a fit, holding public information only."""

# SPDX-License-Identifier: BSD-3-Clause

import re

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression
from sklearn.utils._param_validation import InvalidParameterError

from sklearn_semiprivate import (
    GenericLearnerClassifier,
    PrivacyAccountant,
    PublicData,
    SemiPrivateClassifier,
)


def make_data(n, seed, n_pub=30):
    rng = np.random.default_rng(seed)
    X = rng.uniform(0, 1, size=(n, 2))
    y = (X[:, 0] > 0.45).astype(int)
    X_pub = np.random.default_rng(99).uniform(0, 1, size=(n_pub, 2))
    return X, y, X_pub


def _public_view(text):
    """The printed lines without timings and the released rule."""
    text = re.sub(r"in \d+\.\d s", "in T s", text)
    return re.sub(r"selected: .*", "selected: RULE", text)


def test_semiprivate_prints_its_stages(capsys):
    X, y, X_pub = make_data(1234, 0)
    clf = SemiPrivateClassifier(
        classes=[0, 1],
        final_estimator=LogisticRegression(),
        accountant=PrivacyAccountant(epsilon=10.0),
        random_state=0,
        verbose=1,
    ).fit(X, y, X_public=PublicData(X_pub))
    lines = capsys.readouterr().out.splitlines()
    assert all(line.startswith("[SemiPrivateClassifier] ") for line in lines)
    text = "\n".join(line.split("] ", 1)[1] for line in lines)
    expected = [
        r"building the cover from 30 public points \(stumps\)\.\.\.",
        rf"cover: {clf.cover_size_:,} members in \d+\.\d s",
        r"reserved epsilon=1 on the accountant",
        r"selecting a member \(exponential mechanism\)\.\.\.",
        rf"selected: {re.escape(clf.hypothesis_)}",
        r"fitting the final estimator LogisticRegression on 30 relabeled points\.\.\.",
        r"final estimator: done in \d+\.\d s",
    ]
    assert len(lines) == len(expected)
    for pattern, line in zip(expected, text.splitlines(), strict=True):
        assert re.fullmatch(pattern, line), (pattern, line)
    # The private row count appears nowhere (the rule's digits aside).
    public = _public_view(text)
    assert "1234" not in public and "1,234" not in public


def test_grid_stage_without_public_data(capsys):
    X, y, _ = make_data(200, 0)
    SemiPrivateClassifier(
        "partition", classes=[0, 1], bounds=(0, 1), n_public=50, verbose=True
    ).fit(X, y)
    out = capsys.readouterr().out
    assert "building the cover from a data-independent grid of 50 points" in out
    assert "(partition)" in out


@pytest.mark.parametrize(
    "make, fit_kwargs",
    [
        (
            lambda: SemiPrivateClassifier(classes=[0, 1], random_state=0, verbose=2),
            lambda X_pub: {"X_public": PublicData(X_pub)},
        ),
        (
            lambda: GenericLearnerClassifier(
                classes=[0, 1], n_bins=4, random_state=0, verbose=1
            ),
            lambda X_pub: {
                "X_public": PublicData(X_pub),
                "X_unlabeled": np.random.default_rng(5).uniform(size=(500, 2)),
            },
        ),
    ],
    ids=["semiprivate", "generic"],
)
def test_lines_do_not_depend_on_private_data(capsys, make, fit_kwargs):
    # Two private data sets of different sizes: the lines differ only by the
    # timings of public steps and the released rule.
    views = []
    for n, seed in ((500, 0), (80, 1)):
        X, y, X_pub = make_data(n, seed)
        make().fit(X, y, **fit_kwargs(X_pub))
        views.append(_public_view(capsys.readouterr().out))
    assert views[0] == views[1]
    assert "selecting a member" in views[0]


def test_generic_prints_its_stages(capsys):
    X, y, X_pub = make_data(300, 0)
    X_unl = np.random.default_rng(5).uniform(size=(500, 2))
    clf = GenericLearnerClassifier(
        classes=[0, 1], n_bins=4, n_synthetic=40, random_state=0, verbose=1
    ).fit(X, y, X_public=PublicData(X_pub), X_unlabeled=X_unl)
    lines = capsys.readouterr().out.splitlines()
    assert all(line.startswith("[GenericLearnerClassifier] ") for line in lines)
    text = "\n".join(line.split("] ", 1)[1] for line in lines)
    n_distinct = np.unique(clf.synthetic_, axis=0).shape[0]
    assert "sanitizing the private unlabeled rows (MWEM over a grid of 16 points)" in (
        text
    )
    assert "sanitizer: done; drew 40 synthetic rows" in text
    assert (
        f"building the cover from {n_distinct} distinct synthetic points and 30 "
        "public points (stumps)..."
    ) in text
    assert re.search(rf"cover: {clf.cover_size_:,} members in \d+\.\d s", text)
    assert f"selected: {clf.hypothesis_}" in text
    # Steps that read private rows are printed without a duration.
    for line in text.splitlines():
        if line.startswith(("sanitiz", "selecting", "selected")):
            assert not re.search(r"\d s$", line)
    public = _public_view(text)
    assert "500" not in public and "300" not in public


@pytest.mark.parametrize("cls", [SemiPrivateClassifier, GenericLearnerClassifier])
def test_quiet_by_default_and_verbose_is_validated(capsys, cls):
    X, y, X_pub = make_data(100, 0)
    cls(classes=[0, 1]).fit(X, y, X_public=PublicData(X_pub))
    assert capsys.readouterr().out == ""
    with pytest.raises(InvalidParameterError, match="verbose"):
        cls(classes=[0, 1], verbose=-1).fit(X, y, X_public=PublicData(X_pub))
