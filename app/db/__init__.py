"""SQL access, all of it: models, engine/session, and the history reads and writes."""
