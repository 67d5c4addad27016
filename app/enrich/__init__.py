"""The model layer: what an OpenAI-compatible endpoint adds on top of the pyramid.

`client` (chat, vision, embeddings, breaker, priority gate), `prompts` and
`answers` (what is asked and the shape of what comes back), `summaries`,
`narratives`, `describe`, and `steps` (the table of model work that the worker's
sweep and the one-go catch-up, `app/jobs/catchup.py`, both iterate).
Everything here is optional: without an endpoint the pyramid stands on its own.
"""
