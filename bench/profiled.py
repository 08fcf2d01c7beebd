"""Run a module under cProfile and write the profile when it ends, a SIGTERM included:

    python -m bench.profiled [--window] OUT.prof MODULE [ARGS...]

(`python -m cProfile` writes nothing when the process ends by a signal, and uvicorn re-raises
the SIGTERM it handled once it has shut down; here SIGTERM's handler exits normally.) Times are
the thread's CPU time (`time.thread_time`), not the wall clock: on a shared machine a process
waiting for a core would otherwise charge the wait to whatever function it was in. With
`--window` the profiler runs only between SIGUSR1 and SIGUSR2 (the harness sends them around
the recorded moves), so start-up and set-up are left out. Used by bench/harness.py when
WARFIELD_BENCH_PROFILE is set; read the output with `pstats`.
"""

from __future__ import annotations

import cProfile
import runpy
import signal
import sys
import time


def main() -> None:
    window = sys.argv[1] == "--window"
    out, module, *args = sys.argv[2:] if window else sys.argv[1:]
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    sys.argv = [module, *args]
    profiler = cProfile.Profile(time.thread_time)
    if window:
        signal.signal(signal.SIGUSR1, lambda *_: profiler.enable())
        signal.signal(signal.SIGUSR2, lambda *_: profiler.disable())
    try:
        if window:
            runpy.run_module(module, run_name="__main__", alter_sys=True)
        else:
            profiler.runcall(runpy.run_module, module, run_name="__main__", alter_sys=True)
    except SystemExit:
        pass
    finally:
        profiler.disable()
        profiler.dump_stats(out)


if __name__ == "__main__":
    main()
