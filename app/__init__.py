"""Application layer: composition root, CLI, main window."""
