"""`make screenshots` (`python -m app.screenshots OUT`): a PNG of every mode with the demo
project. `shots` takes them in order, `modes` prepares each mode's view, `authoring` the
work-package and scene-editor pictures, `tools` waits for the window to settle."""
