"""prism-memory's benchmarks: the modules behind ``prism bench <name>``.

Design: a distribution of its own (``prism-memory-bench``, from ``benchmarks/`` in the
repository), so the core wheel ships no benchmark code; it uses only ``prism_memory``'s public
and internal modules, never the other way round. Convention: each module
``prism_bench.<name>`` defines ``add_arguments(parser)`` and ``run(args) -> int``; ``prism bench
<name>`` discovers and dispatches to it. Results go to ``--out`` (default
``benchmarks/results``) as JSON + markdown.

Example (from a clone; ``make install`` does this)::

    pip install -e ./benchmarks
    prism bench --help
"""
