"""`reasonscope scenes ...`: cluttered tabletop scenes in the PyBullet world, one module per
subcommand (`generate`, `create`, `export`). The group's own help text is in `GROUPS` in
`app/cli/support.py`.
"""
