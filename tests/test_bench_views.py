"""``make bench``'s overhead rows of the per-run views (issue 72): golden/bench.py
bench_views runs the same run with the per-PC profiler and the timeline on and off."""

from golden import bench


def test_views_overhead_rows_run_the_same_run_three_ways(shrink_small):
    shrink_small.tiny("MM")
    rows = bench.bench_views(("MM", ("darsie",)), size="small", repeats=1)
    assert [r["view"] for r in rows] == ["off", "profile", "timeline"]
    off = rows[0]
    assert off["vs_off"] == 1.0 and off["warp_instructions"] > 0 and off["cpu_seconds"] > 0
    for r in rows:
        # a view only reads counters: the same cycles, instructions and outputs
        assert r["same_cycles"] and r["cycles"] == off["cycles"]
        assert r["warp_instructions"] == off["warp_instructions"] and r["outputs_match"]
        assert r["vs_off"] == r["cpu_rate"] / off["cpu_rate"] > 0


def test_views_run_attaches_the_view_it_names(shrink_small, monkeypatch):
    shrink_small.tiny("MM")
    from golden.timing import pc_profile, timeline
    seen = []
    real_p, real_t = pc_profile.PCProfiler.begin, timeline.Timeline.attach
    monkeypatch.setattr(pc_profile.PCProfiler, "begin",
                        lambda self, *a: seen.append("profile") or real_p(self, *a))
    monkeypatch.setattr(timeline.Timeline, "attach",
                        lambda self, *a: seen.append("timeline") or real_t(self, *a))
    for view in ("off", "profile", "timeline"):
        seen.clear()
        bench._views_run("MM", (), "small", "pascal", view)
        assert set(seen) == ({view} if view != "off" else set())
