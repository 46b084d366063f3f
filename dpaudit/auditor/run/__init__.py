"""The machinery of an audit's run: where the samples come from and where they are computed.

:mod:`.sampling` (seeded, chunked draws of a mechanism), :mod:`.executors` (in process, threads, a
process pool, Dask), :mod:`.shipping` (a mechanism sent to worker processes), :mod:`.checkpoint`
(finished work on disk, so an interrupted audit resumes), :mod:`.progress` (the progress bar),
:mod:`.observed` (side channels recorded beside each output).
None of it decides anything: a result does not depend on where its chunks ran.
"""
