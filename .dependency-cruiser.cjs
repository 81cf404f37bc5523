/**
 * The layers of Weft, top to bottom (README "Layers"). An import may only point down, never up,
 * and never from one domain into another; type-only imports count the same. `npm run check` runs
 * this (`npm run deps:check`).
 *
 *   main.ts → server/ → graph/ → domains (certificates/ hosting/ commerce/ stitching/)
 *           → kit/ → watching/ → upstream/ → redis/ → errors/ config.ts (config/) observability/
 *
 * watching/ (the shared pollers behind subscriptions) sits under kit/: the request context every
 * resolver receives carries the registry of pollers.
 *
 * generated/ (codegen's resolver types) sits beside the layers: it is imported for types only.
 * The simulator is not part of the product: only main.ts may load it (dynamically, on request).
 */
const LAYERS = [
  { name: 'main', path: '^src/main\\.ts$' },
  { name: 'server', path: '^src/server/' },
  { name: 'graph', path: '^src/graph/' },
  { name: 'domains', path: '^src/(certificates|hosting|commerce|stitching)/' },
  { name: 'kit', path: '^src/kit/' },
  { name: 'watching', path: '^src/watching/' },
  { name: 'upstream', path: '^src/upstream/' },
  { name: 'redis', path: '^src/redis/' },
  { name: 'foundation', path: '^src/(errors/|observability/|config/|config\\.ts$)' },
];

/** One rule per layer: nothing in it imports a layer above it. */
const upward = LAYERS.slice(1).map((layer, index) => ({
  name: `no-import-up-from-${layer.name}`,
  comment: `${layer.name} may import only the layers below it`,
  severity: 'error',
  from: { path: layer.path },
  to: { path: LAYERS.slice(0, index + 1).map((above) => above.path) },
}));

/**
 * upstream/ in rooms (README "Layers"): the budget, the cache and HTTP resilience each in its own
 * folder, the core in upstream/ itself. The core's top (the stack and its layer list, the client,
 * the route lookup and the first layers) puts the rooms together; the core's base (the call, its
 * route's declaration, the credential, the request's facts and ledger, the transport's contract)
 * is what every room speaks. A room imports the base, the layers below upstream and its own files:
 * never another room, never the core's top; the base imports no room.
 */
const UPSTREAM_ROOMS = '^src/upstream/(budget|cache|http)/';
const UPSTREAM_CORE_BASE = `^src/upstream/(${[
  'budget-tracker',
  'call-interest',
  'credential',
  'entry-bound',
  'graphql-operation',
  'ledger-field-paths',
  'request-facts',
  'request-scope',
  'require-credential',
  'response-envelope',
  'route-policy',
  'transport',
  'upstream-call',
  'upstream-ledger',
  'upstream-routes',
].join('|')})\\.ts$`;

const upstreamRooms = [
  {
    name: 'no-import-across-upstream-rooms',
    comment: 'a room of upstream/ (budget, cache, http) reaches another only through the core',
    severity: 'error',
    from: { path: UPSTREAM_ROOMS },
    to: { path: UPSTREAM_ROOMS, pathNot: '^src/upstream/$1/' },
  },
  {
    name: 'upstream-rooms-under-the-core-top',
    comment:
      "a room of upstream/ imports only the core's base: the core's top puts the rooms together",
    severity: 'error',
    from: { path: UPSTREAM_ROOMS },
    to: { path: '^src/upstream/[^/]+$', pathNot: UPSTREAM_CORE_BASE },
  },
  {
    name: 'upstream-core-base-under-the-rooms',
    comment: "the core's base of upstream/ is what the rooms speak: it imports none of them",
    severity: 'error',
    from: { path: UPSTREAM_CORE_BASE },
    to: { path: UPSTREAM_ROOMS },
  },
];

/**
 * Libraries loaded only when they are used (docs/operations.md "Start-up"): one module wraps each,
 * and the rest of src/ imports that module by type or with a dynamic import (`module` is a pattern
 * where a few modules share a library: they may import each other).
 */
const ON_DEMAND = [
  {
    name: 'redis',
    module: 'src/redis/(redis-(cluster-)?connection|cluster-subscriber).ts',
    libraries: '(redis|@redis/[^/]+|@keyv/redis)',
  },
  {
    name: 'graphql-ws',
    module: 'src/server/subscriptions/graphql-ws.transport.ts',
    libraries: '(graphql-ws|ws)',
  },
  {
    name: 'graphql-sse',
    module: 'src/server/subscriptions/graphql-sse.transport.ts',
    libraries: 'graphql-sse',
  },
  {
    name: 'mcp',
    module: 'src/server/mcp/mcp-endpoint.ts',
    libraries: '@modelcontextprotocol/sdk',
  },
  {
    name: 'tracing',
    module: 'src/observability/(tracing|otlp-exporter|trace-context).ts',
    libraries: '(@opentelemetry/(sdk-trace-base|core|resources|exporter-trace-otlp-[a-z]+))',
  },
];

module.exports = {
  forbidden: [
    ...upward,
    ...upstreamRooms,
    {
      name: 'no-import-across-domains',
      comment:
        'a domain reaches another only through the layers below both (kit, watching, upstream)',
      severity: 'error',
      from: { path: '^src/(certificates|hosting|commerce|stitching)/' },
      to: {
        path: '^src/(certificates|hosting|commerce|stitching)/',
        pathNot: '^src/$1/',
      },
    },
    {
      name: 'generated-is-types-only',
      comment: 'src/generated holds resolver types: import it with `import type`',
      severity: 'error',
      from: {},
      to: { path: '^src/generated/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'simulator-outside-the-product',
      comment: 'the product never imports the simulator (main.ts loads it dynamically when asked)',
      severity: 'error',
      from: { path: '^src/', pathNot: ['^src/simulator/', '^src/main\\.ts$'] },
      to: { path: '^src/simulator/' },
    },
    ...ON_DEMAND.map(({ name, module, libraries }) => ({
      name: `${name}-loaded-on-demand`,
      comment: `only ${module} imports ${libraries}, and it is imported by type or dynamically: a process that does not use it never loads them`,
      severity: 'error',
      from: { path: '^src/', pathNot: `^${module.replace(/\./g, '\\.')}$` },
      to: {
        path: [`^node_modules/${libraries}/`, `^${module.replace(/\./g, '\\.')}$`],
        dependencyTypesNot: ['type-only', 'type-import', 'dynamic-import'],
      },
    })),
    {
      name: 'upload-reader-loaded-on-demand',
      comment:
        "graphql-upload's reader (with busboy) loads with the first upload (src/server/uploads/graphql-multipart.plugin.ts)",
      severity: 'error',
      from: { path: '^src/' },
      to: {
        path: '^node_modules/(graphql-upload/processRequest|busboy/)',
        dependencyTypesNot: ['type-only', 'type-import', 'dynamic-import'],
      },
    },
    {
      name: 'explorer-files-sender-loaded-on-demand',
      comment:
        "the explorer's files are sent by @fastify/send, loaded with the first one asked for (src/server/explorer/explorer-assets.ts); @fastify/static loaded glob at every start-up (the path matches node_modules anywhere: in a git worktree whose node_modules is a link, they resolve to ../main/node_modules)",
      severity: 'error',
      from: { path: '^src/' },
      to: {
        path: '(^|/)node_modules/(@fastify/send|@fastify/static|glob)/',
        dependencyTypesNot: ['type-only', 'type-import', 'dynamic-import'],
      },
    },
    {
      name: 'undici-pool-alone',
      comment:
        "the upstream transport loads undici's pool by itself (src/upstream/http/undici-pool.ts): undici's entry point loads the whole library",
      severity: 'error',
      from: { path: '^src/' },
      to: {
        path: '^node_modules/undici/index\\.js$',
        dependencyTypesNot: ['type-only', 'type-import'],
      },
    },
    {
      name: 'graphql-scalars-by-file',
      comment:
        "the graph loads its two scalars from their own files (src/graph/graphql-scalars.ts): graphql-scalars' entry point loads all of them",
      severity: 'error',
      from: { path: '^src/' },
      to: {
        path: '^node_modules/graphql-scalars/',
        dependencyTypesNot: ['type-only', 'type-import'],
      },
    },
    {
      name: 'x509-loaded-on-demand',
      comment:
        'the simulator loads @peculiar/x509 when it first parses a CSR or issues a chain (src/simulator/x509.ts)',
      severity: 'error',
      from: { path: '^src/' },
      to: {
        path: '^node_modules/@peculiar/x509/',
        dependencyTypesNot: ['type-only', 'type-import', 'dynamic-import'],
      },
    },
    {
      name: 'simulator-stands-alone',
      comment: 'the simulator is built from the upstream documents, not from the product',
      severity: 'error',
      from: { path: '^src/simulator/' },
      to: { path: '^src/', pathNot: '^src/simulator/' },
    },
    {
      name: 'demand-control-stands-below-its-users',
      comment:
        'demand control (src/server/demand-control/) is used by the pipeline, the Apollo plugin list and the MCP tools; it reads none of them',
      severity: 'error',
      from: { path: '^src/server/demand-control/' },
      to: {
        path: '^src/server/(operation-pipeline|request-policy|create-gateway)\\.ts$|^src/server/(apollo|mcp|graphql-route)/',
      },
    },
    {
      name: 'one-apollo-plugin-list',
      comment:
        "Apollo Server's plugins are listed in one place, in the order they act (src/server/apollo/apollo-plugins.ts), which only the server's construction reads",
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/server/apollo/apollo-(server|plugins)\\.ts$' },
      to: {
        path: [
          '^src/server/apollo/apollo-plugins\\.ts$',
          '(^|/)node_modules/@apollo/server/dist/[^/]+/plugin/disabled/',
        ],
      },
    },
    {
      name: 'no-circular',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/(simulator|generated)/' },
      to: { circular: true, pathNot: '^src/generated/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
