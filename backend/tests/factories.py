"""factory-boy factories for the models tests need."""

import factory

from accounts.models import User
from runs.models import Run

PASSWORD = "correct horse battery staple"


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = User
        skip_postgeneration_save = True

    email = factory.Sequence(lambda n: f"user{n}@example.com")
    password = factory.PostGenerationMethodCall("set_password", PASSWORD)

    @factory.post_generation
    def _save(obj, create, extracted, **kwargs):
        if create:
            obj.save()


class RunFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Run

    owner = factory.SubFactory(UserFactory)
    kind = Run.Kind.PING
