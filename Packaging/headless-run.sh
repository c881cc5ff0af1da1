#!/bin/sh
# `make run` on a machine with no display: start a headless weston (kiosk-shell, pixman) with
# Kiosk's input module (kiosk-shell maps no window until a seat exists), run Kiosk in it, save a
# screenshot, print its path and stop everything.
set -eu
kiosk="$1"; module="$2"; out="${3:-$PWD/out}"
mkdir -p "$out"
out=$(cd "$out" && pwd)
work=$(mktemp -d)
runtime="$work/runtime"; mkdir -m 700 "$runtime"
mkfifo "$work/input"; : > "$work/acks"
export XDG_RUNTIME_DIR="$runtime" KIOSK_TEST_FIFO="$work/input" KIOSK_TEST_ACKS="$work/acks"
unset DISPLAY
weston --backend=headless-backend.so --use-pixman --shell=kiosk-shell.so --debug --socket=kiosk-0 \
    --width=1920 --height=1080 --idle-time=0 --modules="$module" >"$work/weston.log" 2>&1 &
weston_pid=$!
kiosk_pid=""
cleanup() {
    [ -n "$kiosk_pid" ] && kill "$kiosk_pid" 2>/dev/null || true
    kill "$weston_pid" 2>/dev/null || true
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT INT TERM
i=0
while [ ! -S "$runtime/kiosk-0" ]; do
    i=$((i + 1)); [ $i -gt 100 ] && { echo "weston did not start:"; cat "$work/weston.log"; exit 1; }
    sleep 0.05
done
WAYLAND_DISPLAY=kiosk-0 "$kiosk" --verbose 2>"$work/kiosk.log" &
kiosk_pid=$!
i=0
until grep -q "first frame shown" "$work/kiosk.log"; do
    i=$((i + 1)); [ $i -gt 100 ] && { echo "kiosk showed no frame:"; cat "$work/kiosk.log"; exit 1; }
    sleep 0.05
done
grep -E "first frame (committed|shown)" "$work/kiosk.log" | sed 's/^/  /'
(cd "$work" && WAYLAND_DISPLAY=kiosk-0 weston-screenshooter)
shot="$out/kiosk-$(date +%Y%m%d-%H%M%S).png"
mv "$work"/wayland-screenshot-*.png "$shot"
kill -TERM "$kiosk_pid"; wait "$kiosk_pid"; kiosk_pid=""
echo "Kiosk ran under a headless weston (1920x1080). Screenshot: $shot"
