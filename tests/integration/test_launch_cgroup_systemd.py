"""execd-launch-cgroup, run inside a booted systemd: the layout of a systemd
host with cgroup v2 alone, on this hybrid one.

Why: test_launch_cgroup.py asserts what each layout must give (below
proctree's own cgroup where systemd is not PID 1; systemd's transient scope
in proctree's slice where it is), and most production hosts are the second
kind. systemd_harness.py boots Debian's systemd as PID 1 of namespaces of
its own, on a cgroup2 of its own; the whole test file runs there, in a scope
of a user slice as a root login shell does (systemd-run --scope
--slice=user-0.slice), so that its systemd may move the launched command.
The host's cgroup2 enables no controller here, so the memory checks that
need one are skipped inside (the pure-v2 VM runs them).
"""

import os
import shutil
import subprocess
import sys

import systemd_harness as sh

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    sh.systemd_or_skip()
    with sh.Systemd() as sd:
        entry = "/proctree-entry"  # where nsenter is put first (systemd_harness.NsExecd's reason)
        os.mkdir(sd.cgroup_dir(entry))
        tests = HERE
        if sd.visible(os.path.join(HERE, "harness.py")) != os.path.realpath(os.path.join(HERE, "harness.py")):
            tests = "/run/proctree-tests"  # a checkout in /tmp: the namespace has a /tmp of its own
            shutil.copytree(HERE, sd.root_path(tests), ignore=shutil.ignore_patterns("__pycache__"))
        inside = ["systemd-run", "--scope", "--quiet", "--unit=session-9.scope", "--slice=user-0.slice", "--",
                  "env", f"PROCTREE_EXECD={sd.execd_program()}", "python3", f"{tests}/test_launch_cgroup.py", "-v",
                  *sys.argv[1:]]
        cmd = ["sh", "-c", 'echo $$ > "$0" && exec "$@"', sd.cgroup_dir(entry) + "/cgroup.procs",
               *sd.nsenter(inside)]
        r = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=100)
        sys.stdout.write(r.stdout)
        sys.stderr.write(r.stderr)
        if r.returncode == 0 and "Ran 0 tests" in r.stderr:
            return 1
        return r.returncode


if __name__ == "__main__":
    sys.exit(main())
