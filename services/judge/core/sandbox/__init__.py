"""The judge's sandbox: where untrusted programs run.

Theory of operation
-------------------
Three kinds of process, two pipes. The *engine* (host, root) owns a pool of *slots*. A slot is one
*keeper* process started through `unshare --pid --fork --mount --net --ipc --uts`: it is PID 1 of a
fresh PID namespace, has its own mount, network (loopback only), IPC and UTS namespaces, and
chroots into a private tmpfs root holding read-only binds of /usr (and the Python prefix), four
device nodes, a fresh /proc mounted with hidepid=2, a size-capped tmpfs /tmp, and three root-only
host directories: /data (test inputs and outputs by content hash), /io (this slot's stdout and
stderr files) and /bincache (compiled binaries). The keeper imports the modules solutions use and then
puts itself under the seccomp filter, and waits on its request pipe: it is the warm interpreter
(zygote) every Python test is forked from.

Per run the engine resets the slot's cgroup counters (v2, or memory+pids+cpuacct on v1) and asks
the keeper to fork. The *child*, still root, writes "0" to the cgroup's procs files (kept open
across the chroot), reads the run's request from a memory file the engine wrote, copies in any files, opens stdin from /data and stdout/stderr onto /io files,
closes every other descriptor, sets rlimits (CPU, FSIZE = output limit, NOFILE, NPROC, CORE 0,
STACK), drops to the slot's unprivileged uid (setgroups, setresgid, setresuid; no_new_privs is
already set, inherited from the keeper, which set it with the seccomp filter) and then
compiles-and-execs the Python program, or execve()s a compiled binary. The engine polls
the cgroup's CPU time and the wall clock and kills the cgroup when either passes its limit; the
keeper waits for the child, then kill(-1)s and reaps the whole namespace before it replies.

A submission with several tests gets a *zygote* (Slot.open_zygote, keeper.handle_zygote): the
keeper forks a copy of itself that reads the submission's request once from the memory file and
compiles a Python program once (sources up to 64 KB; larger ones, and any that fail to compile,
compile in each test's child as above, inside its limits; the zygote is outside the slot's cgroup,
like the keeper, so that compile is bounded by the source's size and counts in no test), then serves the engine's requests in
the keeper's place until the engine ends it, while the keeper waits for it. Each test is
forked from the zygote exactly as a run is forked from the keeper: the engine resets the cgroup's
counters, the child joins the cgroup, reads its own request (its input's path) from the memory file,
opens its files, sets its limits and drops to the uid. What every test would set alike after its
fork is set once in the zygote and inherited (keeper.zygote_defaults: three signals' dispositions,
the OOM score, the program's Python stdio objects): every page a fork's Python code writes is a
page copied, the bulk of a trivial test's cost. The tests use two pairs of output files in turn.
Once a test's processes are reaped the zygote removes its IPC objects and working directory (so
nothing the test left counts in the next test's memory) and answers; while the engine checks the
output it forks the next test's child ahead (keeper.prefork_spare), which sets its signals, session
and limits and empties its pair's output files (the pair the engine is not reading), then waits on a
pipe and does the rest, cgroup included, only when its test is asked for.
Checker and compile runs while a zygote serves go through it as ordinary runs. When the zygote
ends it exits and the keeper reaps whatever is left, cleans IPC and wipes /tmp/run.

With isolation "submission" (docs/spec.md 4.8) a Python submission's tests are served by one
process, its *shared runner* (Slot.run_shared, keeper.run_shared): a test
forked from the zygote that, instead of running the program, keeps an end of a socketpair the keeper
inherited (every other child closes it), makes itself non-dumpable and waits on it: a snapshot of
the submission (compiled, in the cgroup, at the test's uid, under the filter) taken before its
first test. Per test the engine resets the cgroup's counters and sends the test's generation and
sequence number with three descriptors it opened on the host (input, stdout, stderr: the runner
never learns a path); the runner forks, the child puts them on 0-2, closes everything else, takes
one test's CPU rlimit and runs the program in a fresh __main__, and the runner answers with the
child's exit status (or signal) and whether the working directory and the IPC namespace are as they
were. The program never runs in the runner, so nothing it keeps in memory reaches the next test.
The engine takes CPU time, peak memory and OOM kills from the cgroup and checks that the runner is
its only task; a runner that is not, that died, that was stopped at a limit, or that said it was
left unclean is gone before the next test, which starts a new one. Messages from the runner are
read as data: a report for another test is dropped, and each runner drops what was sent to an
earlier generation. Results stand as a forked test's; an OOM kill, a runner that died by itself
and a time near the limit run again in a forked test (engine._run_test).

An interactive problem's test (docs/spec.md 2.8) is two runs at once in two slots: the program in
the engine's slot, the interactor in that slot's *partner* (engine._partner), a slot like any other,
with its own keeper, PID, mount, network, IPC and UTS namespaces, cgroup and leased uid pair, started
the first time its slot judges an interactive problem and owned by that slot (never taken from the
pool, so no two judges can each hold one half and wait for the other). The engine makes two pipes
and hands each keeper its two ends over the keeper's socket (SCM_RIGHTS, Slot._send_pipes,
keeper.receive_pipes), keeping no copy; the forked child puts them on its stdin and stdout in place
of its files. Each slot watches its own run's limits, so the program's CPU time is its own cgroup's
alone, and each side reads its end of file once the other side's processes are gone. Why two slots
and not a second process in one: in one slot the two would share a PID namespace (the interactor's
uid differs, but /proc, a common cgroup's accounting and OOM kills, and /tmp would be one), so the
program's CPU time and memory could not be told from the interactor's and a program could see its
peer; in two slots the pipes are the only thing the two have in common: no file (each its own
private root and /tmp), no process it can name, no IPC namespace, no network, no uid.

Peak memory is per run: the cgroup's peak is reset (v1 max_usage_in_bytes, v2 memory.peak) to its
current usage, so anything still charged to the slot at that moment would count in the next run.
The run's own output files are charged page cache; they are emptied before the reset (and the
engine removes a checker's copy of the answer once the checker has run), so a test that wrote
60 MB does not show in the next test's peak.

Limits: CPU time from the cgroup's accounting (time_limit_ms, with RLIMIT_CPU as a second line);
wall time a stated multiple of it (wall_time_multiplier * time_limit_ms + wall_time_extra_ms);
memory from the cgroup's peak and MLE from its own OOM-kill counter (no RLIMIT_AS, swap off);
output capped by RLIMIT_FSIZE on files (never a pipe, so megabyte I/O cannot deadlock); processes
by pids.max (and RLIMIT_NPROC).

Time is the program's, not the host's (docs/spec.md 4.1): TLE is CPU time. At the wall limit the
watchdog reads, before the kill, the kernel's schedstat of every thread in the cgroup (time run,
time runnable and waiting: run_delay, CPU quota throttling included): a run that wanted a CPU for
half its wall time and waited a quarter of it was starved (the slot reports it, the engine runs it
again and, starved twice, answers a judge error), otherwise it was idle there (TLE). A program cannot
fake starvation: waiting needs other work on its CPU, and its own threads' work is its own CPU time;
lowering its own priority only matters beside other work, and then it is starved indeed. The slots
sit in one cgroup whose CPU weight is over the host's other work (cgroups.set_cpu_weight), and an
engine refuses more slots than the CPUs it may use, so on a sound host nothing is starved. Threads
that exited before the wall limit leave their waiting out of the sum (their CPU time stays in the
cgroup's counter): a program of many short-lived processes reads as more idle than it was.

Why no test can reach the warm interpreter or a later test
-----------------------------------------------------------
- Signals: the keeper is root; a program runs as another uid, and kill(2) needs a matching uid.
  Other slots live in other PID namespaces, which a program cannot even name. Checkers run as a
  second uid of the slot, so a program cannot signal a checker either.
- ptrace: needs the same uid (and a dumpable target); the keeper is root and non-dumpable to
  other uids, and no_new_privs forbids gaining privileges through setuid binaries.
- Shared files: the only writable place is /tmp/run, a fresh 0700 directory per run, wiped with
  its tmpfs contents after the run; everything else is read-only or root-only; stdout/stderr files
  are opened by root before privileges are dropped. The wipe is iterative and goes by directory
  descriptor (one open at a time, up through ".."), so a tree of any depth is removed: a recursive
  removal would fail on a few thousand nested directories and turn the run's own verdict into a
  judge error (a wrong answer masked as a sample to drop). SysV IPC objects are removed after every run
  (the slot has its own IPC namespace); there is no /dev/shm.
- Leftover processes: as PID 1 of the namespace the keeper's kill(-1, SIGKILL) reaches every
  other process in it, and every orphan (a double-forked daemon included) is re-parented to the
  keeper, so "no children left" means "no process left". A zygote is a child subreaper and root in
  the namespace: its kill(-1, SIGKILL) reaches every process but itself and the keeper, and the
  orphans of its tests come back to it, so the same holds after each test of a session; the
  keeper does it once more when the zygote exits. The engine then checks the cgroup is empty and
  kills whatever it lists. The children no longer ask for a parent-death signal: when the keeper
  dies, the kernel kills every process of its PID namespace.
- The interpreter's state: each test is a fork, a copy-on-write copy; nothing flows back, to the
  keeper or to a zygote. A zygote runs as root and is hidden by hidepid=2, so a test can neither
  signal, trace nor read it, and cannot change what the next test is forked from. What the tests of
  one submission share is the zygote's state, which no test can change: the submission's own code
  (compiled once, so its compile time counts in no test's CPU time) and limits. Nothing a test does
  (files, IPC objects, processes, memory) reaches the next test of the same submission.
- The interpreter's memory: a fork inherits the keeper's whole heap, freed memory included, and a
  program can read its own mappings. So the keeper never holds submission data: the engine writes
  each run's request (code, checker source, the /data paths that name test data by content hash)
  to a memfd the keeper inherited but never reads, the pipe carries only the uid and where to keep
  a binary, and the forked child reads the request after the fork (and closes the memfd with every
  other descriptor before the program starts). A zygote holds one submission's request and
  code, and is thrown away with its session: every submission forks from the clean keeper. It
  never holds the name of a test's data either: a session test's own request (its input's path)
  goes through the memory file to the test's child as well. A compile error, which quotes the source, goes
  to the run's stderr file, never back through the keeper.
- State outside every namespace: kernel keyrings are per uid and live in no namespace a slot has
  (a key stored by one test, opened to "other", is readable by any later test, slot or judge).
  Every run is under a seccomp filter (seccomp.py: compiled by libseccomp on the host, installed
  once by the keeper at the end of its set-up, so that every fork inherits it: programs, checkers
  and the compiler alike; installing it per run would cost a fraction of a millisecond) that
  denies add_key, keyctl and request_key with EPERM, along with the rest of a contest judge's deny
  list: new namespaces (unshare, setns, clone with CLONE_NEW*; clone3 answers ENOSYS so the C
  library falls back to clone), ptrace and process_vm_*, bpf, perf_event_open, userfaultfd,
  io_uring, syslog, and the privileged calls. Other ABIs (32-bit, x32) are killed by libseccomp's
  architecture check. Strict mode refuses to start without libseccomp.
- POSIX message queues live in the slot's IPC namespace, which outlives the run, and the per-run
  clean-up only sees SysV objects: the filter denies every mq_* call, so no queue exists.
- Per-uid kernel state (RLIMIT_NPROC's count, inotify and queue quotas) is host-wide, so slots of
  two judge processes must never share a uid, or one submission's processes make another's fork
  fail. Each slot leases its uid pair (programs, checkers) from a host-wide allocator (uids.py): an
  open-file-description lock on byte m of /run/codefrontier/uids.lock, held by the engine and
  passed to the keeper, so the lease lasts exactly as long as anything can run as those uids and the
  kernel frees it when they are gone. The search starts at a random pair of 4M (uids from 2^24), so
  judges in separate containers that do not share the lock file are unlikely to meet.
- Secrets: the keeper starts with a scrubbed environment and holds nothing of the judge's; /proc
  shows a program only its own processes; the network namespace has only loopback.

What a run costs outside its own limits
---------------------------------------
- Socket buffers: cgroup v1 charges them (TCP, and UDP on recent kernels) to a counter of their
  own, memory.kmem.tcp, and only once that counter has a limit; before, a program parked a GiB in
  loopback connections while its memory limit read 2.5 MB. The slot sets the counter's limit to
  the run's memory limit and adds its peak to the run's peak (an upper bound: the two peak
  separately). cgroup v2 charges socket memory to memory.current itself. Unix sockets' buffers
  are ordinary kernel memory, charged on both.
- The judge process's checkers: exact, tokens, float and JSON comparison run on the host, on up
  to the output limit of a program's output. They stream the answer from its file in 256 KB
  chunks against the expected output (checkers.py), so memory stays at the expected output plus a
  chunk and an answer stops being read at its first difference; a JSON answer larger than its
  expected value could ever need is not parsed.
- Disk: compiled binaries are cached in /bincache by source hash, at most FRONTIER_BIN_CACHE_MB
  (runners.py): after each compile the least recently used (by mtime, touched on every use) go.
  A slot runs its binaries through hard links of its own (/bincache/.pins-<slot>/, its last four),
  so an eviction, by this judge or another on the same state dir, never removes a binary from
  under a run; pins of judges that are gone are removed with the next eviction.

Sessions (session.py, session_keeper.py)
----------------------------------------
A session is a sandbox that outlives one call: its own keeper (PID 1 of its own namespaces, the same
private root through `build_root`, the same seccomp filter), its own cgroup (`slot-<pid>-s<n>`) and its
own leased uid pair, holding a persistent Python interpreter or bash for up to its lifetime. What
differs from a slot, and why it is still closed:
- State is meant to persist, but only inside the session: its writable place is its own tmpfs in its
  own mount namespace, and its processes see only their own uid in /proc. Two sessions never share a
  uid, a cgroup, a namespace or a file.
- Processes may outlive an exec (a server started in the background): they live in the session's
  cgroup and PID namespace, count against its memory and process limits and its CPU accounting, and
  die with the session, since the keeper's exit (on DELETE, expiry, or the death of the worker, whose
  end of the keeper's socket then closes) ends every process of the namespace.
- File reads and writes asked over HTTP run in a child of the keeper that has dropped to the session's
  uid inside the chroot, so a symbolic link planted by the session leads only where the session could
  go itself (and a last component that is a link is refused outright).

`FRONTIER_SANDBOX_MODE=unsafe` skips namespaces, cgroups and the uid change (logged loudly at
start-up; the seccomp filter still applies where libseccomp is there); without it a host lacking root or cgroups makes the engine refuse to start and say why.
"""
