"""Run a module under cProfile and write the profile when it ends, a SIGTERM included:

    python -m bench.profiled OUT.prof MODULE [ARGS...]

(`python -m cProfile` writes nothing when the process ends by a signal, and uvicorn re-raises
the SIGTERM it handled once it has shut down; here SIGTERM's handler exits normally.) Used by
bench/harness.py when WARFIELD_BENCH_PROFILE is set; read the output with `pstats`.
"""

from __future__ import annotations

import cProfile
import runpy
import signal
import sys


def main() -> None:
    out, module, *args = sys.argv[1:]
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    sys.argv = [module, *args]
    profiler = cProfile.Profile()
    try:
        profiler.runcall(runpy.run_module, module, run_name="__main__", alter_sys=True)
    except SystemExit:
        pass
    finally:
        profiler.dump_stats(out)


if __name__ == "__main__":
    main()
