"""widgets/jrdb."""
