import postgres from 'postgres'

/** Says once which database backend this run uses, and fails loudly when the configured PostgreSQL is unreachable. */
export default async function setup (): Promise<void> {
  const url = process.env.TEST_DATABASE_URL
  if (!url) {
    console.log('[outbound tests] database backend: PGlite in memory (set TEST_DATABASE_URL to run on PostgreSQL)')
    return
  }
  const admin = postgres(url, { max: 1, onnotice: () => {} })
  try {
    const [{ version }] = await admin`select version()`
    console.log(`[outbound tests] database backend: PostgreSQL at ${redact(url)} (${String(version).split(' ').slice(0, 2).join(' ')}), a fresh database per test file`)
  } catch (error) {
    throw new Error(`TEST_DATABASE_URL=${redact(url)} is unreachable: ${(error as Error).message}`)
  } finally {
    await admin.end()
  }
}

function redact (url: string): string {
  return url.replace(/\/\/([^:@/]+):[^@/]*@/, '//$1:***@')
}
