"""The judge's worker process: what runs programs, on jobs taken from the queue (services.judge.queue).

`judge` (the judge jobs and the worker loops), `runs` (a compat run's job), `check_job` (a problem
checker's compile), `sessions` (the session manager), `lease` (the lease keeper), `warm` (the
process's warm engine), `admission` (the memory ledger) and `jupyter_driver.py` (the program a
/run_jupyter run executes in the sandbox). The API imports nothing of it."""
