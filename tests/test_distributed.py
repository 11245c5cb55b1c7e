"""Past one machine: the private search and GridSearchCV on a Dask cluster.

Both take ``n_jobs`` through joblib, so ``joblib.parallel_backend("dask")``
hands their fits to a ``dask.distributed`` cluster. The ledger must still be
charged exactly, as the README promises:

* ``PrivateParameterSearch`` reserves its whole cost once, in the calling
  process, before dispatching; the workers' candidates carry no ledger. An
  in-memory ledger works.
* ``GridSearchCV`` charges the estimator's own ledger in every fit, in the
  workers: a ledger with ``path=`` (SQLite) is shared by the worker processes
  and sees every fit; an in-memory ledger copied into a worker process refuses
  to charge (fails closed) rather than lose the spend.

The cluster is a ``LocalCluster`` of two worker processes. Skipped when
``dask.distributed`` is not installed (``pip install "sklearn_semiprivate[dask]"``).
"""

import numpy as np
import pytest

distributed = pytest.importorskip("dask.distributed")

import joblib  # noqa: E402
from sklearn.model_selection import GridSearchCV  # noqa: E402

from sklearn_semiprivate import (  # noqa: E402
    PrivacyAccountant,
    PrivacyBudgetError,
    PrivacyCost,
    PublicData,
    SemiPrivateClassifier,
)
from sklearn_semiprivate.model_selection import PrivateParameterSearch  # noqa: E402

pytestmark = [
    pytest.mark.dask,
    # dask.distributed's own shutdown and clock warnings are not ours.
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
    pytest.mark.filterwarnings("ignore::ResourceWarning"),
    pytest.mark.filterwarnings("ignore::UserWarning:distributed"),
    pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning"),
]

GRID = {"hypothesis_class": ["stumps", "partition"], "epsilon": [0.5, 1.0]}


def _data():
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(600, 3))
    y = (X[:, 0] > 0.4).astype(int)
    X_pub = rng.uniform(size=(40, 3))
    y_pub = (X_pub[:, 0] > 0.4).astype(int)
    return X, y, X_pub, y_pub


@pytest.fixture(scope="module")
def client():
    with (
        distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        yield client


def test_private_search_on_dask_charges_once(client, tmp_path):
    X, y, X_pub, y_pub = _data()
    for ledger in (
        PrivacyAccountant(epsilon=10.0),  # in memory: only the caller charges
        PrivacyAccountant(epsilon=10.0, path=tmp_path / "search.db"),
    ):
        search = PrivateParameterSearch(
            SemiPrivateClassifier(classes=[0, 1]),
            GRID,
            accountant=ledger,
            n_jobs=2,
            random_state=0,
        )
        with joblib.parallel_backend("dask"):
            search.fit(X, y, X_public=PublicData(X_pub))
        # random stopping: 3 x the largest epsilon (1.0), plus the refit
        assert search.privacy_spent_ == PrivacyCost(4.0, 0.0)
        assert ledger.spent() == PrivacyCost(4.0, 0.0)
        assert len(ledger.history) == 1
        # public selection: the four candidates' costs, composed
        ledger_pub = PrivacyAccountant(epsilon=10.0)
        search.set_params(accountant=ledger_pub)
        with joblib.parallel_backend("dask"):
            search.fit(X, y, X_public=PublicData(X_pub, y_pub))
        assert search.selection_ == "public"
        assert ledger_pub.spent() == PrivacyCost(3.0, 0.0)


def test_grid_search_on_dask_charges_every_fit_to_a_shared_ledger(client, tmp_path):
    X, y, X_pub, _ = _data()
    ledger = PrivacyAccountant(epsilon=100.0, path=tmp_path / "grid.db")
    clf = SemiPrivateClassifier(classes=[0, 1], accountant=ledger, random_state=0)
    grid = GridSearchCV(clf, GRID, cv=3, n_jobs=2, error_score="raise")
    with joblib.parallel_backend("dask"):
        grid.fit(X, y, X_public=PublicData(X_pub))
    # 3 folds x (0.5 + 0.5 + 1.0 + 1.0), then the refit at the best epsilon
    expected = 3 * 3.0 + grid.best_params_["epsilon"]
    assert ledger.spent().epsilon == pytest.approx(expected)
    assert len(ledger.history) == 3 * 4 + 1
    # the caller's copy and a fresh handle on the file agree
    reopened = PrivacyAccountant(epsilon=100.0, path=tmp_path / "grid.db")
    assert reopened.spent() == ledger.spent()


def test_grid_search_on_dask_refuses_an_in_memory_ledger(client):
    X, y, X_pub, _ = _data()
    ledger = PrivacyAccountant(epsilon=100.0)
    clf = SemiPrivateClassifier(classes=[0, 1], accountant=ledger, random_state=0)
    grid = GridSearchCV(clf, GRID, cv=3, n_jobs=2, error_score="raise")
    with (
        joblib.parallel_backend("dask"),
        pytest.raises(PrivacyBudgetError, match="detached copy"),
    ):
        grid.fit(X, y, X_public=PublicData(X_pub))
    # nothing was charged on a copy nobody reads, and nothing here either
    assert ledger.spent() == PrivacyCost(0.0, 0.0)
