# Cython declarations for sm.py (compiled timing core, golden/native): extension types
# with typed fields; the .py stays the one source and runs unchanged as plain Python.
cimport cython
from golden.timing.fetch cimport IBuffer
from golden.timing.scoreboard cimport Scoreboard
from golden.timing.scheduler cimport IssueScheduler
from golden.timing.pipelines cimport PipelineClass
from golden.timing.operand_collector cimport OperandCollector

@cython.locals(fsb=Scoreboard)
cdef int _blocked(object sb, object d) except? -1

cdef class DecodedInst:
    cdef readonly object opcode
    cdef readonly int pipe
    cdef readonly tuple srcs
    cdef readonly tuple dsts
    cdef readonly tuple hazard
    cdef readonly bint is_mem
    cdef readonly bint is_control
    cdef readonly int vec
    cdef readonly object guard
    cdef readonly bint guard_negated
    cdef readonly object timing

cdef class WarpSlot:
    cdef public object tb
    cdef public object wave
    cdef unsigned char[::1] at_bar
    cdef public object sched
    cdef public IBuffer ibuf
    cdef public object sb
    cdef public object dyn
    cdef public long widx
    cdef public long slot
    cdef public long gid
    cdef public long fetch_pc
    cdef public long age
    cdef public bint done
    cdef public bint hold
    cdef public bint hold_issue
    cdef public bint hold_fetch
    cdef public bint mem_wait

cdef class SM:
    cdef public object id
    cdef public object cfg
    cdef public object launch
    cdef public object decoded
    cdef public object memory
    cdef public object stats
    cdef public object mechanisms
    cdef public long warp_size
    cdef public object icache
    cdef public OperandCollector oc
    cdef public long entry_offset
    cdef public long dispatch_extra
    cdef public long wb_delay
    cdef public bint bypass
    cdef public object control_latency
    cdef public object predictors
    cdef public object reclaimers
    cdef public object formers
    cdef public object warp_observers
    cdef public object pipes
    cdef public object schedulers
    cdef public object sched_units
    cdef public long issue_width
    cdef public bint dual_distinct
    cdef public long fetch_width
    cdef public long fetch_insts
    cdef public bint fetch_empty
    cdef public bint perfect_icache
    cdef public long ibuf_entries
    cdef public object tracker
    cdef public long n_slots
    cdef public object free_slots
    cdef public bint slot_interleave
    cdef public object warps
    cdef public object tbs
    cdef public long _fetch_ptr
    cdef public object _wb
    cdef public object _memq
    cdef public long _seq
    cdef public long _age
    cdef public object retired
    cdef public bint freed
    cdef public object occupancy
    cdef public object partial_tb
    cdef public long used_threads
    cdef public long used_regs
    cdef public long used_shared
    cdef public long used_warps
    cdef public long n_prog
    cdef public long local_threads
    cdef public object now
    cdef public bint quiescent
    cdef public object sleep_since
    cdef public object wake_at
    cdef public bint _fetch_refused
    cdef public object pc_profile
    cdef dict __dict__

    @cython.locals(d=DecodedInst, w=WarpSlot, sched=IssueScheduler, eo=long, head_ready=long, spc=long, has_inst=bint, at_bar=bint, blk=int, n=int, used=int, ib=IBuffer, h=long, pc_=PipelineClass)
    cpdef int _issue(self, IssueScheduler sched, long now)
    @cython.locals(w=WarpSlot, ib=IBuffer, ready=bint)
    cpdef long _waiting_pc(self, IssueScheduler sched, long now, bint held)
    @cython.locals(sched=IssueScheduler, progress=bint, reason=int)
    cpdef bint tick(self, long now)
    @cython.locals(wake=long, eo=long, p=PipelineClass, f=long)
    cpdef long _wake_cycle(self, IssueScheduler sched, long now)
    @cython.locals(w=WarpSlot, ib=IBuffer, n=int, start=int, fetched=int, k=int, room=int, got=int, skipped=bint, refused=bint, pc=long)
    cpdef bint _fetch(self, long now)
    @cython.locals(active=int, pipe_id=int, latency=long, ready=long, done=long, release=long, pc_=PipelineClass)
    cpdef _execute(self, WarpSlot w, long pc, DecodedInst d, long now)
