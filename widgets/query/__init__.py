"""The query engine's panel: choose a task and scope, preview a question of controlled
difficulty, step through its reasoning, save it for verification (docs/jrdb-questions.md)."""
