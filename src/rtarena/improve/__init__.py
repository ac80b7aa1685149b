"""Self-improvement runs (`rtarena improve`): rounds of play, a tool-using reflector, a judge, enforced
rules, best-skill rollback, curves with confidence intervals and variant transfer. See docs/improve.md."""
