"""Results > Team: per person, their packages' items with dates, what is still out, their
agreement with the others so far and every kind of work they have done; then the packages
not yet returned.

Shows the rows of `app.modes.results.team.team_rows` (plain dicts); it never reads the project.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

from PySide6.QtWidgets import (
    QGroupBox,
    QHeaderView,
    QLabel,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from annotation.metric_text import settings_text
from widgets.empty_state import EmptyState
from widgets.icons import icon
from widgets.results.agreement import kappa_cell
from widgets.results.table import Cell, cell_table, fill_table, scrolling_page, settings_label

PEOPLE_COLUMNS = (
    "Person",
    "Packages",
    "Assigned",
    "Done",
    "Outstanding",
    "First assigned",
    "Last merged",
    "Not returned",
    "Verification kappa",
    "HOI review kappa",
    "Work",
)
#: The kinds of work in a person's row (`store.packages.WORK_KINDS`), in the order shown:
#: the word for one and for several.
WORK_WORDS = {
    "verdicts": ("verdict", "verdicts"),
    "reviews": ("review", "reviews"),
    "hoi_labels": ("HOI label", "HOI labels"),
    "error_labels": ("error label", "error labels"),
    "ratings": ("rating", "ratings"),
    "answers": ("human answer", "human answers"),
    "boxes_2d": ("2D box", "2D boxes"),
    "boxes_3d": ("3D box", "3D boxes"),
    "entities": ("entity added", "entities added"),
    "entity_removals": ("entity removed", "entities removed"),
}
OUT_COLUMNS = ("Person", "Role", "Created", "Items", "File")
NONE = "-"  # a package figure of someone who has no packages, or a kappa without pairs
HOW_TO = (
    "Send each person their work as a package: <code>reasonscope pack create --for NAME "
    "--role verifier --questions pending --out NAME.rspack --db PROJECT</code> (or "
    "File &gt; Work packages), and bring it back with <code>reasonscope pack merge "
    "NAME.rspack --db PROJECT</code>. People who work in this project itself (verdicts, "
    "reviews, labels, ratings, answers, boxes) appear here too."
)


def when(iso: str | None) -> str:
    """An ISO time of the store as a local date and minute; "-" for none."""
    if not iso:
        return NONE
    try:
        moment = datetime.fromisoformat(iso)
    except ValueError:
        return iso
    if moment.tzinfo is not None:
        moment = moment.astimezone()
    return moment.strftime("%Y-%m-%d %H:%M")


def figure(value: int | None) -> str:
    return NONE if value is None else str(value)


def agreement_cell(a: dict[str, Any], what: str) -> tuple[str, str]:
    """The text of a person's kappa cell and its tooltip: the kappa and its reading with
    the pairs ("0.50 (moderate), n = 4"), "undefined (one category), n = 1", or "-"
    without pairs."""
    n = a["n"]
    if not n:
        return NONE, f"No {what} by this person and another yet."
    text = f"{kappa_cell(a['kappa'], a['kappa_reason'])}, n = {n}"
    pct = a["percent_agreement"]
    return text, f"{n} {what} by this person and another; they agree on {pct:.0f} %."


def work_cell(work: dict[str, int]) -> tuple[str, str]:
    """The text of a person's Work cell, the kinds they did only ("12 verdicts, 1 rating";
    "none"), and its tooltip: one line per kind, zeros included."""
    counts = [(work.get(key, 0), one, many) for key, (one, many) in WORK_WORDS.items()]
    text = ", ".join(f"{n} {one if n == 1 else many}" for n, one, many in counts if n)
    tip = "\n".join(f"{many}: {n}" for n, _one, many in counts)
    return text or "none", f"Done in the project or merged from packages:\n{tip}"


def out_list(packages: list[dict[str, Any]], has_packages: bool) -> str:
    if not has_packages:
        return NONE
    return ", ".join(f"{p['role']} {when(p['created'])[:10]}" for p in packages) or "none"


class TeamResultsView(QStackedWidget):
    """Page 0: how to send packages (nothing to show yet); page 1: the people table and
    the packages out, with the footnote saying how the kappas were computed."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.empty = EmptyState(
            title="Team",
            purpose="Who has which work out in packages, what has come back, what each "
            "person has done, and how their verdicts and reviews agree with the others'.",
            how_to=HOW_TO,
            icon=icon("user"),
        )
        self.addWidget(self.empty)
        page = QWidget()
        self.summary = QLabel(wordWrap=True)
        self.summary.setObjectName("team_summary")
        self.people = cell_table(PEOPLE_COLUMNS, alternating=True)
        self.people.setObjectName("team_people")
        # The work done is what a lead reads first: shown beside the name, wherever the
        # package figures and agreement leave the table's width (the model keeps its order).
        self.people.horizontalHeader().moveSection(PEOPLE_COLUMNS.index("Work"), 1)
        self.settings = settings_label()
        people_box = QGroupBox("Per person: items in packages, agreement and work done")
        inner = QVBoxLayout(people_box)
        inner.addWidget(self.people)
        inner.addWidget(self.settings)
        self.out = cell_table(OUT_COLUMNS, alternating=True)
        self.out.setObjectName("team_packages_out")
        header = self.out.horizontalHeader()  # the file name takes the room, not the person
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(len(OUT_COLUMNS) - 1, QHeaderView.ResizeMode.Stretch)
        self.out_note = QLabel(wordWrap=True)
        out_box = QGroupBox("Packages not yet returned")
        inner = QVBoxLayout(out_box)
        inner.addWidget(self.out)
        inner.addWidget(self.out_note)
        scrolling_page(page, self.summary, (people_box, out_box))
        self.addWidget(page)
        self.set_rows(None)

    def set_rows(self, team: dict[str, Any] | None) -> None:
        """Show `team_rows`' dict; None (no project) or no people shows the empty state."""
        people = team["people"] if team else []
        if not people:
            self.empty.set_status("No project open." if team is None else "No team work yet.")
            self.people.model().set_rows([])
            self.out.model().set_rows([])
            self.setCurrentIndex(0)
            return
        out = team["packages_out"]
        with_packages = sum(1 for p in people if p["packages"] is not None)
        assigned = sum(p["assigned"] or 0 for p in people)
        done = sum(p["done"] or 0 for p in people)
        self.summary.setText(
            f"{len(people)} {'person' if len(people) == 1 else 'people'}, {with_packages} "
            f"with packages: {team['packages']} package{'s' if team['packages'] != 1 else ''} "
            f"sent, {len(out)} not yet returned. {done} of the {assigned} items assigned "
            "are done."
        )
        self._fill_people(people)
        self.settings.setText(settings_text(team.get("settings")))
        self._fill_out(out)
        self.setCurrentIndex(1)

    def _fill_people(self, people: list[dict[str, Any]]) -> None:
        rows = []
        for p in people:
            has_packages = p["packages"] is not None
            verification = agreement_cell(p["verification"], "questions verified")
            review = agreement_cell(p["review"], "label rounds reviewed")
            work = work_cell(p.get("work") or {})
            recalled = p["recalled"] or 0
            rows.append(
                (
                    Cell(p["person"], right=False),
                    Cell(figure(p["packages"])),
                    Cell(
                        figure(p["assigned"]),
                        tip=f"{recalled} of them recalled" if recalled else "",
                    ),
                    Cell(figure(p["done"]), tip="items whose work was merged back"),
                    Cell(figure(p["outstanding"]), tip="out, neither done nor recalled"),
                    Cell(when(p["first_assigned"]) if has_packages else NONE),
                    Cell(when(p["last_merged"]) if has_packages else NONE),
                    Cell(out_list(p["not_returned"], has_packages), right=False),
                    Cell(verification[0], tip=verification[1]),
                    Cell(review[0], tip=review[1]),
                    Cell(work[0], right=False, tip=work[1]),
                )
            )
        fill_table(self.people, rows)

    def _fill_out(self, out: list[dict[str, Any]]) -> None:
        rows = [
            (
                Cell(p["person"], right=False),
                Cell(p["role"], right=False),
                Cell(when(p["created"])),
                Cell(str(p["items"])),
                Cell(Path(p["file"]).name, right=False, tip=p["file"]),
            )
            for p in out
        ]
        self.out.setVisible(bool(out))
        self.out_note.setText(
            "Merge a returned package with reasonscope pack merge FILE (or File > Work "
            "packages > Merge); recall one with reasonscope pack recall PACKAGE_ID."
            if out
            else "Every package has come back (or was recalled)."
        )
        fill_table(self.out, rows)
