"""Benchmark commands (``prism bench ...``).

Convention: each module ``prism_memory.bench.<name>`` defines ``add_arguments(parser)`` and
``run(args) -> int``; ``prism bench <name>`` dispatches to it. Results go to ``--out``
(default ``benchmarks/results``) as JSON + markdown.
"""
