"""sim/jrdb."""
