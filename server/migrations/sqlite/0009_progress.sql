-- When a grading last moved (started, built, ran a case, recorded), so that any process of
-- the course, a web server that grades nothing included, can tell a stalled queue from a busy
-- one: work waits and no grading has moved for minutes.
ALTER TABLE submissions ADD COLUMN progress_at INTEGER;
