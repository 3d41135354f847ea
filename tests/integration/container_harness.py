"""A real container runtime for the tests, and the images they run.

podman and runc from Debian's packages (scripts/install-deps), configured by
tests/container/containers.conf (CONTAINERS_CONF) to stand in for Docker on
this kind of machine: runc, rlimits runc accepts here, Docker's default
capability set. The facts behind each setting are in
shared/notes/containers-in-tests.md.

There is no registry here, so the images are built locally and kept in
podman's store, each labelled with a key of what it was built from and
built again only when that changes:

* telegraf:1.39, the official image as proctree meets it (Debian bookworm,
  a telegraf user, the entrypoint that drops root with setpriv), from a root
  filesystem mmdebstrap makes (cached as the Telegraf build is) and the
  Telegraf of tests/telegraf/get-telegraf: tests/container/telegraf/;
* telegraf-proctree, docs/CONTAINERS.md's Dockerfile exactly as written, on
  top of it, with the packages packaging/build-packages makes of this tree.

The run commands of the tests are the document's too: its `docker run`
line, its Compose service and its Kubernetes DaemonSet, read from the
document and turned into podman's flags (podman-compose and podman's kube
play of this Debian drop `pid: host` and `hostPID`), with the test's own
paths put where the document has placeholders. Where podman cannot run a
container at all (no runtime this kernel or sandbox takes), a test prints one
line and exits 77: skipped, never passed.
"""

import fcntl
import hashlib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import unittest
import uuid

import harness as h
import telegraf_harness as th

CONTAINER_DIR = os.path.join(h.SOURCE_ROOT, "tests", "container")
CONF = os.path.join(CONTAINER_DIR, "containers.conf")
DOC = os.path.join(h.SOURCE_ROOT, "docs", "CONTAINERS.md")
CACHE = os.environ.get("PROCTREE_CACHE") or os.path.join(
    os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "proctree")
SUITE = "bookworm"
BASE_IMAGE = "localhost/telegraf:1.39"  # what the document's FROM telegraf:1.39 finds
RECIPE_IMAGE = "localhost/telegraf-proctree"  # the document's image name
KEY_LABEL = "org.proctree.tests.key"
SKIP = 77
BUILD_TIMEOUT = 600


def env():
    return dict(os.environ, CONTAINERS_CONF=CONF)


def podman(*args, check=True, timeout=120, **kw):
    """Run podman with the tests' configuration; CompletedProcess (text)."""
    result = subprocess.run(["podman", *[str(a) for a in args]], env=env(), capture_output=True, text=True,
                            timeout=timeout, **kw)
    if check and result.returncode != 0:
        raise AssertionError(f"podman {' '.join(map(str, args))}: exit {result.returncode}\n{result.stderr[-3000:]}")
    return result


def say(text):
    print(f"container_harness: {text}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------- images

def _locked(name):
    """An exclusive lock on CACHE/name.lock: one builder at a time."""
    os.makedirs(CACHE, exist_ok=True)
    lock = open(os.path.join(CACHE, name + ".lock"), "w")
    fcntl.flock(lock, fcntl.LOCK_EX)
    return lock


def _digest(*parts):
    sha = hashlib.sha256()
    for part in parts:
        sha.update(part if isinstance(part, bytes) else str(part).encode())
        sha.update(b"\0")
    return sha.hexdigest()[:16]


def _file_digest(path):
    with open(path, "rb") as f:
        return _digest(f.read())


def _label(image):
    """The key an image in the store was built from, or None."""
    found = podman("image", "inspect", "--format", "{{json .Labels}}", image, check=False)
    if found.returncode != 0:
        return None
    return (json.loads(found.stdout.strip() or "null") or {}).get(KEY_LABEL)


def debian_mirror():
    """The mirror apt uses here (Debian's packages are the one registry)."""
    for path in ("/etc/apt/sources.list.d/debian.sources", "/etc/apt/sources.list"):
        try:
            with open(path) as f:
                text = f.read()
        except OSError:
            continue
        found = re.search(r"^URIs:\s*(\S+)", text, re.M) or re.search(r"^deb\s+(?:\[[^]]*\]\s+)?(\S+)", text, re.M)
        if found:
            return found.group(1)
    return "http://deb.debian.org/debian"


# What the official image's base has that proctree meets (setcap, setpriv,
# ps), and proctree-execd's own run-time dependency, which the image's
# apt-get fetches from the network (the tests' builds have none): libbpf1
# and libjansson4.
ROOTFS_PACKAGES = ["libcap2-bin", "procps", "ca-certificates", "curl", "libbpf1", "libjansson4"]


def rootfs_tar():
    """Debian bookworm as the official image's base has it, made once by
    mmdebstrap."""
    # named by what it holds: a cached one made before a package joined
    # the list is made anew
    tag = hashlib.sha256(",".join(ROOTFS_PACKAGES).encode()).hexdigest()[:12]
    path = os.path.join(CACHE, f"rootfs-{SUITE}-{tag}.tar")
    with _locked(f"rootfs-{SUITE}"):
        if not os.path.exists(path):
            say(f"making a {SUITE} root filesystem with mmdebstrap (once; cached in {path})")
            partial = path + ".partial"
            subprocess.run(["mmdebstrap", "--variant=apt", "--include=" + ",".join(ROOTFS_PACKAGES),
                            "--format=tar", SUITE, partial, debian_mirror()],
                           check=True, capture_output=True, timeout=BUILD_TIMEOUT)
            os.rename(partial, path)
    return path


def telegraf_binary():
    script = os.environ.get("PROCTREE_GET_TELEGRAF") or os.path.join(h.SOURCE_ROOT, "tests", "telegraf",
                                                                     "get-telegraf")
    found = subprocess.run([script], capture_output=True, text=True, timeout=BUILD_TIMEOUT)
    path = found.stdout.strip()
    if found.returncode != 0 or not path:
        raise AssertionError(f"no Telegraf for the image: {found.stderr.strip()}")
    return path


def _build(tag, context, key, *args):
    podman("build", "--network=none", "--pull=never", "--label", f"{KEY_LABEL}={key}", "-t", tag, *args, context,
           timeout=BUILD_TIMEOUT)


def base_image():
    """telegraf:1.39 as tests/container/telegraf/ makes it."""
    tar, telegraf = rootfs_tar(), telegraf_binary()
    files = sorted(os.listdir(os.path.join(CONTAINER_DIR, "telegraf")))
    key = _digest(os.path.getsize(tar), os.path.getmtime(tar), _file_digest(telegraf),
                  *[_file_digest(os.path.join(CONTAINER_DIR, "telegraf", f)) for f in files])
    with _locked("image-telegraf"):
        if _label(BASE_IMAGE) == key:
            return BASE_IMAGE
        say(f"building {BASE_IMAGE} (key {key})")
        root = f"localhost/proctree-{SUITE}:{key}"
        if podman("image", "exists", root, check=False).returncode != 0:
            podman("import", tar, root, timeout=BUILD_TIMEOUT)
        with tempfile.TemporaryDirectory(prefix="proctree-image-") as context:
            for f in files:
                shutil.copy2(os.path.join(CONTAINER_DIR, "telegraf", f), context)
            shutil.copy2(telegraf, os.path.join(context, "telegraf"))
            _build(BASE_IMAGE, context, key, "--build-arg", f"BASE={root}")
    return BASE_IMAGE


def _source_digest():
    """Of every file the packages are built from (as build-packages copies
    them: what git knows), but the tests' (debian/rules builds with
    -Dtests=false)."""
    listed = subprocess.run(["git", "-C", h.SOURCE_ROOT, "ls-files", "-z", "--cached", "--others",
                             "--exclude-standard"], capture_output=True, check=True).stdout.decode().split("\0")
    parts = []
    for rel in sorted(p for p in listed if p and not p.startswith("tests/")):
        path = os.path.join(h.SOURCE_ROOT, rel)
        if os.path.isfile(path) and not os.path.islink(path):
            parts += [rel, _file_digest(path)]
    return _digest(*parts)


def doc_block(language, starts_with=""):
    """The first ```language block of docs/CONTAINERS.md whose text starts
    with starts_with."""
    with open(DOC, encoding="utf-8") as f:
        text = f.read()
    for block in re.findall(r"^```" + re.escape(language) + r"\n(.*?)^```", text, re.M | re.S):
        if block.lstrip().startswith(starts_with):
            return block
    raise AssertionError(f"docs/CONTAINERS.md has no ```{language} block starting with {starts_with!r}")


def recipe_image():
    """docs/CONTAINERS.md's Dockerfile on telegraf:1.39, with the .deb
    packaging/build-packages makes of this tree."""
    base = base_image()
    dockerfile = doc_block("dockerfile")
    key = _digest(_label(base), dockerfile, _source_digest())
    with _locked("image-recipe"):
        if _label(RECIPE_IMAGE) == key:
            return RECIPE_IMAGE
        say(f"building {RECIPE_IMAGE} from docs/CONTAINERS.md's Dockerfile (key {key})")
        with tempfile.TemporaryDirectory(prefix="proctree-recipe-") as context:
            packages = os.path.join(context, "packages")
            built = subprocess.run([os.path.join(h.SOURCE_ROOT, "packaging", "build-packages"), packages],
                                   capture_output=True, text=True, timeout=BUILD_TIMEOUT)
            if built.returncode != 0:
                raise AssertionError(f"build-packages:\n{built.stdout[-2000:]}{built.stderr[-2000:]}")
            for deb in os.listdir(packages):
                if deb.startswith("proctree-execd_") and deb.endswith(".deb"):
                    shutil.copy2(os.path.join(packages, deb), context)
            shutil.rmtree(packages)
            with open(os.path.join(context, "Dockerfile"), "w") as f:
                f.write(dockerfile)
            _build(RECIPE_IMAGE, context, key)
    return RECIPE_IMAGE


def runtime_or_skip():
    """Exit 77 with one line when podman cannot run a container here."""
    tried = podman("run", "--rm", "--network=none", base_image(), "true", check=False, timeout=120)
    if tried.returncode != 0:
        print(f"SKIP: podman cannot run a container here: {tried.stderr.strip().splitlines()[-1:]}", flush=True)
        sys.exit(SKIP)


# ---------------------------------------------------------- the document's runs

def docker_run():
    """The document's `docker run` as podman flags: (flags, image). Its
    -d and --name are the test's to choose."""
    words = shlex.split(doc_block("sh", "docker run").replace("\\\n", " "))
    assert words[:2] == ["docker", "run"], words
    words, flags = words[2:], []
    while words[0].startswith("-"):
        word = words.pop(0)
        if word == "-d":
            continue
        value = None if "=" in word or word in ("--rm",) else words.pop(0)
        if word != "--name":
            flags += [word] + ([value] if value is not None else [])
    return flags, words[0]


def yaml_documents(text):
    """YAML documents as Python values: Debian's python3-yaml, whichever
    Python runs the tests."""
    parsed = subprocess.run(["/usr/bin/python3", "-c", "import json, sys, yaml\n"
                             "print(json.dumps(list(yaml.safe_load_all(sys.stdin))))"],
                            input=text, capture_output=True, text=True, check=True, timeout=60)
    return json.loads(parsed.stdout)


def compose_run():
    """The document's Compose service as podman flags: (flags, image)."""
    service = next(iter(yaml_documents(doc_block("yaml", "services:"))[0]["services"].values()))
    flags = []
    if service.get("pid") == "host":
        flags.append("--pid=host")
    if service.get("network_mode") == "host":
        flags.append("--network=host")
    for cap in service.get("cap_add", []):
        flags += ["--cap-add", cap]
    for opt in service.get("security_opt", []):
        flags += ["--security-opt", opt]
    for name, value in (service.get("environment") or {}).items():
        flags += ["-e", f"{name}={value}"]
    for volume in service.get("volumes", []):
        flags += ["-v", volume]
    return flags, service["image"]


def daemonset_run(container_fields=None):
    """The document's DaemonSet's pod as podman flags: (flags, image), the
    way the kubelet makes its one container; container_fields (a mapping)
    replaces fields of the container first, as the document's variant for
    allowPrivilegeEscalation: false does."""
    pod = next(d for d in yaml_documents(doc_block("yaml", "apiVersion:")) if d["kind"] == "DaemonSet")
    spec = pod["spec"]["template"]["spec"]
    container, = spec["containers"]
    container = dict(container, **(container_fields or {}))
    flags = []
    if spec.get("hostPID"):
        flags.append("--pid=host")
    if spec.get("hostNetwork"):
        flags.append("--network=host")
    if "command" in container:
        flags += ["--entrypoint", json.dumps(container["command"])]
    context = container.get("securityContext", {})
    if "runAsUser" in context:
        flags += ["--user", str(context["runAsUser"])]
    for cap in context.get("capabilities", {}).get("add", []):
        flags += ["--cap-add", cap]
    if context.get("allowPrivilegeEscalation") is False:
        flags += ["--security-opt", "no-new-privileges"]
    for var in container.get("env", []):
        flags += ["-e", f"{var['name']}={var['value']}"]
    volumes = {v["name"]: v for v in spec.get("volumes", [])}
    for mount in container.get("volumeMounts", []):
        volume = volumes[mount["name"]]
        source = volume["hostPath"]["path"] if "hostPath" in volume else f"configmap-{volume['configMap']['name']}"
        flags += ["-v", f"{source}:{mount['mountPath']}" + (":ro" if mount.get("readOnly") else "")]
    return flags, container["image"]


def daemonset_variant():
    """The document's container fields for allowPrivilegeEscalation: false."""
    return yaml_documents(doc_block("yaml", "# the container's fields"))[0]


def without(flags, *dropped):
    """flags without the flags dropped names: "--pid=host" as it stands,
    ("--cap-add", "NET_ADMIN") with its value, ("-e", "HOST_PROC") and
    ("-v", "/proc") by the start of the value."""
    out, i = [], 0
    while i < len(flags):
        flag = flags[i]
        value = flags[i + 1] if i + 1 < len(flags) else None
        pair = any(isinstance(d, tuple) and d[0] == flag and value is not None
                   and (value == d[1] or value.startswith(d[1] + ("=" if flag == "-e" else ":")))
                   for d in dropped)
        if pair:
            i += 2
            continue
        if flag not in dropped:
            out.append(flag)
        i += 1
    return out


def with_config(flags, config_dir):
    """flags with the document's Telegraf configuration (a file beside the
    command, or a ConfigMap) replaced by the test's, in config_dir."""
    out = []
    for flag in flags:
        parts = flag.split(":")
        if len(parts) >= 2 and parts[1].startswith("/etc/telegraf"):
            source = os.path.join(config_dir, "telegraf.conf") if parts[1].endswith(".conf") else config_dir
            flag = ":".join([source] + parts[1:])
        out.append(flag)
    return out


# ---------------------------------------------------------- running them

def unique(prefix):
    return f"{prefix}-{os.getpid()}-{uuid.uuid4().hex[:8]}"


class TelegrafContainer(th.TelegrafRun):
    """Telegraf in a container of image, run with flags (podman run's),
    with one [[inputs.execd]] running proctree-execd ARGS and outputs.file
    into a directory of the test's, mounted at /out. The configuration is
    mounted at /etc/telegraf, as flags' placeholders say (with_config).
    Stopped with podman stop, and removed."""

    def __init__(self, flags, image, execd_args, signal_name="STDIN"):
        super().__init__("proctree-ct-telegraf-")
        os.chmod(self.tmp.name, 0o777)  # the telegraf user writes its output there
        self.config_dir = os.path.join(self.tmp.name, "etc")
        os.mkdir(self.config_dir)
        self.config_path = os.path.join(self.config_dir, "telegraf.conf")
        self.write_config(th.config_text(["/usr/bin/proctree-execd", *execd_args],
                                         "/out/" + os.path.basename(self.metrics_path), signal_name))
        os.chmod(self.config_path, 0o644)
        self.name = unique("proctree-telegraf")
        self.args = ["podman", "run", "--rm", "--name", self.name, *with_config(flags, self.config_dir),
                     "-v", f"{self.tmp.name}:/out", image]
        self.proc = subprocess.Popen(self.args, env=env(), stdin=subprocess.DEVNULL, stdout=self.log,
                                     stderr=subprocess.STDOUT)

    def stop_running(self):
        podman("stop", "--time", "10", self.name, check=False, timeout=60)
        h.stop_process(self.proc, timeout=30.0)

    def execd_lines(self, level):
        """proctree-execd's lines in Telegraf's log at level ("W!")."""
        return [line for line in self.log_text().splitlines()
                if f" {level} [inputs.execd] proctree-execd:" in line]

    def describe(self):
        return f"podman: {shlex.join(self.args)}\n" + super().describe()


def in_container(flags, image, name=None):
    """A wrapper for harness.Execd: proctree-execd run in a container of
    image with flags (name: a unique one), through the image's entrypoint
    (as the telegraf user there) unless flags say otherwise, its stdin and
    stdout the test's pipes (podman run -i)."""
    return ["podman", "run", "--rm", "-i", "--name", name or unique("proctree-execd"), *flags, image]


def wait_removed(name_prefix, timeout=30.0):
    """Wait until no container whose name starts with name_prefix is left."""
    def gone():
        listed = podman("ps", "-a", "--format", "{{.Names}}", check=False).stdout.split()
        return not [n for n in listed if n.startswith(name_prefix)]
    h.wait_until(gone, timeout, f"containers {name_prefix}* to be removed", interval=0.2)


def cgroup_of(pid, controller="memory"):
    """pid's cgroup in a v1 controller's hierarchy, as the host sees it."""
    with open(f"/proc/{pid}/cgroup") as f:
        for line in f:
            _, names, path = line.rstrip("\n").split(":", 2)
            if controller in names.split(","):
                return path
    return None



EXECD = "/usr/bin/proctree-execd"


class ContainerTestCase(unittest.TestCase):
    """Tests that run proctree-execd alone in a container of the document's
    image: cls.flags are the document's docker run flags without Telegraf's
    configuration (execd() adds none)."""

    @classmethod
    def setUpClass(cls):
        runtime_or_skip()
        cls.image = recipe_image()
        flags, _ = docker_run()
        cls.flags = without(flags, ("-v", "$PWD/telegraf.conf"))

    def execd(self, flags, *args, interval="0.5s"):
        """proctree-execd ARGS in a container run with flags (in_container),
        --no-global, at interval (None: per request); stopped at cleanup."""
        timed = ["--interval", interval] if interval else []
        execd = h.Execd([*timed, "--no-global", *args], wrapper=in_container(flags, self.image), program=EXECD,
                        env=env())
        self.addCleanup(execd.stop)
        return execd


# ---------------------------------------------------------- the host's side

SERVICE = os.path.join(h.SOURCE_ROOT, "tests", "workload", "service.py")


class Service(h.Workload):
    """tests/workload/service.py on the host, publishing its pid file in a
    directory of the test's below /run (the directory the document mounts
    at /hostfs/run), or in run_dir: a root and its worker, each holding mib
    of memory and nfds descriptors."""

    def __init__(self, mib=16, nfds=7, run_dir=None):
        self.own_dir = run_dir is None
        self.run_dir = run_dir or tempfile.mkdtemp(prefix="proctree-ct-", dir="/run")
        os.chmod(self.run_dir, 0o755)
        self.pidfile = os.path.join(self.run_dir, "service.pid")
        self.mib, self.nfds = mib, nfds
        super().__init__([sys.executable, SERVICE, self.pidfile, str(mib), str(nfds)])
        self.set_pids(self.ready_line)

    def set_pids(self, line):
        _, root, worker = line.split()
        self.root, self.worker = int(root), int(worker)

    def read_lines(self, count, timeout, what):
        lines = super().read_lines(count, timeout, what)
        self.ready_line = lines[-1]
        return lines

    def command(self, text, expect):
        """Send one command; wait for its answer line."""
        self.send(f"{text}\n".encode())
        line = self.read_lines(1, h.START_TIMEOUT, text)[0]
        if not line.startswith(expect):
            raise AssertionError(f"service: {text!r} answered {line!r}")
        return line

    def restarted(self):
        """This service stopped and another started with the same pid file,
        as a service manager restarts one: a new, unrelated process that
        writes the file anew. Stop the one returned."""
        super().stop()
        return Service(self.mib, self.nfds, self.run_dir)

    def in_container(self, mounted="/hostfs/run"):
        """The pid file's path in a container that mounts /run at mounted."""
        return os.path.join(mounted, os.path.relpath(self.pidfile, "/run"))

    def members(self):
        return [self.root, self.worker]

    def stop(self):
        status = super().stop()
        if self.own_dir:
            shutil.rmtree(self.run_dir, ignore_errors=True)
        return status


def pss_bytes(pids):
    """The members' Pss as the kernel's smaps_rollup sums it."""
    total = 0
    for pid in pids:
        with open(f"/proc/{pid}/smaps_rollup") as f:
            total += next(int(line.split()[1]) for line in f if line.startswith("Pss:")) * 1024
    return total


def fd_count(pids):
    return sum(len(os.listdir(f"/proc/{pid}/fd")) for pid in pids)


def io_field(pid, name):
    with open(f"/proc/{pid}/io") as f:
        return next(int(line.split()[1]) for line in f if line.startswith(name + ":"))
