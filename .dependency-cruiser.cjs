// The layers of Stowage, lowest first; an import may only point down (or stay in its own
// folder). docs/architecture.md explains each layer. `npm run lint:layers` checks them and
// CI runs it as part of `npm test`.
//
//   1 domain                 pure functions, no I/O
//   2 resources, contracts   per-kind schemas and strategies; the wire contracts shared by
//                            the agent and the server (contracts/)
//   3 store                  the only code that speaks SQL
//   4 services, provisioners what a user may do; the in-tree storage plugins
//   5 transports, controllers, agent
//                            trpc/, kube/, http/; controllers/; agent/ (its own process)
//   6 composition            wiring/ (configuration, bootstrap, starting processes) and cli/
//   7 ui                     components/ and the Next.js app/ folder
//
// Beside them, the tools: bench/ and scripts/ sit above everything (they may import any
// layer, through its named functions) and nothing imports them (tests aside).
const layers = [
  { name: 'domain', path: '^server/domain/' },
  { name: 'resources', path: '^server/(resources|contracts)/' },
  { name: 'store', path: '^server/store/' },
  { name: 'services', path: '^server/(services|provisioners)/' },
  { name: 'transports', path: '^server/(trpc|kube|http|controllers|agent)/' },
  { name: 'composition', path: '^server/(wiring|cli)/' },
  { name: 'ui', path: '^(components|app)/' },
];

// Tests, fixtures and test helpers may reach across layers to set a scene.
const notTest = '(\\.test\\.tsx?$|/testing\\.ts$|/fixtures\\.ts$|/os-fake\\.ts$)';

// The kinds' TypeScript types are inferred from their zod schemas (resources/<kind>/schema.ts),
// and those schemas use domain's value checks (quantities, names). Domain's decisions are
// about those objects, so domain may NAME the kinds' types (a type-only import, erased at
// build) but never import a value from resources: one schema per kind, not a second one.
const kindShapes = '^server/resources/(types|[a-z-]+/schema)\\.ts$';

const upward = layers.slice(0, -1).map((layer, i) => ({
  name: `${layer.name}-imports-up`,
  severity: 'error',
  comment: `${layer.name} may import only the layers below it`,
  from: { path: layer.path, pathNot: notTest },
  to: {
    path: layers.slice(i + 1).map((l) => l.path).join('|'),
    ...(layer.name === 'domain' ? { pathNot: kindShapes } : {}),
  },
}));
upward.unshift({
  name: 'domain-imports-kind-values',
  severity: 'error',
  comment: 'domain may name the kinds types (import type) but import no value from resources',
  from: { path: layers[0].path, pathNot: notTest },
  to: { path: kindShapes, dependencyTypesNot: ['type-only'] },
});

module.exports = {
  forbidden: [
    ...upward,
    {
      name: 'no-cycles',
      severity: 'error',
      comment: 'a cycle makes two modules one; break it by moving the shared part down',
      from: { pathNot: notTest },
      to: { circular: true },
    },
    {
      name: 'services-not-provisioners',
      severity: 'error',
      comment: 'services and provisioners sit side by side: neither imports the other',
      from: { path: '^server/provisioners/', pathNot: notTest },
      to: { path: '^server/services/' },
    },
    {
      name: 'services-not-provisioners-either',
      severity: 'error',
      comment: 'services and provisioners sit side by side: neither imports the other',
      from: { path: '^server/services/', pathNot: notTest },
      to: { path: '^server/provisioners/' },
    },
    {
      name: 'ui-imports-router-types-domain-resources',
      severity: 'error',
      comment: 'the UI sees the server through the tRPC router\'s types, the shared domain and the kinds (resources) only',
      from: { path: '^(components|app)/', pathNot: notTest },
      to: { path: '^server/', pathNot: '^server/(domain|resources)/|^server/trpc/root\\.ts$' },
    },
    {
      name: 'ui-router-types-only',
      severity: 'error',
      comment: 'the UI names the router\'s types (import type); its code runs on the server',
      from: { path: '^(components|app)/', pathNot: notTest },
      to: { path: '^server/trpc/root\\.ts$', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'nothing-imports-the-tools',
      severity: 'error',
      comment: 'bench/ and scripts/ are tools above the app: nothing imports them (tests of them aside)',
      from: { pathNot: `^(bench|scripts)/|${notTest}` },
      to: { path: '^(bench|scripts)/' },
    },
    {
      name: 'tools-apart',
      severity: 'error',
      comment: 'the benches and the scripts do not import each other; shared parts go down into the app\'s layers',
      from: { path: '^(bench|scripts)/', pathNot: notTest },
      to: { path: '^(bench|scripts)/', pathNot: '^$1/' },
    },
    {
      name: 'agent-stands-alone',
      severity: 'error',
      comment: 'the node agent is its own process: it uses domain, resources, contracts and its own OS access only',
      from: { path: '^server/agent/', pathNot: notTest },
      to: { path: '^server/(store|services|provisioners|trpc|kube|http|controllers|wiring|cli)/' },
    },
    {
      name: 'transports-apart',
      severity: 'error',
      comment: 'tRPC, the REST API and the controllers do not import each other; shared parts go down a layer',
      from: { path: '^server/(trpc|kube|controllers)/', pathNot: notTest },
      to: { path: '^server/(trpc|kube|controllers)/', pathNot: '^server/$1/' },
    },
    {
      name: 'only-the-store-speaks-sql',
      severity: 'error',
      comment: 'SQL and database connections stay in the store: others call its named queries with the store or a store transaction (tests and their helpers may look inside)',
      from: { pathNot: `^(server/store|test)/|${notTest}` },
      to: { path: '^server/store/(pg|sql-handle)\\.ts$' },
    },
    {
      name: 'only-the-store-opens-postgres',
      severity: 'error',
      comment: 'a pg client or pool is the store\'s alone (the benches included); scripts/ may reach the Postgres of a topology it runs, test helpers a test database',
      from: { pathNot: `^(server/store|scripts|test|e2e)/|${notTest}` },
      to: { path: '(^|/)node_modules/pg/' },
    },
    {
      name: 'prisma-only-for-migrations',
      severity: 'error',
      comment: 'Prisma is the schema and migration tool; at run time the store reaches Postgres through one pg pool',
      from: { pathNot: '^(server/store/(migrate|prisma)\\.ts|prisma/|scripts/)' },
      to: { path: '((^|/)node_modules/@prisma/(client|adapter-pg)/|^server/store/(generated|prisma))' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(\\.next|\\.stowage|examples|server/store/generated)/' },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
