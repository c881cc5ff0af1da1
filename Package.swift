// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Kiosk",
    products: [
        .executable(name: "kiosk", targets: ["Kiosk"]),
        .executable(name: "kiosk-session", targets: ["KioskSession"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    ],
    targets: [
        // wayland-scanner output for the vendored protocols plus tiny C shims for what Swift
        // cannot call directly (memfd sealing, interface addresses, timerfd/signalfd setup).
        .target(
            name: "CWayland",
            path: "Sources/CWayland",
            linkerSettings: [.linkedLibrary("wayland-client")]
        ),
        .systemLibrary(name: "CXKBCommon", path: "Sources/CSystem/CXKBCommon", pkgConfig: "xkbcommon",
                       providers: [.apt(["libxkbcommon-dev"])]),
        .systemLibrary(name: "CPixman", path: "Sources/CSystem/CPixman", pkgConfig: "pixman-1",
                       providers: [.apt(["libpixman-1-dev"])]),
        .systemLibrary(name: "CFcft", path: "Sources/CSystem/CFcft", pkgConfig: "fcft",
                       providers: [.apt(["libfcft-dev"])]),
        .systemLibrary(name: "CPNG", path: "Sources/CSystem/CPNG", pkgConfig: "libpng",
                       providers: [.apt(["libpng-dev"])]),
        // Which characters the installed fonts cover (fcft finds fonts through it too).
        .systemLibrary(name: "CFontconfig", path: "Sources/CSystem/CFontconfig", pkgConfig: "fontconfig",
                       providers: [.apt(["libfontconfig-dev"])]),
        // What kiosk-session cannot say in Swift: fork with prctl, PAM (loaded at run time),
        // the DRM capability query, credentials on a datagram socket.
        .target(name: "CSession", path: "Sources/CSystem/CSession"),
        // Whether the kernel calls the system clock synchronised (adjtimex; no Swift header has it).
        .target(name: "CClock", path: "Sources/CSystem/CClock"),
        // The version, in a section of its own that a build can be stamped in (objcopy).
        .target(name: "CVersion", path: "Sources/CSystem/CVersion"),
        // The panel's accelerometer from iio-sensor-proxy, over the system bus with libsystemd's
        // sd-bus (its message reading is C varargs).
        .target(name: "CSensors", path: "Sources/CSystem/CSensors", linkerSettings: [.linkedLibrary("systemd")]),
        // espeak-ng and ALSA for the voice, and ALSA's error printing silenced (a variadic hook).
        .target(name: "CSpeech", path: "Sources/CSystem/CSpeech",
                linkerSettings: [.linkedLibrary("espeak-ng"), .linkedLibrary("asound")]),
        // libjpeg-turbo's decoder behind an error handler that longjmps (Swift cannot), and EXIF's
        // orientation: an operator's photographs.
        .target(name: "CJPEG", path: "Sources/CSystem/CJPEG", linkerSettings: [.linkedLibrary("jpeg")]),
        // What KioskRender cannot say in Swift (stores that bypass the cache), inline in a header.
        .target(name: "CRender", path: "Sources/CRender"),
        // The layers, each a module whose dependencies point down the data flow: the compiler
        // rejects an import the other way (Tests/E2E/test_layers.py shows it).
        // Plain values every layer shares: geometry, events, keys, clock, random, colour, log.
        .target(name: "KioskCore", dependencies: ["CVersion"], path: "Sources/KioskCore"),
        // Drawing: pixman canvases and regions, fcft text, PNG and JPEG pictures.
        .target(
            name: "KioskRender",
            dependencies: ["KioskCore", "CPixman", "CFcft", "CPNG", "CJPEG", "CRender", "CFontconfig"],
            path: "Sources/KioskRender"
        ),
        // The toolkit: views, touches, gesture recognizers, animation, controls.
        .target(
            name: "KioskUI",
            dependencies: ["KioskCore", "KioskRender"],
            path: "Sources/KioskUI"
        ),
        // One folder per scene: a pure model and its views.
        .target(
            name: "KioskScenes",
            dependencies: ["KioskCore", "KioskRender", "KioskUI"],
            path: "Sources/KioskScenes"
        ),
        // Wayland: the only importer of CWayland and xkbcommon. Buffers are KioskRender images.
        .target(
            name: "KioskPlatform",
            dependencies: ["KioskCore", "KioskRender", "CWayland", "CXKBCommon", "CPixman"],
            path: "Sources/KioskPlatform"
        ),
        // Speech: espeak-ng's sound played through ALSA on a thread of its own.
        .target(
            name: "KioskVoice",
            dependencies: ["KioskCore", "CSpeech"],
            path: "Sources/KioskVoice"
        ),
        // The app: shell, settings, state, lifecycle, CLI; wires the layers together.
        .executableTarget(
            name: "Kiosk",
            dependencies: [
                "KioskCore", "KioskRender", "KioskUI", "KioskScenes", "KioskPlatform", "KioskVoice", "CClock", "CSensors",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Sources/Kiosk"
        ),
        // kiosk-session, the only program that runs as root (kiosk.service's main process):
        // libc and plain values only, none of the UI's libraries.
        .executableTarget(
            name: "KioskSession",
            dependencies: ["KioskCore", "CSession"],
            path: "Sources/KioskSession"
        ),
        .testTarget(
            name: "KioskTests",
            dependencies: [
                "Kiosk", "KioskSession", "KioskCore", "KioskRender", "KioskUI", "KioskScenes", "KioskPlatform", "KioskVoice",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Tests/KioskTests",
            exclude: ["Golden"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
