"""Flame graphs (pure): collapsed stacks (:mod:`.stacks`), read from JDK Flight Recorder's
JSON; the frames whose share changed between two profiles (:mod:`.diff`); and a
self-contained SVG of one profile or of its difference to a baseline (:mod:`.svg`)."""
