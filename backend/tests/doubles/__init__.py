"""Doubles used only by the tests: the protocol fakes of every chatbot technology (`connectors`).

The doubles the product uses too live beside the code they stand in for: the offline LLM provider in
`engine.llm.offline`, the reference bots and the Taskyto protocol they speak in `engine.bots`. Product code never
imports from here (`tests/test_layers.py`).
"""
