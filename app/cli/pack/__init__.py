"""`reasonscope pack ...`: work packages for teams on many machines (docs/work-packages.md).

`pack create` hands one person an assignment in a package file; `pack merge` brings
the work back; `pack list`, `pack recall` and `pack conflicts` manage what is out.

One module per subcommand (`list_`: `list` is a builtin). The group's own help text is in
`GROUPS` in `app/cli/support.py`.
"""
