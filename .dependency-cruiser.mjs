// Import rules of src/ (npm run lint:imports, part of npm test). The layers, lowest first, are drawn
// in docs/architecture.md; a module may import its own layer and the layers below, never above.
// The local service (src/local-service) stands apart: it uses the foundation and the document layer, and
// only the CLI (serve, connect) starts it.
/** Layers from the bottom up: each entry is the folders (or files) under src/ of one layer. */
export const LAYERS = [
  ['util', 'log', 'version\\.ts'],
  ['api', 'documents'],
  ['state'],
  ['manifest'],
  ['qa'],
  ['billing'],
  ['styles'],
  ['sync'],
  ['report', 'notify', 'memory', 'xliff', 'delivery'],
  ['web', 'watch', 'review'],
  ['cli'],
];

const inLayers = (layers) => `^src/(${layers.flat().join('|')})(/|$)`;

const layerRules = LAYERS.slice(0, -1).map((layer, i) => ({
  name: `layer-${layer.join('-').replace(/\\\\\.ts/g, '')}`,
  comment: `${layer.join(', ')} may not import a layer above it (${LAYERS.slice(i + 1)
    .flat()
    .join(', ')})`,
  severity: 'error',
  from: { path: inLayers([layer]) },
  to: { path: inLayers(LAYERS.slice(i + 1)) },
}));

export default {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'no module may import itself back through others (type-only imports count too)',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    ...layerRules,
    {
      name: 'nothing-imports-cli',
      comment: 'src/cli is the top: commands use every layer, nothing uses a command',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/cli/' },
      to: { path: '^src/cli/' },
    },
    {
      name: 'service-apart',
      comment: 'the local service is started by the CLI only; locsync itself talks to it over HTTP',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/(local-service|cli)/' },
      to: { path: '^src/local-service/' },
    },
    {
      name: 'service-uses-foundation-only',
      comment:
        'the local service uses the foundation, the API types and the document layer, nothing of the client',
      severity: 'error',
      from: { path: '^src/local-service/' },
      to: {
        path: '^src/',
        pathNot: `^src/(local-service|${LAYERS[0].join('|')}|${LAYERS[1].join('|')})(/|$)`,
      },
    },
    {
      name: 'documents-stand-alone',
      comment: 'the document layer knows no service, state or manifest: only itself and the foundation',
      severity: 'error',
      from: { path: '^src/documents/' },
      to: { path: '^src/', pathNot: `^src/(documents|${LAYERS[0].join('|')})(/|$)` },
    },
    {
      name: 'delivery-after-the-run',
      comment:
        'git delivery (src/delivery) works from what a run reported (its events) and git: no state, no service, no planner; only the CLI starts it',
      severity: 'error',
      from: { path: '^src/delivery/' },
      to: { path: '^src/(state|api|styles|sync/(plan|run|segments))/' },
    },
    {
      name: 'delivery-from-cli-only',
      comment: 'a commit is made by the command that ran (sync, watch), never from inside a run',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/(cli|delivery)/' },
      to: { path: '^src/delivery/' },
    },
    {
      name: 'not-to-unresolvable',
      comment: 'an import that does not resolve is a typo or a missing dependency',
      severity: 'error',
      from: { path: '^src/' },
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.js', '.mjs', '.cjs', '.json', '.d.ts'],
    },
  },
};
