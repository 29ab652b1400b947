"""The judge's queue: every Redis key and Lua script of the judge service, behind typed calls.

Shared by the API (which admits, enqueues and waits) and the workers (which take jobs and record
results): `batches` (the judge jobs' keys and payload, `enqueue_batch`, `record_results`; the Redis
layout), `depth` (admission: the one script that counts units in, `admit`, `release`), `problems`
(a problem's definition and test files), `fair` (per-client queues in weighted turns), `deadlines`
(cancel keys and the stop rule), `waiting` (waits looked up together), `presence` (which workers are
alive), `reaper` (jobs of dead workers), `checks` (a problem checker's compile), `runs` and
`run_models` (a compat run's contract), `carry` (a run carried to its client's retry), `notify` (a
finished run's callback), `session_bus` (the sessions' messages) and `connection` (the client's types
and errors for the modules outside this folder). Nothing here runs a program."""
