"""The process that starts nsjail for bench/peers.py's nsjail peer: a bare interpreter (`python -I -S`),
so that what a jail's wait reports as its peak memory is the program's, not the fork of a large
bench process (a process's ru_maxrss keeps the size it had before its exec).

One job a line on stdin (JSON: argv, stdin and stdout file paths); one answer a line on stdout: the
exit status (as subprocess gives it), the CPU seconds and the peak resident KB of nsjail and what
it waited for.
"""

import json
import os
import subprocess
import sys

for line in sys.stdin:
    job = json.loads(line)
    with open(job["stdin"], "rb") as fin, open(job["stdout"], "wb") as fout:
        proc = subprocess.Popen(job["argv"], stdin=fin, stdout=fout, stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)  # reaped here, not by Popen
    answer = {"rc": proc.returncode, "cpu_s": usage.ru_utime + usage.ru_stime, "maxrss_kb": usage.ru_maxrss}
    sys.stdout.write(json.dumps(answer) + "\n")
    sys.stdout.flush()
