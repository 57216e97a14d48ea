#!/usr/bin/env python3
"""Placeholder: the Ray launcher (one actor per rank in a placement group) is
written by the Ray part of issue 10 and replaces this file (docs/Launch.md)."""
import sys

sys.exit("ray_launch.py: error: this Telar build has no Ray launcher yet")
