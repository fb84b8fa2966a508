# relayq: multi-stage build. Stage 1 compiles TypeScript with every dependency;
# the runtime stage has production dependencies only, the compiled dist/, the
# Lua scripts, and runs as a non-root user.
# Build: docker build -t relayq:0.1.0 .
# Run:   docker run -p 8080:8080 -e REDIS_URL=redis://redis:6379 -e RELAY_ADMIN_TOKEN=... relayq:0.1.0
# Without REDIS_URL the image runs its embedded redis-server with data in /data.

FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
COPY packages/client/package.json ./packages/client/
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY packages/client ./packages/client
COPY src ./src
RUN npm run build

FROM node:20-bookworm-slim
# redis-server only serves the embedded default (no REDIS_URL / REDIS_CLUSTER_NODES)
RUN apt-get update \
  && apt-get install -y --no-install-recommends redis-server \
  && rm -rf /var/lib/apt/lists/* \
  && mkdir -p /data \
  && chown 1000:1000 /data
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    METRICS_PORT=9464 \
    RELAY_DATA_DIR=/data
WORKDIR /app
COPY package.json package-lock.json ./
# the client package (a workspace) is a dependency of the CLI: its package.json and build
COPY packages/client/package.json ./packages/client/
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/packages/client/dist ./packages/client/dist
COPY --from=build /app/dist ./dist
COPY lua ./lua
# the image's "node" user (uid 1000), numeric so that runAsNonRoot can check it
USER 1000:1000
VOLUME ["/data"]
EXPOSE 8080 9464
HEALTHCHECK --interval=10s --timeout=3s --start-period=15s --retries=3 \
  CMD ["node", "-e", "require('http').get('http://127.0.0.1:' + (process.env.PORT || 8080) + '/healthz', (r) => process.exit(r.statusCode === 200 ? 0 : 1)).on('error', () => process.exit(1))"]
# the same command as the README's `npm start` (without the build step)
CMD ["node", "dist/src/cli/main.js", "serve"]
