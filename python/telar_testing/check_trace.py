"""Checks a telar-run --trace file and prints what it holds, per rank.

    check_trace.py TRACE.json --ranks N

Fails (exit 1, naming the event) unless the file is a Chrome trace-event
file as telar-run writes it (docs/Trace.md): a named process per rank,
complete events that nest on each thread (what Perfetto and
chrome://tracing need to draw them), every paired span's wait and transfer
adding up to its duration with a "waiting" span inside it when it waited,
message arrows in pairs, each arriving after it left (the ranks' clocks
aligned). Then prints one line per rank, for FileCheck:

    rank 0: runs 3 program 3 kernels 12 collectives 0 paired 0 waited 0 ...
"""

from __future__ import annotations

import argparse
import collections
import json
import sys

# How far apart two ranks' clocks may be after the barrier that aligns them
# (ranks on one machine share the clock; the barrier's exits differ by
# microseconds).
CLOCK_SLACK_US = 200.0


class TraceError(Exception):
    pass


def end(event: dict) -> float:
    return event["ts"] + event["dur"]


def check(trace: dict, ranks: int) -> list[str]:
    events = trace.get("traceEvents")
    if not isinstance(events, list) or not events:
        raise TraceError("no traceEvents")
    names = {e["pid"]: e["args"]["name"] for e in events
             if e.get("ph") == "M" and e.get("name") == "process_name"}
    if names != {r: f"rank {r}" for r in range(ranks)}:
        raise TraceError(f"process names {names}, expected rank 0.."
                         f"{ranks - 1}")
    spans = [e for e in events if e.get("ph") == "X"]
    by_thread = collections.defaultdict(list)
    for e in spans:
        if not 0 <= e["pid"] < ranks:
            raise TraceError(f"event of no rank: {e}")
        if e["dur"] < 0 or e["ts"] < -CLOCK_SLACK_US:
            raise TraceError(f"bad time: {e}")
        by_thread[(e["pid"], e["tid"])].append(e)
    # Complete events on one thread nest: each starts after the enclosing
    # one and ends before it.
    eps = 1e-3
    for key, thread in by_thread.items():
        thread.sort(key=lambda e: (e["ts"], -e["dur"]))
        stack: list[dict] = []
        for e in thread:
            while stack and e["ts"] >= end(stack[-1]) - eps:
                stack.pop()
            if stack and end(e) > end(stack[-1]) + eps:
                raise TraceError(f"{e['name']} at {e['ts']} overlaps "
                                 f"{stack[-1]['name']} on rank {key[0]} "
                                 f"thread {key[1]}")
            stack.append(e)
    waits = {(e["pid"], e["tid"], e["ts"]): e for e in spans
             if e["cat"] == "wait"}
    for e in spans:
        args = e.get("args", {})
        if "wait_us" not in args:
            continue
        total = args["wait_us"] + args["transfer_us"]
        if abs(total - e["dur"]) > 0.01 or args["wait_us"] < 0:
            raise TraceError(f"wait + transfer != duration: {e}")
        if args["wait_us"] > 0 and (e["pid"], e["tid"], e["ts"]) not in waits:
            raise TraceError(f"no waiting span in {e}")
    flows = collections.defaultdict(dict)
    for e in events:
        if e.get("ph") in ("s", "f"):
            flows[e["id"]][e["ph"]] = e
    for ident, ends in flows.items():
        if set(ends) != {"s", "f"}:
            raise TraceError(f"message {ident} has one end: {ends}")
        if ends["f"]["ts"] + CLOCK_SLACK_US < ends["s"]["ts"]:
            raise TraceError(f"message {ident} arrives before it leaves: "
                             f"{ends}")

    lines = []
    for r in range(ranks):
        mine = [e for e in spans if e["pid"] == r]
        count = collections.Counter(e["cat"] for e in mine)
        steps = collections.Counter(e["name"].split()[0] for e in mine
                                    if e["cat"] == "pipeline")
        paired = sum(1 for e in mine if "wait_us" in e.get("args", {}))
        kernels = sorted({e["name"] for e in mine if e["cat"] == "kernel"})
        shaped = all(e.get("args", {}).get("shape") for e in mine
                     if e["cat"] == "kernel")
        lines.append(
            f"rank {r}: runs {count['run']} program {count['program']} "
            f"kernels {count['kernel']} collectives {count['collective']} "
            f"paired {paired} waited {count['wait']} "
            f"sends {count['send']} recvs {count['recv']} "
            f"steps {dict(sorted(steps.items()))} "
            f"idle {'yes' if count['idle'] else 'no'} "
            f"kernel-names {','.join(kernels) or '-'} "
            f"shapes {'yes' if shaped else 'no'}")
    lines.append(f"messages {len(flows)}")
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("trace")
    parser.add_argument("--ranks", type=int, required=True)
    args = parser.parse_args()
    try:
        with open(args.trace) as f:
            trace = json.load(f)
        for line in check(trace, args.ranks):
            print(line)
    except (TraceError, KeyError, ValueError) as e:
        print(f"check_trace.py: {args.trace}: {type(e).__name__}: {e}",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
