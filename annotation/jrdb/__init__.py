"""annotation/jrdb."""
