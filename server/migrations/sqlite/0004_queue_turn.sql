-- The fair queue's order, kept beside the submission: how many of its student's own
-- submissions waited before it when it was queued (its priority in the queue falls by one with
-- each), so that a page can say how many the queue takes before it.
ALTER TABLE submissions ADD COLUMN queue_turn INTEGER NOT NULL DEFAULT 0;
