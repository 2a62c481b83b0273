import { cpSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { PGlite } from '@electric-sql/pglite'

// PGlite's own start parameters (its defaults, fsync off included: PGlite always ran so) plus
// memory settings for a gateway's working set. Its defaults (a 160 MB shared_buffers, the rest
// sized for 100 connections) made an idle embedded gateway ~550 MB; bench/RESULTS.md has the figures.
const START_PARAMS = [
  '--single', '-F', '-O', '-j', '-c', 'search_path=public', '-c', 'exit_on_error=false', '-c', 'log_checkpoints=false',
  '-c', 'max_worker_processes=0', '-c', 'max_parallel_workers=0', '-c', 'max_parallel_workers_per_gather=0',
  '-c', 'io_method=sync', '-c', 'max_parallel_maintenance_workers=0',
  '-c', 'shared_buffers=8MB', '-c', 'wal_buffers=1MB', '-c', 'temp_buffers=1MB', '-c', 'max_connections=4'
]

// `npm start`'s build (src/build.mjs) leaves a migrated, empty cluster here: running initdb inside
// the server took ~4 s and left ~500 MB of WebAssembly memory behind that it never gave back. Beside
// it, the same cluster as a tarball for in-memory databases. Run from the sources (the tests), this
// file finds them in dist/, which the tests' global setup builds.
const TEMPLATE = [new URL('../pgdata-template', import.meta.url), new URL('../dist/pgdata-template', import.meta.url)]
  .map(url => fileURLToPath(url)).find(path => existsSync(join(path, 'PG_VERSION')))
const TEMPLATE_TARBALL = TEMPLATE && `${TEMPLATE}.tar`

/**
 * PGlite in DATA_DIR/pgdata (a new one starts as a copy of the build's template when there is one),
 * or in memory (loaded from the template's tarball when there is one: ~1.8 s against ~11 s for
 * initdb and the migrations, measured under load; `fromTemplate: false` starts empty).
 */
export function openEmbedded (dataDir: string | undefined, { fromTemplate = true } = {}): PGlite {
  if (dataDir === undefined) {
    const loadDataDir = fromTemplate && TEMPLATE_TARBALL && existsSync(TEMPLATE_TARBALL) ? new Blob([readFileSync(TEMPLATE_TARBALL)]) : undefined
    return new PGlite({ startParams: START_PARAMS, loadDataDir })
  }
  const directory = join(dataDir, 'pgdata')
  if (fromTemplate && TEMPLATE && !existsSync(directory)) {
    // copied aside, then renamed: a copy cut short must not pass for a database
    rmSync(`${directory}.new`, { recursive: true, force: true })
    cpSync(TEMPLATE, `${directory}.new`, { recursive: true })
    renameSync(`${directory}.new`, directory)
  }
  mkdirSync(directory, { recursive: true })
  return new PGlite(directory, { startParams: START_PARAMS })
}

/** Writes the on-disk cluster at `directory` as the tarball an in-memory database loads (the build's step). */
export async function writeTarball (directory: string, file: string): Promise<void> {
  const database = new PGlite(directory, { startParams: START_PARAMS })
  await database.waitReady
  const tarball = await database.dumpDataDir('none')
  await database.close()
  writeFileSync(file, new Uint8Array(await tarball.arrayBuffer()))
}
