"""HTTP routers. Each stays thin: validate, call the live store or the history, shape."""
