"""The file's ``verify:``: the measured phase reads back every acknowledged write
(:mod:`.verification`)."""
