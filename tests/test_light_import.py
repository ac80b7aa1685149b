"""`import rtarena` is light: the root package loads its attributes on first use (issue 30, item 4).

Each check runs in a fresh interpreter, since this test process has long imported everything.
"""

from __future__ import annotations

import json
import subprocess
import sys

PROBE = """
import json, sys
import {module}
print(json.dumps(sorted(name for name in sys.modules
                        if name.split(".")[0] in ("rtarena", "gymnasium", "pettingzoo", "pydantic"))))
"""


def loaded_after(module: str) -> list[str]:
    done = subprocess.run([sys.executable, "-c", PROBE.format(module=module)], capture_output=True, text=True,
                          timeout=120, check=True)
    return json.loads(done.stdout)


def test_the_contract_loads_no_env_module():
    loaded = loaded_after("rtarena.contract")
    assert "rtarena.contract" in loaded  # the probe sees what it imported
    assert not [name for name in loaded if name.startswith("rtarena.envs")]
    assert not [name for name in loaded if name.split(".")[0] in ("gymnasium", "pettingzoo", "pydantic")]


def test_the_errors_module_loads_neither_gymnasium_nor_the_registry():
    # rtarena.numba_cache: the root package names the numba cache folder first (os and pathlib only)
    assert loaded_after("rtarena.errors") == ["rtarena", "rtarena.errors", "rtarena.numba_cache"]


def test_attributes_load_on_first_use_and_the_envs_register_with_gymnasium():
    code = """
import sys, rtarena
assert "rtarena.envs" not in sys.modules
make = rtarena.make  # the registry's first use imports rtarena.envs, which registers every row
import gymnasium
from pettingzoo.env_registry.registration import parallel_registry
assert "arena/basic-v0" in gymnasium.registry and "arena/coop-v0" in parallel_registry
assert make is rtarena.envs.registry.make and "run_match" in dir(rtarena)
print(len(rtarena.ENV_TABLE))
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert int(done.stdout) > 100


def test_the_runtime_loads_no_env_module():
    """`import rtarena.runtime` knows envs through the contract only (issue 44: it pulled 18 env modules)."""
    loaded = loaded_after("rtarena.runtime")
    assert "rtarena.runtime.match" in loaded and "rtarena.contract" in loaded  # the probe sees the runtime
    assert not [name for name in loaded if name.startswith("rtarena.envs")]
