#!/bin/sh
# Installs the Debian packages listed in Packaging/debian-packages.txt (or the list given) that
# are not installed yet.
set -eu
list="${1:-$(dirname "$0")/debian-packages.txt}"
missing=""
for p in $(grep -v '^\s*#' "$list"); do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "installing:$missing"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
log=$(mktemp)
if ! { $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing; } >"$log" 2>&1; then
    cat "$log"; echo "install-deps.sh: apt-get failed installing:$missing" >&2; exit 1
fi
rm -f "$log"
