# syntax=docker/dockerfile:1
# One image for all nine services; the container runs the service named by $SERVICE
# (Kubernetes sets the command explicitly instead). Build: docker build -t paymesh:0.1.0 .
ARG NODE_IMAGE=node:20-slim

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
 && pnpm install --frozen-lockfile --offline --prod

FROM ${NODE_IMAGE} AS runtime
# Chromium renders the documents service's PDFs (puppeteer-core with executablePath /usr/bin/chromium).
# Build with --build-arg WITH_CHROMIUM=false for a smaller image that runs every other service.
ARG WITH_CHROMIUM=true
RUN if [ "$WITH_CHROMIUM" = "true" ]; then \
      apt-get update \
      && apt-get install -y --no-install-recommends chromium fonts-liberation fonts-dejavu-core ca-certificates \
      && rm -rf /var/lib/apt/lists/*; \
    fi \
 && groupadd --system --gid 10001 paymesh \
 && useradd --system --uid 10001 --gid paymesh --home-dir /tmp --no-create-home --shell /usr/sbin/nologin paymesh
ENV NODE_ENV=production \
    HOME=/tmp
WORKDIR /app
# Files stay owned by root: the services only read them (and run with a read-only root filesystem).
COPY --from=build /app /app
USER 10001:10001
EXPOSE 8080 8081 50051 50052 50053 50054 50055 50056 50057
CMD ["/bin/sh", "-c", "exec node --enable-source-maps \"services/${SERVICE:?set SERVICE to one of the services/ directories}/dist/main.js\""]
