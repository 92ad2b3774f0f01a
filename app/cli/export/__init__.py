"""`reasonscope export ...`: project data in documented interchange formats, one module per
subcommand (`benchmark`, `episodes`, `labels`). The group's own help text is in `GROUPS` in
`app/cli/support.py`.
"""
