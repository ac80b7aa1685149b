"""A Ray cluster (one head node, one worker node) inside a private network namespace, driven over stdin.

Run as `unshare -n python ray_harness.py TEMP_DIR`: it brings up `lo`, starts both nodes on 127.0.0.1,
prints `READY ADDRESS`, then runs each command it reads (one JSON list per line) as a subprocess in the
same namespace and answers one JSON line `{rc, stdout, stderr}`. On end of input it stops the cluster.
Keeping every Ray process in its own namespace keeps all of Ray's traffic on loopback.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

PORT = 6399


def ray_cli() -> str:
    return str(Path(sys.executable).with_name("ray"))


def main() -> None:
    temp_dir = sys.argv[1]
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    env = {**os.environ, "RAY_AUTH_MODE": "disabled", "RAY_USAGE_STATS_ENABLED": "0"}
    common = ["--num-cpus=1", "--object-store-memory=80000000", "--node-ip-address=127.0.0.1",
              "--disable-usage-stats"]
    subprocess.run([ray_cli(), "start", "--head", f"--port={PORT}", f"--temp-dir={temp_dir}",
                    "--include-dashboard=false", *common], check=True, env=env, capture_output=True)
    subprocess.run([ray_cli(), "start", f"--address=127.0.0.1:{PORT}", *common], check=True, env=env,
                   capture_output=True)
    print(f"READY 127.0.0.1:{PORT}", flush=True)
    try:
        for line in sys.stdin:
            argv = json.loads(line)
            done = subprocess.run(argv, env=env, capture_output=True, text=True)
            print(json.dumps({"rc": done.returncode, "stdout": done.stdout, "stderr": done.stderr}), flush=True)
    finally:
        subprocess.run([ray_cli(), "stop", "--force"], env=env, capture_output=True)


if __name__ == "__main__":
    main()
