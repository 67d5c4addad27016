"""The model-free pyramid: records → episodes → day/week/month digests → signals.

Pure decisions (`segmenter`, `episodes`, `signals`, `metrics`) and the builder
that runs them over a `PyramidStore` (`build`); the jobs that keep it current are
named in `app/job_requests.py`. Nothing here calls a model.
"""
