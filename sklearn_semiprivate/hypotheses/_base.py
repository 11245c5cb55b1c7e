"""The hypothesis-class protocol: covers built from public points, scored privately.

Data flow (Alon, Bassily & Moran 2019, Alg. 1; Beimel, Nissim & Stemmer, Alg. 1
step 3)::

    X_public --HypothesisClass.cover--> Cover (finite, public)
                                          | scores(X_priv, y_priv)   <- the only private read
                                          v
                                exponential mechanism --> chosen member --> predict

A cover holds one member per distinct labeling of the distinct public points that
the class realizes (Alg. 1 steps 1-5). It depends on public data and parameters
only; ``Cover.scores`` is the one method that reads private rows.
"""

# SPDX-License-Identifier: BSD-3-Clause

from abc import ABC, abstractmethod

import numpy as np

__all__ = ["Cover", "HypothesisClass"]


class HypothesisClass(ABC):
    """A hypothesis class that can build a finite cover from public points.

    Subclasses are small parameter holders (like scikit-learn estimators,
    ``__init__`` only assigns) and implement :meth:`cover`.
    """

    @abstractmethod
    def cover(self, X_public, classes=(0, 1)):
        """Build the cover from public points only.

        Parameters
        ----------
        X_public : array-like of shape (n_public, n_features)
            Public points; never private ones.
        classes : array-like of shape (n_classes,), default=(0, 1)
            The label set (public).

        Returns
        -------
        cover : Cover
        """


class Cover(ABC):
    """A finite set of hypotheses, built from public data, scored on private data.

    Members are identified by an integer index ``0 <= i < cover.size``.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        Sorted label set; predictions are elements of it.
    n_features_in_ : int
        Number of features the members read.
    """

    @property
    @abstractmethod
    def size(self):
        """Number of members, as a Python int (may exceed ``sys.maxsize``)."""

    def __len__(self):
        return self.size

    @abstractmethod
    def scores(self, X, y):
        """Number of private rows each member labels correctly.

        This is the only method that reads private data. Sensitivity 1 under
        add/remove and under replace-one of a row: one row changes each count by
        at most 1.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Private points.
        y : array-like of shape (n_samples,)
            Private labels, elements of ``classes_``.

        Returns
        -------
        scores : ndarray of shape (size,), dtype int64
        """

    @abstractmethod
    def predict(self, member, X):
        """Labels given by member ``member`` to the rows of ``X``.

        Parameters
        ----------
        member : int
            Index of the member.
        X : array-like of shape (n_samples, n_features)
            Points to label.

        Returns
        -------
        y : ndarray of shape (n_samples,)
        """

    @abstractmethod
    def describe(self, member):
        """Human-readable rule of member ``member``, e.g. ``x[3] <= 2.5 -> 1 else 0``.

        Parameters
        ----------
        member : int
            Index of the member.

        Returns
        -------
        text : str
        """

    def sample_exponential(
        self, X, y, epsilon, *, log_base_measure=None, random_state=None
    ):
        """Draw a member with the exponential mechanism, score = ``scores(X, y)``.

        ``P(i) ∝ base(i) exp(epsilon * score_i / 2)``: epsilon-DP for the private
        rows because the score has sensitivity 1 (McSherry & Talwar 2007).
        Covers whose score is a sum over independent parts override this to sample
        exactly, part by part, without enumerating members.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Private points.
        y : array-like of shape (n_samples,)
            Private labels.
        epsilon : float
            Privacy parameter.
        log_base_measure : array-like of shape (size,), default=None
            Data-independent log prior over members (e.g. from public labels).
        random_state : None, int or Generator
            Source of randomness.

        Returns
        -------
        member : int
        """
        from ..mechanisms import exponential_mechanism

        # Sensitivity 1: one private row changes every count by at most 1.
        return int(
            exponential_mechanism(
                self.scores(X, y),
                epsilon,
                sensitivity=1.0,
                log_base_measure=log_base_measure,
                random_state=random_state,
            )
        )

    def labelings(self, X):
        """Labels of every member on ``X``, shape ``(size, n_samples)``.

        For tests and small covers only: memory ``size * n_samples``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Points to label.

        Returns
        -------
        labels : ndarray of shape (size, n_samples)
        """
        return np.stack([self.predict(i, X) for i in range(self.size)])
