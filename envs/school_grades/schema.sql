-- school_grades: records of one secondary school (grades 9-12).
-- Timestamps are ISO-8601 text without time zone ("2026-03-18T09:00:00"), dates "YYYY-MM-DD", times "HH:MM".
-- Percentages are REAL 0-100; points are REAL.

CREATE TABLE terms (
    id          INTEGER PRIMARY KEY,
    code        TEXT NOT NULL UNIQUE,
    name        TEXT NOT NULL UNIQUE,
    start_date  TEXT NOT NULL,
    end_date    TEXT NOT NULL,
    status      TEXT NOT NULL CHECK (status IN ('planning', 'active', 'grading', 'closed')),
    CHECK (end_date > start_date)
);

CREATE TABLE departments (
    id      INTEGER PRIMARY KEY,
    code    TEXT NOT NULL UNIQUE,
    name    TEXT NOT NULL UNIQUE
);

-- Staff: teachers, heads of department and the registrar.
CREATE TABLE teachers (
    id              INTEGER PRIMARY KEY,
    department_id   INTEGER REFERENCES departments(id),
    full_name       TEXT NOT NULL,
    email           TEXT NOT NULL UNIQUE,
    role            TEXT NOT NULL CHECK (role IN ('teacher', 'head_of_department', 'registrar')),
    is_active       INTEGER NOT NULL DEFAULT 1 CHECK (is_active IN (0, 1)),
    CHECK (role = 'registrar' OR department_id IS NOT NULL)
);

CREATE TABLE students (
    id              INTEGER PRIMARY KEY,
    student_number  TEXT NOT NULL UNIQUE CHECK (length(student_number) = 7),
    full_name       TEXT NOT NULL,
    email           TEXT NOT NULL UNIQUE,
    grade_level     INTEGER NOT NULL CHECK (grade_level BETWEEN 9 AND 12),
    date_of_birth   TEXT NOT NULL,
    status          TEXT NOT NULL CHECK (status IN ('enrolled', 'withdrawn'))
);

CREATE TABLE guardians (
    id          INTEGER PRIMARY KEY,
    full_name   TEXT NOT NULL,
    email       TEXT NOT NULL UNIQUE,
    phone       TEXT NOT NULL
);

CREATE TABLE student_guardians (
    id              INTEGER PRIMARY KEY,
    student_id      INTEGER NOT NULL REFERENCES students(id),
    guardian_id     INTEGER NOT NULL REFERENCES guardians(id),
    relationship    TEXT NOT NULL CHECK (relationship IN ('mother', 'father', 'guardian', 'grandparent')),
    is_primary      INTEGER NOT NULL DEFAULT 0 CHECK (is_primary IN (0, 1)),
    UNIQUE (student_id, guardian_id)
);

CREATE TABLE courses (
    id              INTEGER PRIMARY KEY,
    department_id   INTEGER NOT NULL REFERENCES departments(id),
    code            TEXT NOT NULL UNIQUE,
    title           TEXT NOT NULL,
    credits         REAL NOT NULL CHECK (credits > 0),
    min_grade_level INTEGER NOT NULL CHECK (min_grade_level BETWEEN 9 AND 12)
);

-- To enrol in course_id a student must have completed prereq_course_id with at least min_percent.
CREATE TABLE course_prerequisites (
    id                  INTEGER PRIMARY KEY,
    course_id           INTEGER NOT NULL REFERENCES courses(id),
    prereq_course_id    INTEGER NOT NULL REFERENCES courses(id),
    min_percent         REAL NOT NULL CHECK (min_percent BETWEEN 0 AND 100),
    UNIQUE (course_id, prereq_course_id),
    CHECK (course_id <> prereq_course_id)
);

-- A class of a course in a term. meeting_days: 'MWF' or 'TR' (Tuesday/Thursday).
CREATE TABLE sections (
    id              INTEGER PRIMARY KEY,
    course_id       INTEGER NOT NULL REFERENCES courses(id),
    term_id         INTEGER NOT NULL REFERENCES terms(id),
    section_code    TEXT NOT NULL,
    teacher_id      INTEGER NOT NULL REFERENCES teachers(id),
    room            TEXT NOT NULL,
    meeting_days    TEXT NOT NULL CHECK (meeting_days IN ('MWF', 'TR')),
    start_time      TEXT NOT NULL CHECK (start_time GLOB '[0-2][0-9]:[0-5][0-9]'),
    end_time        TEXT NOT NULL CHECK (end_time GLOB '[0-2][0-9]:[0-5][0-9]'),
    capacity        INTEGER NOT NULL CHECK (capacity > 0),
    UNIQUE (term_id, section_code),
    CHECK (end_time > start_time)
);

CREATE TABLE enrolments (
    id              INTEGER PRIMARY KEY,
    student_id      INTEGER NOT NULL REFERENCES students(id),
    section_id      INTEGER NOT NULL REFERENCES sections(id),
    status          TEXT NOT NULL CHECK (status IN ('enrolled', 'dropped', 'completed')),
    enrolled_at     TEXT NOT NULL,
    dropped_at      TEXT,
    final_percent   REAL CHECK (final_percent IS NULL OR final_percent BETWEEN 0 AND 100),
    final_letter    TEXT CHECK (final_letter IS NULL OR final_letter IN ('A', 'B', 'C', 'D', 'F')),
    UNIQUE (student_id, section_id),
    CHECK ((status = 'dropped') = (dropped_at IS NOT NULL)),
    CHECK ((final_percent IS NULL) = (final_letter IS NULL)),
    CHECK (status <> 'completed' OR final_percent IS NOT NULL)
);

-- Weighted grade categories of a section; the weights of a section add up to 100.
CREATE TABLE grade_categories (
    id          INTEGER PRIMARY KEY,
    section_id  INTEGER NOT NULL REFERENCES sections(id),
    name        TEXT NOT NULL CHECK (name IN ('homework', 'quizzes', 'tests', 'project', 'participation')),
    weight      REAL NOT NULL CHECK (weight > 0 AND weight <= 100),
    UNIQUE (section_id, name)
);

CREATE TABLE assignments (
    id                      INTEGER PRIMARY KEY,
    section_id              INTEGER NOT NULL REFERENCES sections(id),
    category_id             INTEGER NOT NULL REFERENCES grade_categories(id),
    title                   TEXT NOT NULL,
    max_points              REAL NOT NULL CHECK (max_points > 0),
    due_at                  TEXT NOT NULL,
    late_penalty_per_day    REAL NOT NULL CHECK (late_penalty_per_day BETWEEN 0 AND 100),
    max_late_days           INTEGER NOT NULL CHECK (max_late_days >= 0),
    status                  TEXT NOT NULL CHECK (status IN ('draft', 'published')),
    created_at              TEXT NOT NULL,
    UNIQUE (section_id, title)
);

CREATE TABLE submissions (
    id              INTEGER PRIMARY KEY,
    assignment_id   INTEGER NOT NULL REFERENCES assignments(id),
    student_id      INTEGER NOT NULL REFERENCES students(id),
    submitted_at    TEXT NOT NULL,
    days_late       INTEGER NOT NULL CHECK (days_late >= 0),
    UNIQUE (assignment_id, student_id)
);

-- points = raw_points reduced by late_penalty_pct percent.
CREATE TABLE grades (
    id                  INTEGER PRIMARY KEY,
    assignment_id       INTEGER NOT NULL REFERENCES assignments(id),
    student_id          INTEGER NOT NULL REFERENCES students(id),
    raw_points          REAL NOT NULL CHECK (raw_points >= 0),
    late_penalty_pct    REAL NOT NULL DEFAULT 0 CHECK (late_penalty_pct BETWEEN 0 AND 100),
    points              REAL NOT NULL CHECK (points >= 0),
    graded_by           INTEGER NOT NULL REFERENCES teachers(id),
    graded_at           TEXT NOT NULL,
    comment             TEXT NOT NULL DEFAULT '',
    UNIQUE (assignment_id, student_id),
    CHECK (points <= raw_points)
);

CREATE TABLE attendance (
    id          INTEGER PRIMARY KEY,
    section_id  INTEGER NOT NULL REFERENCES sections(id),
    student_id  INTEGER NOT NULL REFERENCES students(id),
    day         TEXT NOT NULL,
    status      TEXT NOT NULL CHECK (status IN ('present', 'absent', 'late', 'excused')),
    recorded_by INTEGER NOT NULL REFERENCES teachers(id),
    UNIQUE (section_id, student_id, day)
);

CREATE TABLE report_cards (
    id              INTEGER PRIMARY KEY,
    student_id      INTEGER NOT NULL REFERENCES students(id),
    term_id         INTEGER NOT NULL REFERENCES terms(id),
    status          TEXT NOT NULL CHECK (status IN ('draft', 'published')),
    comment         TEXT NOT NULL DEFAULT '',
    gpa             REAL CHECK (gpa IS NULL OR gpa BETWEEN 0 AND 4),
    created_at      TEXT NOT NULL,
    published_at    TEXT,
    published_by    INTEGER REFERENCES teachers(id),
    UNIQUE (student_id, term_id),
    CHECK ((status = 'published') = (published_at IS NOT NULL AND published_by IS NOT NULL))
);

CREATE TABLE report_card_lines (
    id              INTEGER PRIMARY KEY,
    report_card_id  INTEGER NOT NULL REFERENCES report_cards(id),
    section_id      INTEGER NOT NULL REFERENCES sections(id),
    final_percent   REAL NOT NULL CHECK (final_percent BETWEEN 0 AND 100),
    final_letter    TEXT NOT NULL CHECK (final_letter IN ('A', 'B', 'C', 'D', 'F')),
    UNIQUE (report_card_id, section_id)
);

CREATE TABLE messages (
    id          INTEGER PRIMARY KEY,
    teacher_id  INTEGER NOT NULL REFERENCES teachers(id),
    guardian_id INTEGER NOT NULL REFERENCES guardians(id),
    student_id  INTEGER NOT NULL REFERENCES students(id),
    subject     TEXT NOT NULL CHECK (length(subject) BETWEEN 1 AND 120),
    body        TEXT NOT NULL CHECK (length(body) BETWEEN 1 AND 4000),
    sent_at     TEXT NOT NULL
);

CREATE TABLE grade_appeals (
    id              INTEGER PRIMARY KEY,
    grade_id        INTEGER NOT NULL REFERENCES grades(id),
    student_id      INTEGER NOT NULL REFERENCES students(id),
    reason          TEXT NOT NULL CHECK (length(reason) >= 1),
    status          TEXT NOT NULL CHECK (status IN ('opened', 'accepted', 'rejected')),
    opened_at       TEXT NOT NULL,
    decided_by      INTEGER REFERENCES teachers(id),
    decided_at      TEXT,
    decision_note   TEXT,
    CHECK ((status = 'opened') = (decided_at IS NULL)),
    CHECK ((status = 'opened') = (decided_by IS NULL))
);

CREATE INDEX idx_sections_term ON sections(term_id, course_id);
CREATE INDEX idx_enrol_student ON enrolments(student_id, status);
CREATE INDEX idx_enrol_section ON enrolments(section_id, status);
CREATE INDEX idx_assign_section ON assignments(section_id);
CREATE INDEX idx_grades_student ON grades(student_id);
CREATE INDEX idx_attendance_student ON attendance(student_id, section_id);
