"""The arm64 kiosk, cross-built on this amd64 machine with Debian's own Swift, trixie's swiftlang
(docs/cross-building.md says why this compiler and how). Two things, made together and cached
in .build/cross by what goes into them (building them needs root):

- the build root: Debian 13 for amd64 with swiftlang, debhelper and lintian, and (multiarch)
  the arm64 libraries Kiosk links, whose symbols files give dpkg-shlibdeps trixie's arm64
  dependencies;
- a Swift SDK, laid out as swift-sdk-generator lays one out: an artifact bundle holding an
  arm64 sysroot of Debian's -dev packages (extracted by mmdebstrap: nothing of arm64 runs) and
  the aarch64 standard library and static runtime from swiftlang's arm64 package, the same
  version as the compiler (Swift modules are bound to the compiler that made them).

  python3 Packaging/arm64.py build SWIFT-BUILD-ARGS...   # .build/arm64/release/kiosk
  python3 Packaging/arm64.py run COMMAND...              # a command in the build root
"""
import inspect
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
PROJECT = HERE.parent
sys.path.insert(0, str(HERE))
import roots  # noqa: E402

SUITE = "trixie"
CACHE = PROJECT / ".build" / "cross"
SCRATCH = PROJECT / ".build" / "arm64"
SDK_ID = "debian-trixie-aarch64"
BUNDLE = f"{SDK_ID}.artifactbundle"
TRIPLE = "aarch64-unknown-linux-gnu"
# The compiler and the packaging tools (libc6-dev: SwiftPM builds the manifest for amd64).
ROOT_PACKAGES = ["swiftlang", "libc6-dev", "git", "dpkg-dev", "debhelper", "fakeroot", "lintian",
                 "binutils-aarch64-linux-gnu"]
# What the kiosk links, for arm64: dpkg-shlibdeps reads their symbols files.
ARM64_LIBRARIES = ["libc6", "libgcc-s1", "libfcft4t64", "libfontconfig1", "libfreetype6", "libpixman-1-0",
                   "libpng16-16t64", "libjpeg62-turbo", "libwayland-client0", "libxkbcommon0", "libespeak-ng1", "libasound2t64", "libsystemd0"]
# The sysroot: headers, pkg-config files and link-time libraries (static libstdc++ included).
SYSROOT_PACKAGES = ["libc6-dev", "libstdc++-14-dev", "libgcc-14-dev", "linux-libc-dev", "libwayland-dev",
                    "libpixman-1-dev", "libfcft-dev", "libpng-dev", "libjpeg62-turbo-dev", "libxkbcommon-dev", "libfontconfig-dev",
                    "libespeak-ng-dev", "libasound2-dev", "libsystemd-dev"]
# From swiftlang's arm64 package: the aarch64 modules, shims and static archives, and clang's
# headers they point at (lib/swift/clang -> ../clang/17).
SWIFT_RESOURCES = ["swift_static", "swift/linux", "swift/shims", "swift/clang", "clang"]
# Files of this machine the build needs inside the root: the project, and the copies of the
# Swift packages that git finds through /etc/gitconfig.
BINDS = [PROJECT, *roots.swift_package_binds()]


def exclude_docs():
    return ["--dpkgopt=path-exclude=/usr/share/doc/*", "--dpkgopt=path-include=/usr/share/doc/*/copyright",
            "--dpkgopt=path-exclude=/usr/share/man/*", "--dpkgopt=path-exclude=/usr/share/locale/*"]


def make(out):
    sources = f"deb {roots.MIRROR} {SUITE} main"
    roots.mmdebstrap(["--variant=apt", "--architectures=amd64,arm64",
                      "--include=" + ",".join(ROOT_PACKAGES + [f"{p}:arm64" for p in ARM64_LIBRARIES]),
                      # apt's lists stay: swiftlang's arm64 package is downloaded below
                      "--skip=cleanup/apt/lists", *exclude_docs(), SUITE, str(out / "root"), sources], out / "root.log")
    sysroot = out / BUNDLE / SDK_ID / "sysroot"
    sysroot.parent.mkdir(parents=True)
    roots.mmdebstrap(["--variant=extract", "--architectures=arm64", "--include=" + ",".join(SYSROOT_PACKAGES),
                      *exclude_docs(), SUITE, str(sysroot), sources], out / "sysroot.log")
    # Debian 13 is merged-/usr: its linker scripts name /lib/aarch64-linux-gnu/libc.so.6.
    (sysroot / "lib").symlink_to("usr/lib")
    version = enter(out / "root", "dpkg-query", "-W", "-f=${Version}", "swiftlang", capture=True).strip()
    download = out / "download"
    download.mkdir()
    enter(out / "root", "sh", "-c", f"cd {download} && apt-get download -q -o APT::Sandbox::User=root swiftlang:arm64={version}")
    deb = next(download.glob("swiftlang_*_arm64.deb"))
    members = [f"./usr/libexec/swift/lib/{p}" for p in SWIFT_RESOURCES]
    tar = subprocess.Popen(["dpkg-deb", "--fsys-tarfile", str(deb)], stdout=subprocess.PIPE)
    subprocess.run(["tar", "-x", "-C", str(sysroot), *members], stdin=tar.stdout, check=True)
    if tar.wait() != 0:
        raise RuntimeError(f"dpkg-deb could not read {deb}")
    shutil.rmtree(download)
    write_sdk(out / BUNDLE, version)


def write_sdk(bundle, version):
    """info.json, swift-sdk.json and toolset.json as SwiftPM 6.0 reads them (SE-0387)."""
    import json
    swift = "sysroot/usr/libexec/swift/lib"
    files = {
        "info.json": {"schemaVersion": "1.0", "artifacts": {SDK_ID: {
            "type": "swiftSDK", "version": version,
            "variants": [{"path": SDK_ID, "supportedTriples": ["x86_64-unknown-linux-gnu", "x86_64-pc-linux-gnu"]}]}}},
        f"{SDK_ID}/swift-sdk.json": {"schemaVersion": "4.0", "targetTriples": {TRIPLE: {
            "sdkRootPath": "sysroot", "swiftResourcesPath": f"{swift}/swift",
            "swiftStaticResourcesPath": f"{swift}/swift_static", "toolsetPaths": ["toolset.json"]}}},
        f"{SDK_ID}/toolset.json": {"schemaVersion": "1.0", "swiftCompiler": {"extraCLIOptions": ["-use-ld=lld"]},
                                   "linker": {"path": "/usr/libexec/swift/bin/ld.lld"}},
        # Read by the driver for any SDK: without it (or with a version not "major.minor"), a warning
        # for every compile.
        f"{SDK_ID}/sysroot/SDKSettings.json": {"Version": "13.0", "CanonicalName": f"debian-{SUITE}"},
    }
    for name, value in files.items():
        (bundle / name).write_text(json.dumps(value, indent=2) + "\n")


def built():
    """The folder holding the build root (root/) and the Swift SDK (BUNDLE)."""
    recipe = "\n".join([SUITE, *ROOT_PACKAGES, *ARM64_LIBRARIES, *SYSROOT_PACKAGES, *SWIFT_RESOURCES,
                        inspect.getsource(make), inspect.getsource(write_sdk)])
    return roots.cached(CACHE, f"{SUITE}-arm64", recipe, make)


def enter(root, *cmd, env=None, capture=False):
    """Runs `cmd` in the build root as root, the project (where the download goes too) at its own
    path; its output if `capture`. A failure ends this program with the command's status."""
    r = subprocess.run([*roots.prefix(root, binds=BINDS), "env", *[f"{k}={v}" for k, v in (env or {}).items()],
                        *cmd], stdout=subprocess.PIPE if capture else None, text=True)
    if r.returncode != 0:
        raise SystemExit(f"arm64: `{' '.join(cmd)}` in the build root exited {r.returncode}")
    return r.stdout


def build(args):
    """`swift build` for arm64 with `args` (make build's flags); libstdc++.a from the sysroot,
    as make build takes the machine's."""
    out = built()
    sysroot = out / BUNDLE / SDK_ID / "sysroot"
    cxx = SCRATCH / "static-cxx"
    cxx.mkdir(parents=True, exist_ok=True)
    (cxx / "libstdc++.a").unlink(missing_ok=True)
    (cxx / "libstdc++.a").symlink_to(sysroot / "usr/lib/gcc/aarch64-linux-gnu/14/libstdc++.a")
    pkgconfig = {"PKG_CONFIG_SYSROOT_DIR": sysroot,
                 "PKG_CONFIG_PATH": f"{sysroot}/usr/lib/aarch64-linux-gnu/pkgconfig:{sysroot}/usr/share/pkgconfig"}
    enter(out / "root", "sh", "-c", f'cd "{PROJECT}" && exec swift build --swift-sdks-path "{out}" --swift-sdk {SDK_ID} '
          f'--scratch-path "{SCRATCH}" "$@"', "sh", *args, env=pkgconfig)


if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] not in ("build", "run"):
        raise SystemExit(__doc__)
    if sys.argv[1] == "build":
        build(sys.argv[2:])
    else:
        enter(built() / "root", *sys.argv[2:])
