"""`reasonscope relations ...`: geometric relations of JRDB frames."""
