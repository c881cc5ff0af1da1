import Testing
@testable import Kiosk

@Suite struct FilePagesTests {
    /// smaps as Linux 6 writes it (fields the parser skips cut short).
    static let sample = """
    55d0a0000000-55d0a0200000 r--p 00000000 08:01 1234                       /usr/bin/kiosk
    Size:               2048 kB
    Rss:                 204 kB
    Pss:                 204 kB
    Anonymous:             0 kB
    VmFlags: rd mr mw me sd
    55d0a0200000-55d0a0c00000 r-xp 00200000 08:01 1234                       /usr/bin/kiosk
    Size:              10240 kB
    Rss:                3848 kB
    Anonymous:             0 kB
    55d0a0c00000-55d0a0c58000 r--p 00c00000 08:01 1234                       /usr/bin/kiosk
    Rss:                 352 kB
    Anonymous:           352 kB
    55d0a0c58000-55d0a0e58000 rw-p 00c58000 08:01 1234                       /usr/bin/kiosk
    Rss:                1068 kB
    Anonymous:           184 kB
    55d0a1000000-55d0a1400000 rw-p 00000000 00:00 0                          [heap]
    Rss:                4096 kB
    Anonymous:          4096 kB
    7f0000000000-7f0000010000 r--s 00000000 08:01 99                         /var/cache/fontconfig/x-le64.cache-8
    Rss:                  48 kB
    Anonymous:             0 kB
    7f0000010000-7f0000020000 r-xp 00000000 08:01 77                         /opt/my app/libold.so (deleted)
    Rss:                  12 kB
    Anonymous:             0 kB
    7f0000020000-7f0000030000 r-xp 00000000 08:01 78                         /usr/lib/libcold.so
    Rss:                   0 kB
    Anonymous:             0 kB
    7f0000030000-7f0000031000 r-xp 00000000 00:00 0                          [vdso]
    Rss:                   4 kB
    Anonymous:             0 kB
    7f0000040000-7f0000050000 r-xp 00000000 08:01 79                         /usr/lib/libpatched.so
    Rss:                  64 kB
    Anonymous:             4 kB
    7f0000060000-7f0000070000 rw-s 00000000 00:01 80                         /memfd:kiosk-shm (deleted)
    Rss:                  64 kB
    Anonymous:             0 kB
    """

    @Test func onlyUnwrittenFilePagesAreDropped() {
        let found = FilePages.droppable(smaps: Self.sample)
        // The binary's headers and code, fontconfig's cache, a library deleted by an upgrade
        // (its pages come back from the inode the mapping holds). Not: relocated data (RELRO),
        // anything writable, anonymous memory, the vdso, a mapping with nothing resident, code
        // with a private (patched) page, the shared buffers.
        #expect(found.map(\.start) == [0x55d0a0000000, 0x55d0a0200000, 0x7f0000000000, 0x7f0000010000])
        #expect(found.map(\.residentKiB) == [204, 3848, 48, 12])
        #expect(found[1].end == 0x55d0a0c00000)
        #expect(FilePages.droppable(smaps: "") == [])
        #expect(FilePages.droppable(smaps: "garbage\nRss: x\nAnonymous: 0 kB\n-\n") == [])
    }

    @Test func droppingThisProcessesCodeLeavesItRunningAndSmaller() {
        let before = FilePages.droppable()
        #expect(!before.isEmpty) // at least this test binary's code
        let resident = before.reduce(0) { $0 + $1.residentKiB }
        // Tests running alongside may unmap a file (a font) between the listing and the drop:
        // its mapping is then refused (ENOMEM) and not counted.
        let dropped = FilePages.drop(before)
        #expect(dropped <= resident && dropped >= resident * 3 / 4, "\(dropped) of \(resident) KiB")
        // Still running (this code just came back), and most of it is no longer mapped.
        let after = FilePages.droppable().reduce(0) { $0 + $1.residentKiB }
        #expect(after < resident * 3 / 4, "\(after) KiB resident again of \(resident)")
    }
}
