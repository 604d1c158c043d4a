"""Accounts: users who log in with an e-mail address, and their per-device tokens (django-rest-knox).

LLM API keys (encrypted) join this app with the workspace API issue.
"""
