import CWayland
import CPixman
#if canImport(Glibc)
import Glibc
#endif
import KioskCore
import KioskRender

/// One wl_shm buffer with a pixman image over the same memory.
///
/// A buffer is busy from attach+commit until the compositor's `wl_buffer.release`; it is never
/// drawn into while busy. `damage` is what it has not seen of the frames drawn into the others
/// (`BufferDamage`, shared with the headless renderer).
final class ShmBuffer {
    let proxy: OpaquePointer
    let image: OpaquePointer
    let size: PixelSize
    /// Rows stored bottom first: `image` draws upright through a negative stride while the
    /// memory the compositor reads is mirrored (see `Quirks.flipsBuffers`).
    let flipped: Bool
    private let memory: UnsafeMutableRawPointer
    private let byteCount: Int
    fileprivate(set) var busy = false
    let damage: BufferDamage
    /// Set when the chain has dropped the buffer while the compositor still held it.
    fileprivate var discarded = false

    init(shm: OpaquePointer, size: PixelSize, flipped: Bool = false) throws {
        let stride = Int(size.width) * 4
        byteCount = stride * Int(size.height)
        let fd = kiosk_shm_create("kiosk-shm", byteCount)
        guard fd >= 0 else { throw PlatformError.system("cannot create shared memory for a \(size) buffer: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        guard let mem = mmap(nil, byteCount, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0), mem != MAP_FAILED else {
            throw PlatformError.system("cannot map a \(size) buffer: \(String(cString: strerror(errno)))")
        }
        memory = mem
        // 2 MiB pages where the kernel allows them for shmem: 4 page faults instead of 2025.
        _ = madvise(mem, byteCount, MADV_HUGEPAGE)
        // One pool per buffer: a pool can't shrink, and buffers come and go with the size.
        let pool = wl_shm_create_pool(shm, fd, Int32(byteCount))!
        // XRGB: the kiosk is opaque and fullscreen, so the compositor need not blend it.
        proxy = wl_shm_pool_create_buffer(pool, 0, size.width, size.height, Int32(stride), WL_SHM_FORMAT_XRGB8888.rawValue)!
        wl_shm_pool_destroy(pool)
        // pixman walks rows by a signed stride, so a flipped buffer costs nothing to draw.
        let firstRow = flipped ? mem + (Int(size.height) - 1) * stride : mem
        image = pixman_image_create_bits(PIXMAN_x8r8g8b8, size.width, size.height,
                                         firstRow.assumingMemoryBound(to: UInt32.self), Int32(flipped ? -stride : stride))!
        self.size = size
        self.flipped = flipped
        damage = BufferDamage(size: size)
        wl_buffer_add_listener(proxy, ShmBuffer.listener, ListenerToken.userData(for: self))
    }

    /// Maps every page now, so the first frame does not pay for ~2000 page faults (about 7 ms
    /// for 1920×1080 on our CI machines) while the user waits.
    func prefault() {
        // One call that maps every page writable (Linux 5.14; the pages themselves are already
        // allocated, `kiosk_shm_create`): no fault taken and returned from per page. Older
        // kernels: a store per page.
        if madvise(memory, byteCount, MADV_POPULATE_WRITE) == 0 { return }
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        var off = 0
        while off < byteCount {
            memory.storeBytes(of: 0, toByteOffset: off, as: UInt8.self)
            off += page
        }
    }

    deinit {
        let data = wl_buffer_get_user_data(proxy)
        wl_buffer_destroy(proxy)
        ListenerToken.release(data)
        pixman_image_unref(image)
        munmap(memory, byteCount)
    }

    nonisolated(unsafe) private static let listener = makeListener(wl_buffer_listener(
        release: { data, _ in
            guard let b = ListenerToken.owner(data, as: ShmBuffer.self) else { return }
            b.busy = false
            b.onRelease?(b)
        }
    ))
    fileprivate var onRelease: ((ShmBuffer) -> Void)?
}

/// The window's buffers: reuse a free one of the current size, add one when all are busy, and
/// drop every buffer of an old size (busy ones as soon as the compositor releases them) so a
/// stale size is never attached.
final class BufferChain {
    private let shm: OpaquePointer
    private var buffers: [ShmBuffer] = []
    /// Buffers of an old size the compositor still holds, oldest first; freed on release.
    private var retired: [ShmBuffer] = []
    /// The buffer committed last: the compositor may still show it, so it is never dropped early.
    private(set) weak var lastPresented: ShmBuffer?
    private let log: Logger
    /// Three buffers cover double buffering plus one frame the compositor is slow to release;
    /// past that something is wrong and allocating more would only grow memory.
    static let maxBuffers = 4
    /// Old-size buffers kept for a compositor that has not released them. One that never does
    /// would otherwise make every resize cost more memory, without bound: past this many the
    /// oldest that has given way on screen is destroyed (the compositor no longer shows it).
    static let maxRetired = 2

    init(shm: OpaquePointer, log: Logger) {
        self.shm = shm
        self.log = log
    }


    /// A buffer of `size` (rows stored bottom first when `flipped`) that the compositor does not
    /// hold, or nil when all are busy and the chain is full (the caller then waits for a release).
    func acquire(size: PixelSize, flipped: Bool = false) throws -> ShmBuffer? {
        let stale = { (b: ShmBuffer) in b.size != size || b.flipped != flipped }
        if buffers.contains(where: stale) {
            for b in buffers where stale(b) && b.busy {
                b.discarded = true
                retired.append(b)
            }
            buffers.removeAll(where: stale)
            while retired.count > BufferChain.maxRetired, let i = retired.firstIndex(where: { $0 !== lastPresented }) {
                log.warning("the compositor has not released a \(retired[i].size) buffer it no longer shows: destroying it")
                retired.remove(at: i)
            }
        }
        // Prefer the free buffer that misses the least (the most recently drawn one).
        if let b = buffers.filter({ !$0.busy }).min(by: { $0.damage.missing.area < $1.damage.missing.area }) { return b }
        guard buffers.count < BufferChain.maxBuffers else { return nil }
        let b = try ShmBuffer(shm: shm, size: size, flipped: flipped)
        b.onRelease = { [weak self] b in
            if b.discarded { self?.retired.removeAll { $0 === b } }
            self?.onRelease?()
        }
        buffers.append(b)
        log.debug("buffer chain: new \(size) buffer (\(buffers.count) of this size)")
        return b
    }

    /// Destroys every buffer now. The window calls this from its deinit: Swift releases stored
    /// properties only after deinit's body, by which time the display (and its connection) may
    /// already be gone, and destroying a wl_buffer after wl_display_disconnect is a use-after-free.
    func destroyAll() {
        buffers.removeAll()
        retired.removeAll()
    }

    /// Called when a buffer comes back; lets a stalled window render again.
    var onRelease: (() -> Void)?

    /// Records that `buffer` now shows a frame whose new content is `damage`: the buffer is
    /// busy until released, and every other buffer misses that damage.
    func didPresent(_ buffer: ShmBuffer, damage: Region) {
        buffer.busy = true
        lastPresented = buffer
        buffer.damage.drawn(damage, siblings: buffers.map(\.damage))
    }
}

