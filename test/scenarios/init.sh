#!/bin/sh
# /init of every end-to-end guest (written by test/e2e_test.go; the
# scenario's script is /scenario.sh and its settings /scenario.env).
export PATH=/bin:/sbin:/usr/bin:/usr/sbin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs tmpfs /run
ip link set lo up
mount -t tmpfs tmpfs /tmp
mkdir -p /run/kvtier
mount -t bpf bpf /sys/fs/bpf
mount -t tracefs tracefs /sys/kernel/tracing
mount -t debugfs debugfs /sys/kernel/debug
# Only emergencies from the kernel from here on: the results must not be
# interleaved with kernel messages.
echo 1 >/proc/sys/kernel/printk
. /scenario.env
echo "===KVTIER-E2E-BEGIN==="
probe record uptime-start -- cat /proc/uptime
sh /scenario.sh
rc=$?
probe record uptime-end -- cat /proc/uptime
echo "===KVTIER-E2E-END=== $rc"
sync
poweroff -f
