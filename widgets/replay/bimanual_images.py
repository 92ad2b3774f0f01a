"""What a dual-arm model saw at a step: its stored camera views (head, third person, ...).

The images are the ones the episode stored (by content hash); the app hands
their bytes in, the panel decodes them with Qt and shows one view at a time,
chosen with the tabs above it. The chosen view stays chosen while stepping, as
long as the step has it.
"""

from __future__ import annotations

from PySide6.QtCore import QRectF, QSize, Qt, Signal
from PySide6.QtGui import QImage, QPainter, QPaintEvent
from PySide6.QtWidgets import QLabel, QSizePolicy, QTabBar, QVBoxLayout, QWidget

VIEW_ORDER = ("head", "front", "third", "leftright")  # the head camera first: the model's own
VIEW_TITLES = {"head": "Head", "front": "Front", "third": "Third person", "leftright": "Left/right"}


def decode_image(data: bytes) -> QImage:
    """A stored image's bytes (JPEG, PNG) as a QImage; a null image when unreadable."""
    image = QImage()
    image.loadFromData(data)
    return image


def ordered_views(names) -> list[str]:
    names = list(names)
    return [v for v in VIEW_ORDER if v in names] + sorted(set(names) - set(VIEW_ORDER))


class ImageCanvas(QWidget):
    """One image, scaled to fit with its aspect ratio kept; a message when there is none."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.image = QImage()
        self.message = ""
        self.setMinimumSize(160, 120)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)

    def set_image(self, image: QImage | None, message: str = "") -> None:
        self.image = image if image is not None else QImage()
        self.message = message
        self.update()

    def image_rect(self) -> QRectF:
        """Where the image is drawn (empty without one)."""
        if self.image.isNull():
            return QRectF()
        size = self.image.size().scaled(self.size(), Qt.AspectRatioMode.KeepAspectRatio)
        x = (self.width() - size.width()) / 2
        y = (self.height() - size.height()) / 2
        return QRectF(x, y, size.width(), size.height())

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802
        p = QPainter(self)
        p.fillRect(self.rect(), self.palette().dark())
        if self.image.isNull():
            p.setPen(self.palette().brightText().color())
            p.drawText(
                self.rect(), Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap, self.message
            )
            return
        p.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
        p.drawImage(self.image_rect(), self.image)


class ObservationPanel(QWidget):
    """Tabs of the step's views over the chosen view's image, and a caption below."""

    view_changed = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.tabs = QTabBar()
        self.tabs.setObjectName("bimanual_views")
        self.tabs.setDocumentMode(True)
        self.tabs.setExpanding(False)
        self.tabs.currentChanged.connect(self._tab_changed)
        self.canvas = ImageCanvas()
        self.caption = QLabel()
        self.caption.setWordWrap(True)
        self.caption.setObjectName("bimanual_caption")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(self.tabs)
        layout.addWidget(self.canvas, 1)
        layout.addWidget(self.caption)
        self.images: dict[str, QImage] = {}
        self.chosen = "head"
        self.base_caption = ""
        self._filling = False
        self.set_views({}, "")

    def sizeHint(self) -> QSize:  # noqa: N802
        return QSize(360, 320)

    @property
    def views(self) -> list[str]:
        return [self.tabs.tabData(i) for i in range(self.tabs.count())]

    @property
    def current_view(self) -> str | None:
        i = self.tabs.currentIndex()
        return self.tabs.tabData(i) if i >= 0 else None

    def set_views(self, images: dict[str, bytes | QImage], caption: str, empty: str = "") -> None:
        """Show these views (name -> bytes or QImage); keep the chosen view if there."""
        self.images = {
            name: data if isinstance(data, QImage) else decode_image(data)
            for name, data in images.items()
        }
        self.base_caption = caption
        self._filling = True
        try:
            while self.tabs.count():
                self.tabs.removeTab(0)
            for name in ordered_views(self.images):
                i = self.tabs.addTab(VIEW_TITLES.get(name, name))
                self.tabs.setTabData(i, name)
        finally:
            self._filling = False
        self.tabs.setVisible(len(self.images) > 1)
        views = self.views
        if views:
            index = views.index(self.chosen) if self.chosen in views else 0
            self.tabs.setCurrentIndex(index)
        self._show(empty or "No image stored for this step.")

    def show_view(self, name: str) -> None:
        """Choose a view as a click on its tab would."""
        if name in self.views:
            self.tabs.setCurrentIndex(self.views.index(name))

    def _tab_changed(self, index: int) -> None:
        if self._filling or index < 0:
            return
        self.chosen = self.tabs.tabData(index)
        self._show()
        self.view_changed.emit(self.chosen)

    def _show(self, empty: str = "No image stored for this step.") -> None:
        name = self.current_view
        image = self.images.get(name) if name else None
        if image is None or image.isNull():
            self.canvas.set_image(None, empty if image is None else f"Cannot read the {name} image")
            self.caption.setText(self.base_caption)
            return
        self.canvas.set_image(image)
        title = VIEW_TITLES.get(name, name)
        size = f"{image.width()} × {image.height()}"
        self.caption.setText(f"{self.base_caption} · {title} view, {size}".lstrip(" ·"))
