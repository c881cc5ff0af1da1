import Testing
@testable import Kiosk

@Test func placeholderCompiles() { #expect(Point(x: 1, y: 2).x == 1) }
