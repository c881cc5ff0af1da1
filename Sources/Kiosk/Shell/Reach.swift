import KioskCore

/// Where a seated visitor can reach on a panel mounted high. EN 301 549 clause 8.3 (stationary
/// ICT) puts the highest forward or side reach at 1220 mm above the floor: on a tall portrait
/// panel whose top is higher, the band above that line is drawn but holds no controls.
enum Reach {
    /// The highest point a visitor in a wheelchair reaches, in millimetres above the floor.
    static let highestReach = 1220.0
    /// At most this share of the screen is left without controls (a panel mounted so high that
    /// more would be out of reach still shows its controls, as low as they go).
    static let largestBand = 0.6

    /// Points from the top of the screen that are above the reach line; 0 when the mounting
    /// height is not known (0) or the whole screen is within reach.
    static func unreachableTop(of info: DisplayInfo, mountingHeight: Double) -> Double {
        guard mountingHeight > 0 else { return 0 }
        let aboveReach = (mountingHeight - highestReach) * info.pointsPerMillimetre
        return min(max(0, aboveReach), info.size.height * largestBand)
    }
}
