#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# /init of the membarrier-bench VM (installed by make-initramfs).
#
# Mounts proc, sys, devtmpfs and tracefs, runs the command in /etc/mbb/cmd (added by
# run-vm or baked in by make-initramfs --cmd) or, failing that, the one in
# the mbb_cmd kernel parameter, from /results as working directory. Prints
# markers on the serial console that run-vm parses, sends /results back as
# a base64 tar.gz between markers, and powers off.

export PATH=/bin:/usr/lib/membarrier-selftests
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
# tracefs, for mbbench anatomy's tracepoints (format files and IDs);
# the kernel has it with CONFIG_TRACING (config-fragment: FTRACE).
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
# devtmpfs has device nodes only; scripts such as kselftest's runner.sh
# write to /dev/stdout, which would otherwise become a regular file.
ln -sf /proc/self/fd /dev/fd
ln -sf /proc/self/fd/0 /dev/stdin
ln -sf /proc/self/fd/1 /dev/stdout
ln -sf /proc/self/fd/2 /dev/stderr
mkdir -p /tmp /results
echo "MBB-INIT-START cpus=$(nproc) kernel=$(uname -r)"

cmdfile=""
if [ -f /etc/mbb/cmd ]; then
	cmdfile=/etc/mbb/cmd
elif [ -n "${mbb_cmd:-}" ]; then
	printf '%s\n' "$mbb_cmd" >/tmp/mbb-cmd
	cmdfile=/tmp/mbb-cmd
fi

if [ -n "$cmdfile" ]; then
	echo "MBB-CMD-BEGIN"
	cd /results && sh "$cmdfile"
	rc=$?
	cd /
	echo "MBB-CMD-END rc=$rc"
else
	echo "MBB-CMD-NONE (no /etc/mbb/cmd and no mbb_cmd= parameter)"
fi

if [ -n "$(ls -A /results)" ] &&
	tar -C /results -czf /tmp/results.tgz . 2>/tmp/tar.err; then
	sum=$(sha256sum /tmp/results.tgz)
	echo "MBB-RESULTS-BEGIN sha256=${sum%% *}"
	base64 /tmp/results.tgz
	echo "MBB-RESULTS-END"
elif [ -s /tmp/tar.err ]; then
	echo "MBB-RESULTS-ERROR $(cat /tmp/tar.err)"
fi

echo "MBB-POWEROFF"
# Let the serial line drain before the power goes: a loaded TCG host was
# seen printing the kernel's "reboot: Power down" into the middle of the
# base64 above. The UART's transmit count stops moving once it is empty.
last=""
for i in 1 2 3 4 5 6 7 8 9 10; do
	now=$(cat /proc/tty/driver/* 2>/dev/null | sed -n 's/.* tx:\([0-9]*\).*/\1/p' | paste -sd+)
	[ -n "$now" ] && [ "$now" = "$last" ] && break
	last=$now
	sleep 0.2
done
poweroff -f
