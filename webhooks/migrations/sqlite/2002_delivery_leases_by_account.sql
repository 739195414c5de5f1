-- A claim counts the account's deliveries under lease (the per-account share): an index so the
-- count reads the account's pending rows, not every delivery.
CREATE INDEX webhook_deliveries_leased_by_account ON webhook_deliveries (account_id, state, lease_until);
