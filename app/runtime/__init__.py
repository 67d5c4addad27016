"""What a running process holds (settings, store, rules, model client) and the
API tokens that say who a request acts for."""
