"""Shared pytest configuration; the repository root is pytest's rootdir (see pyproject.toml)."""
