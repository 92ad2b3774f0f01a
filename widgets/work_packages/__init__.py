"""Work packages in the desktop app: the dialogs of File > Work packages."""
