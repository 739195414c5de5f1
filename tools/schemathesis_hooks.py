"""Schemathesis hooks of the contract tests (loaded through SCHEMATHESIS_HOOKS)."""

import schemathesis


@schemathesis.hook
def filter_query(ctx, query):
    """Drop generated queries that repeat a scalar parameter.

    SUPPLEMENT 1.2: for scalar parameters the first occurrence wins (`?x=1&x=2` is `x=1`, and an
    empty first value is an absent one), so a repeated scalar is not an error. Schemathesis models
    the repetition as an array and would expect a 400; the rule itself is tested in
    tests/e2e/conflict.rs and serve/src/api/params.rs.
    """
    return not any(isinstance(value, list) for value in (query or {}).values())
