#!/usr/bin/env bash
# Install Debian's headless Chromium for the report tests when it is missing (root only; never fatal).
set -u
command -v chromium >/dev/null 2>&1 && exit 0
[ "$(id -u)" = "0" ] || { echo "chromium missing and not root: skipping install"; exit 1; }
command -v apt-get >/dev/null 2>&1 || exit 1
(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) || exit 1
command -v chromium >/dev/null 2>&1
