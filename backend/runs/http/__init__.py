"""The HTTP side of runs: views, serializers, streams and exports — what a browser or API client reads and starts. It starts work only through `runs.services` and never runs an engine."""
