"""End-to-end: the tile board under a real weston."""
import time

from harness import Kiosk, count_color, rgb, wait_until

ACCENT = rgb(0x4FC3F7)
OFF_FILL = rgb(0x1C232C)


# The board starts below the shell's scene bar: 6 pt from the top, max(40 pt, 10 mm) tall, then
# 6 pt (Shell.computeBarRects, the safe area it gives the scenes).
MM = 96 / 25.4
BAR_BOTTOM = 6 + max(40, 10 * MM) + 6


def geometry(width=1920, height=1080, count=24):
    """The tile grid as TileBoardScene lays it out at 96 dpi (weston's headless output reports no
    believable size): buttons max(64 pt, 16 mm) tall 12 pt from the bottom, the status line 40 pt
    above them, the board from the scene bar down to 4 pt above the status, tiles inside a 16 pt
    margin, 2.5 mm gaps, the column count that gives the largest square tiles. Returns the tile
    side, the gap, and the grid's top-left corner on screen."""
    mm = MM
    gap, bar_h = 2.5 * mm, max(64, 16 * mm)
    board_top = BAR_BOTTOM
    board_h = (height - bar_h - 12 - 40) - 4 - board_top
    area_w, area_h = width - 32, board_h - 32
    best = (1, -1.0)
    for c in range(1, count + 1):
        rows = -(-count // c)
        side = min((area_w - (c - 1) * gap) / c, (area_h - (rows - 1) * gap) / rows)
        if side > best[1]:
            best = (c, side)
    cols, tile = best
    rows = -(-count // cols)
    x0 = 16 + (area_w - (cols * tile + (cols - 1) * gap)) / 2
    y0 = board_top + 16 + (area_h - (rows * tile + (rows - 1) * gap)) / 2
    return tile, gap, x0, y0, cols


def tile_box(i, **kw):
    tile, gap, x0, y0, cols = geometry(**kw)
    x, y = x0 + (i % cols) * (tile + gap), y0 + (i // cols) * (tile + gap)
    return (x + 4, y + 4, x + tile - 4, y + tile - 4)


def test_a_tap_selects_a_tile_and_remove_deletes_it(weston, tmp_path):
    k = Kiosk(weston, "--verbose", "--scene", "tiles", env=weston.env(XDG_STATE_HOME=str(tmp_path)), protocol=False)
    try:
        k.wait_for(r"first frame shown")
        box = tile_box(2)
        before = weston.screenshot()
        assert count_color(before, box, OFF_FILL, tol=6) > 500  # an unselected tile
        cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
        weston.send(f"down 0 {cx:.0f} {cy:.0f}", "frame", "up 0")
        wait_until(lambda: count_color(weston.screenshot(), box, ACCENT, tol=20) > 500, timeout=3, what="the tile to turn on")
        time.sleep(0.4)  # past the double-tap window
        weston.send("down 1 822 1036", "frame", "up 1")  # the Remove button
        k.wait_for(r"\b1 ended")

        def gone():
            img = weston.screenshot()
            return count_color(img, box, ACCENT, tol=20) == 0
        wait_until(gone, timeout=3, what="the removed tile to disappear")
        time.sleep(0.7)  # the next tile has slid into the place
        img = weston.screenshot()
        assert count_color(img, box, OFF_FILL, tol=6) > 500
    finally:
        k.close()


def test_a_change_survives_a_kill_after_a_few_seconds(weston, tmp_path):
    import signal
    env = weston.env(XDG_STATE_HOME=str(tmp_path))
    box = tile_box(5)
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    k = Kiosk(weston, "--verbose", "--scene", "tiles", env=env, protocol=False)
    try:
        k.wait_for(r"first frame shown")
        weston.send(f"down 0 {cx:.0f} {cy:.0f}", "frame", "up 0")
        wait_until(lambda: count_color(weston.screenshot(), box, ACCENT, tol=20) > 500, timeout=3, what="the tile on")
        time.sleep(3.6)  # the save comes 3 s after the change
        k.proc.send_signal(signal.SIGKILL)  # a crash or a power cut: no shutdown hook runs
        k.wait_exit(timeout=2)
    finally:
        k.close()
    k2 = Kiosk(weston, "--verbose", "--scene", "tiles", env=env, protocol=False)
    try:
        k2.wait_for(r"first frame shown")
        wait_until(lambda: count_color(weston.screenshot(), box, ACCENT, tol=20) > 500, timeout=3, what="the kept selection")
    finally:
        k2.close()
