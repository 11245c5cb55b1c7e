"""``python -m sklearn_semiprivate``: a short demonstration."""

# SPDX-License-Identifier: BSD-3-Clause

from ._demo import main

if __name__ == "__main__":
    raise SystemExit(main())
