// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Kiosk",
    products: [
        .executable(name: "kiosk", targets: ["Kiosk"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
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
        .executableTarget(
            name: "Kiosk",
            dependencies: [
                "CWayland", "CXKBCommon", "CPixman", "CFcft", "CPNG",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Sources/Kiosk"
        ),
        .testTarget(
            name: "KioskTests",
            dependencies: ["Kiosk"],
            path: "Tests/KioskTests",
            exclude: ["Golden"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
