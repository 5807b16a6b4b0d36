-- A student's own deadline for an assignment (an accommodation, an extension): from the course
-- folder's extensions.csv (source 'file', replaced whole each time the file is read) or granted
-- on the instructor's pages or through the API (source 'granted'). The deadline is kept as
-- written, with its offset (RFC 3339), and as seconds since the epoch for comparing.
CREATE TABLE extensions (
    student TEXT NOT NULL REFERENCES students(id),
    assignment TEXT NOT NULL,
    deadline TEXT NOT NULL,
    deadline_at BIGINT NOT NULL,
    source TEXT NOT NULL,
    granted_at BIGINT NOT NULL,
    PRIMARY KEY (student, assignment)
);
