#!/usr/bin/env python3
"""Turns the planner's 2-stage plan of examples/tiny_gpt.onnx (telarc
--devices 2 --pipeline-stages 2, its plan.json) into a hand plan with
tensor parallelism inside the stages: both stages on a {"model": 2}
submesh (ranks 0-1 and 2-3), the boundary value split by its last
dimension in stage 0 and by the sequence in stage 1, so that every
message is a strided box between two differently split blocks.

    gpt_stage_plan.py PLAN.json OUT.json
"""
import json
import sys

plan = json.load(open(sys.argv[1]))
plan.pop("cost", None)
first, second = plan["stages"]
(boundary,) = [v for v in second["shardings"] if v in first["ops"]]
first.update(mesh={"model": 2}, first_rank=0,
             shardings={boundary: [[], [], ["model"]]})
second.update(mesh={"model": 2}, first_rank=2,
              shardings={boundary: [[], ["model"], []]})
json.dump(plan, open(sys.argv[2], "w"), indent=1)
print("boundary:", boundary)
