# Regression workflow: a SENSEI run can be its project's baseline (at most one per project), and a SENSEI run
# keeps its recorded LLM calls (`exchanges`), which a re-run against the current chatbot answers from.

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("runs", "0008_security_campaigns"),
    ]

    operations = [
        migrations.AddField(
            model_name="run",
            name="is_baseline",
            field=models.BooleanField(default=False),
        ),
        migrations.AddConstraint(
            model_name="run",
            constraint=models.UniqueConstraint(
                condition=models.Q(("is_baseline", True)),
                fields=("project",),
                name="run_one_baseline_per_project",
            ),
        ),
        migrations.AlterField(
            model_name="artefact",
            name="name",
            field=models.CharField(
                choices=[
                    ("model", "Model"),
                    ("report", "Report"),
                    ("graph", "Graph"),
                    ("transcripts", "Transcripts"),
                    ("usage", "Usage"),
                    ("bench", "Bench"),
                    ("plan", "Plan"),
                    ("exchanges", "Exchanges"),
                ],
                max_length=32,
            ),
        ),
    ]
