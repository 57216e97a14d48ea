"""check_profile.py PROFILE.json DEVICES [--no-collectives]: checks a profile
that telar-calibrate wrote (docs/Profile.md) and prints one line per check,
for FileCheck. Exits 1 at the first check that fails."""
import json
import math
import sys


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


def number(value, what):
    if isinstance(value, bool) or not isinstance(value, (int, float)) \
            or not math.isfinite(value):
        fail(f"{what} is not a number: {value!r}")
    return value


def positive(value, what):
    if isinstance(value, bool) or not isinstance(value, (int, float)) \
            or not math.isfinite(value) or value <= 0:
        fail(f"{what} is not a positive number: {value!r}")
    return value


path, devices = sys.argv[1], int(sys.argv[2])
collectives = "--no-collectives" not in sys.argv[3:]
with open(path) as f:
    p = json.load(f)
if sorted(p) != ["description", "device", "levels", "name", "sources"]:
    fail(f"fields {sorted(p)}")
if "telar-calibrate" not in p["description"] or not p["sources"]:
    fail("the description and sources do not say how it was measured")
d = p["device"]
positive(d["peak_flops"]["f32"], "peak_flops.f32")
positive(d["memory_bytes"], "memory_bytes")
positive(d["memory_bandwidth"], "memory_bandwidth")
positive(d["op_overhead"], "op_overhead")
print(f"device: f32 {d['peak_flops']['f32']:.3g} FLOP/s, "
      f"{d['memory_bandwidth']:.3g} B/s, ok")
if len(p["levels"]) != 1:
    fail(f"{len(p['levels'])} levels")
node = p["levels"][0]
if node["name"] != "node" or node["devices"] != devices:
    fail(f"levels[0] is {node['name']!r} of {node['devices']} devices")
positive(node["bandwidth"], "levels[0].bandwidth")
print(f"node: {node['devices']} devices, ok")
fits = node.get("collectives", {})
if not collectives:
    if fits:
        fail(f"collectives measured with one rank: {sorted(fits)}")
    print("collectives: none, ok")
    sys.exit(0)
if sorted(fits) != ["all_gather", "all_reduce", "all_to_all", "reduce_scatter"]:
    fail(f"collectives {sorted(fits)}")
for name, fit in sorted(fits.items()):
    # The fit keeps alpha >= 0 (0 when the times fit a line through the
    # origin best, as they may on a busy machine).
    if number(fit["alpha"], f"{name}.alpha") < 0:
        fail(f"{name}.alpha is negative")
    positive(fit["beta"], f"{name}.beta")
    # Plausible for any machine: a latency below a second, a bandwidth
    # above 1 MB/s.
    if fit["alpha"] > 1 or fit["beta"] < 1e6:
        fail(f"{name}: implausible fit {fit}")
    print(f"{name}: ok")
# latency and bandwidth are the all_reduce fit.
if node["latency"] != fits["all_reduce"]["alpha"] or \
        node["bandwidth"] != fits["all_reduce"]["beta"]:
    fail("levels[0] latency/bandwidth are not the all_reduce fit")
print("levels[0]: the all_reduce fit, ok")
