#!/bin/sh
# A stand-in for mpirun (TELAR_MPIRUN) that records how telar-run -n started
# it: its session directory (OMPI_MCA_orte_tmpdir_base, and whether it is an
# empty directory now), then its arguments, into $RECORD. With WAIT set it
# waits for a signal, recording it, and exits 5; else it exits $STATUS.
{
  echo "session $OMPI_MCA_orte_tmpdir_base"
  if [ -d "$OMPI_MCA_orte_tmpdir_base" ] && [ -z "$(ls -A "$OMPI_MCA_orte_tmpdir_base")" ]; then
    echo "an empty directory"
  fi
  echo "args $*"
} > "$RECORD"
if [ -n "$WAIT" ]; then
  trap 'echo "got TERM" >> "$RECORD"; exit 5' TERM
  echo "waiting" >> "$RECORD"
  while :; do sleep 0.1; done
fi
exit "$STATUS"
