import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const CODE = ['src', 'plugins', 'routes', 'db'].flatMap(folder => filesUnder(join(ROOT, folder))).filter(file => /\.(ts|mjs|js)$/.test(file) && !file.includes('/dashboard/assets/'))
const text = (file: string) => readFileSync(join(ROOT, file), 'utf8')

describe('the house: one of each', () => {
  it('reads the code', () => {
    expect(CODE.length).toBeGreaterThan(200)
  })

  it('walks an error\'s causes in src/faults/causes.ts only', () => {
    // `causes(error)` and `findCause(error, predicate)`: one depth, one way to stop at a loop
    expect(CODE.filter(file => file !== 'src/faults/causes.ts' && /\.cause\b/.test(text(file)))).toEqual([])
  })

  it('classifies dependency errors in src/faults only', () => {
    // a SQLSTATE class or a connection code matched anywhere else is a second classification
    const classes = /\/\^\(?(08|22|23|40|53|54|55|57)\b|'(40001|40P01|55P03|57014)'|'ECONNREFUSED'.*'CONNECTION_CLOSED'|'CONNECTION_CLOSED'.*'ECONNREFUSED'/
    expect(CODE.filter(file => !file.startsWith('src/faults/') && classes.test(text(file)))).toEqual([])
  })

  it('names the sets of message statuses in src/resources/message-status.ts only', () => {
    // the open statuses, or the upstream's ladder, spelled out again as a list (in TypeScript or in SQL)
    const spelled = /[[(]'(pending|queued|sending)', '(pending|queued|sending)', '(pending|queued|sending)'[\])]|[[(]'sent', 'delivered', 'read'[\])]|\('delivered', 'read'\)/
    const elsewhere = CODE.filter(file => file !== 'src/resources/message-status.ts' && !file.startsWith('src/sandbox/emulator/') && !file.startsWith('db/'))
    expect(elsewhere.filter(file => spelled.test(text(file)))).toEqual([])
  })

  it('keeps the API\'s views of a record in src/resources, not in the store', () => {
    expect(CODE.filter(file => file.startsWith('src/store/') && /^export (function|const) (public\w+|\w+View)\b/m.test(text(file)))).toEqual([])
  })

  it('keeps no per-app state in a module of the store', () => {
    // a Set or Map made at module level is shared by every app a process builds (tests build many)
    const mutable = /^(export )?(const|let) \w+(: [^=]+)? = new (Set|Map|WeakMap|WeakSet|EventEmitter)\b/m
    expect(CODE.filter(file => file.startsWith('src/store/') && mutable.test(text(file)))).toEqual([])
  })
})

function filesUnder (folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true, recursive: true }).filter(entry => entry.isFile()).map(entry => relative(ROOT, join(entry.parentPath, entry.name)))
}
