"""`reasonscope import ...`: interchange files read into a project, one module per subcommand
(`benchmark`, `episodes`, `jrdb`, `predictions`, `spatial_predictions`). The group's own help text
is in `GROUPS` in `app/cli/support.py`.

(Not `import/`: `import` is a Python keyword.)
"""
