"""Live matches: everything about a match while it is played lives here.

* ``store``  - the authoritative match document in Redis, changed only by compare-and-set.
* ``views``  - the view document a viewer receives, computed by the engine's filter.
* ``hub``    - this process's websockets and the Redis pub/sub fan-out to them.
* ``clocks`` - decision deadlines in a Redis sorted set, fired once across processes.
* ``outbox`` - the Redis stream that carries history to SQL, drained by a worker.
"""
