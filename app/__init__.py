"""Duelhall: the FastAPI service around the pure engines in games/."""
