"""`reasonscope annotate ...`: one module per subcommand; `common` is what they share."""
