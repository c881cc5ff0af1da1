"""End-to-end: the fleet metrics file, as node_exporter's textfile collector reads it, parsed by
the Prometheus client library's own text-format parser."""
import re
import signal
import stat

from prometheus_client.parser import text_string_to_metric_families

from harness import Kiosk


def families(path):
    return {f.name: f for f in text_string_to_metric_families(path.read_text())}


def value(fams, sample, **labels):
    """A sample by its full name (the parser names a counter's family without `_total`)."""
    for f in fams.values():
        for s in f.samples:
            if s.name == sample and all(s.labels.get(k) == v for k, v in labels.items()):
                return s.value
    raise KeyError(f"{sample} {labels}")


def test_the_textfile_parses_follows_the_naming_rules_and_counts_what_happened(weston, tmp_path):
    prom = tmp_path / "kiosk.prom"
    cfg = tmp_path / "kiosk.toml"
    cfg.write_text(f'[shell]\nscenes = ["touch", "lander", "tiles"]\n[metrics]\ntextfile = "{prom}"\n')
    env = weston.env(XDG_STATE_HOME=str(tmp_path))
    with Kiosk(weston, "--verbose", "--config", str(cfg), "--scene", "touch", "--idle-timeout", "0", env=env,
               protocol=False) as k:
        k.wait_for(r"first frame shown")
        k.wait_for(r"metrics: written to")
        assert stat.S_IMODE(prom.stat().st_mode) == 0o644
        # Three touches, a scene switch (F2) and a reload.
        for i in range(3):
            weston.send(f"down {i} {400 + i * 100} 600", "frame", f"up {i}", "frame")
        k.wait_for(r"touch: 2 ended")
        weston.send("key 60")
        k.wait_for(r"scene: lander")
        k.proc.send_signal(signal.SIGHUP)
        k.wait_for(r"settings reloaded")
        k.proc.send_signal(signal.SIGTERM)
        assert k.wait_exit(timeout=3) == 0
    fams = families(prom)
    # Names: kiosk_ and snake case; counters' samples end in _total; units as suffixes.
    for name, f in fams.items():
        assert re.fullmatch(r"kiosk_[a-z][a-z0-9_]*", name), name
        assert f.documentation, f"{name} has no HELP"
        if f.type == "counter":
            assert all(s.name.endswith(("_total", "_created")) for s in f.samples), name
    assert fams["kiosk_frame_draw_seconds"].type == "histogram"
    assert value(fams, "kiosk_touches_total") == 3
    assert value(fams, "kiosk_scene_switches_total") == 1
    assert value(fams, "kiosk_settings_reloads_total", result="applied") == 1
    assert value(fams, "kiosk_frames_drawn_total") >= 2
    assert value(fams, "kiosk_frame_draw_seconds_count") == value(fams, "kiosk_frames_drawn_total")
    assert value(fams, "kiosk_scene_shown_seconds_total", scene="touch") > 0
    assert value(fams, "kiosk_last_input_time_seconds") > value(fams, "kiosk_start_time_seconds") > 1.6e9
    assert 5e6 < value(fams, "kiosk_resident_memory_bytes") < 500e6
    assert value(fams, "kiosk_open") == 1


def test_an_unwritable_textfile_is_reported_once_and_the_kiosk_runs_on(weston, tmp_path):
    cfg = tmp_path / "kiosk.toml"
    cfg.write_text('[metrics]\ntextfile = "/proc/kiosk-cannot-write-here/kiosk.prom"\n')
    env = weston.env(XDG_STATE_HOME=str(tmp_path))
    with Kiosk(weston, "--config", str(cfg), "--scene", "touch", env=env, protocol=False) as k:
        k.wait_for(r"metrics: cannot write /proc/kiosk-cannot-write-here/kiosk.prom")
        k.proc.send_signal(signal.SIGTERM)  # writes again at shutdown: still one line
        assert k.wait_exit(timeout=3) == 0
        assert k.stderr.count("metrics: cannot write") == 1
