import { cpSync, existsSync, mkdirSync, renameSync, rmSync } from 'node:fs'
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
// the server took ~4 s and left ~500 MB of WebAssembly memory behind that it never gave back.
const TEMPLATE = fileURLToPath(new URL('../pgdata-template', import.meta.url))

/** PGlite in DATA_DIR/pgdata (a new one starts as a copy of the build's template when there is one), or in memory. */
export function openEmbedded (dataDir: string | undefined): PGlite {
  if (dataDir === undefined) return new PGlite({ startParams: START_PARAMS })
  const directory = join(dataDir, 'pgdata')
  if (!existsSync(directory) && existsSync(join(TEMPLATE, 'PG_VERSION'))) {
    // copied aside, then renamed: a copy cut short must not pass for a database
    rmSync(`${directory}.new`, { recursive: true, force: true })
    cpSync(TEMPLATE, `${directory}.new`, { recursive: true })
    renameSync(`${directory}.new`, directory)
  }
  mkdirSync(directory, { recursive: true })
  return new PGlite(directory, { startParams: START_PARAMS })
}
