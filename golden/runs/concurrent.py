"""Concurrent kernel execution: several host programs drive kernels at once on SM
partitions of one GPU (streams), sharing its memory system and device memory.

A *host program* is a callable ``program(device) -> result`` that allocates, copies and
launches kernels through the host API, like a workload's ``launch`` function. Each runs
in its own thread with its own :class:`~golden.timing.timing_device.TimingDevice` view;
all views share one device memory (so allocations never overlap) and one
:class:`~golden.timing.gpu.GPU`, whose :meth:`~golden.timing.gpu.GPU.run_partitions`
simulates every partition's current launch in one cycle loop. A kernel launch blocks its
host program until the launch completes, as a synchronous CUDA launch on its own stream
would; the other partitions keep running meanwhile.

Determinism: exactly one thread runs at any time. The simulator thread hands control to
a host program and waits until that program launches its next kernel or returns, so the
order of allocations, launches and results is fixed by the simulation, not by the OS.

``repeat=True`` re-runs each host program while any other has not yet finished its first
run -- the heterogeneous-GPU chapter's method for kernel mixes ("each kernel loops until
the longer one completes a run", seed 002 §4.5). A run in progress then still finishes,
alone, unless ``stop_after_first_runs=True``: the session then ends in the cycle the last
program finishes its first run (the chapter's "stop execution when the longer kernel
finishes at least 1 run"), and the launches running at that cycle are cut, keeping what
they executed (:data:`golden.timing.gpu.STOP_SESSION`; ``StreamResult.cut_launches``).

Partitions may overlap: an SM in several partitions is shared. By default it holds one
kernel's TBs at a time, as GPGPU-Sim does without ``-gpgpu_concurrent_kernel_sm``; freed
shared SMs go first to the kernel that placed a TB last (:class:`golden.timing.gpu.SMSharing`).
With ``mixed_sms=True`` a shared SM holds TBs of several kernels at once, which share its
TB slots, threads, warp slots, registers, shared memory, pipelines, operand collector and
issue slots (GPGPU-Sim's ``-gpgpu_concurrent_kernel_sm``; :mod:`golden.timing.shared_sm`).

A partition may span SMs of several configurations (``Partition.also``): its launches
spread over all of them, e.g. one kernel on both sides of a heterogeneous GPU.

Simplifications: a partition runs one kernel at a time; a launch's statistics hold its own
core counters and its duration (from its start, waiting for shared SMs included), the
memory system's counters are the session's (kernels share the L2 and DRAM).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any, Callable

from golden.errors import LaunchError, SimtlabError
from golden.mechanisms.registry import make_mechanisms
from golden.timing.gpu import GPU, STOP_SESSION
from golden.timing.stats import TimingStats
from golden.timing.timing_device import TimingDevice

__all__ = ["Partition", "StreamResult", "ConcurrentResult", "run_concurrent", "split_sms"]


@dataclass(frozen=True)
class Partition:
    """The SMs one host program's kernels run on, with their configuration and the
    mechanisms attached to them (names from :mod:`golden.mechanisms.registry`, made
    afresh for this partition). ``config`` None = the GPU's own."""

    sms: tuple
    config: Any = None
    mechanisms: tuple = ()
    #: further SM groups of other configurations the same launches run on: Partitions
    #: whose own ``also`` is empty (e.g. the ILP side of a heterogeneous GPU)
    also: tuple = ()


@dataclass
class StreamResult:
    """What one host program did: its results (one per run), every launch's
    :class:`TimingStats` in order, and how many launches its first run made."""

    name: str
    results: list = field(default_factory=list)
    launches: list = field(default_factory=list)
    first_run_launches: int = 0
    #: launches cut when the session stopped (``stop_after_first_runs``): the last of
    #: ``launches``, with what they executed until then; their run has no result
    cut_launches: int = 0

    @property
    def cycles(self) -> int:
        """Cycles the partition was busy with this program's launches."""
        return sum(s.cycles for s in self.launches)

    @property
    def warp_instructions(self) -> int:
        return sum(s.instructions_executed for s in self.launches)

    @property
    def ipc(self) -> float:
        """Warp instructions per busy cycle of its partition."""
        return self.warp_instructions / self.cycles if self.cycles else 0.0


@dataclass
class ConcurrentResult:
    """A concurrent session: per-stream results and the session's statistics."""

    streams: list
    session: TimingStats


def split_sms(num_sms: int, *counts: int) -> list[tuple]:
    """Consecutive SM id ranges of the given sizes, e.g. ``split_sms(38, 20, 18)``."""
    if sum(counts) > num_sms or any(c < 1 for c in counts):
        raise LaunchError(f"cannot split {num_sms} SMs into {counts}")
    out, base = [], 0
    for c in counts:
        out.append(tuple(range(base, base + c)))
        base += c
    return out


class _Stream:
    """One host program's thread and its hand-over state."""

    def __init__(self, name: str, program: Callable, device):
        self.name = name
        self.program = program
        self.device = device
        self.out = StreamResult(name)
        self.to_host = threading.Semaphore(0)
        self.to_sim = threading.Semaphore(0)
        self.pending = None      # the launch the program waits on
        self.result = None       # its TimingStats, handed back
        self.finished = False
        self.first_done = False
        self.error: BaseException | None = None
        self.abort = False
        self.thread = None

    def submit(self, launch) -> TimingStats:
        """Called in the host thread by a kernel launch: hand the launch to the simulator
        and wait for its statistics."""
        self.pending = launch
        self.to_sim.release()
        self.to_host.acquire()
        if self.abort:
            raise SimtlabError(f"concurrent session aborted while {self.name} waited for a kernel")
        return self.result


class _StreamPort:
    """Stands in for a device's :class:`GPU` in a host thread: launches go to the session."""

    def __init__(self, stream: _Stream, gpu: GPU):
        self._stream = stream
        self._gpu = gpu

    @property
    def host_copies(self) -> list:
        return self._gpu.host_copies

    def occupancy(self, launch, config=None):
        return self._gpu.occupancy(launch, config)

    def run(self, launch, max_cycles: int | None = None) -> TimingStats:
        """Submit ``launch`` to the session. ``max_cycles`` does not apply to one launch
        here: the session's GPU limit (``GPU.max_cycles``) bounds the whole session; the
        launch's instruction watchdog still applies."""
        return self._stream.submit(launch)


def run_concurrent(config, programs, partitions, *, repeat: bool = False,
                   regs_per_thread: int | None = None,
                   mixed_sms: bool = False,
                   stop_after_first_runs: bool = False) -> ConcurrentResult:
    """Run ``programs`` (``[(name, program), ...]``) at once, program ``i`` on
    ``partitions[i]``; see the module docstring (``mixed_sms``: shared SMs hold TBs of
    several kernels at once; ``stop_after_first_runs``: end the session when every program
    has finished its first run, cutting the launches then running). Raises the first host program's error (with its name) or the
    simulator's (deadlock, launch errors)."""
    if len(programs) != len(partitions):
        raise LaunchError(f"run_concurrent: {len(programs)} programs for {len(partitions)} partitions")
    gpu = GPU(config, regs_per_thread=regs_per_thread)
    parts = []
    for p in partitions:
        cfg = p.config or config
        also = []
        for q in p.also:
            if q.also:
                raise LaunchError("run_concurrent: a Partition's 'also' groups cannot have their own")
            qc = q.config or config
            also.append((tuple(q.sms), qc, tuple(make_mechanisms(q.mechanisms, qc))))
        parts.append((tuple(p.sms), cfg, tuple(make_mechanisms(p.mechanisms, cfg)), tuple(also)))
    shared_memory = None
    streams: list[_Stream] = []
    for name, program in programs:
        dev = TimingDevice(config, echo_printf=False)
        if shared_memory is None:
            shared_memory = dev.memory
        dev.memory = shared_memory           # one device memory: allocations never overlap
        st = _Stream(name, program, dev)
        dev.gpu = _StreamPort(st, gpu)
        streams.append(st)

    def body(st: _Stream) -> None:
        try:
            while True:
                before = len(st.device.launches)
                st.out.results.append(st.program(st.device))
                if not st.first_done:
                    st.first_done = True
                    st.out.first_run_launches = len(st.device.launches) - before
                if not (repeat and any(not o.first_done for o in streams if o is not st)):
                    break
        except BaseException as e:  # handed to the simulator thread, which re-raises it
            st.error = e
        finally:
            st.finished = True
            st.pending = None
            st.to_sim.release()

    def hand_over(st: _Stream):
        """Let ``st``'s program run until it launches a kernel or returns."""
        st.pending = None
        if st.thread is None:
            st.thread = threading.Thread(target=body, args=(st,), name=f"host:{st.name}",
                                         daemon=True)
            st.thread.start()
        else:
            st.to_host.release()
        st.to_sim.acquire()
        if st.error is not None:
            raise SimtlabError(f"host program {st.name}: {type(st.error).__name__}: "
                               f"{st.error}") from st.error
        return st.pending

    def next_launch(i, stats, now):
        st = streams[i]
        st.out.launches.append(stats)
        st.result = stats
        nxt = hand_over(st)
        if stop_after_first_runs and all(o.first_done for o in streams):
            return STOP_SESSION
        return nxt

    def cut_launch(i, stats, now):
        st = streams[i]
        st.out.launches.append(stats)
        st.out.cut_launches += 1

    try:
        first = [hand_over(st) for st in streams]
        session = gpu.run_partitions(parts, first, next_launch, mixed_sms=mixed_sms,
                                     cut_launch=cut_launch)
    finally:
        for st in streams:
            if not st.finished and st.thread is not None:
                st.abort = True
                st.to_host.release()
        for st in streams:
            if st.thread is not None:
                st.thread.join(timeout=60)
    return ConcurrentResult([st.out for st in streams], session)
