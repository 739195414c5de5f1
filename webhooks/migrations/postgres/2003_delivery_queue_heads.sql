-- Deliveries of one subject (a company, a dataset) to one endpoint go in order: only the head of
-- each such queue (no earlier pending delivery of its subject to its endpoint) may be claimed.
-- The flag keeps the heads apart, so a claim reads the due heads, not every pending delivery:
-- set when a delivery is written as its queue's head, and on the next one when the head
-- finishes (delivered, or failed for good).
ALTER TABLE webhook_deliveries ADD COLUMN queue_head INTEGER NOT NULL DEFAULT 0;
UPDATE webhook_deliveries SET queue_head = 1 WHERE state = 'pending' AND NOT EXISTS (
    SELECT 1 FROM webhook_deliveries p WHERE p.endpoint_id = webhook_deliveries.endpoint_id
    AND p.subject = webhook_deliveries.subject AND p.state = 'pending' AND p.event_seq < webhook_deliveries.event_seq);
CREATE INDEX webhook_deliveries_due_heads ON webhook_deliveries (next_attempt_at, event_seq)
    WHERE state = 'pending' AND queue_head = 1;
-- What is under lease now (the per-endpoint and per-account shares a claim counts): a few rows.
CREATE INDEX webhook_deliveries_leased ON webhook_deliveries (lease_until) WHERE state = 'pending';
DROP INDEX webhook_deliveries_leased_by_account;
