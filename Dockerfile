FROM python:3.11-slim
WORKDIR /srv/duelhall
COPY pyproject.toml README.md alembic.ini ./
COPY app ./app
COPY games ./games
COPY migrations ./migrations
COPY static ./static
RUN pip install --no-cache-dir . && useradd --system duelhall && mkdir -p /srv/duelhall/data && chown duelhall /srv/duelhall/data
USER duelhall
EXPOSE 8000
HEALTHCHECK CMD python -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/readyz')"
CMD ["duelhall", "serve", "--host", "0.0.0.0", "--port", "8000"]
