// The layers of DEVELOPERS.md ("Architecture"), top to bottom: entry → http (api, identity) → services (client,
// resources, events, operations) → transport → backend → records (the @corebridge/records package in records/), with
// shared modules beneath all but records.
// A module imports its own layer or those below it, never one above, and no import cycle exists.
const ENTRY = '^src/(app|server|config|production|startup-banner)[.]ts$|^src/(cli|contract)/';
const HTTP = '^src/(api|identity)/';
const SERVICES = '^src/(client|resources|events|operations)/';
const TRANSPORT = '^src/transport/';
const BACKEND = '^src/backend/';
const RECORDS = '^records/src/';
const SHARED =
  '^src/(logger|iso-time|sqlite|background-loop|errors|owner-only-file|round-robin|http-methods)[.]ts$' +
  '|^src/(logging|settings|observability|tls|outbound|auth|pages)/';
const above = (...layers) => layers.join('|');

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'Import cycles hide which module depends on which.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-unresolvable',
      severity: 'error',
      comment: 'An import that resolves to nothing.',
      from: {},
      to: { couldNotResolve: true },
    },
    {
      name: 'src-not-to-tooling',
      severity: 'error',
      comment: 'The product imports none of the tests, scripts (the stack among them) or benches.',
      from: { path: '^src/' },
      to: { path: '^(test|support|bench|scripts)/|^records/(test|scripts|bench)/' },
    },
    {
      name: 'tooling-not-to-tests',
      severity: 'error',
      comment: 'Scripts and benches share helpers with the tests through support/, never through test/.',
      from: { path: '^(support|bench|scripts)/' },
      to: { path: '^test/' },
    },
    {
      name: 'records-alone',
      severity: 'error',
      comment: 'The codec is a package of its own: it imports nothing of the service and has no runtime dependency.',
      from: { path: RECORDS },
      to: { path: '^(src|test|support|bench|scripts|bin|sdk|examples|node_modules)/' },
    },
    {
      name: 'records-tooling-alone',
      severity: 'error',
      comment:
        "The package's tests, scripts and benches use its own files and dev dependencies, nothing of the service.",
      from: { path: '^records/(test|scripts|bench)/' },
      to: { path: '^(src|test|support|bench|scripts|bin|sdk|examples)/' },
    },
    {
      name: 'records-through-its-exports',
      severity: 'error',
      comment: 'The service uses the codec as any other project would: through @corebridge/records and its ./cli.',
      from: { pathNot: '^records/' },
      to: { path: '^records/', pathNot: '^records/src/(index|cli|dataset/index)[.]ts$' },
    },
    {
      name: 'shared-below-all',
      severity: 'error',
      comment: "Shared modules serve every layer and use none above them (the copybooks' record types aside).",
      from: { path: SHARED },
      to: { path: above(ENTRY, HTTP, SERVICES, TRANSPORT, BACKEND), pathNot: '^src/backend/copybooks/' },
    },
    {
      name: 'backend-below-transport',
      severity: 'error',
      comment: 'The back-end knows nothing of how calls reach it.',
      from: { path: BACKEND },
      to: { path: above(ENTRY, HTTP, SERVICES, TRANSPORT) },
    },
    {
      name: 'transport-below-services',
      severity: 'error',
      comment: 'The transport carries bytes for any caller.',
      from: { path: TRANSPORT },
      to: { path: above(ENTRY, HTTP, SERVICES) },
    },
    {
      name: 'services-below-http',
      severity: 'error',
      comment: 'The client, the resources, events and operations run without Fastify: no route, plugin or page.',
      from: { path: SERVICES },
      to: { path: above(ENTRY, HTTP) },
    },
    {
      name: 'http-below-entry',
      severity: 'error',
      comment: 'The API and the identity provider are wired by app.ts.',
      from: { path: HTTP },
      to: { path: ENTRY },
    },
    {
      name: 'api-apart-from-identity',
      severity: 'error',
      comment: 'The API and the embedded identity provider are siblings: what both need lives below them.',
      from: { path: '^src/api/' },
      to: { path: '^src/identity/' },
    },
    {
      name: 'identity-apart-from-api',
      severity: 'error',
      comment: 'The API and the embedded identity provider are siblings: what both need lives below them.',
      from: { path: '^src/identity/' },
      to: { path: '^src/api/' },
    },
    {
      name: 'routes-apart',
      severity: 'error',
      comment: 'A route file uses resources and API helpers, not another route file.',
      from: { path: '^src/api/routes/([^/]+)[.]ts$' },
      to: { path: '^src/api/routes/', pathNot: ['^src/api/routes/$1[.]ts$', '^src/api/routes/common[.]ts$'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    combinedDependencies: false,
    // typebox publishes its entry points under the "import" condition only; @corebridge/records is read from its
    // sources under "corebridge-source", as tsconfig.json and .npmrc have Node and TypeScript do.
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['corebridge-source', 'import', 'require', 'node', 'default'],
    },
    exclude: { path: '^(node_modules|sdk/node_modules|records/node_modules|records/dist)/' },
  },
};
