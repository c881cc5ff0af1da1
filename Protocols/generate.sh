#!/bin/sh
# Regenerates Sources/CWayland from the protocol XML vendored beside this script.
#
#   Protocols/generate.sh            rewrite the generated files
#   Protocols/generate.sh --check    exit 1 (naming the file) if a committed file is stale
#
# The XML is vendored (copied from Debian's wayland-protocols 1.31; wlr-output-power-management
# from wlroots 0.15.1's protocol/, which sway offers; wlr-output-management version 2 from
# wlr-protocols, which Debian 13's cage offers) rather than read from
# /usr/share so a build never depends on which wayland-protocols version a machine has.
# wayland-scanner's output embeds its own version, so the check compares text made here.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out="$here/../Sources/CWayland"
check=0
[ "${1:-}" = "--check" ] && check=1

command -v wayland-scanner >/dev/null || { echo "generate.sh: wayland-scanner not found (apt-get install libwayland-bin)" >&2; exit 2; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for xml in "$here"/*.xml; do
    name=$(basename "$xml" .xml)
    wayland-scanner client-header "$xml" "$tmp/$name-client-protocol.h"
    # private-code keeps the interface symbols hidden from other shared objects.
    wayland-scanner private-code "$xml" "$tmp/$name-protocol.c"
done

stale=0
for f in "$tmp"/*; do
    base=$(basename "$f")
    case "$base" in
        *.h) dest="$out/include/$base" ;;
        *) dest="$out/$base" ;;
    esac
    if [ $check = 1 ]; then
        if ! cmp -s "$f" "$dest"; then echo "stale generated file: ${dest#$here/../} (run Protocols/generate.sh)" >&2; stale=1; fi
    else
        cp "$f" "$dest"
    fi
done
# A generated file with no XML behind it is stale too.
for dest in "$out"/*-protocol.c "$out"/include/*-client-protocol.h; do
    [ -e "$dest" ] || continue
    [ -e "$tmp/$(basename "$dest")" ] || { echo "generated file without protocol XML: ${dest#$here/../}" >&2; stale=1; [ $check = 1 ] || rm -f "$dest"; }
done
exit $stale
