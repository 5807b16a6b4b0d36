-- One row per result recorded: a submission's generation is graded once, whatever the queue
-- does (a job run twice, a worker killed and its job given to another).
CREATE TABLE gradings (
    submission BIGINT NOT NULL REFERENCES submissions(id),
    generation BIGINT NOT NULL,
    recorded_at BIGINT NOT NULL,
    PRIMARY KEY (submission, generation)
);
