import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

/**
 * PGlite is a single-process database: two processes writing one data directory corrupt it.
 * Whoever opens the embedded database (server or CLI) holds this lock file until it closes.
 */
export class EmbeddedDatabaseBusyError extends Error {}

export interface EmbeddedLock { release(): void }

export function acquireEmbeddedLock (dataDir: string, holder: 'server' | 'cli'): EmbeddedLock {
  mkdirSync(dataDir, { recursive: true })
  const path = join(dataDir, 'outbound.lock')
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(path, JSON.stringify({ pid: process.pid, holder, since: new Date().toISOString() }), { flag: 'wx', mode: 0o600 })
      return { release: () => rmSync(path, { force: true }) }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
      const owner = readOwner(path)
      if (owner && isAlive(owner.pid)) {
        throw new EmbeddedDatabaseBusyError(
          `the embedded database in ${dataDir} is in use by a running ${owner.holder ?? 'process'} (pid ${owner.pid}); ` +
          'stop it first, or run the server and the CLI on PostgreSQL (DATABASE_URL) to use both at once')
      }
      rmSync(path, { force: true }) // left by a process that is gone
    }
  }
  throw new EmbeddedDatabaseBusyError(`could not lock the embedded database in ${dataDir}`)
}

function readOwner (path: string): { pid: number, holder?: string } | undefined {
  try {
    const owner = JSON.parse(readFileSync(path, 'utf8'))
    return Number.isInteger(owner.pid) ? owner : undefined
  } catch {
    return undefined
  }
}

function isAlive (pid: number): boolean {
  if (pid === process.pid) return true
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}
