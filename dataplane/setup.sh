#!/usr/bin/env bash
# Set up what the data plane needs on a Debian machine, as far as this user may: Debian's DPDK,
# meson and ninja (root only), 2 MiB hugepages and their mount (root only). Never fails: where
# something cannot be had, the data plane tests skip with a one-line reason.
set -u
if [ "$(id -u)" = 0 ]; then
	if ! pkg-config --exists libdpdk 2>/dev/null || ! command -v meson >/dev/null; then
		echo "dataplane: installing Debian's DPDK, meson and ninja" >&2
		export DEBIAN_FRONTEND=noninteractive
		(apt-get update -qq && apt-get install -y -qq dpdk dpdk-dev libdpdk-dev meson \
			ninja-build pkg-config) >/dev/null 2>&1 ||
			echo "dataplane: apt-get install failed; the data plane tests will skip" >&2
	fi
	free=$(awk '/HugePages_Free/ {print $2}' /proc/meminfo)
	if [ "${free:-0}" -lt 512 ]; then
		total=$(cat /proc/sys/vm/nr_hugepages)
		echo $((total + 512 - free)) > /proc/sys/vm/nr_hugepages 2>/dev/null || true
	fi
	mkdir -p /dev/hugepages
	mountpoint -q /dev/hugepages || mount -t hugetlbfs nodev /dev/hugepages 2>/dev/null || true
fi
exit 0
