#!/usr/bin/env bash
# as_user.sh USER PYTHON ARGS...: run PYTHON ARGS as USER, with HOME=$AS_USER_HOME (default /tmp)
# (make test-unit runs the unit tier as nobody). Where the interpreter's installation lies under a folder USER cannot enter (pyenv's in
# /root, mode 700), it is shown to USER in a mount namespace of this command's own: the folder is
# covered by an empty tmpfs that holds only the installation, bound back in; nothing outside changes.
set -euo pipefail
user=$1
py=$2
shift 2
home=${AS_USER_HOME:-/tmp}
if runuser -u "$user" -- "$py" -c '' 2>/dev/null; then
  exec runuser -u "$user" -- env HOME="$home" "$py" "$@"
fi
cfg="$(dirname "$(dirname "$py")")/pyvenv.cfg"
prefix=$(dirname "$(sed -n 's/^home *= *//p' "$cfg")")
blocked=""
dir=$prefix
while [ "$dir" != / ]; do
  runuser -u "$user" -- test -x "$dir" || blocked=$dir
  dir=$(dirname "$dir")
done
if [ -z "$blocked" ]; then
  echo "as_user.sh: $user cannot run $py" >&2
  exit 1
fi
exec unshare -m --propagation private bash -c '
  set -e
  hold=$(mktemp -d)
  mount --bind "$1" "$hold"
  mount -t tmpfs -o mode=755,size=1m as-user "$2"
  mkdir -p "$1"
  mount --bind "$hold" "$1"
  umount "$hold" && rmdir "$hold"
  user=$3
  home=$4
  shift 4
  exec runuser -u "$user" -- env HOME="$home" "$@"
' as-user "$prefix" "$blocked" "$user" "$home" "$py" "$@"
