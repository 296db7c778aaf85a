"""One module per workload of the suite.

Every public module here (name not starting with ``_``) defines ``WORKLOAD``, a
:class:`golden.workloads.base.Workload`. :func:`golden.workloads.registry.all_workloads`
discovers them; nothing needs to be listed by hand.
"""
