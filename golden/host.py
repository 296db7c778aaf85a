"""Host API shaped like CuPy / PyCUDA for running PTX kernels on the golden model.

Example::

    from golden.host import Device
    dev = Device()
    a = dev.to_device(np.arange(1024, dtype=np.float32))
    out = dev.empty(1024, np.float32)
    mod = dev.load_module("golden/workloads/kernels/mm.ptx")     # or RawModule(path=..., device=dev)
    stats = mod.get_function("scale")((4,), (256,), (a, out, np.float32(2.0), np.int32(1024)))
    print(out.get()[:4], stats.warp_instructions)

A launch returns :class:`golden.simt.stats.LaunchStats`; every launch's stats are also
appended to ``dev.launches``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from golden.errors import LaunchError, SimtlabError
from golden.ptx import load_ptx, parse_ptx
from golden.ptx.ir import Function, Module, TYPE_SIZE
from golden.simt.engine import DEFAULT_MAX_INSTRUCTIONS, FunctionalLaunch, LaunchGeometry
from golden.simt.memory import GlobalMemory
from golden.simt.program import Program, link
from golden.simt.stats import LaunchStats

#: CUDA's per-launch limits (compute capability 3.0 and later)
MAX_BLOCK_DIM = (1024, 1024, 64)
MAX_GRID_DIM = ((1 << 31) - 1, 65535, 65535)
MAX_SHARED_PER_TB = 48 * 1024  # static + dynamic shared memory of one thread block

_INT_TYPES = {"b8", "b16", "b32", "b64", "u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64"}


class DeviceArray:
    """A typed view of a global-memory allocation (``ptr`` is its device address)."""

    def __init__(self, device: "Device", ptr: int, shape, dtype):
        self.device = device
        self.ptr = int(ptr)
        self.shape = tuple(int(s) for s in (shape if isinstance(shape, (tuple, list)) else (shape,)))
        self.dtype = np.dtype(dtype)

    @property
    def size(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))

    @property
    def nbytes(self) -> int:
        return self.size * self.dtype.itemsize

    def get(self) -> np.ndarray:
        raw = self.device.memory.read(self.ptr, self.nbytes)
        return raw.view(self.dtype).reshape(self.shape).copy()

    def set(self, host) -> None:
        """Copy a host array into this allocation. An array of the same dtype is converted
        as numpy would; an array of another dtype is copied byte for byte and must have
        exactly ``nbytes`` bytes (e.g. float32 data into a ``.b8`` ``__constant__`` table)."""
        arr = np.ascontiguousarray(host)
        if arr.dtype != self.dtype and arr.nbytes != self.nbytes:
            arr = np.ascontiguousarray(host, dtype=self.dtype)
        if arr.nbytes != self.nbytes:
            raise ValueError(f"set(): host array has {arr.nbytes} bytes, device array {self.nbytes}")
        self.device.memory.write(self.ptr, arr)
        self.device.host_copied(self.ptr, arr.nbytes)

    def __repr__(self) -> str:
        return f"DeviceArray(ptr=0x{self.ptr:x}, shape={self.shape}, dtype={self.dtype})"


class Kernel:
    """A kernel of a loaded module; call it with ``(grid, block, args)``."""

    def __init__(self, module: "RawModule", func: Function):
        self.module = module
        self.func = func
        self._program: Program | None = None

    @property
    def name(self) -> str:
        return self.func.name

    @property
    def program(self) -> Program:
        if self._program is None:
            self._program = link(self.module.ir, self.func.name)
        return self._program

    def pack_args(self, args) -> bytes:
        """Pack launch arguments into the kernel's parameter buffer, checking count and types."""
        params = self.func.params
        args = tuple(args)
        if len(args) != len(params):
            sig = ", ".join(f".{p.type} {p.name}" for p in params)
            raise LaunchError(f"kernel {self.name} takes {len(params)} argument(s) ({sig}), "
                              f"got {len(args)}")
        buf = bytearray(self.func.param_size)
        for i, (p, a) in enumerate(zip(params, args)):
            raw = self._arg_bytes(i, p, a)
            buf[p.offset: p.offset + len(raw)] = raw
        return bytes(buf)

    def _arg_bytes(self, i, p, a) -> bytes:
        where = f"kernel {self.name} argument {i} ('{p.name}', .{p.type}, {p.size} bytes)"
        if isinstance(a, DeviceArray):
            if a.device.memory is not self.module.device.memory:
                raise LaunchError(f"{where}: the array was allocated on another Device; "
                                  f"copy it to this kernel's device first")
            if p.size != 8:
                raise LaunchError(f"{where}: a device array (64-bit pointer) does not fit")
            return np.uint64(a.ptr).tobytes()
        if isinstance(a, (bytes, bytearray)):
            if len(a) != p.size:
                raise LaunchError(f"{where}: got {len(a)} raw bytes")
            return bytes(a)
        if isinstance(a, np.ndarray) and a.ndim > 0:
            if a.nbytes != p.size:
                raise LaunchError(f"{where}: array argument has {a.nbytes} bytes")
            return a.tobytes()
        if isinstance(a, np.generic):
            if a.dtype.itemsize != p.size:
                raise LaunchError(f"{where}: got {a.dtype} ({a.dtype.itemsize} bytes)")
            if p.type.startswith("f") and a.dtype.kind != "f":
                raise LaunchError(f"{where}: expected a float, got {a.dtype}")
            if p.type in _INT_TYPES and a.dtype.kind == "f" and p.size in (4, 8) and p.type[0] != "b":
                raise LaunchError(f"{where}: expected an integer, got {a.dtype}")
            return a.tobytes()
        if isinstance(a, bool) or not isinstance(a, (int, float)):
            raise LaunchError(f"{where}: unsupported argument type {type(a).__name__}; "
                              f"pass a DeviceArray or a numpy scalar such as np.int32(...)")
        if isinstance(a, float) or p.type.startswith("f"):
            if not p.type.startswith("f"):
                raise LaunchError(f"{where}: expected an integer, got float {a!r}")
            return np.array(a, dtype=np.float32 if p.size == 4 else np.float64).tobytes()
        bits = 8 * p.size
        # accept any value representable as signed or unsigned of the parameter's width
        if not (-(1 << (bits - 1)) <= a < (1 << bits)):
            raise LaunchError(f"{where}: integer {a} does not fit in {bits} bits")
        return (a & ((1 << bits) - 1)).to_bytes(p.size, "little")

    def launch_geometry(self, grid, block, shared_mem) -> tuple[LaunchGeometry, int]:
        """Check a launch's grid, block and dynamic shared memory against CUDA's limits
        (and the device's) in every mode; return the geometry and the dynamic shared bytes."""
        dev = self.module.device
        geo = LaunchGeometry(_dim3(grid, "grid", self.name, 0), _dim3(block, "block", self.name, 1))
        for what, dims, limits in (("blockDim", geo.block, MAX_BLOCK_DIM),
                                   ("gridDim", geo.grid, MAX_GRID_DIM)):
            for axis, n, limit in zip("xyz", dims, limits):
                if n > limit:
                    raise LaunchError(f"kernel {self.name}: {what}.{axis} = {n} exceeds CUDA's "
                                      f"limit of {limit}")
        if geo.threads_per_tb > dev.max_threads_per_tb:
            raise LaunchError(f"kernel {self.name}: block {geo.block} has {geo.threads_per_tb} threads; "
                              f"the limit is {dev.max_threads_per_tb}")
        if isinstance(shared_mem, bool) or not isinstance(shared_mem, (int, np.integer)):
            raise LaunchError(f"kernel {self.name}: shared_mem must be an int (bytes of dynamic "
                              f"shared memory), got {shared_mem!r} ({type(shared_mem).__name__})")
        dyn = int(shared_mem)
        if dyn < 0:
            raise LaunchError(f"kernel {self.name}: shared_mem = {dyn} bytes of dynamic shared "
                              f"memory; it must be >= 0")
        static = self.program.shared_static
        limit = dev.max_shared_per_tb
        if static + dyn > limit:
            raise LaunchError(f"kernel {self.name}: a thread block needs {static + dyn} bytes of "
                              f"shared memory ({static} static + {dyn} dynamic); the limit per "
                              f"block is {limit} bytes ({dev.shared_limit_source})")
        return geo, dyn

    def watchdog_limits(self, max_instructions, max_cycles) -> tuple[int, int | None]:
        """The launch's watchdogs: ``max_instructions`` (warp instructions of the launch) and
        ``max_cycles`` (timing mode), each the argument if given, else the device's default.
        A kernel that reaches one stops with a DeadlockError naming the loops its warps run."""
        dev = self.module.device
        out = []
        for name, v, default in (("max_instructions", max_instructions, dev.max_instructions),
                                 ("max_cycles", max_cycles, getattr(dev, "max_cycles", None))):
            if v is None:
                out.append(default)
                continue
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
                raise LaunchError(f"kernel {self.name}: {name} must be a positive integer, "
                                  f"got {v!r}")
            out.append(int(v))
        if max_cycles is not None and getattr(dev, "mode", "functional") != "timing":
            raise LaunchError(f"kernel {self.name}: max_cycles applies to timing-mode launches "
                              f"(a TimingDevice); a functional launch is bounded by "
                              f"max_instructions")
        return out[0], out[1]

    def __call__(self, grid, block, args=(), shared_mem: int = 0, observers=(),
                 max_instructions: int | None = None, max_cycles: int | None = None) -> LaunchStats:
        """Launch on ``grid`` x ``block`` with ``args``; ``max_instructions`` overrides the
        device's watchdog (``Device.max_instructions`` warp instructions per launch)."""
        max_instructions, _ = self.watchdog_limits(max_instructions, max_cycles)
        geo, dyn = self.launch_geometry(grid, block, shared_mem)
        params = self.pack_args(args)
        launch = FunctionalLaunch(self.module.device, self.program, geo, params,
                                  dyn_shared=dyn, observers=observers,
                                  max_wave_threads=self.module.device.max_wave_threads,
                                  watchdog=max_instructions)
        for o in observers:
            if hasattr(o, "on_launch_begin"):
                o.on_launch_begin(launch)
        stats = launch.run()
        for o in observers:
            if hasattr(o, "on_launch_end"):
                o.on_launch_end(stats)
        self.module.device.launches.append(stats)
        return stats


def _dim3(v, what: str, kernel: str | None = None, index: int | None = None) -> tuple[int, int, int]:
    def bad():
        where = f"kernel {kernel}: " if kernel else ""
        pos = f" (launch argument {index})" if index is not None else ""
        return LaunchError(f"{where}{what}{pos} must be a positive int or a tuple of 1-3 positive "
                           f"ints, got {v!r} ({type(v).__name__})")

    if isinstance(v, (int, np.integer)):
        t = (v,)
    elif isinstance(v, (tuple, list)):
        t = tuple(v)
    else:
        raise bad()
    if not 1 <= len(t) <= 3 or any(isinstance(x, bool) or not isinstance(x, (int, np.integer))
                                   or x < 1 for x in t):
        raise bad()
    return tuple(int(x) for x in t) + (1,) * (3 - len(t))


class RawModule:
    """A loaded PTX module (``RawModule(path=...)`` or ``RawModule(code=...)``).

    ``kernel_class`` is the :class:`Kernel` subclass :meth:`get_function` returns; a device
    with its own launch behaviour (timing mode, launch probes) subclasses the module only
    to set it."""

    kernel_class: type = None  # Kernel (set below, after Kernel's definition is in scope)

    def __init__(self, path: str | Path | None = None, code: str | None = None,
                 device: "Device | None" = None):
        if (path is None) == (code is None):
            raise SimtlabError("RawModule needs exactly one of path= or code=")
        self.device = device if device is not None else Device()
        self.ir: Module = load_ptx(path) if path is not None else parse_ptx(code)
        self._kernels: dict[str, Kernel] = {}
        self.symbols: dict[str, int] = {}
        for v in self.ir.variables.values():
            if v.space in ("global", "const"):
                ptr = self.device.memory.alloc(max(v.size, 1), label=f"module variable {v.name}",
                                               align=max(v.align, 16))
                if v.init is not None:
                    self.device.memory.write(ptr, v.init)
                self.symbols[v.name] = ptr
        self._apply_relocs()
        self.device._modules[id(self.ir)] = self

    def _apply_relocs(self) -> None:
        """Write symbol addresses into initialisers such as ``__device__ int *p[] = {&a}``."""
        for v in self.ir.variables.values():
            for r in getattr(v, "relocs", ()) or ():
                if v.name not in self.symbols:
                    continue
                if r.symbol not in self.symbols:
                    raise SimtlabError(f"{self.ir.file}: initialiser of '{v.name}' takes the address of "
                                       f"'{r.symbol}', which is not a global/const variable (function "
                                       f"pointers are not supported)")
                addr = (self.symbols[r.symbol] + r.addend) & ((1 << (8 * r.size)) - 1)
                self.device.memory.write(self.symbols[v.name] + r.offset, addr.to_bytes(r.size, "little"))

    def get_function(self, name: str) -> Kernel:
        f = self.ir.functions.get(name)
        if f is None or not f.is_entry:
            known = ", ".join(sorted(self.ir.kernels)) or "none"
            raise LaunchError(f"no kernel named '{name}' in {self.ir.file}; kernels: {known}")
        if name not in self._kernels:
            self._kernels[name] = (self.kernel_class or Kernel)(self, f)
        return self._kernels[name]

    def get_global(self, name: str, dtype=None) -> DeviceArray:
        """The module-scope variable ``name`` as a device array (of ``dtype`` if given,
        else of the variable's PTX type; nvcc declares initialised tables as ``.b8`` arrays)."""
        v = self.ir.variables.get(name)
        if v is None or name not in self.symbols:
            known = ", ".join(sorted(self.symbols)) or "none"
            raise LaunchError(f"no module-scope .global/.const variable '{name}'; known: {known}")
        dt = dtype if dtype is not None else {"f32": np.float32, "f64": np.float64}.get(v.type, None)
        if dt is None:
            dt = np.dtype(f"u{TYPE_SIZE.get(v.type, 1)}") if v.type != "pred" else np.uint8
        n = max(v.size // np.dtype(dt).itemsize, 1)
        return DeviceArray(self.device, self.symbols[name], (n,), dt)


class Device:
    """A simulated GPU in functional mode: global memory, loaded modules, launch log.

    ``num_sms`` and ``max_warps_per_sm`` only feed ``%smid`` / ``%nwarpid``;
    ``max_wave_threads`` bounds how many threads run as one numpy batch;
    ``max_instructions`` is the watchdog of every launch (warp instructions; default
    :data:`golden.simt.engine.DEFAULT_MAX_INSTRUCTIONS`, a launch may override it).
    """

    mode = "functional"

    def __init__(self, num_sms: int = 1, max_warps_per_sm: int = 64, max_threads_per_tb: int = 1024,
                 max_wave_threads: int = 1 << 16, echo_printf: bool = True,
                 max_instructions: int = DEFAULT_MAX_INSTRUCTIONS):
        self.memory = GlobalMemory()
        self.num_sms = num_sms
        self.max_warps_per_sm = max_warps_per_sm
        self.max_threads_per_tb = max_threads_per_tb
        self.max_wave_threads = max_wave_threads
        if isinstance(max_instructions, bool) or not isinstance(max_instructions, (int, np.integer)) \
                or max_instructions < 1:
            raise SimtlabError(f"max_instructions must be a positive integer, got {max_instructions!r}")
        self.max_instructions = int(max_instructions)
        self.max_shared_per_tb = MAX_SHARED_PER_TB
        self.shared_limit_source = "CUDA's 48 KB per block"
        self.launches: list[LaunchStats] = []
        self.printf_output: list[str] = []  # every device printf, in warp/lane order
        self.echo_printf = echo_printf
        self._modules: dict[int, RawModule] = {}

    def host_copied(self, ptr: int, nbytes: int) -> None:
        """A host-to-device copy of ``nbytes`` bytes landed at ``ptr`` (a hook: the timing
        device uses it to warm its L2; nothing to do in functional mode)."""

    def load_module(self, path: str | Path | None = None, code: str | None = None) -> RawModule:
        return RawModule(path=path, code=code, device=self)

    def module_symbol(self, module: Module, name: str) -> int | None:
        m = self._modules.get(id(module))
        return None if m is None else m.symbols.get(name)

    def empty(self, shape, dtype=np.float32) -> DeviceArray:
        arr = DeviceArray(self, 0, shape, dtype)
        arr.ptr = self.memory.alloc(arr.nbytes, label=f"array {arr.shape} {arr.dtype}")
        return arr

    def zeros(self, shape, dtype=np.float32) -> DeviceArray:
        return self.empty(shape, dtype)  # fresh allocations are zero-filled

    def to_device(self, host) -> DeviceArray:
        a = np.ascontiguousarray(host)
        d = self.empty(a.shape, a.dtype)
        self.memory.write(d.ptr, a)
        self.host_copied(d.ptr, a.nbytes)
        return d

    def from_device(self, arr: DeviceArray) -> np.ndarray:
        return arr.get()
