"""One collector per harness; see base.py for the contract."""
