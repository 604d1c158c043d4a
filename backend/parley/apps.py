"""App config for the project package itself, so its system checks register."""

from django.apps import AppConfig


class ParleyConfig(AppConfig):
    name = "parley"
    verbose_name = "Parley"

    def ready(self) -> None:
        from parley import checks  # noqa: F401  (registers the checks)
