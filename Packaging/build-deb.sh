#!/bin/sh
# `make deb`: the Debian package from the release build, the way Debian builds packages —
# a staging copy with debian/ beside the built files, then dpkg-buildpackage and debhelper
# (install, strip, shlibdeps, man pages, systemd units, PAM, conffiles). The version is the one
# `kiosk --version` prints; the package lands in out/kiosk_<version>_<arch>.deb.
#
# `build-deb.sh arm64` on amd64: the same package for arm64 from the cross-built kiosk (make build-arm64),
# packaged in the Debian 13 root it was built in (Packaging/arm64.py) with dpkg-buildpackage -a,
# so its dependencies are trixie's arm64 libraries. Version, icons and man page come from this
# machine's kiosk either way: the same source.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
kiosk="$root/.build/release/kiosk"
version=$("$kiosk" --version)
native=$(dpkg --print-architecture)
arch=${1:-$native}
if [ "$arch" = "$native" ]; then
    # This machine's release: its libraries are what dpkg-shlibdeps names (a Pi's trixie, say).
    suite=$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")
    shipped="$kiosk" deb_dir="$root/.build/deb" in_root="" options=""
elif [ "$arch" = arm64 ] && [ "$native" = amd64 ]; then
    shipped="$root/.build/arm64/release/kiosk" suite=trixie deb_dir="$root/.build/deb-arm64"
    in_root="/usr/bin/python3 $root/Packaging/arm64.py run" options="-Pcross,nocheck"
else
    echo "build-deb.sh: no way to build for $arch on $native (this machine's own, or arm64 from amd64)" >&2; exit 1
fi
stage="$deb_dir/kiosk-$version"
# One date for the changelog and the man page: the last commit's, so a rebuild is the same.
when=$(git -C "$root" log -1 --format=%at 2>/dev/null || date +%s)

rm -rf "$deb_dir"
mkdir -p "$stage/dist/icons/scalable/apps"
cp -r "$root/Packaging/debian" "$stage/debian"
if [ "$suite" = trixie ]; then # weston suggested, not recommended (debian/control says why)
    sed -i 's/^Recommends: weston, /Recommends: /; s/^Suggests: /Suggests: weston, /' "$stage/debian/control"
fi
cat >"$stage/debian/changelog" <<EOC
kiosk ($version) $suite; urgency=medium

  * Release $version: see the project's history for the changes.

 -- Kiosk developers <developers@kiosk.example.org>  $(date -u -R -d "@$when")
EOC

install -m 0755 "$shipped" "$stage/dist/kiosk"
install -m 0755 "$(dirname "$shipped")/kiosk-session" "$stage/dist/kiosk-session"
install -m 0644 "$root/Packaging/kiosk.toml.example" "$stage/dist/kiosk.toml"
mkdir -p "$stage/dist/modules-load.d"
install -m 0644 "$root/Packaging/modules-load.conf" "$stage/dist/modules-load.d/kiosk.conf"
install -m 0644 "$root/Packaging/weston.ini" "$root/Packaging/kiosk.desktop" "$root/Packaging/man/kiosk.toml.5" "$stage/dist/"
# The exhibits' example folder (an operator copies it to /etc/kiosk/exhibits) and its guide.
mkdir -p "$stage/dist/exhibits-example"
install -m 0644 "$root/Packaging/exhibits-example/exhibits.toml" "$root"/Packaging/exhibits-example/*.jpg "$stage/dist/exhibits-example/"
install -m 0644 "$root/docs/exhibits.md" "$root/docs/updating.md" "$stage/dist/"
# Updates: their trial and rollback (kiosk-update), and apt's hook that keeps the version before one.
install -m 0755 "$root/Packaging/kiosk-update" "$stage/dist/kiosk-update"
install -m 0644 "$root/Packaging/apt-keep-installed.conf" "$stage/dist/50kiosk"
# The system bus as the kiosk's user has it: the accelerometer and logind only.
mkdir -p "$stage/dist/dbus-system.d"
install -m 0644 "$root/Packaging/dbus-kiosk.conf" "$stage/dist/dbus-system.d/kiosk.conf"
for po in "$root"/po/*.po; do
    mkdir -p "$stage/dist/locale/$(basename "$po" .po)/LC_MESSAGES"
    msgfmt --check -o "$stage/dist/locale/$(basename "$po" .po)/LC_MESSAGES/kiosk.mo" "$po"
done
for size in 48 128 256; do
    mkdir -p "$stage/dist/icons/${size}x${size}/apps"
    "$kiosk" icon --size "$size" --out "$stage/dist/icons/${size}x${size}/apps/kiosk.png"
done
"$kiosk" icon --svg --out "$stage/dist/icons/scalable/apps/kiosk.svg"

# A cursor theme without cage's arrow (XCURSOR_PATH, set by `kiosk session`): one Xcursor file
# that no one asks for by name, one transparent pixel. A theme that loads but lacks `left_ptr`
# makes cage set no cursor image at all (an empty theme would bring back wlroots' built-in
# arrow). Header (magic, size 16, version 1.0, one entry), the entry (image, nominal size 24, at
# byte 28), the image (header size 36, type, size, version 1, 1x1, hotspot 0,0, delay 0) and its
# pixel: little-endian 32-bit words, written as octal escapes.
mkdir -p "$stage/dist/cursor-theme/default/cursors"
word() { printf '\\%03o\\%03o\\%03o\\%03o' $(($1 & 255)) $(($1 >> 8 & 255)) $(($1 >> 16 & 255)) $(($1 >> 24 & 255)); }
image=$((0xfffd0002))
bytes="Xcur$(word 16)$(word 65536)$(word 1)$(word $image)$(word 24)$(word 28)"
bytes="$bytes$(word 36)$(word $image)$(word 24)$(word 1)$(word 1)$(word 1)$(word 0)$(word 0)$(word 0)$(word 0)"
printf "$bytes" >"$stage/dist/cursor-theme/default/cursors/kiosk-hidden"

# kiosk(1) from the command-line definitions: swift-argument-parser's generate-manual, the tool
# behind its plugin, run on the release binary (the plugin would rebuild kiosk in .build/release
# without the static runtime, replacing the binary this package ships).
(cd "$root" && swift build --product generate-manual >"$deb_dir/manual.log" 2>&1 \
    && "$root/.build/debug/generate-manual" "$kiosk" --output-directory "$stage/dist" \
        --date "$(date -u -d "@$when" +%Y-%m-%d)" --authors "Kiosk developers <developers@kiosk.example.org>" \
        >>"$deb_dir/manual.log" 2>&1) \
    || { cat "$deb_dir/manual.log"; exit 1; }

# -d: the kiosk is built already (make build), so the build dependencies dpkg-buildpackage would
# check (build-essential, a cross compiler for arm64) are not needed; debhelper is.
$in_root sh -c 'cd "$1" && DEB_BUILD_OPTIONS=nocheck dpkg-buildpackage -a "$2" $3 -d -b -us -uc' sh "$stage" "$arch" "$options" \
    >"$deb_dir/build.log" 2>&1 \
    || { tail -40 "$deb_dir/build.log"; exit 1; }
mkdir -p "$root/out"
deb="kiosk_${version}_${arch}.deb"
mv "$deb_dir/$deb" "$root/out/$deb"
echo "out/$deb"
