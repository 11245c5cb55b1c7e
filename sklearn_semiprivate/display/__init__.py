"""Displays: the privacy-utility curve (matplotlib is needed only to draw)."""

# SPDX-License-Identifier: BSD-3-Clause

from ._privacy_utility import PrivacyUtilityDisplay, privacy_utility_curve

__all__ = ["PrivacyUtilityDisplay", "privacy_utility_curve"]
