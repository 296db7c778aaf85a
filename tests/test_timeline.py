"""Over-time view of a timing run (issue 72 item 2): golden/timing/timeline.py,
golden/report/timeline*.py and ``simtlab timeline``."""

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from golden.cli import main
from golden.report.timeline import timeline_workload
from golden.report.timeline_render import html_page
from golden.timing.stats import STALL_REASONS

FIXTURES = Path(__file__).parent / "fixtures" / "timing_stats"


@pytest.fixture(scope="module")
def bfs():
    """BFS (9 launches) on pascal, small, sampled every 500 cycles."""
    return timeline_workload("BFS", "small", 0, "pascal", (), every=500)


@pytest.fixture(scope="module")
def bfs_gtx480():
    """BFS (9 launches) on gtx480 (cold L2: the frontier's DRAM traffic shows), small,
    sampled every 200 cycles."""
    return timeline_workload("BFS", "small", 0, "gtx480", (), every=200)


@pytest.fixture(scope="module")
def fft_fx5800():
    """FFT on the Quadro FX5800 (no warm L2: DRAM traffic), small, every 250 cycles."""
    return timeline_workload("FFT", "small", 0, "quadro_fx5800", (), every=250)


def test_timeline_is_off_by_default():
    from golden.configs import load_config
    from golden.timing.gpu import GPU
    assert GPU(load_config("pascal")).timeline is None


def test_sampled_per_sm_instructions_sum_to_the_run_total(bfs):
    s = bfs["sm_samples"]
    assert sum(r["instructions_executed"] for r in s) == bfs["instructions_executed"] > 0
    assert sum(r["instructions_issued"] for r in s) == bfs["instructions_issued"]
    # every scheduler cycle is in exactly one interval, with its outcome
    want = json.loads((FIXTURES / "BFS-pascal.json").read_text())["timing"]
    assert sum(r["scheduler_cycles"] for r in s) == want["scheduler_cycles"]
    for k, reason in enumerate(STALL_REASONS):
        assert sum(r["stalls"][k] for r in s) == want["stalls"][reason]
    assert sum(r["sm_cycles"] for r in s) == want["sm_cycles"]
    assert sum(r["resident_warp_cycles"] for r in s) == want["resident_warp_cycles"]


def test_sampling_leaves_cycles_and_counters_identical(bfs):
    """The sampled run's totals equal the committed statistics fixture of the unsampled
    run (tests/test_timing_fixtures.py checks the unsampled run against the same file)."""
    from golden.configs import load_config
    from golden.mechanisms.registry import make_mechanisms
    from golden.timing.stats import TimingStats
    from golden.timing.timeline import Timeline
    from golden.timing.timing_device import TimingDevice
    from golden.workloads import registry
    want = json.loads((FIXTURES / "BFS-pascal.json").read_text())
    cfg = load_config("pascal")
    dev = TimingDevice(cfg, mechanisms=make_mechanisms((), cfg), echo_printf=False)
    dev.gpu.timeline = Timeline(every=97)
    run = registry.run_workload("BFS", size="small", seed=0, device=dev)
    total = TimingStats.merged([s.timing for s in run.stats], concurrent=False)
    assert json.loads(json.dumps(total.to_dict(), sort_keys=True)) == want["timing"]
    assert total.cycles == want["cycles"] == bfs["cycles"]
    assert not run.mismatches()


def test_launches_are_back_to_back_phases_and_intervals_cover_them(bfs):
    ls = bfs["launches"]
    assert len(ls) == 9 and ls[0]["start"] == 0 and ls[-1]["end"] == bfs["cycles"]
    assert all(a["end"] == b["start"] for a, b in zip(ls, ls[1:]))
    for ln in ls:
        rows = [r for r in bfs["sm_samples"] if r["launch"] == ln["index"]]
        ivs = sorted({(r["t0"], r["t1"]) for r in rows})
        assert ivs[0][0] == ln["start"] and ivs[-1][1] == ln["end"]
        assert all(a[1] == b[0] for a, b in zip(ivs, ivs[1:]))      # no gap, no overlap
        # a sample is taken at the first loop step at or after a multiple of 500 local
        # cycles (event skipping may jump past one): never before, at most one per boundary
        local = [(t0 - ln["start"], t1 - ln["start"]) for t0, t1 in ivs]
        assert all(t1 >= (t0 // 500 + 1) * 500 for t0, t1 in local[:-1])
        assert len(ivs) <= -(-(ln["end"] - ln["start"]) // 500)
        assert {r["sm"] for r in rows} == set(ln["sms"])


def test_dram_channel_samples_sum_to_the_run_counters(fft_fx5800):
    d = fft_fx5800
    want = json.loads(json.dumps(timeline_totals(d)))
    s = d["channel_samples"]
    assert {r["channel"] for r in s} == set(range(d["dram_channels"]))
    assert sum(r["row_hits"] for r in s) == want["dram_row_hits"] > 0
    assert sum(r["activates"] for r in s) == want["dram_activates"] > 0
    assert all(0 <= r["busy"] <= r["t1"] - r["t0"] + 1e-6 for r in s)
    assert sum(r["busy"] for r in s) > 0


def timeline_totals(doc):
    """The unsampled run's DRAM counters for ``doc``'s workload/config (a fresh run)."""
    from golden.configs import load_config
    from golden.timing.stats import TimingStats
    from golden.timing.timing_device import TimingDevice
    from golden.workloads import registry
    dev = TimingDevice(load_config(doc["config"]), echo_printf=False)
    run = registry.run_workload(doc["workload"], size=doc["size"], seed=doc["seed"], device=dev)
    t = TimingStats.merged([s.timing for s in run.stats], concurrent=False)
    assert t.cycles == doc["cycles"]
    return {"dram_row_hits": t.dram_row_hits, "dram_activates": t.dram_activates}


def test_mechanism_gauges_and_counters_are_sampled():
    d = timeline_workload("BFS", "small", 0, "gtx480_warpman", ("warpman-temp",), every=1000)
    reclaimed = sum(r["mechanism"].get("warpman.reclaimed_warps", 0) for r in d["sm_samples"])
    assert reclaimed > 0
    assert any("warpman.buffered_warps" in r["gauges"] for r in d["sm_samples"])


def test_timeline_and_pc_profile_refuse_to_share_a_run():
    from golden.configs import load_config
    from golden.errors import SimtlabError
    from golden.timing.pc_profile import PCProfiler
    from golden.timing.timeline import Timeline
    from golden.timing.timing_device import TimingDevice
    from golden.workloads import registry
    dev = TimingDevice(load_config("pascal"), echo_printf=False)
    dev.gpu.pc_profiler, dev.gpu.timeline = PCProfiler(), Timeline(100)
    with pytest.raises(SimtlabError, match="cannot sample one run together"):
        registry.run_workload("BFS", size="small", seed=0, device=dev)


@pytest.mark.parametrize("every", [0, -3, "7", True])
def test_bad_interval_is_refused(every):
    from golden.errors import SimtlabError
    from golden.timing.timeline import Timeline
    with pytest.raises(SimtlabError, match="interval"):
        Timeline(every)


@pytest.mark.parametrize("argv,needle", [
    (["timeline", "NOPE", "--html", "x.html"], "unknown workload 'NOPE'"),
    (["timeline", "BFS", "--every", "0", "--html", "x.html"], "--every must be >= 1"),
    (["timeline", "BFS", "--mechanism", "nope", "--html", "x.html"], "unknown mechanism 'nope'"),
    (["timeline", "BFS"], "--html"),
])
def test_bad_timeline_input_is_a_one_line_error(argv, needle, capsys):
    try:
        rc = main(argv)
    except SystemExit as e:        # argparse's usage errors
        rc = e.code
    assert rc == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert err.startswith("simtlab") and needle in err


def test_page_is_self_contained(bfs):
    page = html_page(bfs)
    assert page.startswith("<!DOCTYPE html>")
    # outside the inlined scripts' code, nothing refers to another file or the network
    tags = re.sub(r"(<script[^>]*>).*?</script>", r"\1</script>", page, flags=re.S)
    assert not re.search(r"<script[^>]*\bsrc=", tags)
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", tags)
    assert tags.count("<script") >= 3      # the error trap, plotly.js, the figure
    assert "Plotly.newPlot" in page or "Plotly.react" in page


def _chromium() -> str:
    import os
    exe = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    if exe is None:
        msg = "Debian chromium is needed for the timeline page test (make setup installs it)"
        if os.environ.get("CI"):
            pytest.fail(msg)
        pytest.skip(msg)
    return exe


def _load_in_chromium(doc, tmp_path):
    """Write ``doc``'s page, load it offline in headless Chromium; return the completed
    process (stdout: the DOM after the plot's post script ran)."""
    exe = _chromium()
    page = tmp_path / "timeline.html"
    page.write_text(html_page(doc))
    r = subprocess.run([exe, "--headless", "--no-sandbox", "--disable-gpu",
                        "--disable-dev-shm-usage", "--no-first-run", "--hide-scrollbars",
                        "--enable-logging=stderr", "--v=0", "--virtual-time-budget=20000",
                        "--dump-dom", page.resolve().as_uri()],
                       capture_output=True, text=True, timeout=180)
    assert r.returncode == 0, r.stderr[-2000:]
    return r


def _body_attrs(dom: str) -> dict:
    body = re.search(r"<body([^>]*)>", dom)
    assert body, "no <body> in the dumped DOM"
    return dict(re.findall(r'data-([a-z-]+)="([^"]*)"', body.group(1)))


def _console_errors(stderr: str) -> list:
    return [ln for ln in stderr.splitlines()
            if "CONSOLE" in ln and ("error" in ln.lower() or "Uncaught" in ln)]


def test_bfs_timeline_page_plots_in_headless_chromium_without_console_errors(bfs, tmp_path):
    """The page loads offline, draws every trace, and logs no console error."""
    r = _load_in_chromium(bfs, tmp_path)
    m = re.search(r'<body[^>]*data-plotted="(\d+)"[^>]*data-traces="(\d+)"[^>]*'
                  r'data-errors="([^"]*)"', r.stdout)
    assert m, "the plot's post script did not run:\n" + r.stdout[:500]
    assert int(m.group(1)) >= 1 and m.group(3) == ""
    n_sms = len({x["sm"] for x in bfs["sm_samples"]})
    assert int(m.group(2)) >= 2 * n_sms + 6 * (n_sms + 1) + 3 * bfs["dram_channels"]
    assert _console_errors(r.stderr) == []
    # the drawn page has the launch phases and the SM selector
    assert r.stdout.count("bfs_expand") >= len(bfs["launches"])
    assert "all SMs" in r.stdout


def test_concurrent_kernels_are_sampled_per_partition_without_changing_the_session(monkeypatch):
    """GPU.run_partitions (two programs on two SM sets, shared memory system)."""
    from golden.configs import load_config
    from golden.runs import concurrent
    from golden.runs.concurrent import Partition, run_concurrent, split_sms
    from golden.timing.timeline import Timeline
    from golden.workloads import registry
    cfg = load_config("gtx280")
    a, b = split_sms(30, 15, 15)

    def prog(n):
        return lambda dev: registry.run_workload(registry.get(n), size="small", seed=0, device=dev)

    def run():
        return run_concurrent(cfg, [("SCAN", prog("SCAN")), ("FFT", prog("FFT"))],
                              [Partition(a), Partition(b)])
    plain = run()
    timelines = []

    class SampledGPU(concurrent.GPU):
        def __init__(self, *args, **kw):
            super().__init__(*args, **kw)
            self.timeline = Timeline(300)
            timelines.append(self.timeline)
    monkeypatch.setattr(concurrent, "GPU", SampledGPU)
    sampled = run()
    assert sampled.session.to_dict() == plain.session.to_dict()
    (tl,) = timelines
    assert sorted({ln["partition"] for ln in tl.launches}) == [0, 1]
    assert sum(r["instructions_executed"] for r in tl.sm_samples) == \
        sampled.session.instructions_executed
    assert sum(r["row_hits"] for r in tl.channel_samples) == sampled.session.dram_row_hits
    for ln in tl.launches:
        assert {r["sm"] for r in tl.sm_samples if r["launch"] == ln["index"]} <= set(ln["sms"])


def test_page_draws_dram_bandwidth_against_the_peak_and_launch_boundaries(bfs_gtx480):
    """The figure's DRAM rows hold what the samples say: per channel the bus-busy share of
    each interval (the fraction of the channel's peak), the peak line at 1, pending
    requests over the queue's entries; one dashed boundary per launch start and the end."""
    from golden.report.timeline_render import dram_summary, figure
    d = bfs_gtx480
    fig = figure(d)
    util = [t for t in fig.data if t.meta == "dram-util"]
    assert len(util) == d["dram_channels"] == 6
    got = max(max(t.y) for t in util)
    s = dram_summary(d)
    assert got == pytest.approx(s["max_channel"]) and got > 0.3
    (peak,) = [t for t in fig.data if t.meta == "dram-peak"]
    assert list(peak.y) == [1.0, 1.0] and "GB/s per channel" in peak.name
    # peak per channel: 8 B x 4 (QDR) x 924 MHz / 6 channels' share of 177.4 GB/s
    assert d["dram_peak_gb_per_s_per_channel"] == pytest.approx(8 * 4 * 924e6 / 1e9)
    queue = [t for t in fig.data if t.meta == "dram-queue"]
    assert len(queue) == 6 and all(y >= 0 for t in queue for y in t.y)
    assert max(y for t in queue for y in t.y) > 0
    bounds = [sh for sh in fig.layout.shapes if sh.name == "launch-boundary"]
    assert sorted(sh.x0 for sh in bounds) == \
        [ln["start"] for ln in d["launches"]] + [d["launches"][-1]["end"]]


def test_dram_queue_samples_sum_to_the_run_counters(fft_fx5800):
    d = fft_fx5800
    from golden.configs import load_config
    from golden.timing.stats import TimingStats
    from golden.timing.timing_device import TimingDevice
    from golden.workloads import registry
    dev = TimingDevice(load_config(d["config"]), echo_printf=False)
    run = registry.run_workload(d["workload"], size=d["size"], seed=d["seed"], device=dev)
    t = TimingStats.merged([s.timing for s in run.stats], concurrent=False)
    assert sum(r["queue_full"] for r in d["channel_samples"]) == t.dram_queue_full_delays
    assert all(0 <= r["queued"] for r in d["channel_samples"])
    assert max(r["queued"] for r in d["channel_samples"]) > 0


def test_bfs_gtx480_timeline_page_shows_launches_and_dram_utilisation_in_headless_chromium(
        bfs_gtx480, tmp_path):
    """Issue 72's acceptance: the BFS timeline page loads offline, plots, logs no console
    error, and the plot the browser holds has the launch boundaries, one DRAM-utilisation
    trace per channel with every sampled interval and the run's highest utilisation, the
    peak line at 100% and the queue traces."""
    d = bfs_gtx480
    r = _load_in_chromium(d, tmp_path)
    a = _body_attrs(r.stdout)
    assert "plotted" in a, "the plot's post script did not run:\n" + r.stdout[:500]
    assert a["errors"] == "" and _console_errors(r.stderr) == []
    assert int(a["plotted"]) >= 1
    assert int(a["visible-traces"]) == int(a["drawn-traces"]) > 0   # each shown trace is drawn
    assert int(a["launch-lines"]) == len(d["launches"]) + 1 == 10
    assert int(a["dram-util-traces"]) == d["dram_channels"]
    assert int(a["dram-util-points"]) == len(d["channel_samples"])
    from golden.report.timeline_render import dram_summary
    assert float(a["dram-util-max"]) == pytest.approx(dram_summary(d)["max_channel"])
    assert float(a["dram-util-max"]) > 0.3
    assert float(a["dram-peak"]) == 1.0
    assert int(a["dram-queue-traces"]) == d["dram_channels"]
    assert r.stdout.count("bfs_expand") >= len(d["launches"])
