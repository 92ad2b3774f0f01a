"""The first schema of a project (migration 0001), kept as its SQL text.

Later migrations (store/schema.py) only ever change it by adding to it.
"""

V1_SQL = """
CREATE TABLE project_meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

CREATE TABLE annotators (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE COLLATE NOCASE CHECK (length(trim(name)) > 0),
    created_at TEXT NOT NULL
);

CREATE TABLE audit_log (
    id INTEGER PRIMARY KEY,
    at TEXT NOT NULL,
    annotator_id INTEGER REFERENCES annotators(id),
    action TEXT NOT NULL,
    table_name TEXT NOT NULL,
    row_id TEXT NOT NULL,
    detail TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX audit_log_at ON audit_log(at, id);

-- Images that cannot be re-rendered from state (imported observations), once per content.
CREATE TABLE images (
    sha256 TEXT PRIMARY KEY,
    mime TEXT NOT NULL,
    width INTEGER,
    height INTEGER,
    data BLOB NOT NULL,
    created_at TEXT NOT NULL
);

CREATE TABLE scenes (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    benchmark TEXT NOT NULL,
    seed INTEGER,
    generator TEXT NOT NULL DEFAULT '',
    camera TEXT NOT NULL DEFAULT '{}',
    state TEXT NOT NULL DEFAULT '{}',
    created_at TEXT NOT NULL,
    created_by INTEGER REFERENCES annotators(id)
);

CREATE TABLE scene_bodies (
    id INTEGER PRIMARY KEY,
    scene_id INTEGER NOT NULL REFERENCES scenes(id) ON DELETE CASCADE,
    body_key TEXT NOT NULL,
    name TEXT NOT NULL,
    category TEXT NOT NULL DEFAULT '',
    asset TEXT NOT NULL,
    size TEXT,
    scale REAL NOT NULL DEFAULT 1.0,
    rgba TEXT,
    texture TEXT,
    position TEXT NOT NULL,
    orientation TEXT NOT NULL,
    fixed INTEGER NOT NULL DEFAULT 0,
    joints TEXT NOT NULL DEFAULT '{}',
    UNIQUE (scene_id, body_key)
);

CREATE TABLE sequences (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    root TEXT NOT NULL,
    calibration TEXT NOT NULL DEFAULT '{}',
    imported_at TEXT NOT NULL
);

CREATE TABLE frames (
    id INTEGER PRIMARY KEY,
    sequence_id INTEGER NOT NULL REFERENCES sequences(id) ON DELETE CASCADE,
    frame_index INTEGER NOT NULL,
    image_path TEXT,
    pointcloud_paths TEXT NOT NULL DEFAULT '[]',
    UNIQUE (sequence_id, frame_index)
);

CREATE TABLE entities (
    id INTEGER PRIMARY KEY,
    sequence_id INTEGER REFERENCES sequences(id) ON DELETE CASCADE,
    scene_id INTEGER REFERENCES scenes(id) ON DELETE CASCADE,
    entity_key TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('human', 'object', 'robot', 'surface')),
    category TEXT NOT NULL DEFAULT '',
    attributes TEXT NOT NULL DEFAULT '{}',
    UNIQUE (sequence_id, scene_id, entity_key)
);

CREATE TABLE boxes_2d (
    id INTEGER PRIMARY KEY,
    entity_id INTEGER NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
    frame_id INTEGER NOT NULL REFERENCES frames(id) ON DELETE CASCADE,
    x REAL NOT NULL, y REAL NOT NULL, w REAL NOT NULL, h REAL NOT NULL,
    attributes TEXT NOT NULL DEFAULT '{}',
    source TEXT NOT NULL DEFAULT 'import',
    UNIQUE (entity_id, frame_id)
);
CREATE INDEX boxes_2d_frame ON boxes_2d(frame_id);

CREATE TABLE boxes_3d (
    id INTEGER PRIMARY KEY,
    entity_id INTEGER NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
    frame_id INTEGER NOT NULL REFERENCES frames(id) ON DELETE CASCADE,
    cx REAL NOT NULL, cy REAL NOT NULL, cz REAL NOT NULL,
    l REAL NOT NULL, w REAL NOT NULL, h REAL NOT NULL,
    rot_z REAL NOT NULL,
    attributes TEXT NOT NULL DEFAULT '{}',
    source TEXT NOT NULL DEFAULT 'import',
    UNIQUE (entity_id, frame_id)
);
CREATE INDEX boxes_3d_frame ON boxes_3d(frame_id);

CREATE TABLE hoi_labels (
    id INTEGER PRIMARY KEY,
    frame_id INTEGER NOT NULL REFERENCES frames(id) ON DELETE CASCADE,
    subject_entity_id INTEGER NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
    object_entity_id INTEGER REFERENCES entities(id) ON DELETE CASCADE,
    category TEXT NOT NULL,
    predicate TEXT NOT NULL,
    difficulty INTEGER NOT NULL CHECK (difficulty IN (1, 2, 3)),
    annotator_id INTEGER NOT NULL REFERENCES annotators(id),
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE INDEX hoi_labels_frame ON hoi_labels(frame_id);
CREATE INDEX hoi_labels_annotator ON hoi_labels(annotator_id);

CREATE TABLE hoi_reviews (
    id INTEGER PRIMARY KEY,
    label_id INTEGER NOT NULL REFERENCES hoi_labels(id) ON DELETE CASCADE,
    reviewer_id INTEGER NOT NULL REFERENCES annotators(id),
    verdict TEXT NOT NULL CHECK (verdict IN ('accept', 'reject', 'fix')),
    difficulty INTEGER CHECK (difficulty IS NULL OR difficulty IN (1, 2, 3)),
    comment TEXT NOT NULL DEFAULT '',
    created_at TEXT NOT NULL,
    UNIQUE (label_id, reviewer_id)
);

-- A question is a chain of versions sharing a uid; a correction adds a version
-- and clears is_current on the old one, which is kept.
CREATE TABLE questions (
    id INTEGER PRIMARY KEY,
    uid TEXT NOT NULL,
    version INTEGER NOT NULL,
    benchmark TEXT NOT NULL,
    task TEXT NOT NULL,
    text TEXT NOT NULL,
    options TEXT,
    answer TEXT NOT NULL,
    evidence_ids TEXT NOT NULL DEFAULT '[]',
    steps TEXT NOT NULL DEFAULT '[]',
    difficulty_s INTEGER, difficulty_r INTEGER, difficulty_t INTEGER, difficulty_d INTEGER,
    criteria TEXT NOT NULL DEFAULT '{}',
    status TEXT NOT NULL DEFAULT 'pending'
        CHECK (status IN ('pending', 'approved', 'corrected', 'excluded')),
    is_current INTEGER NOT NULL DEFAULT 1,
    scene_id INTEGER REFERENCES scenes(id),
    sequence_id INTEGER REFERENCES sequences(id),
    seed INTEGER,
    created_at TEXT NOT NULL,
    created_by INTEGER REFERENCES annotators(id),
    UNIQUE (uid, version)
);
CREATE INDEX questions_status_page ON questions(is_current, status, created_at, id);
CREATE INDEX questions_task_page ON questions(is_current, benchmark, task, id);

CREATE TABLE verifications (
    id INTEGER PRIMARY KEY,
    question_id INTEGER NOT NULL REFERENCES questions(id) ON DELETE CASCADE,
    annotator_id INTEGER NOT NULL REFERENCES annotators(id),
    unambiguous INTEGER NOT NULL,
    evidence_withheld INTEGER NOT NULL,
    evidence_recoverable INTEGER NOT NULL,
    decision TEXT NOT NULL CHECK (decision IN ('approve', 'correct', 'reject')),
    reason TEXT NOT NULL DEFAULT '',
    corrected_question_id INTEGER REFERENCES questions(id),
    created_at TEXT NOT NULL,
    UNIQUE (question_id, annotator_id)
);

CREATE TABLE episodes (
    id INTEGER PRIMARY KEY,
    uid TEXT NOT NULL UNIQUE,
    benchmark TEXT NOT NULL,
    model TEXT NOT NULL DEFAULT '',
    agent TEXT NOT NULL DEFAULT '',
    mode TEXT NOT NULL DEFAULT '',
    task TEXT NOT NULL DEFAULT '',
    question_id INTEGER REFERENCES questions(id),
    scene_id INTEGER REFERENCES scenes(id),
    outcome TEXT NOT NULL DEFAULT '',
    success INTEGER,
    score REAL,
    header TEXT NOT NULL DEFAULT '{}',
    source TEXT NOT NULL DEFAULT '',
    created_at TEXT NOT NULL
);
CREATE INDEX episodes_filter ON episodes(model, task, mode);

CREATE TABLE steps (
    id INTEGER PRIMARY KEY,
    episode_id INTEGER NOT NULL REFERENCES episodes(id) ON DELETE CASCADE,
    step_index INTEGER NOT NULL,
    kind TEXT NOT NULL
        CHECK (kind IN ('tool', 'action', 'answer', 'observation', 'format_error')),
    name TEXT NOT NULL DEFAULT '',
    arguments TEXT NOT NULL DEFAULT '{}',
    result TEXT,
    ok INTEGER,
    feedback TEXT NOT NULL DEFAULT '',
    model_text TEXT NOT NULL DEFAULT '{}',
    raw_output TEXT NOT NULL DEFAULT '',
    state TEXT,
    image_sha256 TEXT REFERENCES images(sha256),
    UNIQUE (episode_id, step_index)
);
CREATE INDEX steps_kind ON steps(kind);

CREATE TABLE error_labels (
    id INTEGER PRIMARY KEY,
    episode_id INTEGER NOT NULL REFERENCES episodes(id) ON DELETE CASCADE,
    step_index INTEGER,
    category TEXT NOT NULL,
    subcategory TEXT NOT NULL DEFAULT '',
    note TEXT NOT NULL DEFAULT '',
    annotator_id INTEGER NOT NULL REFERENCES annotators(id),
    created_at TEXT NOT NULL
);
CREATE INDEX error_labels_episode ON error_labels(episode_id);
"""
