"""`reasonscope spatial ...`: ST-BiBench's foundational spatial grounding tier
(docs/spatial-grounding.md), one module per subcommand. A model's replies are read by
`reasonscope import spatial-predictions` (`app/cli/import_/spatial_predictions.py`). The
group's own help text is in `GROUPS` in `app/cli/support.py`.
"""
