#!/bin/sh
# mpirun.sh ARGS...: OpenMPI's mpirun ARGS... with a session directory of its
# own (lit's `%mpirun`). Every mpirun keeps its session files in
# <tmp>/ompi.<host>.<uid>, which the first creates and the last removes
# without locking, so two started at once can fail with "mkdir ... File
# exists"; this one's go to a fresh directory, removed when it is done.
# mpirun's exit status passes through.
dir=$(mktemp -d "${TMPDIR:-/tmp}/telar-mpirun-XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
# A stopping signal (`timeout` sends one to the whole process group, mpirun
# included) ends this script once mpirun has ended, removing the directory.
trap 'exit 143' TERM
trap 'exit 130' INT
trap 'exit 129' HUP
OMPI_MCA_orte_tmpdir_base=$dir mpirun "$@"
