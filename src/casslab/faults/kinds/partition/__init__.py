"""The partition fault: a topology's links to a datacenter (or one link) cut, then healed."""
