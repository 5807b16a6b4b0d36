-- The course server's own tables (apalis keeps its queue in tables of its own, Jobs and
-- Workers, made by its migrations).
CREATE TABLE students (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    email TEXT NOT NULL
);

-- Login links: a random 128-bit token per student (student set) or for the instructor
-- (student NULL), kept only as its SHA-256.
CREATE TABLE tokens (
    hash TEXT PRIMARY KEY,
    student TEXT REFERENCES students(id),
    created_at INTEGER NOT NULL,
    revoked_at INTEGER
);

-- A session begins when a link is opened: a fresh random id (its SHA-256 kept) and the CSRF
-- token its forms carry.
CREATE TABLE sessions (
    hash TEXT PRIMARY KEY,
    token TEXT NOT NULL REFERENCES tokens(hash),
    csrf TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    ended_at INTEGER
);

CREATE TABLE submissions (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    student TEXT NOT NULL REFERENCES students(id),
    assignment TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    late INTEGER NOT NULL,
    -- queued, building, running, graded, could not build, could not run
    status TEXT NOT NULL,
    -- Bumped by a regrade: only a job of the current generation records a result.
    generation INTEGER NOT NULL DEFAULT 0,
    cases_done INTEGER NOT NULL DEFAULT 0,
    cases_total INTEGER NOT NULL DEFAULT 0,
    score REAL,
    max_score REAL,
    error TEXT,
    graded_at INTEGER,
    -- The row grade keeps in results/<id>.json (report::Submission), as JSON.
    row TEXT,
    -- The check --json document and the check --html page: the instructor's (every case
    -- whole), and the students' before and after the deadline.
    report_full TEXT,
    report_students TEXT,
    report_before TEXT,
    html_full TEXT,
    html_students TEXT,
    html_before TEXT,
    -- The first failing case's block of each cause, by case id (the class report's).
    blocks TEXT
);
CREATE INDEX submissions_by_student ON submissions (student, assignment, created_at);

-- The files of a submission, by name, each stored once under its SHA-256.
CREATE TABLE files (
    submission INTEGER NOT NULL REFERENCES submissions(id),
    name TEXT NOT NULL,
    hash TEXT NOT NULL,
    size INTEGER NOT NULL,
    PRIMARY KEY (submission, name)
);

-- Regrades, and whose score each moved, and why.
CREATE TABLE regrades (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    assignment TEXT NOT NULL,
    at INTEGER NOT NULL
);
CREATE TABLE regrade_changes (
    regrade INTEGER NOT NULL REFERENCES regrades(id),
    submission INTEGER NOT NULL REFERENCES submissions(id),
    student TEXT NOT NULL,
    old_score REAL,
    new_score REAL,
    why TEXT NOT NULL
);

-- Failed login attempts, by client address, for the rate limit.
CREATE TABLE login_failures (
    addr TEXT NOT NULL,
    at INTEGER NOT NULL
);
CREATE INDEX login_failures_by_addr ON login_failures (addr, at);
