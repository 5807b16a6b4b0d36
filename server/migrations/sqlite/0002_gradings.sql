-- One row per result recorded: a submission's generation is graded once, whatever the queue
-- does (a job run twice, a worker killed and its job given to another).
CREATE TABLE gradings (
    submission INTEGER NOT NULL REFERENCES submissions(id),
    generation INTEGER NOT NULL,
    recorded_at INTEGER NOT NULL,
    PRIMARY KEY (submission, generation)
);
