"""The project schema as ordered sqlite-utils migrations.

Each migration is transactional and recorded in `_sqlite_migrations`; the
schema version of a project is the number of migrations of the `reasonscope`
set it has applied. Later capabilities only ever add migrations at the end.
"""

from __future__ import annotations

from sqlite_utils import Database
from sqlite_utils.migrations import Migrations

from store.schema_v1 import V1_SQL

MIGRATION_SET = "reasonscope"
migrations = Migrations(MIGRATION_SET)


@migrations(name="0001_initial_schema")
def m0001_initial_schema(db: Database) -> None:
    for statement in _split(V1_SQL):
        db.execute(statement)
    db.execute("INSERT INTO project_meta(key, value) VALUES ('application', 'reasonscope')")


def _split(script: str) -> list[str]:
    """Split a schema script into statements (no semicolons inside our literals)."""
    lines = [ln for ln in script.splitlines() if not ln.strip().startswith("--")]
    return [s.strip() for s in "\n".join(lines).split(";") if s.strip()]


def known_migration_names() -> list[str]:
    """Every registered migration, in order: what sqlite-utils would apply to an empty file."""
    return [m.name for m in migrations.pending(Database(memory=True))]


@migrations(name="0002_scene_body_roles")
def m0002_scene_body_roles(db: Database) -> None:
    """Which bodies are objects (not fixtures or the robot), for listing and filtering scenes."""
    db.execute("ALTER TABLE scene_bodies ADD COLUMN role TEXT NOT NULL DEFAULT 'object'")
    db.execute("ALTER TABLE scenes ADD COLUMN object_count INTEGER NOT NULL DEFAULT 0")
    db.execute("CREATE INDEX scenes_filter ON scenes(object_count, seed)")


_V3_VERIFICATIONS = """
CREATE TABLE verifications_v3 (
    id INTEGER PRIMARY KEY,
    question_id INTEGER NOT NULL REFERENCES questions(id) ON DELETE CASCADE,
    annotator_id INTEGER NOT NULL REFERENCES annotators(id),
    round TEXT NOT NULL DEFAULT 'first' CHECK (round IN ('first', 'adjudication')),
    unambiguous INTEGER NOT NULL,
    evidence_withheld INTEGER NOT NULL,
    evidence_recoverable INTEGER NOT NULL,
    decision TEXT NOT NULL CHECK (decision IN ('approve', 'correct', 'reject')),
    reason TEXT NOT NULL DEFAULT '',
    corrections TEXT NOT NULL DEFAULT '{}',
    proposed_question_id INTEGER REFERENCES questions(id),
    seconds_on_task REAL CHECK (seconds_on_task IS NULL OR seconds_on_task >= 0),
    created_at TEXT NOT NULL,
    retracted_at TEXT
);

INSERT INTO verifications_v3 (id, question_id, annotator_id, round, unambiguous,
    evidence_withheld, evidence_recoverable, decision, reason, corrections,
    proposed_question_id, seconds_on_task, created_at, retracted_at)
SELECT id, question_id, annotator_id, 'first', unambiguous, evidence_withheld,
    evidence_recoverable, decision, reason, '{}', corrected_question_id, NULL, created_at, NULL
FROM verifications;

DROP TABLE verifications;

ALTER TABLE verifications_v3 RENAME TO verifications;

-- One live verdict per person and question; undone (retracted) verdicts are kept.
CREATE UNIQUE INDEX verifications_live ON verifications(question_id, annotator_id)
    WHERE retracted_at IS NULL;
CREATE INDEX verifications_annotator ON verifications(annotator_id, id);

-- A version a correction verdict proposes: 'proposed' (not current), 'adopted'
-- (made current by the outcome) or 'discarded' (its verdict was undone).
ALTER TABLE questions ADD COLUMN proposal_state TEXT
    CHECK (proposal_state IS NULL OR proposal_state IN ('proposed', 'adopted', 'discarded'))
"""


@migrations(name="0003_verification_protocol")
def m0003_verification_protocol(db: Database) -> None:
    """Blind two-annotator verification: rounds, undo, time on task, proposed corrections.

    The old table's UNIQUE(question_id, annotator_id) would forbid keeping an
    undone verdict, so the table is rebuilt (create, copy, drop, rename) inside
    this migration's transaction; existing verdicts become first-round ones.
    """
    for statement in _split(_V3_VERIFICATIONS):
        db.execute(statement)


_V4_JRDB = """
-- Seconds from the sequence's start (JRDB frames: index / 15 Hz).
ALTER TABLE frames ADD COLUMN timestamp REAL;

-- Where an entity came from: 'import' (a dataset file) or 'annotator' (drawn in the app).
ALTER TABLE entities ADD COLUMN source TEXT NOT NULL DEFAULT 'import';

-- Boxes drawn or adjusted by a person carry source 'annotator', who and when.
ALTER TABLE boxes_2d ADD COLUMN annotator_id INTEGER REFERENCES annotators(id);
ALTER TABLE boxes_2d ADD COLUMN updated_at TEXT;
ALTER TABLE boxes_3d ADD COLUMN annotator_id INTEGER REFERENCES annotators(id);
ALTER TABLE boxes_3d ADD COLUMN updated_at TEXT;
CREATE INDEX entities_sequence ON entities(sequence_id, kind);

-- Per-person, per-frame labels of JRDB-Act/Social: actions, social activities and
-- groups, interactions with another person, demographics; each with JRDB's difficulty.
CREATE TABLE person_labels (
    id INTEGER PRIMARY KEY,
    frame_id INTEGER NOT NULL REFERENCES frames(id) ON DELETE CASCADE,
    entity_id INTEGER NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
    kind TEXT NOT NULL CHECK (kind IN ('action', 'social_activity', 'social_group',
        'interaction', 'gender', 'age', 'race')),
    label TEXT NOT NULL,
    difficulty INTEGER,
    other_entity_id INTEGER REFERENCES entities(id) ON DELETE CASCADE,
    source TEXT NOT NULL DEFAULT 'import'
);
CREATE INDEX person_labels_frame ON person_labels(frame_id, entity_id);

-- Computed spatial relations (JRDB-Reasoning Table 1) of a subject to a reference
-- entity, or to the robot when reference_entity_id is NULL; replaced per frame.
CREATE TABLE geometric_relations (
    id INTEGER PRIMARY KEY,
    frame_id INTEGER NOT NULL REFERENCES frames(id) ON DELETE CASCADE,
    subject_entity_id INTEGER NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
    reference_entity_id INTEGER REFERENCES entities(id) ON DELETE CASCADE,
    direction TEXT NOT NULL,
    vertical TEXT,
    distance_bin TEXT NOT NULL,
    distance_m REAL,
    method TEXT NOT NULL DEFAULT ''
);
CREATE INDEX geometric_relations_frame ON geometric_relations(frame_id, subject_entity_id)
"""


@migrations(name="0004_jrdb_import")
def m0004_jrdb_import(db: Database) -> None:
    """JRDB import: frame timestamps, entity and box provenance, person labels, relations."""
    for statement in _split(_V4_JRDB):
        db.execute(statement)


_V5_HOI_REVIEW = """
-- A label's review round: 1 at first; the author changing a reviewed label starts the next.
ALTER TABLE hoi_labels ADD COLUMN review_round INTEGER NOT NULL DEFAULT 1;
CREATE INDEX hoi_labels_subject ON hoi_labels(subject_entity_id, frame_id);

CREATE TABLE hoi_reviews_v5 (
    id INTEGER PRIMARY KEY,
    label_id INTEGER NOT NULL REFERENCES hoi_labels(id) ON DELETE CASCADE,
    reviewer_id INTEGER NOT NULL REFERENCES annotators(id),
    round INTEGER NOT NULL DEFAULT 1,
    kind TEXT NOT NULL DEFAULT 'review' CHECK (kind IN ('review', 'qc')),
    verdict TEXT NOT NULL CHECK (verdict IN ('accept', 'reject', 'fix')),
    difficulty INTEGER CHECK (difficulty IS NULL OR difficulty IN (1, 2, 3)),
    label_difficulty INTEGER CHECK (label_difficulty IS NULL OR label_difficulty IN (1, 2, 3)),
    comment TEXT NOT NULL DEFAULT '',
    created_at TEXT NOT NULL,
    UNIQUE (label_id, kind, round, reviewer_id)
);

INSERT INTO hoi_reviews_v5 (id, label_id, reviewer_id, round, kind, verdict, difficulty,
    label_difficulty, comment, created_at)
SELECT r.id, r.label_id, r.reviewer_id, 1, 'review', r.verdict, r.difficulty, l.difficulty,
    r.comment, r.created_at
FROM hoi_reviews r JOIN hoi_labels l ON l.id = r.label_id;

DROP TABLE hoi_reviews;

ALTER TABLE hoi_reviews_v5 RENAME TO hoi_reviews;

CREATE INDEX hoi_reviews_reviewer ON hoi_reviews(reviewer_id, kind);

-- The rules hold whoever writes: no review of one's own label, two reviewers per round.
CREATE TRIGGER hoi_reviews_not_own BEFORE INSERT ON hoi_reviews
WHEN NEW.reviewer_id = (SELECT annotator_id FROM hoi_labels WHERE id = NEW.label_id)
BEGIN SELECT RAISE(ABORT, 'annotators cannot review their own label'); END;

CREATE TRIGGER hoi_reviews_two_per_round BEFORE INSERT ON hoi_reviews
WHEN NEW.kind = 'review' AND (SELECT count(*) FROM hoi_reviews WHERE label_id = NEW.label_id
    AND kind = 'review' AND round = NEW.round AND reviewer_id != NEW.reviewer_id) >= 2
BEGIN SELECT RAISE(ABORT, 'a label round takes two reviews'); END;

-- Deleted labels with their reviews (JSON), so that an undo can bring them back and
-- label ids are never given out twice.
CREATE TABLE hoi_label_trash (
    label_id INTEGER PRIMARY KEY,
    record TEXT NOT NULL,
    deleted_at TEXT NOT NULL,
    deleted_by INTEGER REFERENCES annotators(id)
)
"""


@migrations(name="0005_hoi_review_rounds")
def m0005_hoi_review_rounds(db: Database) -> None:
    """HOI review rounds, quality checks, the author's difficulty a review saw, label trash.

    hoi_reviews' UNIQUE(label_id, reviewer_id) would forbid a second round, so the
    table is rebuilt (nothing references it); existing reviews become round-1 reviews.
    """
    for statement in _split_with_triggers(_V5_HOI_REVIEW):
        db.execute(statement)


def _split_with_triggers(script: str) -> list[str]:
    """`_split`, keeping each CREATE TRIGGER ... END whole (its body has semicolons)."""
    out: list[str] = []
    for part in _split(script):
        if out and out[-1].upper().startswith("CREATE TRIGGER") and not out[-1].endswith("END"):
            out[-1] = f"{out[-1]}; {part}"
        else:
            out.append(part)
    return out


_V6_REASONING = """
-- A model's answer (or box) to one question version, scored when imported. question_id is
-- the version row it was scored against; a correction leaves it on the old version (stale).
CREATE TABLE reasoning_predictions (
    id INTEGER PRIMARY KEY,
    question_id INTEGER NOT NULL REFERENCES questions(id) ON DELETE CASCADE,
    model TEXT NOT NULL CHECK (length(trim(model)) > 0),
    answer TEXT,
    step_answers TEXT,
    correct INTEGER NOT NULL CHECK (correct IN (0, 1)),
    iou REAL,
    reason TEXT NOT NULL DEFAULT '',
    step_correct TEXT,
    source TEXT NOT NULL DEFAULT '',
    imported_at TEXT NOT NULL,
    UNIQUE (question_id, model)
);
CREATE INDEX reasoning_predictions_model ON reasoning_predictions(model, question_id);

-- How hard an annotator finds a question, 1 (easy) to 5 (hard), given without seeing its D.
-- One rating per person and question uid (store.reasoning replaces older versions' rating).
CREATE TABLE difficulty_ratings (
    id INTEGER PRIMARY KEY,
    question_id INTEGER NOT NULL REFERENCES questions(id) ON DELETE CASCADE,
    annotator_id INTEGER NOT NULL REFERENCES annotators(id),
    rating INTEGER NOT NULL CHECK (typeof(rating) = 'integer' AND rating BETWEEN 1 AND 5),
    created_at TEXT NOT NULL,
    UNIQUE (question_id, annotator_id)
);
CREATE INDEX difficulty_ratings_annotator ON difficulty_ratings(annotator_id, question_id);

-- The human baseline: an annotator's own answer (VQA) or box (VG), given without seeing
-- the gold answer, scored as a model's prediction is.
CREATE TABLE human_answers (
    id INTEGER PRIMARY KEY,
    question_id INTEGER NOT NULL REFERENCES questions(id) ON DELETE CASCADE,
    annotator_id INTEGER NOT NULL REFERENCES annotators(id),
    answer TEXT NOT NULL,
    correct INTEGER NOT NULL CHECK (correct IN (0, 1)),
    iou REAL,
    reason TEXT NOT NULL DEFAULT '',
    created_at TEXT NOT NULL,
    UNIQUE (question_id, annotator_id)
);
CREATE INDEX human_answers_annotator ON human_answers(annotator_id, question_id)
"""


@migrations(name="0006_reasoning_evaluation")
def m0006_reasoning_evaluation(db: Database) -> None:
    """JRDB-Reasoning evaluation: model predictions, difficulty ratings, human answers."""
    for statement in _split(_V6_REASONING):
        db.execute(statement)


_V7_SPATIAL = """
-- ST-BiBench foundational spatial grounding items: objects on the dual-arm table and the
-- ones asked about. The scene and its head-camera image are re-rendered from these.
CREATE TABLE spatial_items (
    id TEXT PRIMARY KEY,
    setting TEXT NOT NULL CHECK (setting IN ('sparse', 'dense', 'cluttered')),
    seed INTEGER,
    objects TEXT NOT NULL,
    asked TEXT NOT NULL,
    created_at TEXT NOT NULL
);
CREATE INDEX spatial_items_setting ON spatial_items(setting, id);

-- A model's reply to one item, read tolerantly and scored when imported; choices is what
-- could be read ({} for an unreadable reply, with notes saying why).
CREATE TABLE spatial_predictions (
    id INTEGER PRIMARY KEY,
    item_id TEXT NOT NULL REFERENCES spatial_items(id) ON DELETE CASCADE,
    model TEXT NOT NULL CHECK (length(trim(model)) > 0),
    reply TEXT,
    choices TEXT NOT NULL,
    notes TEXT NOT NULL DEFAULT '[]',
    sigma REAL NOT NULL CHECK (sigma > 0),
    score REAL NOT NULL,
    source TEXT NOT NULL DEFAULT '',
    imported_at TEXT NOT NULL,
    UNIQUE (item_id, model)
);
CREATE INDEX spatial_predictions_model ON spatial_predictions(model, item_id);

-- Per asked object: the arm given (NULL: not answered), the proximal arm, |x| and the
-- Gaussian-weighted score with the prediction's sigma.
CREATE TABLE spatial_object_scores (
    prediction_id INTEGER NOT NULL REFERENCES spatial_predictions(id) ON DELETE CASCADE,
    object TEXT NOT NULL,
    predicted TEXT CHECK (predicted IS NULL OR predicted IN ('left', 'right')),
    correct TEXT NOT NULL CHECK (correct IN ('left', 'right')),
    distance REAL NOT NULL,
    score REAL NOT NULL,
    PRIMARY KEY (prediction_id, object)
)
"""


@migrations(name="0007_spatial_grounding")
def m0007_spatial_grounding(db: Database) -> None:
    """ST-BiBench spatial grounding: items, model predictions and per-object scores."""
    for statement in _split(_V7_SPATIAL):
        db.execute(statement)


_V8_LABEL_ENTRIES = """
-- Each person entry of a JRDB labels_2d_activity_social_stitched file, kept as written
-- (box, attributes, action_label, social_group, demographics_info, H-interaction,
-- group_info, ...), so that `export labels` writes every field back unchanged.
CREATE TABLE person_label_entries (
    frame_id INTEGER NOT NULL REFERENCES frames(id) ON DELETE CASCADE,
    entity_id INTEGER NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
    entry TEXT NOT NULL,
    PRIMARY KEY (frame_id, entity_id)
)
"""


@migrations(name="0008_person_label_entries")
def m0008_person_label_entries(db: Database) -> None:
    """JRDB activity/social entries kept whole for a faithful label export."""
    for statement in _split(_V8_LABEL_ENTRIES):
        db.execute(statement)


_V9_STATES = """
-- Simulator state snapshots stored once by content (sha256 of their JSON text), as
-- images are: the episodes of many models on one scene share its snapshots.
-- A rowid table: a WITHOUT ROWID one keeps only ~1 KB of a row in its page and spills
-- the rest of a 1-3 KB snapshot to an overflow page of its own (3x the bytes).
CREATE TABLE states (
    sha256 TEXT PRIMARY KEY,
    size INTEGER NOT NULL,
    data BLOB NOT NULL
);
ALTER TABLE steps ADD COLUMN state_sha256 TEXT REFERENCES states(sha256);
-- What the model endpoint reported for the request behind a step (NULL: no request).
ALTER TABLE steps ADD COLUMN latency_s REAL;
ALTER TABLE steps ADD COLUMN tokens_in INTEGER;
ALTER TABLE steps ADD COLUMN tokens_out INTEGER;
CREATE INDEX episodes_benchmark_model ON episodes(benchmark, model);
-- Covers what metrics count per episode, so they never read the steps' wide rows.
CREATE INDEX steps_facts ON steps(episode_id, kind, name, ok, step_index, latency_s,
                                  tokens_in, tokens_out)
"""


@migrations(name="0009_shared_states_and_usage")
def m0009_shared_states_and_usage(db: Database) -> None:
    """Step states move to a content-addressed table; steps gain latency and token usage."""
    from store.state_blobs import move_inline_states

    for statement in _split(_V9_STATES):
        db.execute(statement)
    move_inline_states(db)


_V10_PACKAGES = """
-- Work packages: one person's assignment sent out as a package file and merged back.
CREATE TABLE packages (
    id TEXT PRIMARY KEY,
    annotator_id INTEGER NOT NULL REFERENCES annotators(id),
    role TEXT NOT NULL CHECK (role IN ('verifier', 'reviewer', 'adjudicator', 'annotator')),
    file TEXT NOT NULL DEFAULT '',
    manifest TEXT NOT NULL,
    content_sha256 TEXT NOT NULL,
    created_at TEXT NOT NULL,
    merged_at TEXT,
    recalled_at TEXT
);

-- An item out in a package (a question version, a label's review round, a frame, an
-- episode), to whom and since when; done_at once merged work covers it, recalled_at
-- when taken back.
CREATE TABLE assignments (
    id INTEGER PRIMARY KEY,
    package_id TEXT NOT NULL REFERENCES packages(id),
    kind TEXT NOT NULL CHECK (kind IN ('question', 'label', 'frame', 'episode')),
    item_id INTEGER NOT NULL,
    version TEXT NOT NULL DEFAULT '',
    annotator_id INTEGER NOT NULL REFERENCES annotators(id),
    role TEXT NOT NULL,
    assigned_at TEXT NOT NULL,
    done_at TEXT,
    recalled_at TEXT
);
-- Nothing is handed to the same person twice (a recalled assignment may go out again).
CREATE UNIQUE INDEX assignments_once ON assignments(kind, item_id, version, annotator_id)
    WHERE recalled_at IS NULL;
CREATE INDEX assignments_item ON assignments(kind, item_id);
CREATE INDEX assignments_package ON assignments(package_id);

-- Every row of a package's work taken in (target_id: the row it became here; NULL when
-- it was kept aside as a conflict), so merging the same package again changes nothing.
CREATE TABLE package_work (
    package_id TEXT NOT NULL REFERENCES packages(id),
    kind TEXT NOT NULL,
    source_id INTEGER NOT NULL,
    target_id INTEGER,
    digest TEXT NOT NULL DEFAULT '',
    merged_at TEXT NOT NULL,
    PRIMARY KEY (package_id, kind, source_id)
);

-- Work on an item that changed here after its package went out, kept for a decision.
CREATE TABLE package_conflicts (
    id INTEGER PRIMARY KEY,
    package_id TEXT NOT NULL REFERENCES packages(id),
    kind TEXT NOT NULL,
    item_id INTEGER NOT NULL,
    reason TEXT NOT NULL,
    work TEXT NOT NULL,
    created_at TEXT NOT NULL,
    resolved_at TEXT,
    resolution TEXT
);

-- Files a package file carries for offline work (frames' panoramas and point clouds),
-- by their path under the sequence's root.
CREATE TABLE package_files (
    sequence_id INTEGER NOT NULL REFERENCES sequences(id) ON DELETE CASCADE,
    path TEXT NOT NULL,
    sha256 TEXT NOT NULL,
    data BLOB NOT NULL,
    PRIMARY KEY (sequence_id, path)
)
"""


@migrations(name="0010_work_packages")
def m0010_work_packages(db: Database) -> None:
    """Work packages, assignments, merged work and conflicts; every project gets an id."""
    import uuid

    for statement in _split(_V10_PACKAGES):
        db.execute(statement)
    db.execute(
        "INSERT OR IGNORE INTO project_meta(key, value) VALUES ('project_id', ?)",
        [str(uuid.uuid4())],
    )


_V11_ANNOTATOR_WORK = """
-- The imported values of a box an annotator changed ([x, y, w, h] or [cx, cy, cz, l, w,
-- h, rot_z]): kept on its first change, exported beside the corrected box.
ALTER TABLE boxes_2d ADD COLUMN original TEXT;
ALTER TABLE boxes_3d ADD COLUMN original TEXT;

-- An entity taken out of a frame by an annotator (a box the dataset should not have):
-- its boxes there as they were (JSON), so the export can list it and an undo restore it.
CREATE TABLE entity_removals (
    id INTEGER PRIMARY KEY,
    frame_id INTEGER NOT NULL REFERENCES frames(id) ON DELETE CASCADE,
    entity_id INTEGER NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
    boxes TEXT NOT NULL DEFAULT '{}',
    annotator_id INTEGER NOT NULL REFERENCES annotators(id),
    removed_at TEXT NOT NULL,
    UNIQUE (frame_id, entity_id)
);
CREATE INDEX entity_removals_frame ON entity_removals(frame_id);

-- Work packages for the human study: raters and human-baseline answerers. The package
-- tables are built again with the new roles and assignment kinds (children first, so
-- that no foreign key ever points at a missing table).
CREATE TABLE packages_v11 (
    id TEXT PRIMARY KEY,
    annotator_id INTEGER NOT NULL REFERENCES annotators(id),
    role TEXT NOT NULL CHECK (role IN ('verifier', 'reviewer', 'adjudicator', 'annotator',
        'rater', 'human-baseline')),
    file TEXT NOT NULL DEFAULT '',
    manifest TEXT NOT NULL,
    content_sha256 TEXT NOT NULL,
    created_at TEXT NOT NULL,
    merged_at TEXT,
    recalled_at TEXT
);
INSERT INTO packages_v11 SELECT id, annotator_id, role, file, manifest, content_sha256,
    created_at, merged_at, recalled_at FROM packages;

CREATE TABLE assignments_v11 (
    id INTEGER PRIMARY KEY,
    package_id TEXT NOT NULL REFERENCES packages_v11(id),
    kind TEXT NOT NULL CHECK (kind IN ('question', 'label', 'frame', 'episode', 'rating',
        'answer')),
    item_id INTEGER NOT NULL,
    version TEXT NOT NULL DEFAULT '',
    annotator_id INTEGER NOT NULL REFERENCES annotators(id),
    role TEXT NOT NULL,
    assigned_at TEXT NOT NULL,
    done_at TEXT,
    recalled_at TEXT
);
INSERT INTO assignments_v11 SELECT id, package_id, kind, item_id, version, annotator_id,
    role, assigned_at, done_at, recalled_at FROM assignments;

CREATE TABLE package_work_v11 (
    package_id TEXT NOT NULL REFERENCES packages_v11(id),
    kind TEXT NOT NULL,
    source_id INTEGER NOT NULL,
    target_id INTEGER,
    digest TEXT NOT NULL DEFAULT '',
    merged_at TEXT NOT NULL,
    PRIMARY KEY (package_id, kind, source_id)
);
INSERT INTO package_work_v11 SELECT package_id, kind, source_id, target_id, digest, merged_at
    FROM package_work;

CREATE TABLE package_conflicts_v11 (
    id INTEGER PRIMARY KEY,
    package_id TEXT NOT NULL REFERENCES packages_v11(id),
    kind TEXT NOT NULL,
    item_id INTEGER NOT NULL,
    reason TEXT NOT NULL,
    work TEXT NOT NULL,
    created_at TEXT NOT NULL,
    resolved_at TEXT,
    resolution TEXT
);
INSERT INTO package_conflicts_v11 SELECT id, package_id, kind, item_id, reason, work,
    created_at, resolved_at, resolution FROM package_conflicts;

DROP TABLE assignments;
DROP TABLE package_work;
DROP TABLE package_conflicts;
DROP TABLE packages;
ALTER TABLE packages_v11 RENAME TO packages;
ALTER TABLE assignments_v11 RENAME TO assignments;
ALTER TABLE package_work_v11 RENAME TO package_work;
ALTER TABLE package_conflicts_v11 RENAME TO package_conflicts;
CREATE UNIQUE INDEX assignments_once ON assignments(kind, item_id, version, annotator_id)
    WHERE recalled_at IS NULL;
CREATE INDEX assignments_item ON assignments(kind, item_id);
CREATE INDEX assignments_package ON assignments(package_id)
"""


@migrations(name="0011_annotator_work_travels")
def m0011_annotator_work_travels(db: Database) -> None:
    """Original box values, entities removed from frames, human-study package roles."""
    for statement in _split(_V11_ANNOTATOR_WORK):
        db.execute(statement)


_V12_RENDERED_VIEWS = """
-- A question's first view, rendered once and shared by every model and every repeat
-- (sim.tabletop.first_view): the PNG bytes per view (in images, by content), the state an
-- episode records first (in states) and the top-down segmentation a Find point is scored
-- on. `key` is the hash of everything that goes into the pixels, so a changed scene,
-- camera or gripper never finds a stale view. A cache: rendering it again gives the same.
CREATE TABLE rendered_views (
    key TEXT PRIMARY KEY,
    scene_id INTEGER REFERENCES scenes(id) ON DELETE CASCADE,
    width INTEGER NOT NULL,
    height INTEGER NOT NULL,
    images TEXT NOT NULL,
    state_sha256 TEXT NOT NULL REFERENCES states(sha256),
    segmentation BLOB NOT NULL,
    names TEXT NOT NULL,
    gripper TEXT NOT NULL,
    created_at TEXT NOT NULL
);
CREATE INDEX rendered_views_scene ON rendered_views(scene_id)
"""


@migrations(name="0012_rendered_views")
def m0012_rendered_views(db: Database) -> None:
    """First views rendered once per scene, camera and gripper, shared by every run."""
    for statement in _split(_V12_RENDERED_VIEWS):
        db.execute(statement)


@migrations(name="0013_compare_volumes_distinct")
def m0013_compare_volumes_distinct(db: Database) -> None:
    """Criterion 4 of a verdict, asked of Compare questions only (MG-VQA, appendix C.2):
    the three labelled objects are visibly distinct in occupied volume. 0/1 on a Compare
    verdict, NULL on every other and on the verdicts given before it was asked."""
    db.execute(
        "ALTER TABLE verifications ADD COLUMN volumes_distinct INTEGER "
        "CHECK (volumes_distinct IS NULL OR volumes_distinct IN (0, 1))"
    )


@migrations(name="0014_label_patches")
def m0014_label_patches(db: Database) -> None:
    """Where a body's label decal sits (JSON: centre and rotation in the body's frame,
    side in metres): Compare's one label on an upward face. NULL for every other body,
    and for the labels of scenes made before, which print on every face."""
    db.execute("ALTER TABLE scene_bodies ADD COLUMN label_patch TEXT")


@migrations(name="0016_prediction_requests")
def m0016_prediction_requests(db: Database) -> None:
    """A prediction a model run made here (`run-agent --benchmark jrdb`) keeps the request
    behind it: the reply as the endpoint wrote it, the request's latency and tokens, and
    the settings it was asked with (JSON: prompt variant, image scale), so that runs made
    differently are never counted as one model. NULL for imported predictions."""
    for column in (
        "settings TEXT",
        "raw_output TEXT",
        "latency_s REAL",
        "tokens_in INTEGER",
        "tokens_out INTEGER",
    ):
        db.execute(f"ALTER TABLE reasoning_predictions ADD COLUMN {column}")


@migrations(name="0017_track_ends")
def m0017_track_ends(db: Database) -> None:
    """Where an object's track ends: the first frame (by index) in which the annotator said
    the object is gone. A drawn entity's stored boxes are its keyframes; the boxes between
    and after them are derived (annotation.jrdb.tracks), up to this frame. No row: the
    track runs to the sequence's end."""
    db.execute(
        "CREATE TABLE track_ends ("
        "entity_id INTEGER PRIMARY KEY REFERENCES entities(id) ON DELETE CASCADE, "
        "end_frame INTEGER NOT NULL, "
        "annotator_id INTEGER REFERENCES annotators(id), "
        "ended_at TEXT NOT NULL)"
    )


@migrations(name="0018_track_reopenings")
def m0018_track_reopenings(db: Database) -> None:
    """A reopened track keeps its row, with no end (`end_frame` NULL) and the end it had
    (`reopened_from`), so that the reopening is work with an author and a time that a
    work package carries home like any other; deleting the row left nothing to carry."""
    db.execute(
        "CREATE TABLE track_ends_new ("
        "entity_id INTEGER PRIMARY KEY REFERENCES entities(id) ON DELETE CASCADE, "
        "end_frame INTEGER, "
        "reopened_from INTEGER, "
        "annotator_id INTEGER REFERENCES annotators(id), "
        "ended_at TEXT NOT NULL, "
        "CHECK ((end_frame IS NULL) != (reopened_from IS NULL)))"
    )
    db.execute(
        "INSERT INTO track_ends_new(entity_id, end_frame, annotator_id, ended_at) "
        "SELECT entity_id, end_frame, annotator_id, ended_at FROM track_ends"
    )
    db.execute("DROP TABLE track_ends")
    db.execute("ALTER TABLE track_ends_new RENAME TO track_ends")


SCHEMA_VERSION = len(known_migration_names())
