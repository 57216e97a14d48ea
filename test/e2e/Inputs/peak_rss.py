"""Runs a command and fails when its peak resident memory exceeds a bound.

Usage: peak_rss.py MAX_MB COMMAND [ARGS...]
Prints the child's peak RSS in MB. Used to check that importing a model with
multi-gigabyte external data maps the weights instead of reading them.
"""
import resource
import subprocess
import sys

limit_mb = float(sys.argv[1])
rc = subprocess.call(sys.argv[2:])
peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024.0
print(f"peak-rss: {peak_mb:.0f} MB (limit {limit_mb:.0f} MB), exit {rc}")
sys.exit(rc if rc else (0 if peak_mb <= limit_mb else 1))
