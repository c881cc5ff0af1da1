#!/bin/sh
# Installs what the package lists given (Packaging/packages-*.txt) name for this Debian release
# (VERSION_CODENAME in $OS_RELEASE) and is not installed yet, and Debian's own Swift where
# the release has one and no Swift compiler is on PATH.
#   install-deps.sh SWIFT LIST...   install what is missing (SWIFT: the compiler make runs)
#   install-deps.sh --names LIST... the names this release gives the lists' packages
#   install-deps.sh --no-swift SWIFT
#                                   prints the line saying what to install when SWIFT is not on
#                                   PATH and this release has no Swift of its own; else nothing
set -eu

# KIOSK_OS_RELEASE: another os-release file, for the tests.
OS_RELEASE="${KIOSK_OS_RELEASE:-/etc/os-release}"
release() {
    [ -r "$OS_RELEASE" ] && (. "$OS_RELEASE" && echo "${VERSION_CODENAME:-}") || true
}

# The release's own Swift package: Debian 13 ships 6.0.3 for amd64 and arm64 (not the 32-bit
# Raspberry Pi OS's armhf); Debian 12 ships none.
swift_package() {
    case "$1:$(dpkg --print-architecture 2>/dev/null)" in
        trixie:amd64 | trixie:arm64) echo swiftlang ;;
    esac
}

no_swift_line() {
    command -v "$1" >/dev/null 2>&1 && return 0
    codename=$(release)
    [ -n "$(swift_package "$codename")" ] && return 0
    case "$codename" in
        bookworm) echo "no Swift compiler on PATH (make runs '$1'), and Debian 12 has no Swift package: install the swift.org toolchain for Debian 12 and put its usr/bin on PATH, or use Debian 13, where make installs Debian's own Swift" ;;
        *) echo "no Swift compiler on PATH (make runs '$1'): install one and put it on PATH (Debian 13 has its own, swiftlang, for amd64 and arm64: 64-bit Raspberry Pi OS)" ;;
    esac
}

mode=install swift=""
case "${1:-}" in
    --no-swift) no_swift_line "$2"; exit 0 ;;
    --names) mode=names; shift ;;
    *) swift="$1"; shift ;;
esac
codename=$(release)
if ! command -v dpkg-query >/dev/null 2>&1; then
    echo "install-deps.sh: no dpkg here (not Debian): install what $* name by your system's own names" >&2; exit 1
fi
# The releases the lists are written for (Debian 12, Debian 13 and Raspberry Pi OS trixie).
case "$codename" in
    bookworm | trixie) ;;
    *) echo "install-deps.sh: the package lists are written for Debian 12 (bookworm) and 13 (trixie), not '${codename:-?}' (VERSION_CODENAME in $OS_RELEASE): install what $* name by this release's names" >&2; exit 1 ;;
esac

# A line is one name for every release, or RELEASE=NAME words side by side.
names() {
    sed 's/#.*//' "$@" | while read -r line; do
        case "$line" in
            "") ;;
            *=*) for word in $line; do if [ "${word%%=*}" = "$codename" ]; then echo "${word#*=}"; fi; done ;;
            *) echo "$line" ;;
        esac
    done
}

wanted=$(names "$@")
if [ "$mode" = names ]; then
    echo $wanted
    exit 0
fi
if ! command -v "$swift" >/dev/null 2>&1 && [ -n "$(swift_package "$codename")" ]; then
    wanted="$(swift_package "$codename") $wanted"
    echo "install-deps.sh: no '$swift' on PATH: Debian's own Swift ($(swift_package "$codename")) is installed with the rest"
fi
missing=""
for p in $wanted; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "installing:$missing"
sudo=""
if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null 2>&1 || { echo "install-deps.sh: installing needs root, and there is no sudo: as root, apt-get install$missing" >&2; exit 1; }
    sudo="sudo"
fi
log=$(mktemp)
if ! { $sudo apt-get update -qq && $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing; } >"$log" 2>&1; then
    cat "$log"; echo "install-deps.sh: apt-get failed installing:$missing" >&2; exit 1
fi
rm -f "$log"
