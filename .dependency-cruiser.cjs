/**
 * The import rule of docs/ARCHITECTURE.md: a module under src/<layer>/ imports only from its
 * own layer and the layers below it. LAYERS lists them top to bottom; every upward import is
 * an error, and so is an import of the RPC layer's forbidden neighbours (rpc defines backend
 * interfaces and never reaches into the chain, the app or the node that implement them).
 */
const LAYERS = ['cli', 'node', 'sync', 'p2p', 'rpc', 'trace', 'provider', 'chain', 'app', 'evm', 'config', 'store', 'log', 'util'];

const upward = LAYERS.slice(1).map((layer, i) => ({
  name: `no-upward-import-from-${layer}`,
  comment: `src/${layer} may import only from itself and the layers below it (${LAYERS.slice(i + 2).join(', ')})`,
  severity: 'error',
  from: { path: `^src/${layer}/` },
  to: { path: `^src/(${LAYERS.slice(0, i + 1).join('|')})/` },
}));

module.exports = {
  forbidden: [
    ...upward,
    {
      name: 'rpc-defines-backends',
      comment: 'src/rpc defines the backend interfaces the node implements; it never imports the chain or the app',
      severity: 'error',
      from: { path: '^src/rpc/' },
      to: { path: '^src/(chain|app)/' },
    },
    {
      name: 'one-native-loader',
      comment: 'only src/store/native.ts loads the native addon',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/store/native\\.ts$' },
      to: { path: '\\.node$' },
    },
    {
      name: 'no-unresolvable-import',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
  },
};
