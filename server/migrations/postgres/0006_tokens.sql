-- A login link is used once: opening it opens a session and spends it (used_at). A session
-- remembers the browser it lives in by a second, non-secret id (its SHA-256 kept), sent even
-- when a link is opened from another site, so that a link of another student asks first.
-- API tokens are their own credentials: made on the student's (or instructor's) page or by
-- --api-tokens, one live per person, revocable; a link is no API token.
ALTER TABLE tokens ADD COLUMN used_at BIGINT;
ALTER TABLE sessions ADD COLUMN browser TEXT;

CREATE TABLE api_tokens (
    hash TEXT PRIMARY KEY,
    student TEXT REFERENCES students(id),
    created_at BIGINT NOT NULL,
    revoked_at BIGINT
);
