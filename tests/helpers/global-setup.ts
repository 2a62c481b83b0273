import postgres from 'postgres'
// @ts-expect-error plain JavaScript without declarations (it runs before anything is built)
import { ensureBuilt } from '../../src/build.mjs'

/** Builds dist/ when stale; says once which database backend this run uses, and fails loudly when the configured PostgreSQL is unreachable. */
export default async function setup (): Promise<void> {
  // The tests run `outbound` and `npm run sandbox` from dist/: built once here, when the sources
  // changed, rather than by the first of many commands the test files start at once.
  ensureBuilt()
  const url = process.env.TEST_DATABASE_URL
  if (!url) {
    console.log('[outbound tests] database backend: PGlite in memory (set TEST_DATABASE_URL to run on PostgreSQL)')
    return
  }
  const admin = postgres(url, { max: 1, onnotice: () => {} })
  try {
    const [{ version }] = await admin`select version()`
    const pooler = process.env.TEST_PGBOUNCER_URL
    console.log(`[outbound tests] database backend: PostgreSQL at ${redact(url)} (${String(version).split(' ').slice(0, 2).join(' ')}), a fresh database per test file` +
      (pooler ? `, reached through the pooler at ${redact(pooler)} with DATABASE_POOL_MODE=transaction` : ''))
  } catch (error) {
    throw new Error(`TEST_DATABASE_URL=${redact(url)} is unreachable: ${(error as Error).message}`)
  } finally {
    await admin.end()
  }
}

function redact (url: string): string {
  return url.replace(/\/\/([^:@/]+):[^@/]*@/, '//$1:***@')
}
