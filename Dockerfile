# syntax=docker/dockerfile:1
# Images of the nine services, from one build. Two runtime targets share one base:
#   docker build --target services  -t paymesh:0.1.0 .            every service but documents (no browser)
#   docker build --target documents -t paymesh-documents:0.1.0 .  the documents service, with Chromium
# A plain `docker build .` builds `services`. The container runs the service named by $SERVICE
# (Kubernetes sets the command explicitly instead). Node.js: a supported LTS line (package.json
# `engines`); runtime images hold only what runs (deploy/image/runtime-tree.mjs): no tests,
# sandboxes, docs or TypeScript sources.
ARG NODE_IMAGE=node:24-slim

FROM ${NODE_IMAGE} AS build
ENV CI=true
RUN npm install -g pnpm@10.34.9
WORKDIR /app
# Dependencies first, from the lockfile alone, so source edits do not refetch them.
COPY pnpm-lock.yaml pnpm-workspace.yaml .npmrc ./
RUN pnpm fetch
COPY . .
RUN pnpm install --frozen-lockfile --offline \
 && pnpm run build \
 && pnpm install --frozen-lockfile --offline --prod \
 && node deploy/image/runtime-tree.mjs /app /runtime

FROM ${NODE_IMAGE} AS base
RUN groupadd --system --gid 10001 paymesh \
 && useradd --system --uid 10001 --gid paymesh --home-dir /tmp --no-create-home --shell /usr/sbin/nologin paymesh
ENV NODE_ENV=production \
    HOME=/tmp
WORKDIR /app
# Files stay owned by root: the services only read them (and run with a read-only root filesystem).
COPY --from=build /runtime /app
USER 10001:10001
# Gateways: GET /health; backends: gRPC health (see the script). Kubernetes uses the chart's probes.
HEALTHCHECK --interval=10s --timeout=5s --start-period=20s --retries=3 CMD ["node", "deploy/image/healthcheck.mjs"]
CMD ["/bin/sh", "-c", "exec node --enable-source-maps \"services/${SERVICE:?set SERVICE to one of the services/ directories}/dist/main.js\""]

# The documents service: Chromium renders its PDFs (puppeteer-core, executablePath /usr/bin/chromium).
FROM base AS documents
USER root
RUN apt-get update \
 && apt-get install -y --no-install-recommends chromium fonts-liberation fonts-dejavu-core ca-certificates \
 && rm -rf /var/lib/apt/lists/*
USER 10001:10001
ENV SERVICE=documents
EXPOSE 50056

# Every other service: the base as it is. Last, so that it is the default target.
FROM base AS services
EXPOSE 8080 8081 50051 50052 50053 50054 50055 50057
