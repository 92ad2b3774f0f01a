"""Episodes as Rerun recordings (Qt-free): `export_rerun` writes a `.rrd` file the Rerun
viewer opens (docs/sharing.md#rerun)."""
