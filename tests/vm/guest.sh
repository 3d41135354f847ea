#!/bin/sh
# Run inside the vm suite's guest, from the job share that tests/vm/run-in-vm
# made: mount the host's checkout at its own path, check that this is the
# host layout the run is for, run the meson tests named in job.env, and leave
# meson's exit status in the share's "rc".
#
# MODE=systemd (the default): run by the image's job unit (systemd as
# PID 1, cgroup v2 alone). MODE=no-systemd: the kernel's init is the image's
# job script itself (init=, run-in-vm --no-systemd), which runs this: no
# systemd, nothing mounted but what the initramfs moved (/proc, /sys, /dev,
# /run); this sets up the layout of a Kubernetes node or a CI runner (cgroup
# v2 alone, the shell in /proctree-ci/job-1, a cgroup that holds processes
# and is offered only memory: its parent enables no other controller for its
# children) and powers off itself.
set -u
job=/run/proctree-vm
. "$job/job.env"
MODE=${MODE:-systemd}

say() { echo "proctree-vm: $*"; }
finish() {
    echo "$1" >"$job/rc.partial" && mv "$job/rc.partial" "$job/rc"
    sync
    if [ "$MODE" = no-systemd ]; then
        echo o >/proc/sysrq-trigger # PID 1 is our script: no one else powers off
        sleep 60
    fi
    exit 0
}

say "guest up after $(cut -d' ' -f1 /proc/uptime) s: $(uname -r), $MODE, systemd $(systemctl --version | sed -n '1s/^systemd \([0-9]*\).*/\1/p')"
if [ "$MODE" = no-systemd ]; then
    export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8
    mountpoint -q /proc || mount -t proc proc /proc
    mountpoint -q /sys || mount -t sysfs sysfs /sys
    mount -t cgroup2 -o nsdelegate cgroup2 /sys/fs/cgroup || { say "FAILED: cgroup2 did not mount"; finish 125; }
    mkdir -p /dev/pts /dev/shm
    mountpoint -q /dev/pts || mount -t devpts devpts /dev/pts
    mountpoint -q /dev/shm || mount -t tmpfs tmpfs /dev/shm
    # the loopback up (influxd listens there); no iproute2 in the image
    python3 -c '
import fcntl, socket, struct
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
flags = struct.unpack("16sH", fcntl.ioctl(s, 0x8913, struct.pack("16sH22x", b"lo", 0))[:18])[1]
fcntl.ioctl(s, 0x8914, struct.pack("16sH22x", b"lo", flags | 1))' || say "the loopback did not come up"
    ulimit -Hn 20000 # the host: a hard limit of 20,000, no CAP_SYS_RESOURCE asked for
    # the root enables what a node's does; /proctree-ci only memory for its children
    cg=/sys/fs/cgroup
    for c in cpu io memory pids; do
        grep -qw "$c" "$cg/cgroup.controllers" && echo "+$c" >"$cg/cgroup.subtree_control"
    done
    mkdir -p "$cg/proctree-ci/job-1" && echo +memory >"$cg/proctree-ci/cgroup.subtree_control" &&
        echo $$ >"$cg/proctree-ci/job-1/cgroup.procs" || { say "FAILED: no /proctree-ci/job-1 cgroup"; finish 125; }
fi

for share in $SHARES; do
    tag=${share%%=*} path=${share#*=}
    mkdir -p "$path"
    mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144,cache=none "$tag" "$path" ||
        { say "FAILED: the share $tag did not mount at $path"; finish 125; }
done

# The layout the tests are meant to meet; anything else fails loudly.
pid1=$(cat /proc/1/comm)
fs=$(stat -f -c %T /sys/fs/cgroup)
v1=$(awk '$3 == "cgroup" { printf " %s", $2 }' /proc/mounts)
if [ "$MODE" = no-systemd ]; then
    own=$(sed -n 's/^0:://p' /proc/self/cgroup)
    if [ "$pid1" = systemd ] || [ -e /run/systemd/system ] || [ "$fs" != cgroup2fs ] || [ -n "$v1" ] ||
        [ "$own" != /proctree-ci/job-1 ] || [ "$(cat /sys/fs/cgroup$own/cgroup.controllers)" != memory ]; then
        say "FAILED: not the layout without systemd: PID 1 is $pid1, /sys/fs/cgroup is $fs, v1 mounts:${v1:- none}, this shell in $own"
        finish 125
    fi
    say "PID 1 $pid1 (no systemd), /sys/fs/cgroup cgroup2, this shell in $own offered $(cat /sys/fs/cgroup$own/cgroup.controllers) alone"
elif [ "$pid1" != systemd ] || [ "$fs" != cgroup2fs ] || [ -n "$v1" ]; then
    say "FAILED: not systemd on a pure cgroup v2 hierarchy: PID 1 is $pid1, /sys/fs/cgroup is $fs, v1 mounts:${v1:- none}"
    finish 125
else
    say "PID 1 systemd, /sys/fs/cgroup cgroup2 ($(cat /sys/fs/cgroup/cgroup.subtree_control)), no v1 mount"
fi

# A program the build dir names that the guest lacks (a python3 of the
# host's own, like pyenv's) is the guest's program of that name.
for prog in $PROGRAMS; do
    if [ ! -e "$prog" ] && [ -x "/usr/bin/${prog##*/}" ]; then
        say "$prog (the build dir's) is /usr/bin/${prog##*/} here"
        mkdir -p "${prog%/*}" && ln -s "/usr/bin/${prog##*/}" "$prog"
    fi
done

cd "$BUILD" || finish 125
# vm-testlog: never the outer run's testlog; the guest is slower, hence -t;
# one test at a time, as their timeouts there were measured (the host's
# suite runs in parallel: tests/integration/meson.build).
# shellcheck disable=SC2086
meson test -C "$BUILD" --no-rebuild --logbase vm-testlog --print-errorlogs -t "$TIMEOUT_MULTIPLIER" --num-processes 1 $TESTS
finish $?
