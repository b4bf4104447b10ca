/**
 * PGlite's module loader. The admin daemon's main thread only talks to the worker
 * (worker_client.ts) and never loads PGlite: importing it statically cost that thread some
 * 10 MiB of RSS for nothing, so every use goes through {@link loadPglite}.
 * @module
 */
type PgliteModule = typeof import("@electric-sql/pglite");
let pgliteModule: PgliteModule | undefined;

/**
 * PGlite's module, loaded at the first use. The admin daemon's main thread only talks to the
 * worker ({@link openPgliteInWorker}) and never loads it: importing it statically cost that
 * thread some 10 MiB of RSS (its JavaScript, about 4 MiB of V8 heap) for nothing.
 */
export async function loadPglite(): Promise<PgliteModule> {
  return pgliteModule ??= await import("@electric-sql/pglite");
}

/** PGlite's module if loaded already (the hot path takes it without an `await`). */
export function loadedPglite(): PgliteModule | undefined {
  return pgliteModule;
}
