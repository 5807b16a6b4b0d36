-- Regrade requests: a student asks about one case of their submission; the instructor answers
-- once, with points (possibly 0) given to that submission, kept apart from its graded score so
-- that a regrade of the class keeps them. One open request per submission and case.
CREATE TABLE requests (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    submission INTEGER NOT NULL REFERENCES submissions(id),
    case_id TEXT NOT NULL,
    text TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    answer TEXT,
    points REAL,
    answered_by TEXT,
    answered_at INTEGER
);
CREATE UNIQUE INDEX requests_open ON requests (submission, case_id) WHERE answer IS NULL;
ALTER TABLE submissions ADD COLUMN points_given REAL NOT NULL DEFAULT 0;
