"""The judge's queue: every Redis key and Lua script of the judge service, behind typed calls.

Shared by the API (which enqueues and waits) and the workers (which take jobs and record results):
`batches` (the judge jobs' keys, payload and recording; the Redis layout), `fair` (per-client queues
in weighted turns), `deadlines` (cancel keys and the stop rule), `waiting` (waits looked up together),
`presence` (which workers are alive), `reaper` (jobs of dead workers), `checks` (a problem checker's
compile), `runs` (a compat run's contract), `carry` (a run carried to its client's retry), `notify` (a
finished run's callback) and `session_bus` (the sessions' messages). Nothing here runs a program."""
