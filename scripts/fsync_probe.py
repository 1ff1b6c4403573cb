#!/usr/bin/env python3
"""How long this disk takes to flush: writes an 8 KiB block and fdatasync()s it RATE times a second for
SECONDS, then prints the latency percentiles and every flush over 20 ms with its wall-clock time (to set
beside `mfa-bench load`'s per-second lines: a commit waits for exactly such a flush).

    python3 scripts/fsync_probe.py FILE-ON-THE-DISK [SECONDS=60] [RATE=100]
"""
import os
import sys
import time


def main() -> None:
    path = sys.argv[1]
    seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 60
    rate = float(sys.argv[3]) if len(sys.argv) > 3 else 100
    fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o600)
    block = b"x" * 8192
    latencies, spikes = [], []
    end = time.time() + seconds
    i = 0
    try:
        while time.time() < end:
            started = time.perf_counter()
            os.pwrite(fd, block, (i % 2048) * 8192)
            os.fdatasync(fd)
            took = (time.perf_counter() - started) * 1000
            latencies.append(took)
            i += 1
            if took > 20:
                spikes.append((time.strftime("%H:%M:%S"), round(took, 1)))
            time.sleep(max(0.0, 1 / rate - took / 1000))
    finally:
        os.close(fd)
        os.unlink(path)
    latencies.sort()

    def at(p: float) -> float:
        return latencies[min(len(latencies) - 1, int(p * len(latencies)))]

    print(f"{len(latencies)} write+fdatasync of 8 KiB: p50 {at(.5):.2f} ms, p99 {at(.99):.2f} ms, "
          f"p99.9 {at(.999):.2f} ms, max {latencies[-1]:.1f} ms; over 20 ms: {len(spikes)} {spikes}")


if __name__ == "__main__":
    main()
