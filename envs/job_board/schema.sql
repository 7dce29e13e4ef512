-- job_board: a job marketplace (companies, recruiters, postings, candidates, applications, interviews, offers).
-- Timestamps are ISO-8601 text without time zone ("2026-05-20T09:00:00"), dates "YYYY-MM-DD".
-- Salaries are whole US dollars per year.

CREATE TABLE companies (
    id          INTEGER PRIMARY KEY,
    name        TEXT NOT NULL UNIQUE,
    slug        TEXT NOT NULL UNIQUE,
    industry    TEXT NOT NULL,
    hq_city     TEXT NOT NULL,
    size_band   TEXT NOT NULL CHECK (size_band IN ('1-50', '51-200', '201-1000', '1000+')),
    verified    INTEGER NOT NULL DEFAULT 0 CHECK (verified IN (0, 1)),
    created_at  TEXT NOT NULL
);

CREATE TABLE recruiters (
    id          INTEGER PRIMARY KEY,
    company_id  INTEGER NOT NULL REFERENCES companies(id),
    full_name   TEXT NOT NULL,
    email       TEXT NOT NULL UNIQUE,
    title       TEXT NOT NULL,
    role        TEXT NOT NULL CHECK (role IN ('admin', 'recruiter')),
    is_active   INTEGER NOT NULL DEFAULT 1 CHECK (is_active IN (0, 1)),
    created_at  TEXT NOT NULL
);

CREATE TABLE skills (
    id    INTEGER PRIMARY KEY,
    name  TEXT NOT NULL UNIQUE
);

CREATE TABLE job_postings (
    id               INTEGER PRIMARY KEY,
    reference        TEXT NOT NULL UNIQUE,
    company_id       INTEGER NOT NULL REFERENCES companies(id),
    recruiter_id     INTEGER NOT NULL REFERENCES recruiters(id),
    title            TEXT NOT NULL,
    department       TEXT NOT NULL,
    location         TEXT NOT NULL,
    remote_policy    TEXT NOT NULL CHECK (remote_policy IN ('onsite', 'hybrid', 'remote')),
    employment_type  TEXT NOT NULL CHECK (employment_type IN ('full_time', 'part_time', 'contract', 'internship')),
    seniority        TEXT NOT NULL CHECK (seniority IN ('junior', 'mid', 'senior', 'lead')),
    salary_min       INTEGER NOT NULL CHECK (salary_min >= 15000),
    salary_max       INTEGER NOT NULL CHECK (salary_max <= 1000000),
    openings         INTEGER NOT NULL DEFAULT 1 CHECK (openings BETWEEN 1 AND 20),
    status           TEXT NOT NULL CHECK (status IN ('draft', 'open', 'paused', 'closed')),
    description      TEXT NOT NULL DEFAULT '',
    closes_on        TEXT NOT NULL,
    created_at       TEXT NOT NULL,
    posted_at        TEXT,
    closed_at        TEXT,
    updated_at       TEXT NOT NULL,
    CHECK (salary_max >= salary_min),
    CHECK (salary_max * 10 <= salary_min * 16),
    CHECK ((status = 'closed') = (closed_at IS NOT NULL)),
    CHECK (status = 'draft' OR posted_at IS NOT NULL OR status = 'closed')
);

CREATE TABLE posting_skills (
    id          INTEGER PRIMARY KEY,
    posting_id  INTEGER NOT NULL REFERENCES job_postings(id),
    skill_id    INTEGER NOT NULL REFERENCES skills(id),
    required    INTEGER NOT NULL DEFAULT 1 CHECK (required IN (0, 1)),
    UNIQUE (posting_id, skill_id)
);

CREATE TABLE screening_questions (
    id              INTEGER PRIMARY KEY,
    posting_id      INTEGER NOT NULL REFERENCES job_postings(id),
    position        INTEGER NOT NULL CHECK (position BETWEEN 1 AND 10),
    question        TEXT NOT NULL,
    answer_type     TEXT NOT NULL CHECK (answer_type IN ('yes_no', 'number', 'text')),
    required        INTEGER NOT NULL DEFAULT 1 CHECK (required IN (0, 1)),
    knockout_answer TEXT CHECK (knockout_answer IS NULL OR knockout_answer IN ('yes', 'no')),
    UNIQUE (posting_id, position),
    CHECK (knockout_answer IS NULL OR answer_type = 'yes_no')
);

CREATE TABLE candidates (
    id                INTEGER PRIMARY KEY,
    full_name         TEXT NOT NULL,
    email             TEXT NOT NULL UNIQUE,
    phone             TEXT NOT NULL,
    city              TEXT NOT NULL,
    headline          TEXT NOT NULL DEFAULT '',
    years_experience  INTEGER NOT NULL CHECK (years_experience BETWEEN 0 AND 50),
    open_to_remote    INTEGER NOT NULL DEFAULT 1 CHECK (open_to_remote IN (0, 1)),
    created_at        TEXT NOT NULL
);

CREATE TABLE candidate_skills (
    id            INTEGER PRIMARY KEY,
    candidate_id  INTEGER NOT NULL REFERENCES candidates(id),
    skill_id      INTEGER NOT NULL REFERENCES skills(id),
    level         INTEGER NOT NULL CHECK (level BETWEEN 1 AND 5),
    UNIQUE (candidate_id, skill_id)
);

CREATE TABLE resumes (
    id            INTEGER PRIMARY KEY,
    candidate_id  INTEGER NOT NULL REFERENCES candidates(id),
    filename      TEXT NOT NULL,
    title         TEXT NOT NULL,
    is_primary    INTEGER NOT NULL DEFAULT 0 CHECK (is_primary IN (0, 1)),
    uploaded_at   TEXT NOT NULL,
    UNIQUE (candidate_id, filename)
);

CREATE UNIQUE INDEX one_primary_resume ON resumes(candidate_id) WHERE is_primary = 1;

CREATE TABLE applications (
    id                INTEGER PRIMARY KEY,
    posting_id        INTEGER NOT NULL REFERENCES job_postings(id),
    candidate_id      INTEGER NOT NULL REFERENCES candidates(id),
    resume_id         INTEGER NOT NULL REFERENCES resumes(id),
    status            TEXT NOT NULL CHECK (status IN ('applied', 'screening', 'interview', 'offer', 'hired', 'rejected', 'withdrawn')),
    cover_note        TEXT NOT NULL DEFAULT '',
    rejection_reason  TEXT,
    applied_at        TEXT NOT NULL,
    updated_at        TEXT NOT NULL,
    UNIQUE (posting_id, candidate_id),
    CHECK ((status = 'rejected') = (rejection_reason IS NOT NULL))
);

CREATE TABLE screening_answers (
    id              INTEGER PRIMARY KEY,
    application_id  INTEGER NOT NULL REFERENCES applications(id),
    question_id     INTEGER NOT NULL REFERENCES screening_questions(id),
    answer          TEXT NOT NULL,
    UNIQUE (application_id, question_id)
);

-- Every status change of an application, in order.
CREATE TABLE application_events (
    id              INTEGER PRIMARY KEY,
    application_id  INTEGER NOT NULL REFERENCES applications(id),
    from_status     TEXT,
    to_status       TEXT NOT NULL CHECK (to_status IN ('applied', 'screening', 'interview', 'offer', 'hired', 'rejected', 'withdrawn')),
    actor_type      TEXT NOT NULL CHECK (actor_type IN ('candidate', 'recruiter', 'system')),
    recruiter_id    INTEGER REFERENCES recruiters(id),
    note            TEXT NOT NULL DEFAULT '',
    created_at      TEXT NOT NULL,
    CHECK ((actor_type = 'recruiter') = (recruiter_id IS NOT NULL))
);

CREATE TABLE interviews (
    id              INTEGER PRIMARY KEY,
    application_id  INTEGER NOT NULL REFERENCES applications(id),
    interviewer_id  INTEGER NOT NULL REFERENCES recruiters(id),
    kind            TEXT NOT NULL CHECK (kind IN ('phone', 'video', 'onsite')),
    starts_at       TEXT NOT NULL,
    ends_at         TEXT NOT NULL,
    status          TEXT NOT NULL CHECK (status IN ('scheduled', 'completed', 'cancelled')),
    rating          INTEGER CHECK (rating IS NULL OR rating BETWEEN 1 AND 5),
    feedback        TEXT NOT NULL DEFAULT '',
    created_at      TEXT NOT NULL,
    CHECK (ends_at > starts_at),
    CHECK ((status = 'completed') = (rating IS NOT NULL))
);

CREATE TABLE offers (
    id              INTEGER PRIMARY KEY,
    application_id  INTEGER NOT NULL REFERENCES applications(id),
    salary          INTEGER NOT NULL CHECK (salary > 0),
    start_date      TEXT NOT NULL,
    expires_on      TEXT NOT NULL,
    status          TEXT NOT NULL CHECK (status IN ('extended', 'accepted', 'declined', 'expired', 'rescinded')),
    created_by      INTEGER NOT NULL REFERENCES recruiters(id),
    created_at      TEXT NOT NULL,
    responded_at    TEXT,
    CHECK (start_date > expires_on),
    CHECK ((status = 'extended') = (responded_at IS NULL) OR status = 'expired')
);

CREATE UNIQUE INDEX one_live_offer ON offers(application_id) WHERE status IN ('extended', 'accepted');

CREATE TABLE saved_jobs (
    id            INTEGER PRIMARY KEY,
    candidate_id  INTEGER NOT NULL REFERENCES candidates(id),
    posting_id    INTEGER NOT NULL REFERENCES job_postings(id),
    created_at    TEXT NOT NULL,
    UNIQUE (candidate_id, posting_id)
);

CREATE TABLE job_alerts (
    id            INTEGER PRIMARY KEY,
    candidate_id  INTEGER NOT NULL REFERENCES candidates(id),
    keywords      TEXT NOT NULL,
    location      TEXT,
    remote_only   INTEGER NOT NULL DEFAULT 0 CHECK (remote_only IN (0, 1)),
    min_salary    INTEGER CHECK (min_salary IS NULL OR min_salary > 0),
    frequency     TEXT NOT NULL CHECK (frequency IN ('daily', 'weekly')),
    is_active     INTEGER NOT NULL DEFAULT 1 CHECK (is_active IN (0, 1)),
    created_at    TEXT NOT NULL
);

CREATE INDEX idx_postings_status ON job_postings(status, company_id);
CREATE INDEX idx_applications_posting ON applications(posting_id, status);
CREATE INDEX idx_applications_candidate ON applications(candidate_id);
CREATE INDEX idx_interviews_interviewer ON interviews(interviewer_id, starts_at);
CREATE INDEX idx_events_application ON application_events(application_id);
