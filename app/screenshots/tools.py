"""What the screenshot scripts share: letting the GUI settle, opening a question."""

from __future__ import annotations


def settle(app, ms: int = 200) -> None:
    """Let the event loop run for `ms` (renders, deferred work), then process what is left."""
    from PySide6.QtCore import QEventLoop, QTimer

    loop = QEventLoop()
    QTimer.singleShot(ms, loop.quit)
    loop.exec()
    app.processEvents()


def open_question(app, verify) -> None:
    """Leave Verify questions as a verifier would mid-task: a question open, two criteria ticked."""
    state = verify.state
    if state.current is None:
        return  # a demo without questions shows the mode's empty queue
    for _ in range(300):  # the scene restores off the GUI thread
        if verify.loaded is not None or state.scene is None:
            break
        settle(app, 100)
    state.toggle(1)
    state.toggle(2)
    settle(app)
