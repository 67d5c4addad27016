FROM python:3.11-slim

WORKDIR /srv/timetrace
COPY requirements.lock pyproject.toml README.md ./
RUN pip install --no-cache-dir -r requirements.lock
COPY app ./app
COPY sql ./sql
RUN pip install --no-cache-dir --no-deps -e . \
    && useradd --system --create-home timetrace
USER timetrace

# Inside a container the API must listen on all interfaces; `timetrace serve`
# refuses that until an API token exists (`timetrace token create`).
ENV TIMETRACE_HOST=0.0.0.0 \
    TIMETRACE_PORT=8787 \
    PYTHONUNBUFFERED=1
EXPOSE 8787
HEALTHCHECK CMD python -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8787/healthz')"
CMD ["timetrace", "serve"]
