#!/bin/sh
# expect-exit.sh N CMD [ARG...]: runs CMD; exits 0 when it exits with N, else 1
# (lit's `%expect_exit N CMD...`; unlike `not`, a crash or another error code
# is a failure). CMD's stdout and stderr pass through.
want=$1
shift
"$@"
rc=$?
if [ "$rc" -ne "$want" ]; then
  echo "expect-exit: '$1' exited with $rc, expected $want" >&2
  exit 1
fi
exit 0
