"""Run every benchmark in bench/ with its default settings, one after another.

    .venv/bin/python bench/run_all.py [name-substring ...]
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).parent


def main() -> int:
    wanted = sys.argv[1:]
    scripts = sorted(p for p in HERE.glob("*.py") if not p.name.startswith("_") and p.name != "run_all.py")
    failed = 0
    for script in scripts:
        if wanted and not any(w in script.name for w in wanted):
            continue
        print(f"\n=== {script.name} ===", flush=True)
        failed += subprocess.call([sys.executable, str(script)], cwd=HERE.parent) != 0
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
