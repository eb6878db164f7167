#!/usr/bin/env bash
# Install Debian's Chromium for the test that opens nfvperf's HTML reports headless (root only).
# Never fails: without it, that test skips with a one-line reason.
set -u
if [ "$(id -u)" = 0 ] && ! command -v chromium >/dev/null; then
	echo "report tests: installing Debian's chromium" >&2
	export DEBIAN_FRONTEND=noninteractive
	(apt-get update -qq && apt-get install -y -qq chromium) >/dev/null 2>&1 ||
		echo "report tests: apt-get install chromium failed; that test will skip" >&2
fi
exit 0
