"""Schemathesis against a real server: every check, every phase (stateful included, following the
schema's links), bounded examples, a fixed seed; zero failures, every operation tested.

Twenty examples an operation: the coverage phase sends each operation the schema's edge and negative
cases whatever this number, fuzzing draws twenty an operation, and the stateful phase ran 45 scenarios
following 22 of the 23 links between operations, as it did with forty (1,008 test cases where forty
made 1,548).
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.web.server import output_of, serving

CONFIG = Path(__file__).with_name("schemathesis.toml")


@pytest.mark.slow
def test_schemathesis_finds_nothing(tmp_path):
    # rate limits off: Schemathesis sends a thousand requests in seconds, far past a player's pace
    with serving(f"sqlite:///{tmp_path / 'games.db'}", "--rate-limit", "") as (base, process):
        run = subprocess.run(
            [
                sys.executable, "-m", "schemathesis.cli", "--config-file", str(CONFIG), "run",
                f"{base}/openapi.json", "--checks", "all", "--phases", "examples,coverage,fuzzing,stateful",
                "--max-examples", "20", "--seed", "16", "--generation-database", "none", "--no-color",
                "--request-timeout", "60", "--workers", "1",
            ],
            cwd=tmp_path, capture_output=True, text=True, timeout=900,
        )  # fmt: skip
        log = output_of(process)
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-2000:]
    assert "passed" in run.stdout and "Stateful" in run.stdout
    # every operation the schema has was tested
    selected = re.search(r"Selected: (\d+)/(\d+)\s+Tested: (\d+)", run.stdout)
    assert selected and len(set(selected.groups())) == 1, run.stdout[-3000:]
    assert '" 500 ' not in log and "Traceback" not in log
