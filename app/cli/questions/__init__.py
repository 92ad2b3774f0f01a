"""`reasonscope questions ...`: benchmark questions, one module per subcommand: `generate` (by the
generators), `add` (authored on a chosen scene). The group's own help text is in `GROUPS` in
`app/cli/support.py`.
"""
