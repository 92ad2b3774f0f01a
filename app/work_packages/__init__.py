"""Work packages: one person's assignment as a small project file, created from a project
and merged back into it (docs/work-packages.md). Qt-free, like `app.io` and `app.jobs`:
the command line, the demo and the File ▸ Work packages menu (`app.work_package_menu`)
all call these functions."""
