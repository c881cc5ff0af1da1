import KioskCore

/// What one buffer of a set (the window's wl_shm buffers, the headless renderer's images) has
/// not seen: the damage drawn into the others since it was last drawn into — its buffer age,
/// kept as a region. A frame drawn into it repaints the new damage plus that, so every buffer
/// always holds the whole latest picture. A new buffer misses everything.
public final class BufferDamage {
    public let missing: Region

    public init(size: PixelSize) {
        missing = Region(PixelRect(x: 0, y: 0, width: size.width, height: size.height))
    }

    /// What to repaint in this buffer for a frame whose new content is `damage`.
    public func repaint(for damage: Region) -> Region {
        let r = damage.copy()
        r.add(missing)
        return r
    }

    /// This buffer now holds the frame whose new content is `damage`: it misses nothing, and
    /// every other buffer of the set misses that damage.
    public func drawn(_ damage: Region, siblings: [BufferDamage]) {
        missing.clear()
        for s in siblings where s !== self { s.missing.add(damage) }
    }
}
