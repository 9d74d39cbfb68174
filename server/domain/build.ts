// Which code is running: the compiled build (dist/, scripts/build-server.mjs defines
// STOWAGE_COMPILED there) or the TypeScript sources (through tsx, vitest, Next), where the
// name is undeclared.
declare const STOWAGE_COMPILED: boolean | undefined;

export const compiledBuild: boolean = typeof STOWAGE_COMPILED !== 'undefined' && STOWAGE_COMPILED;
