"""Pure rule engines. See games/base.py for the contract and games/registry.py for the list."""
