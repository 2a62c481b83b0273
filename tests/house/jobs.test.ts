import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))

/** Every source file under the folders the app is made of. */
function sources (): Array<{ path: string, text: string }> {
  const files: string[] = []
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const full = join(dir, name)
      if (statSync(full).isDirectory()) walk(full)
      else if (/\.(ts|mjs|js|sql)$/.test(full)) files.push(full)
    }
  }
  for (const top of ['src', 'routes', 'plugins', 'scripts']) if (existsSync(join(ROOT, top))) walk(join(ROOT, top))
  return files.map(full => ({ path: relative(ROOT, full), text: readFileSync(full, 'utf8') }))
}

// SQL that names the table: read, written, locked or joined
const NAMES_JOBS = /\b(from|into|update|join|table|exists)\s+"?jobs"?\b/i

/**
 * One durable-work mechanism (docs/decisions/036-one-runner.md): the `jobs` table is the runner's.
 * Its SQL is in src/work/ (jobs.ts, the group leases); a store that writes jobs in its own
 * transaction calls src/work/jobs.ts's functions with that transaction. db/ (the schema, the
 * migrations) defines it.
 */
describe('the house: jobs only in src/work/', () => {
  const files = sources()

  it('reads the app\'s files', () => {
    expect(files.filter(file => file.path.startsWith('src/store/')).length).toBeGreaterThan(20)
    expect(files.some(file => file.path === 'src/work/jobs.ts' && NAMES_JOBS.test(file.text))).toBe(true)
  })

  it('no file outside src/work/ names the jobs table in SQL', () => {
    const naming = files.filter(file => !file.path.startsWith('src/work/') && NAMES_JOBS.test(file.text))
      .map(file => `${file.path}: ${file.text.split('\n').find(line => NAMES_JOBS.test(line))!.trim()}`)
    expect(naming).toEqual([])
  })

  it('the job SQL lives in src/work/: no src/store/jobs.ts, nothing imports it, nor a drain lease of its own', () => {
    expect(existsSync(join(ROOT, 'src/store/jobs.ts'))).toBe(false)
    expect(existsSync(join(ROOT, 'src/store/queue-drainers.ts'))).toBe(false)
    expect(files.filter(file => /['"][./]*(src\/)?store\/jobs\.js['"]|['"]\.\/jobs\.js['"]/.test(file.text) && !file.path.startsWith('src/work/')).map(file => file.path)).toEqual([])
  })

  it('only src/work/ leases, renews, completes or defers jobs: everything else enqueues, or is a task', () => {
    const settling = /jobSql\.(lease|lockReady|renew|complete|fail|release|defer|anyClaimable)\(/
    expect(files.filter(file => !file.path.startsWith('src/work/') && settling.test(file.text)).map(file => file.path)).toEqual([])
  })
})
