# syntax=docker/dockerfile:1
# Weft: production dependencies and the TypeScript sources, run by Node 24's own type stripping —
# the same `node … src/main.ts` as `npm start`, with no dev tool at run time. The one build step is
# the explorer's browser bundle (its own stage; the image carries its output, not its sources).
# The upstream simulator is not in the image: set UPSTREAM_URL (production refuses to start without);
# the `simulator` target is the simulator alone, to try the image offline (docs/deploy.md).

FROM node:24.21.0-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
# --ignore-scripts: the project's `prepare` builds the explorer, which takes the dev dependencies
# (the explorer stage below does it); no production dependency needs its install script.
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force

# The explorer's bundle (GraphiQL 5, React 19, Monaco and its workers; docs/try-it.md): built here
# with the dev dependencies, only its output goes into the image.
FROM node:24.21.0-bookworm-slim AS explorer
WORKDIR /app
COPY package.json package-lock.json ./
# Without the browser the tests drive (@sparticuz/chromium, ~70 MB): neither the bundle nor the
# simulator image, which copies this node_modules, needs it.
RUN npm ci --ignore-scripts --no-audit --no-fund && rm -rf node_modules/@sparticuz/chromium
COPY tsconfig.json ./
COPY scripts/build-explorer.ts ./scripts/
COPY explorer ./explorer
COPY src/server/explorer ./src/server/explorer
RUN node scripts/build-explorer.ts

# The product's sources only: the simulator (development and tests) stays out.
FROM node:24.21.0-bookworm-slim AS sources
WORKDIR /app
COPY src ./src
RUN rm -rf src/simulator

# The upstream simulator alone, to try the image offline (docs/deploy.md "Docker"):
# `docker build --target simulator -t weft-simulator .`. Fake data, on SIM_PORT; its
# fixtures need dev dependencies (@peculiar/x509), hence the explorer stage's node_modules. Never in
# the product image: that is the last stage, the one `docker build` builds without `--target`.
FROM node:24.21.0-bookworm-slim AS simulator
ENV SIM_HOST=0.0.0.0 \
    SIM_PORT=4010
WORKDIR /app
COPY --from=explorer --chown=node:node /app/node_modules ./node_modules
COPY --chown=node:node package.json ./
COPY --chown=node:node src/simulator ./src/simulator
USER node
EXPOSE 4010
CMD ["node", "src/simulator/standalone.ts"]

FROM node:24.21.0-bookworm-slim AS runtime
# NODE_COMPILE_CACHE as in `npm start`, relative to WORKDIR (docs/deploy.md, "Start-up");
# MALLOC_ARENA_MAX as in `npm start` (docs/deploy.md, "Memory").
ENV NODE_ENV=production \
    PORT=4000 \
    HOST=0.0.0.0 \
    NODE_COMPILE_CACHE=node_modules/.cache/node-compile-cache \
    MALLOC_ARENA_MAX=2
WORKDIR /app
COPY --from=deps --chown=node:node /app/node_modules ./node_modules
COPY --chown=node:node package.json ./
COPY --chown=node:node schema ./schema
# The example MCP tools (docs/agents.md): MCP_OPERATIONS_DIR=examples/mcp, or mount your own folder.
COPY --chown=node:node examples/mcp ./examples/mcp
COPY --from=sources --chown=node:node /app/src ./src
COPY --from=explorer --chown=node:node /app/dist/explorer ./dist/explorer
COPY --chown=node:node scripts/warm-compile-cache.ts ./scripts/
USER node
# Node's compile cache for every module a start loads, made once here (docs/deploy.md "Start-up"):
# each container's first start is then as quick as a restart, read-only root file system included.
# As the CMD's user and with its flags (the script reads them from package.json): both are part of
# the cache's key.
RUN ["node", "scripts/warm-compile-cache.ts"]
EXPOSE 4000
HEALTHCHECK --interval=15s --timeout=3s --start-period=10s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||4000)+'/healthz').then(r=>process.exit(r.ok?0:1)).catch(()=>process.exit(1))"
# Exec form: SIGTERM from `docker stop` reaches node directly (no shell). Weft drains in-flight
# requests and subscriptions within SHUTDOWN_TIMEOUT_MS (default 8 s) and gives the upstream pool up
# to 2 s more: inside docker's default 10 s grace. Raise `docker stop -t` (Kubernetes:
# terminationGracePeriodSeconds) together with SHUTDOWN_TIMEOUT_MS.
# Heap settings as `npm start` (docs/deploy.md, "Memory").
CMD ["node", "--max-old-space-size=384", "--max-semi-space-size=32", "--initial-old-space-size=64", "--expose-gc", "src/main.ts"]
