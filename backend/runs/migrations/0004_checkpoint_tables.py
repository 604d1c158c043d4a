"""LangGraph's checkpoint tables for resumable TRACER runs (PostgreSQL only; the embedded mode uses SQLite)."""

from django.db import migrations


def create_checkpoint_tables(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    from runs.worker.checkpoints import create_tables

    create_tables(schema_editor.connection.settings_dict)


class Migration(migrations.Migration):
    dependencies = [("runs", "0003_artefact_conversation_ruleresult_runevent_and_more")]
    operations = [migrations.RunPython(create_checkpoint_tables, migrations.RunPython.noop)]
