#!/bin/sh
# Run inside the vm suite's guest by its job unit (tests/vm/make-image), from
# the job share that tests/vm/run-in-vm made: mount the host's checkout at
# its own path, check that this is the host layout the suite is for (systemd
# as PID 1, cgroup v2 alone), run the meson tests named in job.env, and
# leave meson's exit status in the share's "rc".
set -u
job=/run/proctree-vm
. "$job/job.env"

say() { echo "proctree-vm: $*"; }
finish() {
    echo "$1" >"$job/rc.partial" && mv "$job/rc.partial" "$job/rc"
    sync
    exit 0
}

say "guest up after $(cut -d' ' -f1 /proc/uptime) s: $(uname -r), systemd $(systemctl --version | sed -n '1s/^systemd \([0-9]*\).*/\1/p')"
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
if [ "$pid1" != systemd ] || [ "$fs" != cgroup2fs ] || [ -n "$v1" ]; then
    say "FAILED: not systemd on a pure cgroup v2 hierarchy: PID 1 is $pid1, /sys/fs/cgroup is $fs, v1 mounts:${v1:- none}"
    finish 125
fi
say "PID 1 systemd, /sys/fs/cgroup cgroup2 ($(cat /sys/fs/cgroup/cgroup.subtree_control)), no v1 mount"

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
