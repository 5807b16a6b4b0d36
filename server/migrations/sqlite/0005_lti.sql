-- LTI 1.3: students the LMS named (by a launch or its roster), with the LMS's own id for them;
-- the login flows under way (a state, bound to the browser by a cookie, and its nonce, each
-- used once); the line item each student's link posts to, and the ones the server made; and
-- the scores to post, one per grading, kept until the platform took them.
ALTER TABLE students ADD COLUMN lms_id TEXT;
ALTER TABLE students ADD COLUMN lms_role TEXT;

CREATE TABLE lti_states (
    state TEXT PRIMARY KEY,
    nonce TEXT NOT NULL,
    created_at INTEGER NOT NULL
);

CREATE TABLE lti_links (
    student TEXT NOT NULL REFERENCES students(id),
    assignment TEXT NOT NULL,
    lineitem TEXT,
    lineitems TEXT,
    memberships TEXT,
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (student, assignment)
);

CREATE TABLE lti_lineitems (
    lineitems TEXT NOT NULL,
    assignment TEXT NOT NULL,
    lineitem TEXT NOT NULL,
    PRIMARY KEY (lineitems, assignment)
);

CREATE TABLE lti_scores (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    submission INTEGER NOT NULL,
    generation INTEGER NOT NULL,
    student TEXT NOT NULL,
    assignment TEXT NOT NULL,
    score_given REAL NOT NULL,
    score_maximum REAL NOT NULL,
    created_at INTEGER NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    next_at INTEGER NOT NULL,
    claimed_until INTEGER NOT NULL DEFAULT 0,
    sent_at INTEGER,
    last_error TEXT,
    UNIQUE (submission, generation)
);

-- The platform's service addresses the latest launch named (the roster's: memberships).
CREATE TABLE lti_services (
    name TEXT PRIMARY KEY,
    url TEXT NOT NULL,
    updated_at INTEGER NOT NULL
);
