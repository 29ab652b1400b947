"""The judge as a library: the sandbox, the engine, the runners and languages, verdicts, checkers,
testlib, feedback and the functional and assert drivers. It imports neither FastAPI, RQ nor Redis;
the judge service around it (services/judge: the API, the queue, the worker, compat, sessions, the
client and the CLI) does."""
