"""Steps that plug into a trial, one folder each with its model, checks and phase."""
