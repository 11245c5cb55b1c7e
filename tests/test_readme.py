"""The README's quickstart runs as written."""

import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def test_quickstart_runs(capsys):
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)
    assert blocks, "README has no python block"
    namespace = {}  # the blocks read in order, as a user would run them
    for code in blocks:
        exec(compile(code, str(README), "exec"), namespace)
    out = capsys.readouterr().out
    assert "PrivacyCost(epsilon=1.0, delta=0.0)" in out
    assert "PrivacyCost(epsilon=4.0, delta=0.0)" in out
