"""A stalled stdout reader costs no samples.

Why: Telegraf may stop reading proctree-execd's stdout for a while (a
blocked output, a paused agent) while still asking for batches. A blocking
write would stop the polls with it, and a memory peak during the stall
would never be seen: proc_rss_max would be wrong without any sign. With
stdout a pipe, a batch the reader does not take waits in memory and the
polls go on. The test shrinks the pipe to one page, stops reading, asks for
batches until the pipe is full, makes a 200 MiB peak that lasts half a
second, asks for the batch that covers it, and only then reads: that batch
must show the peak.
"""

import fcntl
import os
import select
import subprocess
import sys
import threading
import time
import unittest

import harness as h

F_SETPIPE_SZ = 1031
PEAK = 200 * h.MIB
SPIKE = ("import sys, time\n"
         "print('ready', flush=True)\n"
         "sys.stdin.readline()\n"
         f"b = bytearray(b'\\x01') * {PEAK}\n"
         "print('peak', flush=True)\n"
         "time.sleep(0.5)\n"
         "del b\n"
         "print('done', flush=True)\n"
         "sys.stdin.readline()\n")


def read_line(pipe, timeout):
    ready = select.select([pipe], [], [], timeout)[0]
    if not ready:
        raise AssertionError(f"no line within {timeout}s")
    return pipe.readline().decode().strip()


class StalledReader(unittest.TestCase):
    def test_polls_go_on_while_a_batch_waits(self):
        spike = subprocess.Popen([sys.executable, "-c", SPIKE], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.addCleanup(spike.stdout.close)
        self.addCleanup(spike.stdin.close)
        self.addCleanup(spike.wait)
        self.addCleanup(spike.kill)
        self.assertEqual(read_line(spike.stdout, 10), "ready")
        execd = subprocess.Popen([h.execd_path(), "--pid", str(spike.pid), "--name", "spike",
                                  "--poll-interval", "50ms", "--no-global"],
                                 stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.addCleanup(h.stop_process, execd)
        stderr = []
        drain = threading.Thread(target=lambda: stderr.extend(execd.stderr), daemon=True)
        drain.start()
        self.addCleanup(execd.stderr.close)
        self.addCleanup(drain.join, 5)
        fcntl.fcntl(execd.stdout.fileno(), F_SETPIPE_SZ, 4096)
        # requests that come before its first tick (a BPF load, a slow
        # start on a loaded host) are one request: it is up first
        h.wait_until(lambda: any(b"source:" in l for l in stderr), 10, "its first tick's source line")
        # ask for batches, reading none, until the pipe is full
        for _ in range(8):
            execd.stdin.write(b"\n")
            execd.stdin.flush()
            time.sleep(0.2)
        self.assertIsNone(execd.poll(), b"".join(stderr))
        spike.stdin.write(b"go\n")
        spike.stdin.flush()
        self.assertEqual(read_line(spike.stdout, 10), "peak")
        self.assertEqual(read_line(spike.stdout, 10), "done")
        execd.stdin.write(b"\n")  # the batch that covers the peak
        execd.stdin.flush()
        time.sleep(0.3)
        execd.stdin.close()  # end of stdin: it writes what waits, then exits
        out = execd.stdout.read()
        execd.stdout.close()
        self.assertEqual(execd.wait(10), 0, b"".join(stderr))
        lines = [h.parse_line(l) for l in out.decode().splitlines()]
        maxima = [p.fields["proc_rss_max"] for p in lines if "proc_rss_max" in p.fields]
        self.assertEqual(len(lines), 9, f"a batch was lost: {len(lines)} lines\n{b''.join(stderr).decode()}")
        self.assertGreaterEqual(max(maxima), PEAK, f"the peak was not sampled: {maxima}")


if __name__ == "__main__":
    unittest.main(verbosity=2)
