"""`python -m app.cli`: the same as the `reasonscope` command."""

from app.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
