import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { differences, functionSources, generate, migratedFunctions } from '../../scripts/sql-functions.mjs'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))

/**
 * A plpgsql function is kept as source, one file a function in db/functions/, and a change of it is
 * a new migration written from that source (`npm run db:functions`), never an edit of a migration.
 * tests/db/function-sources.test.ts asks the database the same question.
 */
describe('the house: SQL functions kept as source', () => {
  it('has one source for every function the migrations define, each the definition they leave', () => {
    expect([...migratedFunctions(ROOT).keys()].sort()).toEqual([...functionSources(ROOT).keys()])
    const { changed, unsourced } = differences(ROOT)
    expect({ changed: changed.map(source => `${source.file} differs from the migrations: run npm run db:functions`), unsourced }).toEqual({ changed: [], unsourced: [] })
  })

  describe('in a copy of db/', () => {
    let root: string
    afterEach(() => { rmSync(root, { recursive: true, force: true }) })
    function copy (): string {
      root = mkdtempSync(join(tmpdir(), 'outbound-functions-'))
      for (const folder of ['db/functions', 'db/migrations']) cpSync(join(ROOT, folder), join(root, folder), { recursive: true })
      return root
    }
    const edit = (path: string, from: string, to: string) => {
      const text = readFileSync(path, 'utf8')
      expect(text).toContain(from)
      writeFileSync(path, text.replace(from, to))
    }

    it('finds a source edited without its migration, and writes that migration and its journal entry', () => {
      copy()
      const journal = () => JSON.parse(readFileSync(join(root, 'db/migrations/meta/_journal.json'), 'utf8')).entries
      const before = journal()
      const migrations = readdirSync(join(ROOT, 'db/migrations')).filter(name => name.endsWith('.sql'))
      edit(join(root, 'db/functions/messaging_limit_forget_old.sql'), 'BEGIN\n', 'BEGIN\n\t-- changed\n')
      expect(differences(root).changed.map(source => source.file)).toEqual(['db/functions/messaging_limit_forget_old.sql'])

      const written = generate(root)
      const last = before.at(-1)
      const tag = `${String(last.idx + 1).padStart(4, '0')}_messaging_limit_forget_old`
      expect(written).toBe(join(root, 'db/migrations', `${tag}.sql`))
      expect(journal()).toEqual([...before, { idx: last.idx + 1, version: last.version, when: last.when + 1000, tag, breakpoints: true }])
      expect(readFileSync(written!, 'utf8')).toContain(readFileSync(join(root, 'db/functions/messaging_limit_forget_old.sql'), 'utf8').trim())
      expect(differences(root)).toEqual({ changed: [], unsourced: [] })
      expect(generate(root)).toBeUndefined()
      // the migrations already applied somewhere are left as they were
      for (const name of migrations) expect(readFileSync(join(root, 'db/migrations', name), 'utf8')).toBe(readFileSync(join(ROOT, 'db/migrations', name), 'utf8'))
    })

    it('finds a function edited by hand in a migration, and a function without a source', () => {
      copy()
      edit(join(root, 'db/migrations/0019_messaging_limit_claim_plan.sql'), "interval '24 hours' > now()", "interval '25 hours' > now()")
      rmSync(join(root, 'db/functions/audit_log_append_only.sql'))
      const { changed, unsourced } = differences(root)
      expect(changed.map(source => source.file)).toEqual(['db/functions/messaging_limit_claim.sql'])
      expect(unsourced).toEqual(['audit_log_append_only'])
      expect(() => generate(root)).toThrow(/no source in db\/functions\/ for audit_log_append_only/)
    })
  })
})
