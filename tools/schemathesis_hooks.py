"""Schemathesis hooks of the contract tests (loaded through SCHEMATHESIS_HOOKS)."""

import schemathesis

# Query parameters declared as repeated (`type: array`, form style): `?entities=a&entities=b`.
REPEATED = {"entities", "airports"}


@schemathesis.hook
def filter_query(ctx, query):
    """Drop generated queries a form-encoded query string cannot tell apart from valid ones.

    - A repeated scalar parameter. SUPPLEMENT 1.2: for scalar parameters the first occurrence wins
      (`?x=1&x=2` is `x=1`, and an empty first value is an absent one), so a repeated scalar is not
      an error. Schemathesis models the repetition as an array and would expect a 400; the rule is
      tested in tests/e2e/conflict.rs and serve/platform/src/kit/params.rs.
    - A scalar in a repeated parameter: `?entities=5` is a one-item array of the string "5",
      whatever JSON type the generator meant.
    - An object value: a form query has no objects (an empty one encodes as nothing at all).
    """
    for name, value in (query or {}).items():
        if isinstance(value, dict):
            return False
        if isinstance(value, list) != (name in REPEATED):
            return False
    return True
