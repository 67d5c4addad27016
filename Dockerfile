# Build stage: the wheel, with sql/ and the default rules inside it as package data.
FROM python:3.11-slim AS build
WORKDIR /src
COPY pyproject.toml setup.py README.md ./
COPY app ./app
COPY sql ./sql
RUN pip wheel --no-cache-dir --no-deps --wheel-dir /dist .

# Final stage: the runtime pins and the wheel; no sources, no test tools.
FROM python:3.11-slim
COPY requirements.lock /tmp/requirements.lock
RUN pip install --no-cache-dir -r /tmp/requirements.lock
COPY --from=build /dist/ /tmp/dist/
RUN pip install --no-cache-dir --no-deps /tmp/dist/*.whl \
    && rm -r /tmp/dist /tmp/requirements.lock \
    && useradd --system --create-home timetrace
USER timetrace
WORKDIR /home/timetrace
# Made here, owned by timetrace: a new volume mounted on it (compose) keeps that owner.
RUN mkdir -p .local/share/timetrace

# Inside a container the API must listen on all interfaces; `timetrace serve`
# refuses that until an API token exists (`timetrace token create`).
ENV TIMETRACE_HOST=0.0.0.0 \
    TIMETRACE_PORT=8787 \
    PYTHONUNBUFFERED=1
EXPOSE 8787
HEALTHCHECK CMD python -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8787/healthz')"
CMD ["timetrace", "serve"]
