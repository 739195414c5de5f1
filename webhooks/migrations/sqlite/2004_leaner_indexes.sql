-- A worker asks whether anything is due through the due heads (a due delivery that heads no
-- queue cannot be claimed anyway), so this index only cost every claim and every finished
-- attempt a write.
DROP INDEX webhook_deliveries_due;
-- Events not yet fanned out, oldest first: only those rows. The index over every event let the
-- planner, whose statistics saw a backlog, walk the primary key past every event already fanned
-- out.
DROP INDEX webhook_events_to_fan_out;
CREATE INDEX webhook_events_to_fan_out ON webhook_events (event_seq) WHERE fanned_out = 0;
