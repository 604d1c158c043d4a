"""Stored conversation records to the shape with `outcome`: what a conversation's ending left inside `settings`
(why it stopped, slips, notes, checks…) moves to `outcome`, so the queries that read a key of a record (the
verdict counts' slips) find it in one place. `engine.conversation.upgrade_record` is the one function that knows
the older shape; reading a record through the model applies it too (records in files)."""

from django.db import migrations

from engine.conversation import upgrade_record

BATCH = 500


def forwards(apps, schema_editor):
    conversation = apps.get_model("runs", "Conversation")
    stale = conversation.objects.filter(record__has_key="settings").exclude(record__has_key="outcome")
    for row in stale.only("pk", "record").iterator(chunk_size=BATCH):
        upgraded = upgrade_record(row.record)
        if upgraded is not row.record:
            conversation.objects.filter(pk=row.pk).update(record=upgraded)


class Migration(migrations.Migration):
    dependencies = [("runs", "0014_transcripts")]

    operations = [migrations.RunPython(forwards, migrations.RunPython.noop)]
