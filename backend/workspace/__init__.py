"""The workspace: what a user edits — connectors, projects, and a project's profiles, rules and personalities.

One permission policy (permissions.py) decides every read and write: owners do everything with their own
objects; anyone, anonymous visitors included, may read a public project with its profiles and rules; nobody
else sees anything, and secrets are never part of a response.
"""
