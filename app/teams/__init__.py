"""Teams on many machines: work packages out to each person and merged back."""
