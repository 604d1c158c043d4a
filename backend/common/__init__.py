"""Helpers the web layers share, below `accounts`: secret encryption (`crypto`), name validation (`validators`),
the API's error shape (`errors`) and environment parsing for settings (`parsers`).

Nothing here imports `accounts`, `workspace`, `runs` or `parley`; the engine sits below it.
"""
