#!/bin/bash
# The official telegraf image's entrypoint, as it behaves (influxdata-docker,
# telegraf/1.39/entrypoint.sh), rewritten for the tests' copy of that image:
# started as root, it gives /usr/bin/telegraf two file capabilities and runs
# telegraf as the telegraf user through setpriv. The change of user clears
# every capability the container was given (--cap-add): only a binary's own
# file capabilities bring any back.
set -e

if [ "${1:0:1}" = '-' ]; then
    set -- telegraf "$@"
fi

if [ "$EUID" -ne 0 ]; then
    exec "$@"
fi

setcap cap_net_raw,cap_net_bind_service+ep /usr/bin/telegraf ||
    echo "Failed to set additional capabilities on /usr/bin/telegraf"

HOME=$(getent passwd telegraf | cut -d : -f 6)
export HOME

# the groups the container was given (--group-add), but root's
groups=telegraf
for group in $(id -Gn || true); do
    case $group in
    root | telegraf) ;;
    *) groups="$groups,$group" ;;
    esac
done
exec setpriv --reuid telegraf --regid telegraf --groups "$groups" "$@"
