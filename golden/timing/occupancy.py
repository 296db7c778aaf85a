"""Occupancy: how many thread blocks of a launch one SM holds at once, and what limits it.

:func:`tb_occupancy` is the static part of the TB dispatcher of
:class:`golden.timing.gpu.GPU`: ``GPU.run`` calls it (through :meth:`GPU.occupancy`) to
size one TB's resources, to lower an oversized register estimate (the
``__launch_bounds__`` clamp described in :mod:`golden.timing.gpu`) and to reject a TB no
SM can hold; ``simtlab list --occupancy`` calls the same function, so the listing and the
timing model agree by construction.

An SM holds a TB while five resources last (the dispatcher's ``fits`` check):

========================  ==================================================================
``TB slots``              ``max_tbs_per_sm`` resident TBs
``threads``               ``max_threads_per_sm`` // threads per TB
``warps``                 ``max_warps_per_sm`` // warps per TB (scheduler slots)
``registers``             ``registers_per_sm`` // (registers per thread x warps per TB x warp size)
``shared memory``         ``shared_mem_per_sm`` // shared bytes per TB (no limit when a TB uses none)
========================  ==================================================================

TBs per SM is the smallest of them; every resource that reaches that minimum is a
*limiter*. A wave is ``TBs per SM x num_sms`` TBs: a launch of ``n`` TBs runs
``n / (TBs per SM x num_sms)`` waves (2.0 = two full waves of the whole GPU).

Pure functions of their arguments: no configuration loading, no global state.
"""

from __future__ import annotations

from dataclasses import dataclass

from golden.errors import LaunchError

#: the resources that bound TBs per SM, in the order limiters are listed
RESOURCES = ("TB slots", "threads", "warps", "registers", "shared memory")


@dataclass(frozen=True)
class Occupancy:
    """One TB's resource needs on an SM and how many such TBs an SM holds.

    Attributes
    ----------
    threads_per_tb, warps_per_tb: the launch's block size in threads and warps.
    regs_per_thread: registers per thread the dispatcher allocates (after the clamp).
    regs_clamped_from: the estimate before the ``__launch_bounds__`` clamp, 0 if not clamped.
    regs_per_tb: ``regs_per_thread x warps_per_tb x warp_size`` (whole warps).
    shared_per_tb: shared memory bytes per TB.
    limits: ``((resource, TBs per SM it allows), ...)`` in :data:`RESOURCES` order;
        ``None`` for shared memory when a TB uses none.
    """

    threads_per_tb: int
    warps_per_tb: int
    regs_per_thread: int
    regs_clamped_from: int
    regs_per_tb: int
    shared_per_tb: int
    limits: tuple[tuple[str, int | None], ...]

    @property
    def fits(self) -> bool:
        """True when an empty SM holds one TB (otherwise the launch is an error)."""
        return self.tbs_per_sm >= 1

    @property
    def tbs_per_sm(self) -> int:
        """Thread blocks resident on one SM at full occupancy."""
        return min(n for _, n in self.limits if n is not None)

    @property
    def limiters(self) -> tuple[str, ...]:
        """Every resource whose limit equals :attr:`tbs_per_sm`."""
        t = self.tbs_per_sm
        return tuple(r for r, n in self.limits if n == t)

    @property
    def need(self) -> dict:
        """What one TB needs, as the launch error reports it."""
        return dict(threads=self.threads_per_tb, warps=self.warps_per_tb,
                    regs=self.regs_per_tb, shared=self.shared_per_tb)

    def tbs_per_wave(self, num_sms: int) -> int:
        """TBs resident on the whole GPU at once (one wave)."""
        return self.tbs_per_sm * num_sms

    def waves(self, num_tbs: int, num_sms: int) -> float:
        """Waves of a launch of ``num_tbs`` TBs on ``num_sms`` SMs (0 if nothing fits)."""
        per_wave = self.tbs_per_wave(num_sms)
        return num_tbs / per_wave if per_wave else 0.0

    def check(self, kernel: str, config_name: str, core) -> None:
        """Raise :class:`LaunchError` (the timing model's message) unless a TB fits an SM."""
        if not self.fits:
            raise LaunchError(
                f"kernel {kernel}: one thread block needs {self.need} but an SM of "
                f"{config_name} has threads {core.max_threads_per_sm}, warps "
                f"{core.max_warps_per_sm}, registers {core.registers_per_sm} "
                f"({self.regs_per_thread} per thread), shared memory {core.shared_mem_per_sm} bytes")


def tb_occupancy(core, threads_per_tb: int, warps_per_tb: int, regs_per_thread: int,
                 shared_per_tb: int, clamp: bool = True) -> Occupancy:
    """Occupancy of TBs of ``threads_per_tb`` threads (``warps_per_tb`` warps) on an SM of
    ``core`` (a :class:`golden.configs.schema.CoreConfig`).

    ``regs_per_thread`` is the estimate (or the caller's override). With ``clamp`` (the
    estimate came from the PTX, not from an override), an estimate above what one TB may
    use on the SM, ``registers_per_sm // (warps_per_tb x warp_size)``, is lowered to that
    (as if compiled with ``__launch_bounds__``); the original is kept in
    ``regs_clamped_from``.
    """
    fit = core.registers_per_sm // (warps_per_tb * core.warp_size)
    clamped = 0
    if clamp and regs_per_thread > fit >= 1:
        clamped, regs_per_thread = regs_per_thread, fit
    regs = regs_per_thread * warps_per_tb * core.warp_size
    limits = (
        ("TB slots", core.max_tbs_per_sm),
        ("threads", core.max_threads_per_sm // threads_per_tb),
        ("warps", core.max_warps_per_sm // warps_per_tb),
        ("registers", core.registers_per_sm // regs),
        ("shared memory", core.shared_mem_per_sm // shared_per_tb if shared_per_tb else None),
    )
    return Occupancy(threads_per_tb=threads_per_tb, warps_per_tb=warps_per_tb,
                     regs_per_thread=regs_per_thread, regs_clamped_from=clamped,
                     regs_per_tb=regs, shared_per_tb=shared_per_tb, limits=limits)
