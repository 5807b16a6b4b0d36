-- The bytes of every file handed in, once per SHA-256: uploads live in the database, so that
-- a worker on another machine needs nothing but the database and the course's cases.
CREATE TABLE blobs (
    hash TEXT PRIMARY KEY,
    bytes BLOB NOT NULL
);
