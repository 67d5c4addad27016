"""The model-free pyramid: records → episodes → day/week/month digests → signals.

Pure decisions (`segmenter`, `episodes`, `signals`, `metrics`) and the builder
that runs them over a `Store` (`build`); `requests` names the jobs that keep it
current. Nothing here calls a model.
"""
