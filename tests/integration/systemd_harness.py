"""A real systemd, booted for one test, that touches nothing of the host.

Debian's systemd (/lib/systemd/systemd) runs as PID 1 of new pid, mount,
cgroup, UTS, IPC and network namespaces (unshare), with `container=` in its
environment, on a cgroup2 hierarchy of its own: a cgroup made for it under the
host's cgroup2 mount (/sys/fs/cgroup/unified on this hybrid host), which its
cgroup namespace shows as the root of the cgroup2 it mounts on /sys/fs/cgroup.

Nothing of the host is started, cleaned or written
(docs/../shared notes: booted over the host's directories, systemd runs
systemd-tmpfiles-setup, which empties /tmp, and starts every installed
service):

* /run, /tmp, /var/tmp and /dev are tmpfs of its own (the few device nodes
  made with mknod); /sys is a fresh read-only sysfs with the cgroup2 on top;
  /proc/sys and / are bound read-only inside the namespace (a bind's
  read-only flag is the mount's, not the filesystem's);
* SYSTEMD_UNIT_PATH names only directories of its /run: /run/systemd/system
  holds the units the tests write and a handful of empty targets, so no
  installed unit can be loaded, let alone started; generators are pointed at
  an empty directory;
* it boots into proctree-test.target, which pulls in nothing;
* it is stopped by its pid: `systemctl poweroff` through nsenter, SIGKILL
  after a bounded wait (the kernel then kills everything in the pid
  namespace), and its cgroups removed, children first.

Commands run inside with nsenter (every namespace of its PID 1), so they see
its /proc, its cgroup2 at /sys/fs/cgroup and its units. Every wait has a
deadline.
"""

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import collectd_harness as ch
import harness as h

SYSTEMD = "/lib/systemd/systemd"
UNIT_DIR = "/run/systemd/system"     # inside the namespace (its tmpfs /run): the admin's runtime units
TARGET = "proctree-test.target"
BOOT_TIMEOUT = 60.0
CMD_TIMEOUT = 30.0
STOP_TIMEOUT = 20.0
NS_FLAGS = ["-m", "-p", "-C", "-u", "-i", "-n"]

# Units every boot has: the test's target, and empty stand-ins for the
# targets a service's default dependencies name (sysinit.target,
# basic.target, shutdown.target), so that no installed unit is needed.
_EMPTY_TARGET = "[Unit]\nDescription={name} (empty, proctree test)\nDefaultDependencies=no\n"
_BASE_UNITS = {
    TARGET: "[Unit]\nDescription=proctree test: pulls in nothing\nDefaultDependencies=no\nAllowIsolate=yes\n",
    "sysinit.target": _EMPTY_TARGET.format(name="sysinit.target"),
    "basic.target": _EMPTY_TARGET.format(name="basic.target"),
    "shutdown.target": _EMPTY_TARGET.format(name="shutdown.target") + "RefuseManualStart=yes\n",
    "umount.target": _EMPTY_TARGET.format(name="umount.target"),
    "final.target": _EMPTY_TARGET.format(name="final.target"),
    # systemctl poweroff: stop everything (shutdown.target conflicts with
    # every unit that has default dependencies), then exit.
    "poweroff.target": ("[Unit]\nDescription=Power-Off (proctree test)\nDefaultDependencies=no\n"
                        "Requires=systemd-poweroff.service\nAfter=systemd-poweroff.service\nAllowIsolate=yes\n"),
    "systemd-poweroff.service": ("[Unit]\nDescription=Power-Off (proctree test)\nDefaultDependencies=no\n"
                                 "Requires=shutdown.target final.target\nAfter=shutdown.target final.target\n"
                                 "SuccessAction=poweroff-force\n"
                                 "[Service]\nType=oneshot\nExecStart=/bin/true\n"),
}

# Run by sh as PID 1 of the new namespaces, before it execs systemd. Mounts
# are private to the namespace (unshare's default propagation, made sure of).
_SETUP = r"""
set -eu
mount --make-rprivate /
mount -t tmpfs -o mode=755,nosuid,nodev tmpfs /run
mkdir -p "$UNITS" /run/proctree-none
for f in "$STAGE"/*; do cp "$f" "$UNITS/"; done
umount -R /dev    # the host's /dev and what is mounted below it: out of its mount table
mount -t tmpfs -o mode=755,nosuid tmpfs /dev
mknod -m 666 /dev/null c 1 3
mknod -m 666 /dev/zero c 1 5
mknod -m 666 /dev/full c 1 7
mknod -m 666 /dev/random c 1 8
mknod -m 666 /dev/urandom c 1 9
mknod -m 666 /dev/tty c 5 0
mkdir /dev/pts /dev/shm
mount -t devpts -o newinstance,ptmxmode=0666,mode=620 devpts /dev/pts
ln -s pts/ptmx /dev/ptmx
ln -s /proc/self/fd /dev/fd
touch /dev/console
mount --bind "$LOG" /dev/console    # its log, a file in the test's temp dir
mount -t tmpfs -o mode=1777,nosuid,nodev tmpfs /tmp
mount -t tmpfs -o mode=1777,nosuid,nodev tmpfs /var/tmp
umount -R /sys    # the host's sysfs and cgroup mounts, which it must not find
mount -t sysfs -o ro,nosuid,nodev,noexec sysfs /sys
mount -t cgroup2 -o nosuid,nodev,noexec cgroup2 /sys/fs/cgroup
mount --bind /proc/sys /proc/sys
mount -o remount,bind,ro /proc/sys
if [ -e /proc/sysrq-trigger ]; then
    mount --bind /proc/sysrq-trigger /proc/sysrq-trigger
    mount -o remount,bind,ro /proc/sysrq-trigger
fi
mount -o remount,bind,ro /
read -r _ || true    # until unshare, still in our cgroup root, has been moved out (Systemd._boot)
exec "$SYSTEMD" --unit="$TARGET" --show-status=no --log-target=console --log-level=info </dev/null
"""


SKIP = 77  # meson: skipped, never passed


def systemd_or_skip():
    """Exit 77 (skipped) with one line why, when no systemd can be booted here."""
    reason = why_not_bootable()
    if reason:
        print(f"SKIP: cannot boot a systemd for the test: {reason}", flush=True)
        sys.exit(SKIP)


class SkipSystemd(Exception):
    """systemd cannot be booted here (not root, no unshare/nsenter, no systemd)."""


def why_not_bootable():
    """One line saying why a systemd cannot be booted here, or None."""
    if os.geteuid() != 0:
        return "not root"
    for prog in ("unshare", "nsenter", "systemctl", "systemd-run"):
        if shutil.which(prog) is None:
            return f"no {prog}"
    if not os.access(SYSTEMD, os.X_OK):
        return f"no {SYSTEMD} (apt-get install systemd)"
    if host_cgroup2() is None:
        return "no cgroup2 mount on the host"
    return None


def host_cgroup2():
    """Where the host mounts cgroup2 (/sys/fs/cgroup/unified here), or None."""
    return h.cgroup_mounts().get("v2")


def _rmdir_tree(path, timeout):
    """Remove a cgroup and its sub-cgroups, children first, once each is
    empty (a killed process leaves its cgroup when it is reaped)."""
    deadline = time.monotonic() + timeout
    for root, dirs, _ in os.walk(path, topdown=False):
        while True:
            try:
                os.rmdir(root)
                break
            except FileNotFoundError:
                break
            except OSError:
                if time.monotonic() >= deadline:
                    raise
                time.sleep(0.05)


class Systemd:
    """One booted systemd. Use as a context manager:

        with Systemd() as sd:
            sd.start_service("a", ["sleep", "100"])
            sd.run(["systemctl", "status", "a.service"])
    """

    def __init__(self, name=None):
        reason = why_not_bootable()
        if reason:
            raise SkipSystemd(reason)
        self.tag = name or f"proctree-test-{os.getpid()}-{int(time.monotonic() * 1000) % 100000}"
        self.tmpdir = None
        self.cgroup = None        # host path of its cgroup2 root
        self.proc = None          # unshare
        self.pid = None           # host pid of its PID 1 (systemd)
        self.log_path = None

    # ------------------------------------------------------------ life cycle

    def boot(self):
        try:
            self._boot()
        except BaseException:
            self.stop()
            raise
        return self

    def _boot(self):
        self.tmpdir = tempfile.mkdtemp(prefix="proctree-systemd-")
        stage = os.path.join(self.tmpdir, "units")
        os.mkdir(stage)
        for unit, text in _BASE_UNITS.items():
            with open(os.path.join(stage, unit), "w") as f:
                f.write(text)
        self.cgroup = os.path.join(host_cgroup2(), self.tag)
        os.mkdir(self.cgroup)
        self.log_path = os.path.join(self.tmpdir, "systemd.log")
        env = {
            "PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
            "container": "proctree-test",
            # only directories of its tmpfs /run: transient units and runtime
            # properties (daemon-reload must find them again), and the test's
            "SYSTEMD_UNIT_PATH": f"/run/systemd/transient:/run/systemd/system.control:{UNIT_DIR}",
            "SYSTEMD_GENERATOR_PATH": "/run/proctree-none",
            "SYSTEMD_ENVIRONMENT_GENERATOR_PATH": "/run/proctree-none",
            "UNITS": UNIT_DIR, "LOG": self.log_path, "STAGE": stage, "SYSTEMD": SYSTEMD, "TARGET": TARGET,
        }
        cgroup_procs = os.path.join(self.cgroup, "cgroup.procs")

        def into_cgroup():
            # before unshare: its cgroup namespace is rooted at our cgroup
            with open(cgroup_procs, "w") as f:
                f.write(str(os.getpid()))

        with open(self.log_path, "wb") as log:
            self.proc = subprocess.Popen(
                ["unshare", "--pid", "--fork", "--mount-proc", "--mount", "--cgroup", "--uts", "--ipc", "--net",
                 "--", "sh", "-c", _SETUP],
                stdin=subprocess.PIPE, stdout=log, stderr=subprocess.STDOUT, env=env,
                preexec_fn=into_cgroup, start_new_session=True)
        # unshare stays in the cgroup its namespace's root is: a process there
        # keeps systemd from enabling any controller below (cgroup v2's
        # no-internal-process rule; on a pure-v2 host its scopes would have no
        # memory files). Once it has forked PID 1 it goes back to our cgroup,
        # and only then does PID 1 exec systemd.
        h.wait_until(lambda: h.children(self.proc.pid) or self.proc.poll() is not None, BOOT_TIMEOUT,
                     "unshare to fork PID 1")
        with open(f"/proc/{os.getpid()}/cgroup") as f:
            ours = [l.rstrip("\n")[3:] for l in f if l.startswith("0::")][0]
        with open(os.path.join(host_cgroup2() + ours, "cgroup.procs"), "w") as f:
            f.write(str(self.proc.pid))
        self.proc.stdin.write(b"go\n")
        self.proc.stdin.close()
        self.pid = h.wait_until(self._systemd_pid, BOOT_TIMEOUT, "systemd to start as PID 1 of the namespace")
        h.wait_until(self._booted, BOOT_TIMEOUT, f"systemd to finish booting {TARGET}", interval=0.1)

    def _systemd_pid(self):
        if self.proc.poll() is not None:
            raise AssertionError(f"unshare exited ({self.proc.returncode}):\n{self.log_tail()}")
        for kid in h.children(self.proc.pid):
            try:
                if os.readlink(f"/proc/{kid}/exe") == os.path.realpath(SYSTEMD):
                    return kid
            except OSError:
                pass
        return None

    def _booted(self):
        if self.proc.poll() is not None:
            raise AssertionError(f"systemd exited ({self.proc.returncode}):\n{self.log_tail()}")
        r = self.run(["systemctl", "is-system-running"], check=False, timeout=10)
        state = r.stdout.strip()
        if state == "degraded":
            failed = self.run(["systemctl", "--failed", "--no-legend"], check=False).stdout
            raise AssertionError(f"systemd booted degraded: {failed}\n{self.log_tail()}")
        return state == "running"

    def stop(self):
        """poweroff through nsenter, SIGKILL of its PID 1 after a bounded
        wait; then its cgroups are removed. Safe to call twice."""
        errors = []
        if self.proc is not None:
            if self.pid is not None and self.proc.poll() is None:
                try:
                    subprocess.run(self.nsenter(["systemctl", "--no-block", "poweroff"]), stdin=subprocess.DEVNULL,
                                   capture_output=True, timeout=10)
                except (subprocess.TimeoutExpired, OSError) as e:
                    errors.append(f"poweroff: {e}")
            try:
                self.proc.wait(STOP_TIMEOUT)
            except subprocess.TimeoutExpired:
                errors.append(f"systemd did not power off within {STOP_TIMEOUT}s: killed")
                if self.pid is not None:
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(self.pid, signal.SIGKILL)
                try:
                    self.proc.wait(STOP_TIMEOUT)
                except subprocess.TimeoutExpired:
                    self.proc.kill()
                    self.proc.wait(STOP_TIMEOUT)
            self.proc = None
            self.pid = None
        if self.cgroup is not None and os.path.isdir(self.cgroup):
            _rmdir_tree(self.cgroup, STOP_TIMEOUT)
        self.cgroup = None
        if self.tmpdir is not None:
            shutil.rmtree(self.tmpdir, ignore_errors=True)
            self.tmpdir = None
        return errors

    def __enter__(self):
        return self.boot()

    def __exit__(self, *exc):
        self.stop()

    def log_tail(self, size=4000):
        return h.file_tail(self.log_path, size)

    # ------------------------------------------------------------ inside

    def nsenter(self, argv):
        """A command line that runs argv inside (every namespace of PID 1)."""
        return ["nsenter", "-t", str(self.pid), *NS_FLAGS, "--wd=/", "--", *[str(a) for a in argv]]

    def run(self, argv, check=True, timeout=CMD_TIMEOUT, input=None):
        """Run argv inside; returns CompletedProcess (text). check: fail on a non-zero status."""
        r = subprocess.run(self.nsenter(argv), input=input, capture_output=True, text=True, timeout=timeout,
                           stdin=None if input is not None else subprocess.DEVNULL)
        if check and r.returncode != 0:
            raise AssertionError(f"inside systemd: {argv} exited {r.returncode}\nstdout: {r.stdout}\n"
                                 f"stderr: {r.stderr}")
        return r

    def popen(self, argv, **kw):
        """Start argv inside; a Popen of nsenter, whose child is argv (inner_pid())."""
        return subprocess.Popen(self.nsenter(argv), **kw)

    def root_path(self, path):
        """A path inside, as the host reaches it (through PID 1's root)."""
        return f"/proc/{self.pid}/root{path}"

    def write_file(self, path, text, mode=0o644):
        """Write a file inside (in its /run, /tmp or /var/tmp: the rest is read-only)."""
        host = self.root_path(path)
        with open(host, "w") as f:
            f.write(text)
        os.chmod(host, mode)

    def read_file(self, path):
        with open(self.root_path(path)) as f:
            return f.read()

    def cgroup_dir(self, rel):
        """Host path of one of its cgroups, rel as it is inside (/system.slice/x.service)."""
        return self.cgroup + rel

    # ------------------------------------------------------------ units

    def systemctl(self, *args, check=True):
        return self.run(["systemctl", *args], check=check)

    def write_unit(self, name, text, reload=True):
        """Write a unit file into its unit directory (then daemon-reload)."""
        self.write_file(f"{UNIT_DIR}/{name}", text)
        if reload:
            self.systemctl("daemon-reload")

    def start_service(self, name, argv, properties=(), slice=None):
        """systemd-run --unit=NAME.service [--property=P ...] ARGV, waiting
        until it is started (Type=exec: its program is exec'd)."""
        unit = name if "." in name else name + ".service"
        opts = [f"--unit={unit}", "--property=Type=exec", "--quiet"]
        if slice:
            opts.append(f"--slice={slice}")
        opts += [f"--property={p}" for p in properties]
        self.run(["systemd-run", *opts, *argv])
        return unit

    def unit_state(self, unit):
        return self.systemctl("show", "-P", "ActiveState", unit).stdout.strip()

    def main_pid(self, unit):
        """MainPID of a unit as systemd says (a pid of the namespace)."""
        return int(self.systemctl("show", "-P", "MainPID", unit).stdout.strip())

    def control_group(self, unit):
        """The unit's cgroup as systemd says (/system.slice/x.service), '' if none."""
        return self.systemctl("show", "-P", "ControlGroup", unit).stdout.strip()

    def unit_pids(self, unit):
        """Every pid (of the namespace) in the unit's cgroup and its sub-cgroups."""
        cg = self.control_group(unit)
        return self.cgroup_pids(cg) if cg else []

    def cgroup_pids(self, rel):
        """Every pid (of the namespace) in a cgroup and below, from its
        cgroup.procs read inside (pids are translated to the reader's namespace)."""
        text = self.run(["sh", "-c", f'find "/sys/fs/cgroup{rel}" -name cgroup.procs -exec cat {{}} +']).stdout
        return sorted(int(p) for p in text.split())

    def wait_pids(self, unit, count, timeout=h.START_TIMEOUT):
        """The unit's pids once it has count of them (exactly)."""
        return h.wait_until(lambda: (lambda p: p if len(p) == count else None)(self.unit_pids(unit)),
                            timeout, f"{unit} to have {count} processes")

    def rss_bytes(self, pids):
        """Sum of VmRSS of these pids (of the namespace), read inside from /proc/PID/status."""
        script = ("for p in \"$@\"; do sed -n 's/^VmRSS:[[:space:]]*\\([0-9]*\\) kB/\\1/p' /proc/$p/status; done")
        text = self.run(["sh", "-c", script, "sh", *map(str, pids)]).stdout
        return sum(int(x) for x in text.split()) * 1024

    # ------------------------------------------------------------ proctree-execd inside

    def visible(self, path):
        """A built file as the namespace sees it: itself, or a copy in its
        /run when the build dir is under a directory the namespace replaces
        (a checkout in /tmp)."""
        path = os.path.realpath(path)
        if not any(path == d or path.startswith(d + "/") for d in ("/tmp", "/var/tmp", "/run", "/dev")):
            return path
        inside = "/run/proctree-bin/" + os.path.basename(path)
        os.makedirs(self.root_path("/run/proctree-bin"), exist_ok=True)
        # renamed over: a copy running already is not written (ETXTBSY)
        shutil.copy(path, self.root_path(inside + ".new"))
        os.replace(self.root_path(inside + ".new"), self.root_path(inside))
        return inside

    def execd_program(self):
        """proctree-execd as the namespace sees it."""
        return self.visible(h.execd_path())

    def execd(self, args, inside=(), cgroup=None, program=None):
        """proctree-execd started inside, driven like harness.Execd. inside:
        a command line that runs it there (systemd-run --scope ...); cgroup:
        one of its cgroups (rel, as inside) nsenter is put in first, so that
        its systemd may move the process (the kernel lets a process move only
        within the mover's cgroup namespace)."""
        return NsExecd(self, args, inside, cgroup, program)

    def collectd(self, plugin_body):
        """collectd (collectd_harness.Collectd) run inside, loading the built proctree.so."""
        return NsCollectd(self, plugin_body)


def _inner_child(nsenter_proc, prefix, what):
    """The process nsenter runs inside (its child), found by its
    executable's name; fails if nsenter is gone without it."""
    def find():
        for kid in h.children(nsenter_proc.pid):
            try:
                if os.path.basename(os.readlink(f"/proc/{kid}/exe")).startswith(prefix):
                    return kid
            except OSError:
                pass
        if nsenter_proc.poll() is not None:
            raise AssertionError(f"{what} inside exited ({nsenter_proc.returncode})")
        return None
    return h.wait_until(find, h.START_TIMEOUT, f"{what} to start inside")


def _stop_inner(nsenter_proc, inner_pid, timeout=10.0):
    """SIGTERM the inner process by its pid (nsenter forwards no signal),
    SIGKILL at the deadline; nsenter then exits with it."""
    if nsenter_proc.poll() is None and inner_pid:
        with contextlib.suppress(ProcessLookupError):
            os.kill(inner_pid, signal.SIGTERM)
        try:
            nsenter_proc.wait(timeout)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.kill(inner_pid, signal.SIGKILL)


class NsExecd(h.Execd):
    """harness.Execd of a proctree-execd run inside with nsenter; stopped
    by its own pid (nsenter forwards no signal)."""

    def __init__(self, sd, args, inside=(), cgroup=None, program=None):
        self.sd = sd
        enter = []
        if cgroup:
            enter = ["sh", "-c", 'echo $$ > "$0" && exec "$@"', sd.cgroup_dir(cgroup) + "/cgroup.procs"]
        super().__init__(args, wrapper=[*enter, "nsenter", "-t", str(sd.pid), *NS_FLAGS, "--wd=/", "--", *inside],
                         program=program or sd.execd_program())
        self.inner_pid = None
        try:
            self.inner_pid = _inner_child(self.proc, "proctree-execd", "proctree-execd")
        except AssertionError as e:
            self.join()
            raise AssertionError(f"{e}\n{self.describe()}") from None

    def stop(self):
        _stop_inner(self.proc, self.inner_pid, 5.0)
        return super().stop()


class NsCollectd(ch.Collectd):
    """collectd_harness.Collectd run inside: its directory is in the
    namespace's /tmp (the config names it as seen inside; the test reads
    the csv and the log through PID 1's root)."""

    INSIDE = "/tmp/proctree-collectd"

    def __init__(self, sd, plugin_body):
        self.sd = sd
        self.inner_pid = None
        host = sd.root_path(self.INSIDE)
        os.makedirs(host)
        super().__init__(host, plugin_body)
        # the paths in the config as collectd sees them; the test's, through PID 1's root
        seen_by_test = (self.dir, self.log_path, self.csv_dir)
        self.dir, self.log_path, self.csv_dir = (p.replace(host, self.INSIDE, 1) for p in seen_by_test)
        text = self._config_text(plugin_body, "")
        # the plugin as the namespace sees it (a copy when the build is in /tmp)
        plugin_dir = os.path.dirname(ch.plugin_path())
        inside_dir = os.path.dirname(sd.visible(ch.plugin_path()))
        text = text.replace(f'PluginDir "{plugin_dir}"', f'PluginDir "{inside_dir}"')
        self.dir, self.log_path, self.csv_dir = seen_by_test
        with open(self.conf, "w") as f:
            f.write(text)

    def start(self):
        with open(self.stdout_path, "wb") as out:
            self.proc = subprocess.Popen(self.sd.nsenter([ch.COLLECTD, "-f", "-C", f"{self.INSIDE}/collectd.conf"]),
                                         stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                                         env=ch.sanitized_env())
        try:
            self.inner_pid = _inner_child(self.proc, "collectd", "collectd")
        except AssertionError as e:
            raise AssertionError(f"{e}\n{self.log()[-3000:]}") from None
        return self

    def stop(self):
        if self.proc is not None:
            _stop_inner(self.proc, self.inner_pid)
        return super().stop()


def host_services_running():
    """Host processes of the installed services a stray boot would start."""
    names = {"postgres", "influxd", "carbon-cache", "process-exporte", "systemd-tmpfile", "systemd-journal",
             "systemd-udevd", "systemd-logind", "cron", "systemd-timesyn"}
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/comm") as f:
                comm = f.read().strip()
        except OSError:
            continue
        if comm in names:
            found.append((int(pid), comm))
    return found
