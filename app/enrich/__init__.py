"""The model layer: what an OpenAI-compatible endpoint adds on top of the pyramid.

`client` (chat, vision, embeddings, breaker, priority gate), `prompts` and
`answers` (what is asked and the shape of what comes back), `summaries`,
`narratives`, `describe`, and `catchup` (bring all of it up to date in one go).
Everything here is optional: without an endpoint the pyramid stands on its own.
"""
