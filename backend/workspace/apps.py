from django.apps import AppConfig


class WorkspaceConfig(AppConfig):
    name = "workspace"
    verbose_name = "Workspace"

    def ready(self) -> None:
        # The connectors know no reference bots; the platform offers them as the `demo` technology.
        from engine.bots.connector import register_demo_technology

        register_demo_technology()
