"""PostgreSQL tells the live-update streams what changed (runs/http/live.py listens on the `parley_runs` channel).

Triggers rather than calls in the recorder and the bookkeeping: every writer of a run — the worker's recorder,
the state machine, the reaper, a cancel from the API, a deletion — is covered without any of them knowing, and
the notification leaves only when its transaction commits, so a stream never reads a state that is not there
yet. Payloads are small JSON: the run id and what changed (plus, for run rows, the owner and whether the run is
public, which is all a runs-list stream needs to decide whom to tell). The heartbeat's own writes
(`heartbeat_at`) change nothing a viewer sees and notify nobody.

SQLite (the embedded mode) has no NOTIFY: there the streams re-read on a short timer instead.
"""

from django.db import migrations

CHANNEL = "parley_runs"

CREATE = f"""
CREATE OR REPLACE FUNCTION parley_notify_run() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    changed runs_run;
    what text;
BEGIN
    IF TG_OP = 'DELETE' THEN
        changed := OLD;
        what := 'deleted';
    ELSIF TG_OP = 'INSERT' THEN
        changed := NEW;
        what := 'created';
    ELSE
        changed := NEW;
        what := 'run';
    END IF;
    PERFORM pg_notify('{CHANNEL}', json_build_object(
        'run', changed.id,
        'what', what,
        'owner', changed.owner_id,
        'status', changed.status,
        'public', COALESCE(
            (SELECT project.public FROM workspace_project project WHERE project.id = changed.project_id), false)
    )::text);
    RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION parley_notify_run_child() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('{CHANNEL}', json_build_object(
        'run', NEW.run_id, 'what', TG_ARGV[0], 'id', NEW.id
    )::text);
    RETURN NULL;
END
$$;

CREATE TRIGGER parley_run_created AFTER INSERT ON runs_run
    FOR EACH ROW EXECUTE FUNCTION parley_notify_run();
CREATE TRIGGER parley_run_deleted AFTER DELETE ON runs_run
    FOR EACH ROW EXECUTE FUNCTION parley_notify_run();
CREATE TRIGGER parley_run_changed AFTER UPDATE ON runs_run
    FOR EACH ROW WHEN (
        OLD.status IS DISTINCT FROM NEW.status
        OR OLD.stage IS DISTINCT FROM NEW.stage
        OR OLD.progress_done IS DISTINCT FROM NEW.progress_done
        OR OLD.progress_total IS DISTINCT FROM NEW.progress_total
        OR OLD.counters IS DISTINCT FROM NEW.counters
        OR OLD.usage IS DISTINCT FROM NEW.usage
        OR OLD.cost_usd IS DISTINCT FROM NEW.cost_usd
        OR OLD.result IS DISTINCT FROM NEW.result
        OR OLD.error_message IS DISTINCT FROM NEW.error_message
        OR OLD.cancel_requested IS DISTINCT FROM NEW.cancel_requested
    )
    EXECUTE FUNCTION parley_notify_run();
CREATE TRIGGER parley_run_event_added AFTER INSERT ON runs_runevent
    FOR EACH ROW EXECUTE FUNCTION parley_notify_run_child('event');
CREATE TRIGGER parley_conversation_added AFTER INSERT ON runs_conversation
    FOR EACH ROW EXECUTE FUNCTION parley_notify_run_child('conversation');
"""

DROP = """
DROP TRIGGER IF EXISTS parley_conversation_added ON runs_conversation;
DROP TRIGGER IF EXISTS parley_run_event_added ON runs_runevent;
DROP TRIGGER IF EXISTS parley_run_changed ON runs_run;
DROP TRIGGER IF EXISTS parley_run_deleted ON runs_run;
DROP TRIGGER IF EXISTS parley_run_created ON runs_run;
DROP FUNCTION IF EXISTS parley_notify_run_child();
DROP FUNCTION IF EXISTS parley_notify_run();
"""


def _on_postgresql(sql):
    def apply(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            schema_editor.execute(sql, params=None)

    return apply


class Migration(migrations.Migration):
    dependencies = [
        ("runs", "0006_sensei_plan_artefact"),
        ("workspace", "0001_initial"),
    ]

    operations = [migrations.RunPython(_on_postgresql(CREATE), _on_postgresql(DROP))]
