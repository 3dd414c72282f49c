#!/usr/bin/env bash
# Installs the system packages some tests use, from Debian's archive. Needs root (apt-get);
# `./test.sh` runs it only as root, and without them those tests say they skipped (under
# `CI=true` they fail instead):
#   chromium       tests/clients/test_oauth_browser.py: the sign-in and consent pages in a browser
#   prometheus     tests/integration/metrics.rs: promtool checks the exposition, a real
#                  Prometheus scrapes it (the package's service is not started outside systemd)
#   poppler-utils  tests/integration/agreements.rs: pdftotext reads the agreement's PDF
#   zbar-tools     tests/clients/test_views_browser.py: zbarimg reads the QR code the charge's
#                  view shows, from a screenshot
# Idempotent: nothing is fetched when every command is already there.
set -euo pipefail

missing=()
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
command -v promtool >/dev/null 2>&1 || missing+=(prometheus)
command -v pdftotext >/dev/null 2>&1 || missing+=(poppler-utils)
command -v zbarimg >/dev/null 2>&1 || missing+=(zbar-tools)
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "tests/setup-system.sh: not root (or no apt-get); missing ${missing[*]}" >&2
  exit 1
fi
echo "tests/setup-system.sh: apt-get install ${missing[*]}"
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
