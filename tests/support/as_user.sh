#!/usr/bin/env bash
# as_user.sh USER PYTHON ARGS...: run PYTHON ARGS as USER in the current folder, with
# HOME=$AS_USER_HOME (default /tmp); make test-unit runs the unit tier as nobody this way.
# Where the interpreter's installation, the virtual environment or the current folder lies under a
# folder USER cannot enter (pyenv's in /root, mode 700; a checkout there), each is shown to USER in a
# mount namespace of this command's own: the folder is covered by an empty tmpfs that holds only what
# is needed, bound back in. Nothing outside the command changes; nothing is made writable.
set -euo pipefail
user=$1
py=$2
shift 2
# an absolute path (the Makefile passes .venv/bin/python): the walk up to / below needs one
case $py in /*) ;; *) py="$(cd "$(dirname "$py")" && pwd)/$(basename "$py")" ;; esac
home=${AS_USER_HOME:-/tmp}
venv=$(dirname "$(dirname "$py")")
needs=("$PWD" "$venv")
if [ -f "$venv/pyvenv.cfg" ]; then
  needs+=("$(dirname "$(sed -n 's/^home *= *//p' "$venv/pyvenv.cfg")")")
else
  needs+=("$(dirname "$(dirname "$(readlink -f "$py")")")")
fi
plan=() # pairs: the topmost folder USER cannot enter, the path under it that USER needs
for p in "${needs[@]}"; do
  blocked=""
  d=$p
  while [ "$d" != / ] && [ "$d" != . ]; do
    runuser -u "$user" -- test -x "$d" || blocked=$d
    d=$(dirname "$d")
  done
  if [ -n "$blocked" ]; then plan+=("$blocked" "$p"); fi
done
if [ ${#plan[@]} -eq 0 ]; then
  exec runuser -u "$user" -- env HOME="$home" "$py" "$@"
fi
exec unshare -m --propagation private bash -c '
  set -e
  user=$1 home=$2 n=$3
  shift 3
  plan=("${@:1:n}")
  shift "$n"
  holds=()
  for ((i = 1; i < n; i += 2)); do
    h=$(mktemp -d)
    mount --bind "${plan[i]}" "$h"
    holds+=("$h")
  done
  covered=" "
  for ((i = 0; i < n; i += 2)); do
    case "$covered" in *" ${plan[i]} "*) ;; *)
      mount -t tmpfs -o mode=755,size=1m as-user "${plan[i]}"
      covered+="${plan[i]} " ;;
    esac
  done
  for ((i = 1, j = 0; i < n; i += 2, j++)); do
    mkdir -p "${plan[i]}"
    mount --bind "${holds[j]}" "${plan[i]}"
    umount "${holds[j]}" && rmdir "${holds[j]}"
  done
  exec runuser -u "$user" -- env HOME="$home" "$@"
' as-user "$user" "$home" "${#plan[@]}" "${plan[@]}" "$py" "$@"
